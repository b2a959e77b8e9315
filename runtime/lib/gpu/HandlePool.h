//===- HandlePool.h - Reused CUDA handles and request tables ----*- C++ -*-===//
//
// Bookkeeping without CUDA calls (the callers pass the create and destroy
// functions), unit-tested in unittests/runtime.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_GPU_HANDLEPOOL_H
#define DTRT_LIB_GPU_HANDLEPOOL_H

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace dtrt {

/// A free list of handles (events) so that steps reuse them instead of
/// creating and destroying one per use.
template <typename Handle> class HandlePool {
public:
  /// Stores a free handle in `handle`, or one from `create(Handle &)` (which
  /// returns a dtrt status) when none is free.
  template <typename Create> int32_t acquire(Handle &handle, Create create) {
    if (!free.empty()) {
      handle = free.back();
      free.pop_back();
    } else {
      int32_t status = create(handle);
      if (status != 0)
        return status;
    }
    ++live;
    return 0;
  }

  /// Returns `handle` to the free list.
  void release(Handle handle) {
    free.push_back(handle);
    --live;
  }

  /// Destroys every free handle with `destroy(Handle)` (a dtrt status; the
  /// first failure is returned, the others are still destroyed).
  template <typename Destroy> int32_t drain(Destroy destroy) {
    int32_t status = 0;
    for (Handle handle : free) {
      int32_t destroyed = destroy(handle);
      if (status == 0)
        status = destroyed;
    }
    free.clear();
    return status;
  }

  /// Handles acquired and not released.
  int64_t inUse() const { return live; }
  /// Handles on the free list.
  size_t available() const { return free.size(); }

private:
  std::vector<Handle> free;
  int64_t live = 0;
};

/// Pending requests by handle (> 0, never reused within a process).
template <typename Request> class RequestTable {
public:
  /// Stores `request` and returns its new handle.
  int64_t add(Request request) {
    int64_t handle = next++;
    pending.emplace(handle, std::move(request));
    return handle;
  }

  /// Removes and returns the request of `handle`; none when it is unknown or
  /// was already taken.
  std::optional<Request> take(int64_t handle) {
    auto it = pending.find(handle);
    if (it == pending.end())
      return std::nullopt;
    Request request = std::move(it->second);
    pending.erase(it);
    return request;
  }

  /// Removes and returns every pending request.
  std::vector<Request> takeAll() {
    std::vector<Request> all;
    for (auto &entry : pending)
      all.push_back(std::move(entry.second));
    pending.clear();
    return all;
  }

  size_t size() const { return pending.size(); }

private:
  std::unordered_map<int64_t, Request> pending;
  int64_t next = 1;
};

/// Compute spans timed on the device: `open` pushes a span with the event
/// recorded where it begins, `close` pairs the innermost open span with the
/// event recorded where it ends and keeps it until `drain` hands the
/// finished spans over (once their events can be read). Spans nest.
template <typename Event> class DeviceSpanLog {
public:
  struct Span {
    std::string name;
    Event start{}, done{};
  };

  void open(std::string name, Event start) {
    opened.push_back({std::move(name), start, Event{}});
  }

  /// Closes the innermost open span with `done`; false if none is open.
  bool close(Event done) {
    if (opened.empty())
      return false;
    Span span = std::move(opened.back());
    opened.pop_back();
    span.done = done;
    finished.push_back(std::move(span));
    return true;
  }

  /// Calls `record(const Span &)` (a dtrt status) on every finished span in
  /// the order they closed and forgets them; the first failure is returned,
  /// the other spans are still handed over.
  template <typename Record> int32_t drain(Record record) {
    std::vector<Span> spans;
    spans.swap(finished);
    int32_t status = 0;
    for (const Span &span : spans) {
      int32_t recorded = record(span);
      if (status == 0)
        status = recorded;
    }
    return status;
  }

  /// Hands the events of the spans still open to `release(Event)` and
  /// forgets them (a finalised backend).
  template <typename Release> void abandonOpen(Release release) {
    for (Span &span : opened)
      release(span.start);
    opened.clear();
  }

  size_t openCount() const { return opened.size(); }
  size_t finishedCount() const { return finished.size(); }

private:
  std::vector<Span> opened, finished;
};

} // namespace dtrt

#endif // DTRT_LIB_GPU_HANDLEPOOL_H
