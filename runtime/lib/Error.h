//===- Error.h - Status codes and the last error message --------*- C++ -*-===//
//
// Every failing runtime call goes through `fail` (or `mpiFail`), which stores
// the message returned by dtrt_last_error() and, in abort-on-error mode,
// aborts every rank.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_ERROR_H
#define DTRT_LIB_ERROR_H

#include "dtrt/dtrt.h"

#include <cstdint>
#include <string>

namespace dtrt {

/// Records `message` as the last error and returns `status`; aborts instead
/// when abort-on-error is enabled.
int32_t fail(int32_t status, std::string message);

/// Records "<call>: <MPI error string>" for the MPI return code `rc` and
/// returns DTRT_ERR_MPI.
int32_t mpiFail(const char *call, int rc);

/// Returns the MPI library's message for the return code `rc`.
std::string mpiErrorString(int rc);

} // namespace dtrt

/// Runs the MPI call `fn(args...)` and returns from the enclosing function
/// with DTRT_ERR_MPI when it fails; the message names `fn`.
#define DTRT_MPI_CHECK(fn, ...)                                                \
  do {                                                                         \
    int dtrtRc_ = fn(__VA_ARGS__);                                             \
    if (dtrtRc_ != MPI_SUCCESS)                                                \
      return ::dtrt::mpiFail(#fn, dtrtRc_);                                    \
  } while (false)

/// Returns from the enclosing function with the status of `expr` unless it
/// is DTRT_OK.
#define DTRT_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    int32_t dtrtStatus_ = (expr);                                              \
    if (dtrtStatus_ != DTRT_OK)                                                \
      return dtrtStatus_;                                                      \
  } while (false)

#endif // DTRT_LIB_ERROR_H
