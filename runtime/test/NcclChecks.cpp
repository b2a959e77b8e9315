//===- NcclChecks.cpp - Checks of the NCCL backend ------------------------===//
//
// `dtrt_test nccl D0 [D1 ...]`: without a usable GPU, dtrt_nccl_init must
// fail with DTRT_ERR_CUDA and a message naming the CUDA call; with one GPU per
// rank, the device collectives are compared with host-computed values.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_float16.h"
#include "dtrt/dtrt_nccl.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int runNcclChecks(const std::vector<int64_t> &shape);

namespace {

void check(bool ok, const char *what) {
  if (ok)
    return;
  std::string message = std::string(what) + " failed: " + dtrt_last_error();
  dtrt_abort(message.c_str());
}

/// A device copy of `host`.
float *toDevice(const std::vector<float> &host) {
  void *device = nullptr;
  check(cudaMalloc(&device, host.size() * sizeof(float)) == cudaSuccess,
        "cudaMalloc");
  check(cudaMemcpy(device, host.data(), host.size() * sizeof(float),
                   cudaMemcpyHostToDevice) == cudaSuccess,
        "cudaMemcpy");
  return static_cast<float *>(device);
}

std::vector<float> toHost(const float *device, size_t count) {
  std::vector<float> host(count);
  check(cudaMemcpy(host.data(), device, count * sizeof(float),
                   cudaMemcpyDeviceToHost) == cudaSuccess,
        "cudaMemcpy");
  return host;
}

int64_t mismatches(const std::vector<float> &got,
                   const std::vector<float> &want) {
  int64_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i)
    wrong += got[i] != want[i];
  return wrong;
}

/// Device collectives over the world (whose group rank is the world rank).
int64_t runDeviceChecks(uint64_t worldMask, int64_t &checks) {
  const int64_t count = 1000;
  int32_t rank = dtrt_rank(), size = dtrt_world_size();
  std::vector<float> input(count * size);
  for (int64_t i = 0; i < count * size; ++i)
    input[i] = static_cast<float>(rank + i % 17);
  float *in = toDevice(input);
  float *out = toDevice(std::vector<float>(count * size));
  int64_t failures = 0;

  std::vector<float> sum(count * size), gathered;
  for (int64_t i = 0; i < count * size; ++i)
    sum[i] = static_cast<float>(size * (i % 17) + size * (size - 1) / 2);
  for (int32_t r = 0; r < size; ++r)
    for (int64_t i = 0; i < count; ++i)
      gathered.push_back(static_cast<float>(r + i % 17));

  check(dtrt_nccl_all_reduce(in, out, count, DTRT_F32, DTRT_SUM, worldMask) ==
            DTRT_OK,
        "dtrt_nccl_all_reduce");
  failures += mismatches(toHost(out, count),
                         std::vector<float>(sum.begin(), sum.begin() + count));
  int64_t request = 0;
  check(dtrt_nccl_all_reduce_start(in, out, count, DTRT_F32, DTRT_AVG,
                                   worldMask, &request) == DTRT_OK,
        "dtrt_nccl_all_reduce_start");
  check(dtrt_nccl_wait(request) == DTRT_OK, "dtrt_nccl_wait");
  check(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");
  std::vector<float> avg(sum.begin(), sum.begin() + count);
  for (float &v : avg)
    v /= static_cast<float>(size);
  failures += mismatches(toHost(out, count), avg);
  check(dtrt_nccl_all_gather(in, out, count, DTRT_F32, worldMask) == DTRT_OK,
        "dtrt_nccl_all_gather");
  failures += mismatches(toHost(out, count * size), gathered);
  check(dtrt_nccl_reduce_scatter(in, out, count, DTRT_F32, DTRT_SUM,
                                 worldMask) == DTRT_OK,
        "dtrt_nccl_reduce_scatter");
  failures += mismatches(toHost(out, count),
                         std::vector<float>(sum.begin() + rank * count,
                                            sum.begin() + (rank + 1) * count));
  // In place from the last rank, asynchronously: the compute stream waits.
  check(dtrt_nccl_broadcast_start(in, count, DTRT_F32, size - 1, worldMask,
                                  &request) == DTRT_OK,
        "dtrt_nccl_broadcast_start");
  check(dtrt_nccl_wait(request) == DTRT_OK, "dtrt_nccl_wait");
  check(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");
  std::vector<float> fromLast(gathered.end() - count, gathered.end());
  failures += mismatches(toHost(in, count), fromLast);
  checks += 5;
  cudaFree(in);
  cudaFree(out);
  return failures;
}

/// A sum all-reduce of 16-bit floats (bf16 or f16, converted by `store` and
/// `load`) over the world; small integers, so every sum is exact.
int64_t checkHalfAllReduce(int32_t dtype, uint16_t (*store)(float),
                           float (*load)(uint16_t), uint64_t worldMask) {
  const int64_t count = 300;
  int32_t rank = dtrt_rank(), size = dtrt_world_size();
  std::vector<uint16_t> host(count);
  for (int64_t i = 0; i < count; ++i)
    host[i] = store(static_cast<float>(rank + i % 13));
  void *device = nullptr;
  check(cudaMalloc(&device, count * 2) == cudaSuccess, "cudaMalloc");
  check(cudaMemcpy(device, host.data(), count * 2, cudaMemcpyHostToDevice) ==
            cudaSuccess,
        "cudaMemcpy");
  check(dtrt_nccl_all_reduce(device, device, count, dtype, DTRT_SUM,
                             worldMask) == DTRT_OK,
        "dtrt_nccl_all_reduce (16-bit)");
  check(cudaMemcpy(host.data(), device, count * 2, cudaMemcpyDeviceToHost) ==
            cudaSuccess,
        "cudaMemcpy");
  cudaFree(device);
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i)
    wrong += load(host[i]) !=
             static_cast<float>(size * (i % 13) + size * (size - 1) / 2);
  return wrong;
}

} // namespace

int runNcclChecks(const std::vector<int64_t> &shape) {
  check(dtrt_init(static_cast<int32_t>(shape.size()), shape.data()) == DTRT_OK,
        "dtrt_init");
  bool printer = dtrt_rank() == 0;
  uint64_t worldMask = (uint64_t(1) << shape.size()) - 1;
  float x = 1, y = 0;
  int32_t status = dtrt_nccl_all_reduce(&x, &y, 1, DTRT_F32, DTRT_SUM, 1);
  if (printer)
    std::printf("before init -> status %d: %s\n", status, dtrt_last_error());
  status = dtrt_nccl_init();
  if (status != DTRT_OK) {
    if (printer)
      std::printf("nccl: unavailable: status %d: %s\n", status,
                  dtrt_last_error());
    check(dtrt_finalize() == DTRT_OK, "dtrt_finalize");
    return status == DTRT_ERR_CUDA ? 0 : 1;
  }
  int64_t checks = 0;
  int64_t failures = runDeviceChecks(worldMask, checks);
  failures += checkHalfAllReduce(DTRT_BF16, dtrt_float_to_bf16,
                                 dtrt_bf16_to_float, worldMask);
  failures += checkHalfAllReduce(DTRT_F16, dtrt_float_to_f16, dtrt_f16_to_float,
                                 worldMask);
  checks += 2;
  check(dtrt_nccl_finalize() == DTRT_OK, "dtrt_nccl_finalize");
  int64_t total = 0;
  check(dtrt_all_reduce(&failures, &total, 1, DTRT_I64, DTRT_SUM, worldMask) ==
            DTRT_OK,
        "dtrt_all_reduce");
  if (printer)
    std::printf("nccl: %s %lld checks, %lld mismatches\n",
                total == 0 ? "PASS" : "FAIL", static_cast<long long>(checks),
                static_cast<long long>(total));
  check(dtrt_finalize() == DTRT_OK, "dtrt_finalize");
  return total == 0 ? 0 : 1;
}
