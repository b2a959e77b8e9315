//===- Tracing.h - Per-rank timing spans ------------------------*- C++ -*-===//
//
// Spans are kept in memory per rank and written by dtrt_trace_write as
// Chrome/Perfetto trace JSON.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_TRACING_H
#define DTRT_LIB_TRACING_H

#include <cstdint>

namespace dtrt {

/// Returns microseconds since dtrt_init (MPI_Wtime based).
double nowUs();

/// Records a finished span when recording is on. `bytes` < 0 means the span
/// has no collective arguments. `blockedUs` is how long the calling thread
/// waited for a collective (its exposed time): the whole span for a
/// synchronous one (when negative), the time inside dtrt_wait for an
/// asynchronous one.
void recordSpan(const char *name, int32_t kind, double startUs, double endUs,
                int64_t bytes = -1, uint64_t axesMask = 0,
                double blockedUs = -1.0);

/// Drops every recorded and open span.
void clearTrace();

/// Sets the function dtrt_trace_write calls first, so that a backend whose
/// spans are timed on the device (CUDA events) records the finished ones.
void setPendingSpanFlusher(void (*flush)());

/// Times compute spans on a device whose work the host only enqueues (the
/// CUDA compute stream): `begin(name)` and `end()` (dtrt statuses) mark the
/// span's edges on the device's timeline, and the backend records the
/// finished spans with `recordSpan` when the pending-span flusher runs. Host
/// times would measure the enqueueing, not the work.
struct DeviceSpanTimer {
  int32_t (*begin)(const char *name);
  int32_t (*end)();
};

/// Sets (or, with null, clears) the timer of compute spans; spans opened
/// under a timer are closed by it.
void setDeviceSpanTimer(const DeviceSpanTimer *timer);

/// Records a comm span around a synchronous collective.
class CommSpan {
public:
  CommSpan(const char *name, int64_t bytes, uint64_t axesMask)
      : name(name), bytes(bytes), axesMask(axesMask), startUs(nowUs()) {}
  ~CommSpan();
  CommSpan(const CommSpan &) = delete;
  CommSpan &operator=(const CommSpan &) = delete;

private:
  const char *name;
  int64_t bytes;
  uint64_t axesMask;
  double startUs;
};

} // namespace dtrt

#endif // DTRT_LIB_TRACING_H
