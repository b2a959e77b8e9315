//===- CudaDriver.h - The CUDA driver API loaded at run time ----*- C++ -*-===//
//
// libdtrt never links libcuda: binaries that link it must start on machines
// without a driver. The driver is opened with dlopen("libcuda.so.1") on the
// first GPU call and every entry point is looked up with cuGetProcAddress
// for the CUDA version the runtime was compiled against.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_GPU_CUDADRIVER_H
#define DTRT_LIB_GPU_CUDADRIVER_H

#include <cuda.h>

#include <cstdint>
#include <string>

namespace dtrt {

/// Every driver entry point the runtime calls.
#define DTRT_FOR_EACH_CU_FUNCTION(X)                                           \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuDeviceGetDefaultMemPool)                                                 \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuMemAllocManaged)                                                         \
  X(cuPointerGetAttribute)                                                     \
  X(cuMemcpyAsync)                                                             \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)

/// The driver's entry points (cuda.h's prototypes, e.g. cuStreamDestroy is
/// cuStreamDestroy_v2).
struct CudaDriver {
#define DTRT_CU_FIELD(fn) decltype(&::fn) fn = nullptr;
  DTRT_FOR_EACH_CU_FUNCTION(DTRT_CU_FIELD)
#undef DTRT_CU_FIELD
};

/// Opens the driver on first use and sets `driver`. Fails with DTRT_ERR_CUDA
/// and "no CUDA driver (libcuda.so.1 not found)" when it cannot be opened,
/// or a message naming the missing entry point. The library is
/// $DTRT_LIBCUDA when set (for tests and unusual installs).
int32_t loadCudaDriver(const CudaDriver *&driver);

/// The driver once loadCudaDriver succeeded (null before).
const CudaDriver *cudaDriver();

/// "<call>: <CUDA error name>: <CUDA message>" for `result`.
std::string cudaErrorMessage(const char *call, CUresult result);

/// Records cudaErrorMessage(call, result) and returns DTRT_ERR_CUDA.
int32_t cudaFail(const char *call, CUresult result);

} // namespace dtrt

/// Calls the driver entry point `fn` (loaded) and returns DTRT_ERR_CUDA from
/// the enclosing function when it fails, naming `fn` and CUDA's message.
#define DTRT_CU_CHECK(fn, ...)                                                 \
  do {                                                                         \
    CUresult dtrtCuResult_ = ::dtrt::cudaDriver()->fn(__VA_ARGS__);            \
    if (dtrtCuResult_ != CUDA_SUCCESS)                                         \
      return ::dtrt::cudaFail(#fn, dtrtCuResult_);                             \
  } while (false)

#endif // DTRT_LIB_GPU_CUDADRIVER_H
