//===- Requests.h - Handles of asynchronous collectives ---------*- C++ -*-===//

#ifndef DTRT_LIB_REQUESTS_H
#define DTRT_LIB_REQUESTS_H

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace dtrt {

/// An asynchronous collective that dtrt_wait completes.
struct PendingRequest {
  MPI_Request request = MPI_REQUEST_NULL;
  /// For DTRT_AVG: the `avgCount` elements at `avgOut` are divided by
  /// `avgDivisor` once the sum arrived.
  void *avgOut = nullptr;
  int64_t avgCount = 0;
  int32_t dtype = 0;
  int64_t avgDivisor = 1;
  /// Input copy kept alive until completion (in-place all_to_all).
  std::vector<char> scratch;
  /// The comm span: name, start time and arguments.
  const char *name = "";
  double startUs = 0.0;
  int64_t bytes = 0;
  uint64_t axesMask = 0;
};

/// Takes ownership of a started request and returns its handle (> 0).
int64_t addRequest(PendingRequest &&request);

/// Completes every request that was never waited on (at finalisation);
/// `pending` is set to their number.
int32_t completeAllRequests(int64_t &pending);

} // namespace dtrt

#endif // DTRT_LIB_REQUESTS_H
