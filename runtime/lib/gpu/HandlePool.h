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
#include <unordered_map>
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

} // namespace dtrt

#endif // DTRT_LIB_GPU_HANDLEPOOL_H
