//===- SmallGemm.cpp - dtrt_sgemm_small: choosing and calling a kernel ----===//
//
// The CBLAS-shaped entry point: column-major calls become row-major ones on
// the transposes, transposes become strides, and the kernel of the best
// instruction set this CPU has runs the product.
//
//===----------------------------------------------------------------------===//

#include "SmallGemm.h"
#include "dtrt/dtrt_cpu.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

namespace dtrt::cpu {

namespace {
/// CBLAS enum values (cblas.h).
constexpr int32_t kColMajor = 102;
constexpr int32_t kTrans = 112;

struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};

bool cpuHas(GemmIsa isa) {
#if (defined(__x86_64__) || defined(__i386__)) &&                              \
    (defined(__GNUC__) || defined(__clang__))
  switch (isa) {
  case GemmIsa::Generic:
    return true;
  case GemmIsa::Avx2:
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case GemmIsa::Avx512:
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  }
  return false;
#else
  return isa == GemmIsa::Generic;
#endif
}

/// The kernel of each instruction set, in `GemmIsa` order; null where this
/// build has none.
using Kernel = void (*)(const GemmArgs &);
constexpr Kernel kKernels[] = {
    &smallSgemmGeneric,
#if defined(DTRT_HAS_AVX2_GEMM)
    &smallSgemmAvx2,
#else
    nullptr,
#endif
#if defined(DTRT_HAS_AVX512_GEMM)
    &smallSgemmAvx512,
#else
    nullptr,
#endif
};

Kernel kernelOf(GemmIsa isa) { return kKernels[static_cast<int>(isa)]; }

/// `cblas_sgemm`'s type (32-bit integers, as the generated calls pass).
using CblasSgemm = void (*)(int32_t, int32_t, int32_t, int32_t, int32_t,
                            int32_t, float, const float *, int32_t,
                            const float *, int32_t, float, float *, int32_t);

/// The CBLAS the products go to instead of a kernel of this runtime: the
/// process's `cblas_sgemm` when the CPU has no vector kernel here (a tuned
/// BLAS beats the portable 128-bit one) or DTRT_SMALL_GEMM_ISA=cblas asks
/// for it; null otherwise, or when no CBLAS is loaded.
CblasSgemm chooseCblas() {
  const char *forced = std::getenv("DTRT_SMALL_GEMM_ISA");
  bool wanted = forced ? std::strcmp(forced, "cblas") == 0
                       : !gemmIsaAvailable(GemmIsa::Avx2) &&
                             !gemmIsaAvailable(GemmIsa::Avx512);
  if (!wanted)
    return nullptr;
  return reinterpret_cast<CblasSgemm>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
}

CblasSgemm selectedCblas() {
  static const CblasSgemm cblas = chooseCblas();
  return cblas;
}

GemmIsa chooseIsa() {
  const GemmIsa all[] = {GemmIsa::Avx512, GemmIsa::Avx2, GemmIsa::Generic};
  if (const char *forced = std::getenv("DTRT_SMALL_GEMM_ISA"))
    for (GemmIsa isa : all)
      if (std::strcmp(forced, gemmIsaName(isa)) == 0 && gemmIsaAvailable(isa))
        return isa;
  for (GemmIsa isa : all)
    if (gemmIsaAvailable(isa))
      return isa;
  return GemmIsa::Generic;
}

/// C = beta * C over m x n (k = 0 or alpha = 0: no product to add).
void scaleC(const GemmArgs &g) {
  for (int64_t i = 0; i < g.m; ++i) {
    float *row = g.c + i * g.ldc;
    for (int64_t j = 0; j < g.n; ++j)
      row[j] = g.beta == 0.0f ? 0.0f : g.beta * row[j];
  }
}
} // namespace

const char *gemmIsaName(GemmIsa isa) {
  switch (isa) {
  case GemmIsa::Generic:
    return "generic";
  case GemmIsa::Avx2:
    return "avx2";
  case GemmIsa::Avx512:
    return "avx512";
  }
  return "generic";
}

bool gemmIsaAvailable(GemmIsa isa) { return kernelOf(isa) && cpuHas(isa); }

GemmIsa selectedGemmIsa() {
  static const GemmIsa isa = chooseIsa();
  return isa;
}

float *gemmScratch(int64_t floats) {
  thread_local std::unique_ptr<float, FreeDeleter> buffer;
  thread_local int64_t capacity = 0;
  if (floats > capacity) {
    // Whole 64-byte lines, as aligned_alloc wants a multiple of the alignment.
    int64_t rounded = (floats + 15) / 16 * 16;
    buffer.reset(static_cast<float *>(
        std::aligned_alloc(64, static_cast<size_t>(rounded) * sizeof(float))));
    if (!buffer) {
      std::fputs("dtrt_sgemm_small: out of memory for the packed panel\n",
                 stderr);
      std::abort();
    }
    capacity = rounded;
  }
  return buffer.get();
}

void smallSgemm(GemmIsa isa, const GemmArgs &g) {
  if (g.m <= 0 || g.n <= 0)
    return;
  if (g.k <= 0 || g.alpha == 0.0f)
    return scaleC(g);
  Kernel kernel = kernelOf(isa);
  (kernel ? kernel : &smallSgemmGeneric)(g);
}

} // namespace dtrt::cpu

using namespace dtrt::cpu;

extern "C" void dtrt_sgemm_small(int32_t layout, int32_t transA,
                                 int32_t transB, int32_t m, int32_t n,
                                 int32_t k, float alpha, const float *a,
                                 int32_t lda, const float *b, int32_t ldb,
                                 float beta, float *c, int32_t ldc) {
  if (CblasSgemm cblas = selectedCblas())
    return cblas(layout, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta,
                 c, ldc);
  // Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T.
  if (layout == kColMajor) {
    std::swap(transA, transB);
    std::swap(m, n);
    std::swap(a, b);
    std::swap(lda, ldb);
  }
  bool ta = transA == kTrans, tb = transB == kTrans;
  GemmArgs g{m,
             n,
             k,
             alpha,
             a,
             ta ? 1 : int64_t(lda),
             ta ? int64_t(lda) : 1,
             b,
             tb ? 1 : int64_t(ldb),
             tb ? int64_t(ldb) : 1,
             beta,
             c,
             ldc};
  smallSgemm(selectedGemmIsa(), g);
}

extern "C" const char *dtrt_sgemm_small_isa(void) {
  return selectedCblas() ? "cblas" : gemmIsaName(selectedGemmIsa());
}
