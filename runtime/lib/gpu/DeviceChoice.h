//===- DeviceChoice.h - Which GPU a rank uses -------------------*- C++ -*-===//
//
// One process per GPU: the node-local rank modulo the device count. Pure,
// unit-tested in unittests/runtime.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_GPU_DEVICECHOICE_H
#define DTRT_LIB_GPU_DEVICECHOICE_H

#include <functional>
#include <optional>

namespace dtrt {

/// The node-local rank the launcher exported: OMPI_COMM_WORLD_LOCAL_RANK
/// (Open MPI), MPI_LOCALRANKID (MPICH/Hydra), SLURM_LOCALID (srun), the first
/// one set; none when no variable is set or it is not a non-negative integer.
/// `getEnv` is std::getenv outside tests.
std::optional<int>
localRankFromEnv(const std::function<const char *(const char *)> &getEnv);

/// The device of the rank with node-local rank `localRank` among
/// `deviceCount` > 0 devices.
int chooseDevice(int localRank, int deviceCount);

} // namespace dtrt

#endif // DTRT_LIB_GPU_DEVICECHOICE_H
