//===- DeviceChoice.cpp - Which GPU a rank uses ---------------------------===//

#include "DeviceChoice.h"

#include <cerrno>
#include <climits>
#include <cstdlib>

std::optional<int> dtrt::localRankFromEnv(
    const std::function<const char *(const char *)> &getEnv) {
  for (const char *name :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const char *value = getEnv(name);
    if (!value || !*value)
      continue;
    char *end = nullptr;
    errno = 0;
    long rank = std::strtol(value, &end, 10);
    if (*end != '\0' || errno != 0 || rank < 0 || rank > INT_MAX)
      return std::nullopt;
    return static_cast<int>(rank);
  }
  return std::nullopt;
}

int dtrt::chooseDevice(int localRank, int deviceCount) {
  return deviceCount > 0 ? localRank % deviceCount : 0;
}
