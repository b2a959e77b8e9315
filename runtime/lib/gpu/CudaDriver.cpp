//===- CudaDriver.cpp - The CUDA driver API loaded at run time ------------===//

#include "CudaDriver.h"

#include "../Error.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

using namespace dtrt;

namespace {
/// The outcome of the one attempt to open the driver.
struct LoadedDriver {
  CudaDriver api;
  int32_t status = DTRT_OK;
  std::string error;
};

/// Looks every entry point up through cuGetProcAddress; returns the name of
/// the first one missing, or "".
std::string lookUpEntryPoints(void *library, CudaDriver &api) {
  using GetProcAddress = decltype(&::cuGetProcAddress);
  auto getProcAddress =
      reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (!getProcAddress)
    return "cuGetProcAddress_v2";
  CUdriverProcAddressQueryResult found;
#define DTRT_CU_LOOKUP(fn)                                                     \
  if (getProcAddress(#fn, reinterpret_cast<void **>(&api.fn), CUDA_VERSION,    \
                     CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||   \
      !api.fn)                                                                 \
    return #fn;
  DTRT_FOR_EACH_CU_FUNCTION(DTRT_CU_LOOKUP)
#undef DTRT_CU_LOOKUP
  return "";
}

/// Whether `library` is the toolkit's link-time stub, whose every entry
/// point fails with CUDA_ERROR_STUB_LIBRARY (cuGetProcAddress included).
bool isStub(void *library) {
  auto init = reinterpret_cast<decltype(&::cuInit)>(dlsym(library, "cuInit"));
  return init && init(0) == CUDA_ERROR_STUB_LIBRARY;
}

LoadedDriver &loadOnce() {
  // Never destroyed: global destructors of kernel modules still call it.
  static LoadedDriver &loaded = *new LoadedDriver;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *path = std::getenv("DTRT_LIBCUDA");
    void *library =
        dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      loaded.status = DTRT_ERR_CUDA;
      loaded.error = "no CUDA driver (libcuda.so.1 not found)";
      return;
    }
    std::string missing = lookUpEntryPoints(library, loaded.api);
    if (!missing.empty() && isStub(library)) {
      loaded.status = DTRT_ERR_CUDA;
      loaded.error = "no CUDA driver (libcuda.so.1 is the toolkit's stub)";
    } else if (!missing.empty()) {
      loaded.status = DTRT_ERR_CUDA;
      loaded.error = "the CUDA driver has no entry point " + missing +
                     " (it is older than CUDA " +
                     std::to_string(CUDA_VERSION / 1000) + ")";
    }
  });
  return loaded;
}
} // namespace

int32_t dtrt::loadCudaDriver(const CudaDriver *&driver) {
  LoadedDriver &loaded = loadOnce();
  if (loaded.status != DTRT_OK)
    return fail(loaded.status, loaded.error);
  driver = &loaded.api;
  return DTRT_OK;
}

const CudaDriver *dtrt::cudaDriver() {
  LoadedDriver &loaded = loadOnce();
  return loaded.status == DTRT_OK ? &loaded.api : nullptr;
}

std::string dtrt::cudaErrorMessage(const char *call, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (const CudaDriver *api = cudaDriver()) {
    if (api->cuGetErrorName(result, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (api->cuGetErrorString(result, &text) != CUDA_SUCCESS)
      text = nullptr;
  }
  std::string message = std::string(call) + ": ";
  message += name ? name : "CUDA error " + std::to_string(result);
  if (text)
    message += std::string(": ") + text;
  return message;
}

int32_t dtrt::cudaFail(const char *call, CUresult result) {
  return fail(DTRT_ERR_CUDA, cudaErrorMessage(call, result));
}
