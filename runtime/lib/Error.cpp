//===- Error.cpp - Status codes and the last error message ----------------===//

#include "Error.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
thread_local std::string lastError;

bool abortOnErrorFromEnv() {
  const char *value = std::getenv("DTRT_ABORT_ON_ERROR");
  return value && std::strcmp(value, "0") != 0 && *value != '\0';
}

bool abortOnError = abortOnErrorFromEnv();
} // namespace

int32_t dtrt::fail(int32_t status, std::string message) {
  lastError = std::move(message);
  if (abortOnError)
    dtrt_abort(lastError.c_str());
  return status;
}

std::string dtrt::mpiErrorString(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS)
    return "MPI error code " + std::to_string(rc);
  return std::string(text, length);
}

int32_t dtrt::mpiFail(const char *call, int rc) {
  return fail(DTRT_ERR_MPI, std::string(call) + ": " + mpiErrorString(rc));
}

extern "C" {

const char *dtrt_last_error(void) { return lastError.c_str(); }

int32_t dtrt_set_abort_on_error(int32_t enabled) {
  abortOnError = enabled != 0;
  return DTRT_OK;
}

void dtrt_abort(const char *msg) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  int rank = -1;
  if (initialised && !finalised)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "dtrt: rank %d: %s\n", rank, msg ? msg : "(null)");
  std::fflush(stderr);
  if (initialised && !finalised)
    MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

} // extern "C"
