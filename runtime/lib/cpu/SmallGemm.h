//===- SmallGemm.h - Register-blocked f32 GEMM for small products -*- C++ -*-===//
//
// The kernels behind dtrt_sgemm_small, one per instruction set, each in its
// own translation unit compiled for that set (SmallGemmKernel.inc).
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_CPU_SMALLGEMM_H
#define DTRT_LIB_CPU_SMALLGEMM_H

#include <cstdint>

namespace dtrt::cpu {

/// One row-major product C = alpha * A B + beta * C. Element (i, p) of A is
/// a[i * aRowStride + p * aColStride], element (p, j) of B is
/// b[p * bRowStride + j * bColStride], element (i, j) of C is c[i * ldc + j].
struct GemmArgs {
  int64_t m, n, k;
  float alpha;
  const float *a;
  int64_t aRowStride, aColStride;
  const float *b;
  int64_t bRowStride, bColStride;
  float beta;
  float *c;
  int64_t ldc;
};

/// The instruction sets a kernel exists for, best last.
enum class GemmIsa { Generic, Avx2, Avx512 };

/// The kernel's name: "generic", "avx2", "avx512".
const char *gemmIsaName(GemmIsa isa);

/// True if this build has the kernel and this CPU can run it.
bool gemmIsaAvailable(GemmIsa isa);

/// The best available kernel, or the one DTRT_SMALL_GEMM_ISA names when it
/// is available; decided on the first call.
GemmIsa selectedGemmIsa();

/// Runs the product with the kernel of `isa`, which must be available.
void smallSgemm(GemmIsa isa, const GemmArgs &args);

/// A 64-byte aligned buffer of at least `floats` floats, owned by the
/// calling thread and reused by its next call (the packed panel of B).
float *gemmScratch(int64_t floats);

/// The kernels; each is defined only where the build has it. They expect
/// m, n, k > 0.
void smallSgemmGeneric(const GemmArgs &args);
void smallSgemmAvx2(const GemmArgs &args);
void smallSgemmAvx512(const GemmArgs &args);

} // namespace dtrt::cpu

#endif // DTRT_LIB_CPU_SMALLGEMM_H
