/* A stand-in for libcuda.so.1 on machines without a GPU (opened through
 * DTRT_LIBCUDA by test/Runtime/cuda-fake.test): "device memory" is host
 * memory, streams run everything at once, and the one kernel it knows,
 * add_one(float *p, int n), runs on the host. It checks what the runtime
 * must get right without a GPU: every entry point found through
 * cuGetProcAddress, a context current before any module load, memory freed
 * only when it was allocated here, and at exit it reports its bookkeeping
 * ("fake-cuda: ...": streams, modules and allocations still live).
 */

#include <cuda.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 4096

static void *blocks[MAX_BLOCKS];
static int liveBlocks, streamsCreated, liveStreams, modulesLoaded;
static int contextCurrent, eventsCreated, liveEvents;
static double clockMs;

static int track(void *p) {
  for (int i = 0; i < MAX_BLOCKS; ++i)
    if (!blocks[i]) {
      blocks[i] = p;
      ++liveBlocks;
      return 1;
    }
  return 0;
}

static int untrack(void *p) {
  for (int i = 0; i < MAX_BLOCKS; ++i)
    if (blocks[i] == p) {
      blocks[i] = NULL;
      --liveBlocks;
      return 1;
    }
  return 0;
}

static int tracked(const void *p) {
  for (int i = 0; i < MAX_BLOCKS; ++i)
    if (blocks[i] && (const char *)p >= (const char *)blocks[i] &&
        (const char *)p < (const char *)blocks[i] + 1)
      return 1;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  if (getenv("FAKE_CUDA_REPORT"))
    fprintf(stderr,
            "fake-cuda: streams created %d, live %d; modules loaded %d; "
            "live allocations %d; live events %d of %d\n",
            streamsCreated, liveStreams, modulesLoaded, liveBlocks,
            liveEvents, eventsCreated);
}

/* With FAKE_CUDA_REPORT set, the calls that order matters for are printed
 * as they happen (stderr is unbuffered). */
static void trace(const char *call) {
  if (getenv("FAKE_CUDA_REPORT"))
    fprintf(stderr, "fake-cuda: call %s\n", call);
}

static CUresult fakeInit(unsigned flags) {
  trace("cuInit");
  return CUDA_SUCCESS;
}
static CUresult fakeGetErrorName(CUresult r, const char **s) {
  *s = r == CUDA_ERROR_INVALID_VALUE     ? "CUDA_ERROR_INVALID_VALUE"
       : r == CUDA_ERROR_INVALID_CONTEXT ? "CUDA_ERROR_INVALID_CONTEXT"
       : r == CUDA_ERROR_NOT_FOUND       ? "CUDA_ERROR_NOT_FOUND"
                                         : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
static CUresult fakeGetErrorString(CUresult r, const char **s) {
  *s = "fake driver error";
  return CUDA_SUCCESS;
}
static CUresult fakeDeviceGetCount(int *n) {
  const char *env = getenv("FAKE_CUDA_DEVICES");
  *n = env ? atoi(env) : 1;
  return CUDA_SUCCESS;
}
static CUresult fakeDeviceGet(CUdevice *d, int ordinal) {
  *d = ordinal;
  return CUDA_SUCCESS;
}
static CUresult fakePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  *c = (CUcontext)(uintptr_t)(0x1000 + d);
  return CUDA_SUCCESS;
}
static CUresult fakePrimaryCtxRelease(CUdevice d) { return CUDA_SUCCESS; }
static CUresult fakeCtxGetCurrent(CUcontext *c) {
  *c = contextCurrent ? (CUcontext)(uintptr_t)0x1000 : NULL;
  return CUDA_SUCCESS;
}
static CUresult fakeCtxSetCurrent(CUcontext c) {
  contextCurrent = c != NULL;
  return CUDA_SUCCESS;
}
static CUresult fakeDefaultMemPool(CUmemoryPool *p, CUdevice d) {
  *p = (CUmemoryPool)(uintptr_t)0x2000;
  return CUDA_SUCCESS;
}
static CUresult fakeMemPoolSetAttribute(CUmemoryPool p, CUmemPool_attribute a,
                                        void *v) {
  return CUDA_SUCCESS;
}
static CUresult fakeStreamCreate(CUstream *s, unsigned flags) {
  *s = (CUstream)malloc(1);
  ++streamsCreated;
  ++liveStreams;
  return CUDA_SUCCESS;
}
static CUresult fakeStreamDestroy(CUstream s) {
  free(s);
  --liveStreams;
  return CUDA_SUCCESS;
}
static CUresult fakeStreamSynchronize(CUstream s) { return CUDA_SUCCESS; }
static CUresult fakeStreamWaitEvent(CUstream s, CUevent e, unsigned f) {
  return CUDA_SUCCESS;
}
static CUresult fakeEventCreate(CUevent *e, unsigned flags) {
  *e = (CUevent)malloc(sizeof(double));
  ++eventsCreated;
  ++liveEvents;
  return CUDA_SUCCESS;
}
static CUresult fakeEventDestroy(CUevent e) {
  free(e);
  --liveEvents;
  return CUDA_SUCCESS;
}
static CUresult fakeEventRecord(CUevent e, CUstream s) {
  clockMs += 0.25; /* time passes between records */
  *(double *)e = clockMs;
  return CUDA_SUCCESS;
}
static CUresult fakeEventSynchronize(CUevent e) { return CUDA_SUCCESS; }
static CUresult fakeEventElapsedTime(float *ms, CUevent a, CUevent b) {
  *ms = (float)(*(double *)b - *(double *)a);
  return CUDA_SUCCESS;
}
static CUresult fakeMemAllocAsync(CUdeviceptr *p, size_t bytes, CUstream s) {
  void *block = malloc(bytes ? bytes : 1);
  if (!track(block))
    return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (CUdeviceptr)block;
  return CUDA_SUCCESS;
}
static CUresult fakeMemFreeAsync(CUdeviceptr p, CUstream s) {
  if (!untrack((void *)p))
    return CUDA_ERROR_INVALID_VALUE; /* not this driver's memory */
  free((void *)p);
  return CUDA_SUCCESS;
}
static CUresult fakeMemAllocManaged(CUdeviceptr *p, size_t bytes,
                                    unsigned flags) {
  return fakeMemAllocAsync(p, bytes, NULL);
}
static CUresult fakePointerGetAttribute(void *data,
                                        CUpointer_attribute attribute,
                                        CUdeviceptr p) {
  if (attribute != CU_POINTER_ATTRIBUTE_MEMORY_TYPE || !tracked((void *)p))
    return CUDA_ERROR_INVALID_VALUE;
  *(CUmemorytype *)data = CU_MEMORYTYPE_DEVICE;
  return CUDA_SUCCESS;
}
static CUresult fakeMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n,
                                CUstream st) {
  memcpy((void *)d, (const void *)s, n);
  return CUDA_SUCCESS;
}
static CUresult fakeMemsetD32Async(CUdeviceptr d, unsigned v, size_t n,
                                   CUstream s) {
  for (size_t i = 0; i < n; ++i)
    ((uint32_t *)d)[i] = v;
  return CUDA_SUCCESS;
}
static CUresult fakeMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n,
                                   CUstream s) {
  for (size_t i = 0; i < n; ++i)
    ((uint16_t *)d)[i] = v;
  return CUDA_SUCCESS;
}
static CUresult fakeModuleLoadData(CUmodule *m, const void *image) {
  /* A module belongs to the current context: loading before one is current
   * (from a global constructor) would be pitfall P6. */
  trace("cuModuleLoadData");
  if (!contextCurrent)
    return CUDA_ERROR_INVALID_CONTEXT;
  ++modulesLoaded;
  *m = (CUmodule)image;
  return CUDA_SUCCESS;
}
static CUresult fakeModuleLoadDataEx(CUmodule *m, const void *image,
                                     unsigned n, CUjit_option *o, void **v) {
  return fakeModuleLoadData(m, image);
}
static CUresult fakeModuleUnload(CUmodule m) {
  --modulesLoaded;
  return CUDA_SUCCESS;
}
static CUresult fakeModuleGetFunction(CUfunction *f, CUmodule m,
                                      const char *name) {
  if (strcmp(name, "add_one") != 0)
    return CUDA_ERROR_NOT_FOUND;
  *f = (CUfunction)(uintptr_t)0x3000;
  return CUDA_SUCCESS;
}
static CUresult fakeFuncSetAttribute(CUfunction f, CUfunction_attribute a,
                                     int v) {
  return CUDA_SUCCESS;
}
static CUresult fakeLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned smem, CUstream s,
                                 void **params, void **extra) {
  float *p = *(float **)params[0];
  int n = *(int *)params[1];
  for (long i = 0; i < (long)gx * bx && i < n; ++i)
    p[i] += 1.0f;
  return CUDA_SUCCESS;
}

static const struct {
  const char *name;
  void *function;
} kEntryPoints[] = {
    {"cuInit", (void *)fakeInit},
    {"cuGetErrorName", (void *)fakeGetErrorName},
    {"cuGetErrorString", (void *)fakeGetErrorString},
    {"cuDeviceGetCount", (void *)fakeDeviceGetCount},
    {"cuDeviceGet", (void *)fakeDeviceGet},
    {"cuDevicePrimaryCtxRetain", (void *)fakePrimaryCtxRetain},
    {"cuDevicePrimaryCtxRelease", (void *)fakePrimaryCtxRelease},
    {"cuCtxGetCurrent", (void *)fakeCtxGetCurrent},
    {"cuCtxSetCurrent", (void *)fakeCtxSetCurrent},
    {"cuDeviceGetDefaultMemPool", (void *)fakeDefaultMemPool},
    {"cuMemPoolSetAttribute", (void *)fakeMemPoolSetAttribute},
    {"cuStreamCreate", (void *)fakeStreamCreate},
    {"cuStreamDestroy", (void *)fakeStreamDestroy},
    {"cuStreamSynchronize", (void *)fakeStreamSynchronize},
    {"cuStreamWaitEvent", (void *)fakeStreamWaitEvent},
    {"cuEventCreate", (void *)fakeEventCreate},
    {"cuEventDestroy", (void *)fakeEventDestroy},
    {"cuEventRecord", (void *)fakeEventRecord},
    {"cuEventSynchronize", (void *)fakeEventSynchronize},
    {"cuEventElapsedTime", (void *)fakeEventElapsedTime},
    {"cuMemAllocAsync", (void *)fakeMemAllocAsync},
    {"cuMemFreeAsync", (void *)fakeMemFreeAsync},
    {"cuMemAllocManaged", (void *)fakeMemAllocManaged},
    {"cuPointerGetAttribute", (void *)fakePointerGetAttribute},
    {"cuMemcpyAsync", (void *)fakeMemcpyAsync},
    {"cuMemsetD32Async", (void *)fakeMemsetD32Async},
    {"cuMemsetD16Async", (void *)fakeMemsetD16Async},
    {"cuModuleLoadData", (void *)fakeModuleLoadData},
    {"cuModuleLoadDataEx", (void *)fakeModuleLoadDataEx},
    {"cuModuleUnload", (void *)fakeModuleUnload},
    {"cuModuleGetFunction", (void *)fakeModuleGetFunction},
    {"cuFuncSetAttribute", (void *)fakeFuncSetAttribute},
    {"cuLaunchKernel", (void *)fakeLaunchKernel},
};

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status) {
  for (size_t i = 0; i < sizeof(kEntryPoints) / sizeof(kEntryPoints[0]); ++i)
    if (strcmp(symbol, kEntryPoints[i].name) == 0) {
      *pfn = kEntryPoints[i].function;
      if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  *pfn = NULL;
  if (status)
    *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
