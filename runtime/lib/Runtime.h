//===- Runtime.h - The process-wide runtime state ---------------*- C++ -*-===//

#ifndef DTRT_LIB_RUNTIME_H
#define DTRT_LIB_RUNTIME_H

#include "CommGroups.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dtrt {

/// What dtrt_init sets up; one per process.
struct Runtime {
  /// dtrt_init initialised MPI and dtrt_finalize must finalise it.
  bool ownsMpi = false;
  /// dtrt_init succeeded and dtrt_finalize was not called yet.
  bool initialised = false;
  /// A duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN.
  MPI_Comm world = MPI_COMM_NULL;
  /// This process's rank in `world`, and the number of ranks.
  int32_t rank = -1;
  int32_t worldSize = -1;
  /// The mesh axis sizes, and this rank's row-major coordinates on them.
  std::vector<int64_t> shape;
  std::vector<int64_t> coords;
  /// The mesh axis names for the trace (`dtrt_set_axis_names`); empty
  /// until set.
  std::vector<std::string> axisNames;
  /// The axis-group communicators.
  CommGroups groups;
  /// MPI_Wtime() right after the barrier of dtrt_init; trace time zero.
  double epoch = 0.0;
};

/// Returns the runtime state of this process.
Runtime &runtime();

/// Returns DTRT_OK when the runtime is initialised, otherwise records
/// "<caller>: the runtime is not initialised" and returns DTRT_ERR_STATE.
int32_t requireInit(const char *caller);

} // namespace dtrt

#endif // DTRT_LIB_RUNTIME_H
