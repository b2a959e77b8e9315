//===- gemm_bench.cpp - dtrt_cublaslt_matmul against cuBLAS directly ------===//
//
// Run by scripts/gpu-check.sh (and bench/gemm_cublas.sh). For each shape:
// the runtime's GEMM (dtrt_cublaslt_matmul: row-major, the heuristic's
// algorithm cached per shape, the compute stream), as compiled programs call
// it, next to cublasGemmEx on the same buffers (the column-major form of the
// same row-major product, CUBLAS_GEMM_DEFAULT). Both are timed with CUDA
// events over --iters calls after a warm-up; prints one table row per shape:
//   gemm <dtype> MxNxK  dtrt_ms  cublas_ms  dtrt_tflops  cublas_tflops  ratio
// and checks the two results against each other (max relative difference).
// Exits 2 with one message when there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_cuda.h"
#include "dtrt/dtrt_float16.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void check(bool ok, const std::string &what) {
  if (ok)
    return;
  std::fprintf(stderr, "gemm_bench: %s failed (%s)\n", what.c_str(),
               dtrt_last_error());
  std::exit(1);
}

struct Shape {
  int32_t dtype;
  int64_t m, n, k;
};

const char *dtypeName(int32_t dtype) {
  return dtype == DTRT_BF16 ? "bf16" : dtype == DTRT_F16 ? "f16" : "f32";
}

int64_t elementBytes(int32_t dtype) { return dtype == DTRT_F32 ? 4 : 2; }

cudaDataType_t cudaType(int32_t dtype) {
  return dtype == DTRT_BF16  ? CUDA_R_16BF
         : dtype == DTRT_F16 ? CUDA_R_16F
                             : CUDA_R_32F;
}

/// A device buffer of `count` elements of `dtype` with small values.
void *randomDevice(int32_t dtype, int64_t count, int salt) {
  std::vector<uint16_t> halves;
  std::vector<float> floats(count);
  for (int64_t i = 0; i < count; ++i)
    floats[i] = static_cast<float>((i * 31 + salt * 7) % 17 - 8) / 16.0f;
  const void *host = floats.data();
  if (dtype != DTRT_F32) {
    halves.resize(count);
    for (int64_t i = 0; i < count; ++i)
      halves[i] = dtype == DTRT_BF16 ? dtrt_float_to_bf16(floats[i])
                                     : dtrt_float_to_f16(floats[i]);
    host = halves.data();
  }
  void *device = nullptr;
  int64_t bytes = count * elementBytes(dtype);
  check(dtrt_cuda_alloc(&device, bytes) == DTRT_OK, "dtrt_cuda_alloc");
  check(dtrt_cuda_copy_to_device(device, host, bytes) == DTRT_OK, "copy");
  return device;
}

std::vector<float> toHost(int32_t dtype, const void *device, int64_t count) {
  std::vector<float> out(count);
  std::vector<uint16_t> halves(count);
  void *host = dtype == DTRT_F32 ? static_cast<void *>(out.data())
                                 : static_cast<void *>(halves.data());
  check(dtrt_cuda_copy_to_host(host, device, count * elementBytes(dtype)) ==
            DTRT_OK,
        "copy");
  if (dtype != DTRT_F32)
    for (int64_t i = 0; i < count; ++i)
      out[i] = dtype == DTRT_BF16 ? dtrt_bf16_to_float(halves[i])
                                  : dtrt_f16_to_float(halves[i]);
  return out;
}

/// Milliseconds per call of `call` over `iters` calls on `stream`.
template <typename Call>
double timeCalls(cudaStream_t stream, int iters, Call call) {
  for (int i = 0; i < 3; ++i)
    call();
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  cudaEventRecord(start, stream);
  for (int i = 0; i < iters; ++i)
    call();
  cudaEventRecord(end, stream);
  cudaEventSynchronize(end);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, end);
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  return ms / iters;
}

void runShape(const Shape &s, cublasHandle_t handle, cudaStream_t stream,
              int iters) {
  void *a = randomDevice(s.dtype, s.m * s.k, 1);
  void *b = randomDevice(s.dtype, s.k * s.n, 2);
  void *c = nullptr, *ref = nullptr;
  int64_t cBytes = s.m * s.n * elementBytes(s.dtype);
  check(dtrt_cuda_alloc(&c, cBytes) == DTRT_OK, "dtrt_cuda_alloc");
  check(dtrt_cuda_alloc(&ref, cBytes) == DTRT_OK, "dtrt_cuda_alloc");
  double dtrtMs = timeCalls(stream, iters, [&] {
    check(dtrt_cublaslt_matmul(s.dtype, s.dtype, 0, 0, 1, s.m, s.n, s.k, a, s.k,
                               0, b, s.n, 0, c, s.n, 0, 1.0f, 0.0f, nullptr,
                               DTRT_EPILOGUE_NONE) == DTRT_OK,
          "dtrt_cublaslt_matmul");
  });
  float alpha = 1.0f, beta = 0.0f;
  const char *tf32 = std::getenv("DTRT_ALLOW_TF32");
  cublasComputeType_t compute =
      s.dtype == DTRT_F32 && tf32 && std::strcmp(tf32, "1") == 0
          ? CUBLAS_COMPUTE_32F_FAST_TF32
          : CUBLAS_COMPUTE_32F;
  // Row-major C = A B is column-major C^T = B^T A^T.
  double cublasMs = timeCalls(stream, iters, [&] {
    cublasStatus_t status =
        cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b,
                     cudaType(s.dtype), s.n, a, cudaType(s.dtype), s.k, &beta,
                     ref, cudaType(s.dtype), s.n, compute, CUBLAS_GEMM_DEFAULT);
    check(status == CUBLAS_STATUS_SUCCESS, "cublasGemmEx");
  });
  std::vector<float> got = toHost(s.dtype, c, s.m * s.n);
  std::vector<float> want = toHost(s.dtype, ref, s.m * s.n);
  double maxRel = 0;
  for (size_t i = 0; i < got.size(); ++i)
    maxRel = std::max(maxRel, std::fabs(double(got[i]) - want[i]) /
                                  std::max(1.0, std::fabs(double(want[i]))));
  double flops = 2.0 * s.m * s.n * s.k;
  std::printf("gemm %-4s %5lldx%5lldx%5lld  %9.4f  %9.4f  %8.1f  %8.1f  %5.2f  "
              "%.1e\n",
              dtypeName(s.dtype), (long long)s.m, (long long)s.n,
              (long long)s.k, dtrtMs, cublasMs, flops / dtrtMs * 1e-9,
              flops / cublasMs * 1e-9, cublasMs / dtrtMs, maxRel);
  for (void *p : {a, b, c, ref})
    dtrt_cuda_free(p);
}

} // namespace

int main(int argc, char **argv) {
  int iters = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--iters") == 0)
      iters = std::max(1, std::atoi(argv[i + 1]));
  int32_t devices = 0;
  if (dtrt_cuda_device_count(&devices) != DTRT_OK) {
    std::fprintf(stderr, "gemm_bench: %s\n", dtrt_last_error());
    return 2;
  }
  check(dtrt_cuda_init() == DTRT_OK, "dtrt_cuda_init");
  void *stream = nullptr;
  check(dtrt_cuda_compute_stream(&stream) == DTRT_OK, "compute stream");
  int32_t device = 0;
  check(dtrt_cuda_device(&device) == DTRT_OK, "dtrt_cuda_device");
  check(cudaSetDevice(device) == cudaSuccess, "cudaSetDevice");
  cublasHandle_t handle;
  check(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  cublasSetStream(handle, static_cast<cudaStream_t>(stream));
  // The Block's GEMMs (batch 32 x seq 128 = 4096 rows, dim 512, hidden
  // 2048) and a large square one.
  std::vector<Shape> shapes = {
      {DTRT_BF16, 4096, 512, 512},  {DTRT_BF16, 4096, 2048, 512},
      {DTRT_BF16, 4096, 512, 2048}, {DTRT_BF16, 8192, 8192, 8192},
      {DTRT_F16, 8192, 8192, 8192}, {DTRT_F32, 4096, 2048, 512},
      {DTRT_F32, 8192, 8192, 8192}};
  std::printf("%-24s  %9s  %9s  %8s  %8s  %5s  %s\n", "gemm dtype MxNxK",
              "dtrt_ms", "cublas_ms", "dtrt_TF", "cublas_TF", "ratio",
              "max_rel_diff");
  for (const Shape &s : shapes)
    runShape(s, handle, static_cast<cudaStream_t>(stream), iters);
  cublasDestroy(handle);
  check(dtrt_cuda_finalize() == DTRT_OK, "dtrt_cuda_finalize");
  return 0;
}
