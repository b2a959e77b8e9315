/*===- dtrt_cpu.h - dtensor runtime CPU compute kernels ---------*- C -*-===*\
|*                                                                            *|
|* Compute kernels that CPU programs lowered by dtensor-cpu-pipeline call     *|
|* where the distribution's BLAS is slow: small GEMMs, the per-head products  *|
|* of attention, which `dtensor-linalg-to-blas` emits as a loop of calls over *|
|* batch and head. OpenBLAS packs both operands and sets up its blocking on   *|
|* every call, which costs it 2x to 3x on a 128x128x64 product; this kernel   *|
|* packs only B, into panels as wide as a few vector registers, and keeps an  *|
|* MR x NR block of C in registers while it walks k.                          *|
|*                                                                            *|
|* The kernel is chosen once per process from the CPU's features: AVX-512F,   *|
|* AVX2 with FMA, or a portable 128-bit vector form (SSE2, NEON). On a CPU    *|
|* with neither AVX2 nor AVX-512 the calls go to the process's cblas_sgemm    *|
|* when one is loaded (a tuned BLAS beats the portable form), else to that    *|
|* form. The environment variable DTRT_SMALL_GEMM_ISA=generic|avx2|avx512     *|
|* forces a kernel the CPU supports (an unsupported one falls back to the     *|
|* best), and DTRT_SMALL_GEMM_ISA=cblas the process's CBLAS (tests).          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTRT_DTRT_CPU_H
#define DTRT_DTRT_CPU_H

#include "dtrt/dtrt.h"

#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/// C = alpha * op(A) op(B) + beta * C on f32, with the arguments, argument
/// order and enum values of `cblas_sgemm` (layout 101 row-major or 102
/// column-major; transA/transB 111 no transpose or 112 transpose), and the
/// same preconditions: m, n, k >= 0 and every leading dimension at least the
/// length of the matrix's contiguous dim. With beta = 0, C is only written
/// (it may hold NaNs). Single-threaded; safe to call from several threads at
/// once. Meant for products of up to a few million multiply-adds; larger
/// ones are correct but slower than BLAS.
DTRT_EXPORT void dtrt_sgemm_small(int32_t layout, int32_t transA,
                                  int32_t transB, int32_t m, int32_t n,
                                  int32_t k, float alpha, const float *a,
                                  int32_t lda, const float *b, int32_t ldb,
                                  float beta, float *c, int32_t ldc);

/// The name of the kernel dtrt_sgemm_small uses in this process: "avx512",
/// "avx2", "generic", or "cblas" when it calls the process's cblas_sgemm.
DTRT_EXPORT const char *dtrt_sgemm_small_isa(void);

#if defined(__cplusplus)
}
#endif

#endif /* DTRT_DTRT_CPU_H */
