//===- CudaRuntime.cpp - Device choice, compute stream, device buffers ----===//

#include "dtrt/dtrt_cuda.h"

#include "CudaState.h"
#include "DeviceChoice.h"

#include "../Error.h"
#include "../Runtime.h"

#include <mpi.h>

#include <cstdlib>
#include <limits>
#include <string>

using namespace dtrt;

namespace {
/// The node-local rank: the launcher's variables, else the rank in a
/// shared-memory split of the runtime's world, else 0.
int32_t localRank(int &rank) {
  if (std::optional<int> fromEnv = localRankFromEnv(std::getenv)) {
    rank = *fromEnv;
    return DTRT_OK;
  }
  rank = 0;
  if (!runtime().initialised)
    return DTRT_OK;
  MPI_Comm node;
  DTRT_MPI_CHECK(MPI_Comm_split_type, runtime().world, MPI_COMM_TYPE_SHARED,
                 runtime().rank, MPI_INFO_NULL, &node);
  int rc = MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rc == MPI_SUCCESS ? DTRT_OK : mpiFail("MPI_Comm_rank", rc);
}

/// Loads and initialises the driver and counts the devices; none is an
/// error ("no CUDA device").
int32_t countDevices(int &count) {
  const CudaDriver *driver = nullptr;
  DTRT_RETURN_IF_ERROR(loadCudaDriver(driver));
  CUresult initialised = driver->cuInit(0);
  if (initialised == CUDA_ERROR_NO_DEVICE)
    return fail(DTRT_ERR_CUDA, "no CUDA device");
  if (initialised == CUDA_ERROR_STUB_LIBRARY)
    return fail(DTRT_ERR_CUDA,
                "no CUDA driver (libcuda.so.1 is the toolkit's stub)");
  if (initialised != CUDA_SUCCESS)
    return cudaFail("cuInit", initialised);
  DTRT_CU_CHECK(cuDeviceGetCount, &count);
  if (count == 0)
    return fail(DTRT_ERR_CUDA, "no CUDA device");
  return DTRT_OK;
}

/// Chooses the device and retains its primary context (the one the CUDA
/// runtime, NCCL and cuBLASLt use).
int32_t openDevice(CudaState &state) {
  int count = 0;
  DTRT_RETURN_IF_ERROR(countDevices(count));
  int rank = 0;
  DTRT_RETURN_IF_ERROR(localRank(rank));
  state.device = state.requestedDevice >= 0 ? state.requestedDevice
                                            : chooseDevice(rank, count);
  if (state.device >= count)
    return fail(DTRT_ERR_CUDA, "CUDA device " + std::to_string(state.device) +
                                   " requested but there are " +
                                   std::to_string(count));
  DTRT_CU_CHECK(cuDeviceGet, &state.handle, state.device);
  DTRT_CU_CHECK(cuDevicePrimaryCtxRetain, &state.context, state.handle);
  DTRT_CU_CHECK(cuCtxSetCurrent, state.context);
  return DTRT_OK;
}

/// Keeps freed pool memory for reuse: steps then allocate without the
/// driver returning memory to the system in between.
int32_t configurePool(CudaState &state) {
  CUmemoryPool pool;
  DTRT_CU_CHECK(cuDeviceGetDefaultMemPool, &pool, state.handle);
  cuuint64_t keep = std::numeric_limits<cuuint64_t>::max();
  DTRT_CU_CHECK(cuMemPoolSetAttribute, pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &keep);
  return DTRT_OK;
}

int32_t createTimingEvent(CUevent &event) {
  DTRT_CU_CHECK(cuEventCreate, &event, CU_EVENT_DEFAULT);
  return DTRT_OK;
}

int32_t destroyEvent(CUevent event) {
  DTRT_CU_CHECK(cuEventDestroy, event);
  return DTRT_OK;
}

int32_t checkBytes(const char *api, int64_t bytes, bool hasBuffers) {
  if (bytes < 0)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(api) + ": negative size " + std::to_string(bytes));
  if (bytes > 0 && !hasBuffers)
    return fail(DTRT_ERR_INVALID_ARGUMENT, std::string(api) + ": null buffer");
  return DTRT_OK;
}
} // namespace

CudaState &dtrt::cudaState() {
  // Never destroyed: global destructors of kernel modules still read it.
  static CudaState *state = new CudaState;
  return *state;
}

int32_t dtrt::ensureCudaInit() {
  CudaState &state = cudaState();
  if (state.initialised)
    return makeContextCurrent();
  DTRT_RETURN_IF_ERROR(openDevice(state));
  DTRT_RETURN_IF_ERROR(configurePool(state));
  DTRT_CU_CHECK(cuStreamCreate, &state.computeStream, CU_STREAM_NON_BLOCKING);
  state.initialised = true;
  return DTRT_OK;
}

int32_t dtrt::makeContextCurrent() {
  CUcontext current = nullptr;
  DTRT_CU_CHECK(cuCtxGetCurrent, &current);
  if (current != cudaState().context)
    DTRT_CU_CHECK(cuCtxSetCurrent, cudaState().context);
  return DTRT_OK;
}

void dtrt::abortOnError(const char *api, int32_t status) {
  if (status == DTRT_OK)
    return;
  std::string message = std::string(api) + ": " + dtrt_last_error();
  dtrt_abort(message.c_str());
}

extern "C" {

int32_t dtrt_cuda_init(void) { return ensureCudaInit(); }

int32_t dtrt_cuda_device_count(int32_t *count) {
  if (!count)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_cuda_device_count: count is null");
  int devices = 0;
  DTRT_RETURN_IF_ERROR(countDevices(devices));
  *count = devices;
  return DTRT_OK;
}

int32_t dtrt_cuda_finalize(void) {
  CudaState &state = cudaState();
  if (!state.initialised)
    return DTRT_OK;
  DTRT_RETURN_IF_ERROR(makeContextCurrent());
  DTRT_CU_CHECK(cuStreamSynchronize, state.computeStream);
  for (CUevent event : state.recorded.takeAll())
    state.timingEvents.release(event);
  DTRT_RETURN_IF_ERROR(state.timingEvents.drain(destroyEvent));
  DTRT_RETURN_IF_ERROR(state.plainEvents.drain(destroyEvent));
  DTRT_CU_CHECK(cuStreamDestroy, state.computeStream);
  state.computeStream = nullptr;
  state.initialised = false;
  DTRT_CU_CHECK(cuDevicePrimaryCtxRelease, state.handle);
  state.context = nullptr;
  return DTRT_OK;
}

int32_t dtrt_cuda_device(int32_t *device) {
  if (!device)
    return fail(DTRT_ERR_INVALID_ARGUMENT, "dtrt_cuda_device: device is null");
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  *device = cudaState().device;
  return DTRT_OK;
}

int32_t dtrt_cuda_compute_stream(void **stream) {
  if (!stream)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_cuda_compute_stream: stream is null");
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  *stream = cudaState().computeStream;
  return DTRT_OK;
}

int32_t dtrt_cuda_synchronize(void) {
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  DTRT_CU_CHECK(cuStreamSynchronize, cudaState().computeStream);
  return DTRT_OK;
}

int32_t dtrt_cuda_alloc(void **ptr, int64_t bytes) {
  DTRT_RETURN_IF_ERROR(checkBytes("dtrt_cuda_alloc", bytes, ptr));
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  *ptr = nullptr;
  if (bytes == 0)
    return DTRT_OK;
  CUdeviceptr device = 0;
  DTRT_CU_CHECK(cuMemAllocAsync, &device, static_cast<size_t>(bytes),
                cudaState().computeStream);
  *ptr = reinterpret_cast<void *>(device);
  return DTRT_OK;
}

int32_t dtrt_cuda_free(void *ptr) {
  if (!ptr)
    return DTRT_OK;
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  CUmemorytype type = CU_MEMORYTYPE_HOST;
  if (cudaDriver()->cuPointerGetAttribute(
          &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
          reinterpret_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS ||
      type != CU_MEMORYTYPE_DEVICE)
    return DTRT_OK;
  DTRT_CU_CHECK(cuMemFreeAsync, reinterpret_cast<CUdeviceptr>(ptr),
                cudaState().computeStream);
  return DTRT_OK;
}

int32_t dtrt_cuda_copy_to_device(void *dst, const void *src, int64_t bytes) {
  DTRT_RETURN_IF_ERROR(
      checkBytes("dtrt_cuda_copy_to_device", bytes, dst && src));
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  CUstream stream = cudaState().computeStream;
  DTRT_CU_CHECK(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst),
                reinterpret_cast<CUdeviceptr>(src), static_cast<size_t>(bytes),
                stream);
  DTRT_CU_CHECK(cuStreamSynchronize, stream);
  return DTRT_OK;
}

int32_t dtrt_cuda_copy_to_host(void *dst, const void *src, int64_t bytes) {
  DTRT_RETURN_IF_ERROR(checkBytes("dtrt_cuda_copy_to_host", bytes, dst && src));
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  CUstream stream = cudaState().computeStream;
  DTRT_CU_CHECK(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst),
                reinterpret_cast<CUdeviceptr>(src), static_cast<size_t>(bytes),
                stream);
  DTRT_CU_CHECK(cuStreamSynchronize, stream);
  return DTRT_OK;
}

int32_t dtrt_cuda_record(int64_t *event) {
  if (!event)
    return fail(DTRT_ERR_INVALID_ARGUMENT, "dtrt_cuda_record: event is null");
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  CudaState &state = cudaState();
  CUevent recorded = nullptr;
  DTRT_RETURN_IF_ERROR(state.timingEvents.acquire(recorded, createTimingEvent));
  CUresult result = cudaDriver()->cuEventRecord(recorded, state.computeStream);
  if (result != CUDA_SUCCESS) {
    state.timingEvents.release(recorded);
    return cudaFail("cuEventRecord", result);
  }
  *event = state.recorded.add(recorded);
  return DTRT_OK;
}

int32_t dtrt_cuda_elapsed_us(int64_t start, int64_t end, double *us) {
  if (!us)
    return fail(DTRT_ERR_INVALID_ARGUMENT, "dtrt_cuda_elapsed_us: us is null");
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  CudaState &state = cudaState();
  std::optional<CUevent> first = state.recorded.take(start);
  std::optional<CUevent> last = state.recorded.take(end);
  float ms = 0.0f;
  CUresult result = CUDA_SUCCESS;
  const char *call = "cuEventSynchronize";
  if (first && last) {
    result = cudaDriver()->cuEventSynchronize(*last);
    if (result == CUDA_SUCCESS) {
      call = "cuEventElapsedTime";
      result = cudaDriver()->cuEventElapsedTime(&ms, *first, *last);
    }
  }
  if (first)
    state.timingEvents.release(*first);
  if (last)
    state.timingEvents.release(*last);
  if (!first || !last)
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                "dtrt_cuda_elapsed_us: unknown or released event " +
                    std::to_string(first ? end : start));
  if (result != CUDA_SUCCESS)
    return cudaFail(call, result);
  *us = 1000.0 * ms;
  return DTRT_OK;
}

} // extern "C"
