//===- CudaState.h - The process's device, context and stream ---*- C++ -*-===//
//
// Shared by the dtrt_cuda_* functions, the mgpu* entry points and cuBLASLt.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_GPU_CUDASTATE_H
#define DTRT_LIB_GPU_CUDASTATE_H

#include "CudaDriver.h"
#include "HandlePool.h"

#include <cstdint>
#include <string>

namespace dtrt {

/// What dtrt_cuda_init sets up; one per process.
struct CudaState {
  bool initialised = false;
  /// Set by mgpuSetDefaultDevice; otherwise the node-local rank's device.
  int requestedDevice = -1;
  int device = -1;
  CUdevice handle = 0;
  CUcontext context = nullptr;
  /// The runtime-owned stream of every launch, copy, allocation and GEMM.
  CUstream computeStream = nullptr;
  /// Events of mgpuEventCreate and dtrt_cuda_record.
  HandlePool<CUevent> timingEvents, plainEvents;
  RequestTable<CUevent> recorded;
};

/// The process's state.
CudaState &cudaState();

/// Loads the driver and initialises the device, context and compute stream
/// unless done already (dtrt_cuda_init).
int32_t ensureCudaInit();

/// Makes the runtime's context current on this thread.
int32_t makeContextCurrent();

/// For the mgpu* entry points, which cannot return a status: when `status`
/// is not DTRT_OK, prints "<api>: <dtrt_last_error()>" and aborts every rank.
void abortOnError(const char *api, int32_t status);

} // namespace dtrt

#endif // DTRT_LIB_GPU_CUDASTATE_H
