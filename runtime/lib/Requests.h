//===- Requests.h - Handles of asynchronous collectives ---------*- C++ -*-===//
//
// Started collectives wait in a table until dtrt_wait. OpenMPI advances a
// non-blocking collective only inside MPI calls, so the table is progressed
// by one of three engines (DTRT_PROGRESS): a thread that tests the pending
// requests (`thread`, needs MPI_THREAD_MULTIPLE), tests at the runtime's
// own calls (`test`: every `_start`, span and dtrt_progress call), or
// nothing until the wait (`none`).
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_REQUESTS_H
#define DTRT_LIB_REQUESTS_H

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace dtrt {

/// How pending requests make progress (see the file comment).
enum class ProgressMode { None = 0, Test = 1, Thread = 2 };

/// The mode DTRT_PROGRESS asks for (`thread` when unset); `invalid` is set
/// when the variable holds something else.
ProgressMode requestedProgressMode(bool &invalid);

/// Starts the progress engine in `mode` (dtrt_init, after MPI_Init_thread).
int32_t startProgress(ProgressMode mode);

/// The engine in use (valid between dtrt_init and dtrt_finalize).
ProgressMode progressMode();

/// Tests every pending request once (the `test` engine's step).
void progressPending();

/// An asynchronous collective that dtrt_wait completes.
struct PendingRequest {
  MPI_Request request = MPI_REQUEST_NULL;
  /// For DTRT_AVG: the `avgCount` elements at `avgOut` are divided by
  /// `avgDivisor` once the sum arrived.
  void *avgOut = nullptr;
  int64_t avgCount = 0;
  int32_t dtype = 0;
  int64_t avgDivisor = 1;
  /// Copy of the input, so that the caller may release it after the start.
  std::vector<char> scratch;
  /// The comm span: name, start time and arguments.
  const char *name = "";
  double startUs = 0.0;
  int64_t bytes = 0;
  uint64_t axesMask = 0;
  /// Set by the engine once MPI reports completion (or an error).
  bool done = false;
  double completedUs = 0.0;
  int mpiError = MPI_SUCCESS;
};

/// Takes ownership of a started request and returns its handle (> 0).
int64_t addRequest(PendingRequest &&request);

/// Completes every request that was never waited on and stops the progress
/// thread (at finalisation); `pending` is set to their number.
int32_t completeAllRequests(int64_t &pending);

} // namespace dtrt

#endif // DTRT_LIB_REQUESTS_H
