//===- DeviceCall.h - running the entry on a CUDA GPU -----------*- C++ -*-===//
//
// --backend cuda: one process per GPU. The launcher checks that there is a
// driver, enough devices and the GPU pipeline before it starts any rank;
// a rank initialises the runtime's CUDA part and NCCL, copies its inputs to
// the device, calls the entry compiled by dtensor-gpu-pipeline (arguments
// and results in device memory) and copies the results back.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_DEVICECALL_H
#define DTENSOR_TOOLS_DTENSOR_RUN_DEVICECALL_H

#include "HostArray.h"
#include "Options.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"

#include <vector>

namespace dtensor_run {

/// The pass pipeline that compiles a partitioned program for the GPU.
inline constexpr const char *kGpuPipeline =
    "dtensor-gpu-pipeline{partition=false}";

/// In the launcher: exits with one error when --backend cuda cannot run
/// here (no CUDA part in this build, no driver, no device, fewer devices
/// than ranks, no GPU pipeline registered).
void checkCudaBackend(const Options &options);

/// In a rank, after dtrt_init: chooses the device and creates the
/// communicators; exits with the runtime's message on failure.
void initCudaRank();

/// In a rank, before dtrt_finalize: destroys the NCCL communicators (the
/// CUDA part stays up: the JIT's kernel modules unload at exit).
void finalizeCudaRank();

/// Calls `entry` as callEntry does, with the inputs copied to the device
/// and the results (device memrefs) copied back. `seconds` is the fastest
/// call measured with CUDA events on the compute stream.
std::vector<HostArray>
callEntryOnDevice(mlir::ExecutionEngine &engine, llvm::StringRef entry,
                  const std::vector<HostArray> &inputs,
                  const std::vector<TensorLayout> &results, int iters,
                  double &seconds);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_DEVICECALL_H
