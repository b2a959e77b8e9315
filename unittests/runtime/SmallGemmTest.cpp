//===- SmallGemmTest.cpp - dtrt_sgemm_small against a reference -----------===//
//
// Every kernel this build has and this CPU runs (generic, AVX2, AVX-512),
// through the CBLAS-shaped entry point and directly, on generated products:
// sizes around the register blocks' edges, both layouts, every transpose,
// padded leading dimensions, alpha and beta, and the degenerate cases. The
// reference accumulates in double in the textbook loop order.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_cpu.h"

#include "cpu/SmallGemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace dtrt::cpu;

namespace {

constexpr int32_t kRowMajor = 101, kColMajor = 102, kNoTrans = 111,
                  kTrans = 112;

/// One generated product in CBLAS terms.
struct Case {
  int32_t layout, transA, transB, m, n, k;
  float alpha, beta;
  int32_t lda, ldb, ldc;
  std::vector<float> a, b, c;

  std::string describe() const {
    return "layout " + std::to_string(layout) + " transA " +
           std::to_string(transA) + " transB " + std::to_string(transB) +
           " m " + std::to_string(m) + " n " + std::to_string(n) + " k " +
           std::to_string(k) + " alpha " + std::to_string(alpha) + " beta " +
           std::to_string(beta) + " lda " + std::to_string(lda) + " ldb " +
           std::to_string(ldb) + " ldc " + std::to_string(ldc);
  }
};

/// Rows and columns of a stored matrix holding op(X) of rows x cols.
std::pair<int32_t, int32_t> stored(int32_t layout, int32_t trans,
                                   int32_t rows, int32_t cols) {
  bool flip = (layout == kColMajor) != (trans == kTrans);
  return flip ? std::make_pair(cols, rows) : std::make_pair(rows, cols);
}

Case generate(std::mt19937 &rng, int32_t maxDim) {
  auto pick = [&](int32_t lo, int32_t hi) {
    return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  };
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Case c;
  c.layout = pick(0, 1) ? kRowMajor : kColMajor;
  c.transA = pick(0, 1) ? kNoTrans : kTrans;
  c.transB = pick(0, 1) ? kNoTrans : kTrans;
  c.m = pick(1, maxDim);
  c.n = pick(1, maxDim);
  c.k = pick(1, maxDim);
  const float alphas[] = {1.0f, 1.0f, 0.5f, -2.0f};
  const float betas[] = {0.0f, 0.0f, 1.0f, -0.5f};
  c.alpha = alphas[pick(0, 3)];
  c.beta = betas[pick(0, 3)];
  auto [ar, ac] = stored(c.layout, c.transA, c.m, c.k);
  auto [br, bc] = stored(c.layout, c.transB, c.k, c.n);
  auto [cr, cc] = stored(c.layout, kNoTrans, c.m, c.n);
  c.lda = ac + pick(0, 3);
  c.ldb = bc + pick(0, 3);
  c.ldc = cc + pick(0, 3);
  c.a.resize(size_t(ar) * c.lda);
  c.b.resize(size_t(br) * c.ldb);
  c.c.resize(size_t(cr) * c.ldc);
  for (float &x : c.a)
    x = value(rng);
  for (float &x : c.b)
    x = value(rng);
  // With beta = 0, C must not be read: NaNs would show through.
  for (float &x : c.c)
    x = c.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : value(rng);
  return c;
}

/// Element (i, j) of op(X) stored with `ld` in `layout`.
float at(const std::vector<float> &x, int32_t layout, int32_t trans,
         int32_t ld, int32_t i, int32_t j) {
  if (trans == kTrans)
    std::swap(i, j);
  return layout == kRowMajor ? x[size_t(i) * ld + j] : x[size_t(j) * ld + i];
}

size_t indexOfC(const Case &c, int32_t i, int32_t j) {
  return c.layout == kRowMajor ? size_t(i) * c.ldc + j : size_t(j) * c.ldc + i;
}

/// Checks `out` (C after the call) against the reference on `c`; padding
/// columns of C must be untouched.
void expectMatches(const Case &c, const std::vector<float> &out) {
  std::vector<bool> inside(c.c.size(), false);
  for (int32_t i = 0; i < c.m; ++i)
    for (int32_t j = 0; j < c.n; ++j) {
      double sum = 0.0, magnitude = 0.0;
      for (int32_t p = 0; p < c.k; ++p) {
        double term = double(at(c.a, c.layout, c.transA, c.lda, i, p)) *
                      at(c.b, c.layout, c.transB, c.ldb, p, j);
        sum += term;
        magnitude += std::fabs(term);
      }
      size_t idx = indexOfC(c, i, j);
      inside[idx] = true;
      double old = c.beta == 0.0f ? 0.0 : c.beta * double(c.c[idx]);
      double expected = c.alpha * sum + old;
      double tolerance =
          1e-5 * (std::fabs(c.alpha) * magnitude + std::fabs(old) + 1.0);
      ASSERT_NEAR(out[idx], expected, tolerance)
          << c.describe() << " at (" << i << ", " << j << ")";
    }
  for (size_t idx = 0; idx < out.size(); ++idx)
    if (!inside[idx]) {
      bool same = out[idx] == c.c[idx] ||
                  (std::isnan(out[idx]) && std::isnan(c.c[idx]));
      ASSERT_TRUE(same) << c.describe() << ": padding of C written at " << idx;
    }
}

std::vector<GemmIsa> availableIsas() {
  std::vector<GemmIsa> isas;
  for (GemmIsa isa : {GemmIsa::Generic, GemmIsa::Avx2, GemmIsa::Avx512})
    if (gemmIsaAvailable(isa))
      isas.push_back(isa);
  return isas;
}

/// Runs `c` through the kernel of `isa` the way the entry point does.
std::vector<float> runKernel(const Case &c, GemmIsa isa) {
  int32_t m = c.m, n = c.n, lda = c.lda, ldb = c.ldb;
  int32_t transA = c.transA, transB = c.transB;
  const float *a = c.a.data(), *b = c.b.data();
  if (c.layout == kColMajor) {
    std::swap(m, n);
    std::swap(a, b);
    std::swap(lda, ldb);
    std::swap(transA, transB);
  }
  bool ta = transA == kTrans, tb = transB == kTrans;
  std::vector<float> out = c.c;
  GemmArgs g{m,     n,     c.k,       c.alpha,    a, ta ? 1 : lda, ta ? lda : 1,
             b,     tb ? 1 : ldb, tb ? ldb : 1, c.beta, out.data(), c.ldc};
  smallSgemm(isa, g);
  return out;
}

TEST(SmallGemm, GenericKernelIsAlwaysThere) {
  EXPECT_TRUE(gemmIsaAvailable(GemmIsa::Generic));
  EXPECT_TRUE(gemmIsaAvailable(selectedGemmIsa()));
  EXPECT_STREQ(dtrt_sgemm_small_isa(), gemmIsaName(selectedGemmIsa()));
}

TEST(SmallGemm, EveryKernelMatchesTheReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 600; ++trial) {
    // Mostly around the register blocks (up to 2 x 8 rows, 2 x 32 columns),
    // sometimes larger.
    Case c = generate(rng, trial % 10 == 0 ? 150 : 70);
    for (GemmIsa isa : availableIsas()) {
      SCOPED_TRACE(gemmIsaName(isa));
      expectMatches(c, runKernel(c, isa));
    }
  }
}

TEST(SmallGemm, EntryPointMatchesTheReference) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    Case c = generate(rng, 40);
    std::vector<float> out = c.c;
    dtrt_sgemm_small(c.layout, c.transA, c.transB, c.m, c.n, c.k, c.alpha,
                     c.a.data(), c.lda, c.b.data(), c.ldb, c.beta, out.data(),
                     c.ldc);
    expectMatches(c, out);
  }
}

TEST(SmallGemm, AttentionShapes) {
  // The per-head products of bench/matmul.sh's qk and pv on strided views:
  // q and k rows of H * D floats, k transposed.
  const int32_t t = 128, d = 64, h = 8;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (bool qk : {true, false}) {
    Case c;
    c.layout = kRowMajor;
    c.transA = kNoTrans;
    c.transB = qk ? kTrans : kNoTrans;
    c.m = t;
    c.n = qk ? t : d;
    c.k = qk ? d : t;
    c.alpha = 1.0f;
    c.beta = 0.0f;
    c.lda = qk ? h * d : t;
    c.ldb = h * d;
    c.ldc = qk ? t : h * d;
    c.a.resize(size_t(t) * c.lda);
    c.b.resize(size_t(qk ? t : t) * c.ldb);
    c.c.assign(size_t(t) * c.ldc, std::numeric_limits<float>::quiet_NaN());
    for (float &x : c.a)
      x = value(rng);
    for (float &x : c.b)
      x = value(rng);
    for (GemmIsa isa : availableIsas()) {
      SCOPED_TRACE(gemmIsaName(isa));
      expectMatches(c, runKernel(c, isa));
    }
  }
}

TEST(SmallGemm, DegenerateSizes) {
  // k = 0: C = beta * C; alpha = 0 likewise; m or n = 0: nothing.
  std::vector<float> a{1.0f}, b{1.0f};
  std::vector<float> c{2.0f, 3.0f, 4.0f, 5.0f};
  dtrt_sgemm_small(kRowMajor, kNoTrans, kNoTrans, 2, 2, 0, 1.0f, a.data(), 1,
                   b.data(), 2, 0.5f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{1.0f, 1.5f, 2.0f, 2.5f}));
  std::vector<float> nan(4, std::numeric_limits<float>::quiet_NaN());
  dtrt_sgemm_small(kRowMajor, kNoTrans, kNoTrans, 2, 2, 0, 1.0f, a.data(), 1,
                   b.data(), 2, 0.0f, nan.data(), 2);
  EXPECT_EQ(nan, (std::vector<float>(4, 0.0f)));
  std::vector<float> a2{1.0f, 2.0f, 3.0f, 4.0f};
  dtrt_sgemm_small(kRowMajor, kNoTrans, kNoTrans, 2, 2, 2, 0.0f, a2.data(), 2,
                   a2.data(), 2, 2.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{2.0f, 3.0f, 4.0f, 5.0f}));
  dtrt_sgemm_small(kRowMajor, kNoTrans, kNoTrans, 0, 2, 2, 1.0f, a2.data(), 2,
                   a2.data(), 2, 0.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{2.0f, 3.0f, 4.0f, 5.0f}));
}

} // namespace
