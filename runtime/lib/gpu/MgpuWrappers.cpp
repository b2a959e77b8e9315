//===- MgpuWrappers.cpp - The mgpu* ABI of MLIR's gpu-to-llvm lowering ----===//
//
// The entry points upstream's CudaRuntimeWrappers.cpp provides (Debian ships
// no libmlir_cuda_runtime.so), on the driver API loaded at run time. They
// differ from upstream where a multi-rank runtime needs it:
//  - mgpuModuleLoad runs from a global constructor, before the rank chose its
//    device: it records the image, and the first mgpuModuleGetFunction loads
//    it in the runtime's context;
//  - mgpuStreamCreate returns the runtime's compute stream;
//  - memory comes from the stream-ordered pool;
//  - a failure records dtrt_last_error and aborts every rank.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_cuda.h"

#include "CudaState.h"

#include "../Error.h"

#include <mutex>
#include <string>

using namespace dtrt;

namespace {
/// A kernel image, loaded on first use.
struct LazyModule {
  const void *image = nullptr;
  /// PTX is JIT-compiled at this level; -1 for cubin/fatbin images.
  int jitOptLevel = -1;
  CUmodule module = nullptr;
  std::once_flag loaded;
  int32_t status = DTRT_OK;
};

int32_t loadModule(LazyModule &lazy) {
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  if (lazy.jitOptLevel < 0) {
    DTRT_CU_CHECK(cuModuleLoadData, &lazy.module, lazy.image);
    return DTRT_OK;
  }
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {
      reinterpret_cast<void *>(static_cast<intptr_t>(lazy.jitOptLevel))};
  DTRT_CU_CHECK(cuModuleLoadDataEx, &lazy.module, lazy.image, 1, options,
                values);
  return DTRT_OK;
}

int32_t getFunction(LazyModule &lazy, const char *name, CUfunction &function) {
  std::call_once(lazy.loaded, [&lazy] { lazy.status = loadModule(lazy); });
  if (lazy.status != DTRT_OK)
    return fail(lazy.status, "the kernel image could not be loaded");
  DTRT_RETURN_IF_ERROR(makeContextCurrent());
  CUresult result =
      cudaDriver()->cuModuleGetFunction(&function, lazy.module, name);
  if (result != CUDA_SUCCESS)
    return fail(DTRT_ERR_CUDA, cudaErrorMessage("cuModuleGetFunction", result) +
                                   " (kernel " + name + ")");
  return DTRT_OK;
}

int32_t launch(CUfunction function, intptr_t gridX, intptr_t gridY,
               intptr_t gridZ, intptr_t blockX, intptr_t blockY,
               intptr_t blockZ, int32_t smem, CUstream stream, void **params,
               void **extra) {
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  // More than the default 48 KiB of dynamic shared memory is opt-in.
  if (smem > 48 * 1024)
    DTRT_CU_CHECK(cuFuncSetAttribute, function,
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
  DTRT_CU_CHECK(cuLaunchKernel, function, static_cast<unsigned>(gridX),
                static_cast<unsigned>(gridY), static_cast<unsigned>(gridZ),
                static_cast<unsigned>(blockX), static_cast<unsigned>(blockY),
                static_cast<unsigned>(blockZ), static_cast<unsigned>(smem),
                stream, params, extra);
  return DTRT_OK;
}

int32_t createPlainEvent(CUevent &event) {
  DTRT_CU_CHECK(cuEventCreate, &event, CU_EVENT_DISABLE_TIMING);
  return DTRT_OK;
}

int32_t allocate(uint64_t bytes, CUstream stream, bool hostShared, void *&ptr) {
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  CUdeviceptr device = 0;
  if (hostShared)
    DTRT_CU_CHECK(cuMemAllocManaged, &device, bytes, CU_MEM_ATTACH_GLOBAL);
  else
    DTRT_CU_CHECK(cuMemAllocAsync, &device, bytes, stream);
  ptr = reinterpret_cast<void *>(device);
  return DTRT_OK;
}

/// Runs the driver call `fn` for the mgpu entry point `api` after making the
/// runtime's context current; aborts on failure.
#define DTRT_MGPU_CALL(api, fn, ...)                                           \
  abortOnError(api, [&]() -> int32_t {                                         \
    DTRT_RETURN_IF_ERROR(ensureCudaInit());                                    \
    DTRT_CU_CHECK(fn, __VA_ARGS__);                                            \
    return DTRT_OK;                                                            \
  }())
} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  auto *lazy = new LazyModule;
  lazy->image = data;
  return lazy;
}

void *mgpuModuleLoadJIT(void *data, int optLevel, size_t /*assemblySize*/) {
  auto *lazy = new LazyModule;
  lazy->image = data;
  lazy->jitOptLevel = optLevel < 0 ? 0 : optLevel;
  return lazy;
}

void mgpuModuleUnload(void *module) {
  auto *lazy = static_cast<LazyModule *>(module);
  // From a global destructor: the context may be gone, so the result is
  // ignored (the driver frees the module with the context).
  if (lazy->module && cudaState().initialised)
    cudaDriver()->cuModuleUnload(lazy->module);
  delete lazy;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  abortOnError("mgpuModuleGetFunction",
               getFunction(*static_cast<LazyModule *>(module), name, function));
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  abortOnError("mgpuLaunchKernel",
               launch(static_cast<CUfunction>(function), gridX, gridY, gridZ,
                      blockX, blockY, blockZ, smem,
                      static_cast<CUstream>(stream), params, extra));
}

void *mgpuStreamCreate(void) {
  abortOnError("mgpuStreamCreate", ensureCudaInit());
  return cudaState().computeStream;
}

void mgpuStreamDestroy(void *stream) {
  if (stream == cudaState().computeStream)
    return;
  DTRT_MGPU_CALL("mgpuStreamDestroy", cuStreamDestroy,
                 static_cast<CUstream>(stream));
}

void mgpuStreamSynchronize(void *stream) {
  DTRT_MGPU_CALL("mgpuStreamSynchronize", cuStreamSynchronize,
                 static_cast<CUstream>(stream));
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  DTRT_MGPU_CALL("mgpuStreamWaitEvent", cuStreamWaitEvent,
                 static_cast<CUstream>(stream), static_cast<CUevent>(event), 0);
}

void *mgpuEventCreate(void) {
  CUevent event = nullptr;
  abortOnError("mgpuEventCreate", [&]() -> int32_t {
    DTRT_RETURN_IF_ERROR(ensureCudaInit());
    return cudaState().plainEvents.acquire(event, createPlainEvent);
  }());
  return event;
}

void mgpuEventDestroy(void *event) {
  cudaState().plainEvents.release(static_cast<CUevent>(event));
}

void mgpuEventSynchronize(void *event) {
  DTRT_MGPU_CALL("mgpuEventSynchronize", cuEventSynchronize,
                 static_cast<CUevent>(event));
}

void mgpuEventRecord(void *event, void *stream) {
  DTRT_MGPU_CALL("mgpuEventRecord", cuEventRecord, static_cast<CUevent>(event),
                 static_cast<CUstream>(stream));
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  void *ptr = nullptr;
  if (sizeBytes == 0)
    return ptr;
  abortOnError(
      "mgpuMemAlloc",
      allocate(sizeBytes, static_cast<CUstream>(stream), isHostShared, ptr));
  return ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  DTRT_MGPU_CALL("mgpuMemFree", cuMemFreeAsync,
                 reinterpret_cast<CUdeviceptr>(ptr),
                 static_cast<CUstream>(stream));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  DTRT_MGPU_CALL("mgpuMemcpy", cuMemcpyAsync,
                 reinterpret_cast<CUdeviceptr>(dst),
                 reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                 static_cast<CUstream>(stream));
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  DTRT_MGPU_CALL("mgpuMemset32", cuMemsetD32Async,
                 reinterpret_cast<CUdeviceptr>(dst), value, count,
                 static_cast<CUstream>(stream));
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  DTRT_MGPU_CALL("mgpuMemset16", cuMemsetD16Async,
                 reinterpret_cast<CUdeviceptr>(dst), value, count,
                 static_cast<CUstream>(stream));
}

void mgpuSetDefaultDevice(int32_t device) {
  cudaState().requestedDevice = device;
}

} // extern "C"
