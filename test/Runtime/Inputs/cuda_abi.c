/* A host program in C that calls every function of dtrt/dtrt_cuda.h, as the
 * code dtensor-gpu-pipeline emits does. Linked against libdtrt with
 * --no-undefined by test/Runtime/cuda-abi.test.
 *
 * Without a driver or device, dtrt_cuda_init fails with one message, the
 * other dtrt_cuda_* functions fail the same way and argument errors are
 * still diagnosed. With a GPU, every function is checked against host
 * values: copies, memsets, events, a JIT-compiled PTX kernel launched through
 * the mgpu* ABI, and cuBLASLt GEMMs (f32, bf16 with bias+relu, f16 batched
 * with a transposed operand). Prints "cuda: PASS <n> checks, 0 mismatches".
 * Under the stand-in driver of cuda-fake.test, the same without the GEMMs.
 */

#include "dtrt/dtrt_cuda.h"
#include "dtrt/dtrt_float16.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* add_one(float *p, int n): p[i] += 1 for i < n. */
static const char kAddOnePtx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry add_one(.param .u64 add_one_p, .param .u32 add_one_n)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<5>;\n"
    "  .reg .f32 %f<3>;\n"
    "  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [add_one_p];\n"
    "  ld.param.u32 %r2, [add_one_n];\n"
    "  mov.u32 %r3, %ctaid.x;\n"
    "  mov.u32 %r4, %ntid.x;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mad.lo.s32 %r1, %r3, %r4, %r1;\n"
    "  setp.ge.s32 %p1, %r1, %r2;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.s32 %rd3, %r1, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  ld.global.f32 %f1, [%rd4];\n"
    "  add.f32 %f2, %f1, 0f3F800000;\n"
    "  st.global.f32 [%rd4], %f2;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

static int checks = 0, mismatches = 0;

/* Registered before main, as the constructor that gpu-module-to-binary emits
 * does: before any device is chosen, so the runtime must only record it. */
static void *addOneModule;
__attribute__((constructor)) static void registerModule(void) {
  addOneModule =
      mgpuModuleLoadJIT((void *)kAddOnePtx, 2, sizeof(kAddOnePtx));
}

static void expect(int ok, const char *what) {
  ++checks;
  if (!ok) {
    ++mismatches;
    printf("mismatch: %s (%s)\n", what, dtrt_last_error());
  }
}

static float value(int64_t i, int salt) {
  return (float)((i * 7 + salt * 3) % 11 - 5) / 4.0f;
}

/* Row-major reference: C = op(A) op(B) (+ bias) (relu). */
static void reference(int transA, int transB, int64_t m, int64_t n, int64_t k,
                      const float *a, const float *b, const float *bias,
                      int relu, float *c) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        sum += (transA ? a[p * m + i] : a[i * k + p]) *
               (transB ? b[j * k + p] : b[p * n + j]);
      if (bias)
        sum += bias[j];
      c[i * n + j] = relu && sum < 0.0f ? 0.0f : sum;
    }
}

static void *toDevice(const void *host, int64_t bytes) {
  void *device = NULL;
  expect(dtrt_cuda_alloc(&device, bytes) == DTRT_OK, "dtrt_cuda_alloc");
  expect(dtrt_cuda_copy_to_device(device, host, bytes) == DTRT_OK,
         "dtrt_cuda_copy_to_device");
  return device;
}

/* bf16 GEMM 64x48x32 with bias and relu, bf16 output. */
static void checkBf16Gemm(void) {
  enum { M = 64, N = 48, K = 32 };
  static float a[M * K], b[K * N], bias[N], want[M * N];
  static uint16_t a16[M * K], b16[K * N], bias16[N], c16[M * N];
  for (int i = 0; i < M * K; ++i)
    a[i] = dtrt_bf16_to_float(a16[i] = dtrt_float_to_bf16(value(i, 1)));
  for (int i = 0; i < K * N; ++i)
    b[i] = dtrt_bf16_to_float(b16[i] = dtrt_float_to_bf16(value(i, 2)));
  for (int i = 0; i < N; ++i)
    bias[i] = dtrt_bf16_to_float(bias16[i] = dtrt_float_to_bf16(value(i, 3)));
  reference(0, 0, M, N, K, a, b, bias, 1, want);
  void *da = toDevice(a16, sizeof(a16)), *db = toDevice(b16, sizeof(b16));
  void *dbias = toDevice(bias16, sizeof(bias16)), *dc = NULL;
  expect(dtrt_cuda_alloc(&dc, sizeof(c16)) == DTRT_OK, "dtrt_cuda_alloc");
  expect(dtrt_cublaslt_matmul(DTRT_BF16, DTRT_BF16, 0, 0, 1, M, N, K, da, K, 0,
                              db, N, 0, dc, N, 0, 1.0f, 0.0f, dbias,
                              DTRT_EPILOGUE_BIAS_RELU) == DTRT_OK,
         "bf16 dtrt_cublaslt_matmul");
  expect(dtrt_cuda_copy_to_host(c16, dc, sizeof(c16)) == DTRT_OK,
         "dtrt_cuda_copy_to_host");
  int wrong = 0;
  for (int i = 0; i < M * N; ++i)
    wrong += fabsf(dtrt_bf16_to_float(c16[i]) - want[i]) >
             1e-2f * (1.0f + fabsf(want[i]));
  expect(wrong == 0, "bf16 GEMM + bias + relu against the host");
  dtrt_cuda_free(da);
  dtrt_cuda_free(db);
  dtrt_cuda_free(dbias);
  dtrt_cuda_free(dc);
}

/* f32 GEMM with a transposed B and beta = 1, then f16 batched with a
 * transposed A and f32 output. */
static void checkF32AndF16Gemms(void) {
  enum { M = 33, N = 17, K = 40, BATCH = 3 };
  static float a[M * K], bt[N * K], c[M * N], want[M * N];
  for (int i = 0; i < M * K; ++i)
    a[i] = value(i, 4);
  for (int i = 0; i < N * K; ++i)
    bt[i] = value(i, 5);
  reference(0, 1, M, N, K, a, bt, NULL, 0, want);
  for (int i = 0; i < M * N; ++i) {
    c[i] = value(i, 6);
    want[i] += 0.5f * c[i];
  }
  void *da = toDevice(a, sizeof(a)), *db = toDevice(bt, sizeof(bt));
  void *dc = toDevice(c, sizeof(c));
  expect(dtrt_cublaslt_matmul(DTRT_F32, DTRT_F32, 0, 1, 1, M, N, K, da, K, 0,
                              db, K, 0, dc, N, 0, 1.0f, 0.5f, NULL,
                              DTRT_EPILOGUE_NONE) == DTRT_OK,
         "f32 dtrt_cublaslt_matmul");
  expect(dtrt_cuda_copy_to_host(c, dc, sizeof(c)) == DTRT_OK, "copy");
  int wrong = 0;
  for (int i = 0; i < M * N; ++i)
    wrong += fabsf(c[i] - want[i]) > 1e-3f * (1.0f + fabsf(want[i]));
  expect(wrong == 0, "f32 GEMM (B transposed, beta 0.5) against the host");
  dtrt_cuda_free(da);
  dtrt_cuda_free(db);
  dtrt_cuda_free(dc);

  static float at[BATCH * K * M], b[BATCH * K * N], out[BATCH * M * N];
  static float wantBatch[BATCH * M * N];
  static uint16_t at16[BATCH * K * M], b16[BATCH * K * N];
  for (int i = 0; i < BATCH * K * M; ++i)
    at[i] = dtrt_f16_to_float(at16[i] = dtrt_float_to_f16(value(i, 7)));
  for (int i = 0; i < BATCH * K * N; ++i)
    b[i] = dtrt_f16_to_float(b16[i] = dtrt_float_to_f16(value(i, 8)));
  for (int i = 0; i < BATCH; ++i)
    reference(1, 0, M, N, K, at + i * K * M, b + i * K * N, NULL, 0,
              wantBatch + i * M * N);
  da = toDevice(at16, sizeof(at16));
  db = toDevice(b16, sizeof(b16));
  expect(dtrt_cuda_alloc(&dc, sizeof(out)) == DTRT_OK, "dtrt_cuda_alloc");
  expect(dtrt_cublaslt_matmul(DTRT_F16, DTRT_F32, 1, 0, BATCH, M, N, K, da, M,
                              K * M, db, N, K * N, dc, N, M * N, 1.0f, 0.0f,
                              NULL, DTRT_EPILOGUE_NONE) == DTRT_OK,
         "batched f16 dtrt_cublaslt_matmul");
  expect(dtrt_cuda_copy_to_host(out, dc, sizeof(out)) == DTRT_OK, "copy");
  wrong = 0;
  for (int i = 0; i < BATCH * M * N; ++i)
    wrong += fabsf(out[i] - wantBatch[i]) > 1e-3f * (1.0f + fabsf(wantBatch[i]));
  expect(wrong == 0, "batched f16 GEMM (A transposed) against the host");
  dtrt_cuda_free(da);
  dtrt_cuda_free(db);
  dtrt_cuda_free(dc);
}

/* The mgpu* ABI: memory, memsets, events and a kernel launch. */
static void checkMgpu(void) {
  enum { COUNT = 1000 };
  static float host[COUNT];
  static uint16_t halves[COUNT];
  void *stream = mgpuStreamCreate();
  void *compute = NULL;
  expect(dtrt_cuda_compute_stream(&compute) == DTRT_OK && stream == compute,
         "mgpuStreamCreate returns the compute stream");
  float *device = (float *)mgpuMemAlloc(COUNT * sizeof(float), stream, false);
  float one = 1.5f;
  uint32_t bits;
  memcpy(&bits, &one, sizeof(bits));
  mgpuMemset32(device, bits, COUNT, stream);
  void *function = mgpuModuleGetFunction(addOneModule, "add_one");
  int32_t n = COUNT;
  void *params[] = {&device, &n};
  mgpuLaunchKernel(function, (COUNT + 127) / 128, 1, 1, 128, 1, 1, 0, stream,
                   params, NULL, 2);
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  mgpuMemcpy(host, device, sizeof(host), stream);
  mgpuStreamSynchronize(stream);
  int wrong = 0;
  for (int i = 0; i < COUNT; ++i)
    wrong += host[i] != 2.5f;
  expect(wrong == 0, "memset32 + add_one kernel + memcpy");
  uint16_t *shorts = (uint16_t *)mgpuMemAlloc(sizeof(halves), stream, false);
  mgpuMemset16(shorts, dtrt_float_to_bf16(-3.0f), COUNT, stream);
  mgpuMemcpy(halves, shorts, sizeof(halves), stream);
  mgpuStreamSynchronize(stream);
  wrong = 0;
  for (int i = 0; i < COUNT; ++i)
    wrong += dtrt_bf16_to_float(halves[i]) != -3.0f;
  expect(wrong == 0, "memset16 + memcpy");
  mgpuMemFree(device, stream);
  mgpuMemFree(shorts, stream);
  mgpuStreamDestroy(stream); /* a no-op on the compute stream */
  mgpuModuleUnload(addOneModule);
}

/* Prints what `status` (just returned by `call`) and the message are. */
static void report(const char *call, int32_t status) {
  printf("%s -> status %d: %s\n", call, status, dtrt_last_error());
}

static int withoutDevice(int32_t status) {
  report("dtrt_cuda_init", status);
  void *ptr = NULL, *stream = NULL;
  int32_t device = -1;
  int32_t count = -1;
  report("dtrt_cuda_device_count", dtrt_cuda_device_count(&count));
  report("dtrt_cuda_alloc", dtrt_cuda_alloc(&ptr, 64));
  report("dtrt_cuda_compute_stream", dtrt_cuda_compute_stream(&stream));
  report("dtrt_cuda_device", dtrt_cuda_device(&device));
  report("matmul i32",
         dtrt_cublaslt_matmul(DTRT_I32, DTRT_I32, 0, 0, 1, 2, 2, 2, &device, 2,
                              0, &device, 2, 0, &device, 2, 0, 1.0f, 0.0f,
                              NULL, 0));
  report("matmul lda",
         dtrt_cublaslt_matmul(DTRT_BF16, DTRT_F32, 0, 0, 1, 4, 8, 16, &device,
                              8, 0, &device, 8, 0, &device, 8, 0, 1.0f, 0.0f,
                              NULL, 0));
  report("matmul bias",
         dtrt_cublaslt_matmul(DTRT_F16, DTRT_F16, 0, 0, 1, 2, 2, 2, &device, 2,
                              0, &device, 2, 0, &device, 2, 0, 1.0f, 0.0f,
                              NULL, DTRT_EPILOGUE_BIAS));
  report("matmul",
         dtrt_cublaslt_matmul(DTRT_F32, DTRT_F32, 0, 0, 1, 2, 2, 2, &device, 2,
                              0, &device, 2, 0, &device, 2, 0, 1.0f, 0.0f,
                              NULL, 0));
  return 0;
}

int main(int argc, char **argv) {
  /* "abort": an mgpu* entry point cannot return a status, so it ends the
   * process with one message. */
  if (argc > 1 && strcmp(argv[1], "abort") == 0) {
    mgpuMemAlloc(64, NULL, false);
    printf("not reached\n");
    return 0;
  }
  fprintf(stderr, "cuda_abi: main\n");
  mgpuSetDefaultDevice(0);
  int32_t status = dtrt_cuda_init();
  if (status != DTRT_OK)
    return withoutDevice(status);
  int32_t device = -1, count = 0;
  expect(dtrt_cuda_device(&device) == DTRT_OK && device == 0,
         "dtrt_cuda_device");
  expect(dtrt_cuda_device_count(&count) == DTRT_OK && count >= 1,
         "dtrt_cuda_device_count");
  /* Host memory is not the pool's: freeing it is a no-op. */
  expect(dtrt_cuda_free(&count) == DTRT_OK, "dtrt_cuda_free of host memory");
  int64_t start = 0, end = 0;
  expect(dtrt_cuda_record(&start) == DTRT_OK, "dtrt_cuda_record");
  checkMgpu();
  /* CUDA_ABI_NO_GEMMS=1 under a stand-in driver: cuBLASLt needs the real
   * one. */
  const char *noGemms = getenv("CUDA_ABI_NO_GEMMS");
  if (!noGemms || strcmp(noGemms, "1") != 0) {
    checkBf16Gemm();
    checkF32AndF16Gemms();
  }
  expect(dtrt_cuda_record(&end) == DTRT_OK, "dtrt_cuda_record");
  double us = -1.0;
  expect(dtrt_cuda_elapsed_us(start, end, &us) == DTRT_OK && us > 0.0,
         "dtrt_cuda_elapsed_us");
  expect(dtrt_cuda_synchronize() == DTRT_OK, "dtrt_cuda_synchronize");
  expect(dtrt_cuda_finalize() == DTRT_OK, "dtrt_cuda_finalize");
  printf("cuda: %s %d checks, %d mismatches\n", mismatches ? "FAIL" : "PASS",
         checks, mismatches);
  return mismatches ? 1 : 0;
}
