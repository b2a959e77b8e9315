//===- GemmShapeTest.cpp - row-major GEMMs as column-major cuBLASLt -------===//
//
// The column-major problem must compute the same numbers: it is evaluated
// here with a plain column-major GEMM over the same buffers and compared
// with the row-major definition, for every transpose combination, padded
// leading dimensions and a batch.
//
//===----------------------------------------------------------------------===//

#include "gpu/GemmShape.h"

#include <gtest/gtest.h>

#include <vector>

using namespace dtrt;

namespace {

/// Element (r, c) of a column-major operand, through its transpose flag.
float at(const std::vector<float> &buf, const ColumnMajorOperand &op,
         int64_t batch, int64_t r, int64_t c) {
  if (op.transposed)
    std::swap(r, c);
  return buf[batch * op.stride + c * op.ld + r];
}

/// D = op(first) * op(second), column-major, as cuBLASLt would compute it.
void columnMajorGemm(const ColumnMajorGemm &g, int64_t batch,
                     const std::vector<float> &first,
                     const std::vector<float> &second, std::vector<float> &d) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        float sum = 0;
        for (int64_t p = 0; p < g.k; ++p)
          sum += at(first, g.first, b, i, p) * at(second, g.second, b, p, j);
        d[b * g.result.stride + j * g.result.ld + i] = sum;
      }
}

TEST(GemmShape, ColumnMajorFormComputesTheRowMajorProduct) {
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      GemmShape s;
      s.transA = transA;
      s.transB = transB;
      s.batch = 2;
      s.m = 3;
      s.n = 5;
      s.k = 4;
      // Padded rows: leading dimensions larger than the row lengths.
      s.lda = (transA ? s.m : s.k) + 1;
      s.ldb = (transB ? s.k : s.n) + 2;
      s.ldc = s.n + 3;
      s.strideA = s.lda * (transA ? s.k : s.m);
      s.strideB = s.ldb * (transB ? s.n : s.k);
      s.strideC = s.ldc * s.m;
      ASSERT_EQ(checkGemmShape(s), "");
      std::vector<float> a(s.batch * s.strideA), b(s.batch * s.strideB);
      for (size_t i = 0; i < a.size(); ++i)
        a[i] = float(i % 7) - 3;
      for (size_t i = 0; i < b.size(); ++i)
        b[i] = float(i % 5) - 2;
      std::vector<float> got(s.batch * s.strideC, 0), want(got);
      for (int64_t bt = 0; bt < s.batch; ++bt)
        for (int64_t i = 0; i < s.m; ++i)
          for (int64_t j = 0; j < s.n; ++j) {
            float sum = 0;
            for (int64_t p = 0; p < s.k; ++p) {
              float x = transA ? a[bt * s.strideA + p * s.lda + i]
                               : a[bt * s.strideA + i * s.lda + p];
              float y = transB ? b[bt * s.strideB + j * s.ldb + p]
                               : b[bt * s.strideB + p * s.ldb + j];
              sum += x * y;
            }
            want[bt * s.strideC + i * s.ldc + j] = sum;
          }
      ColumnMajorGemm g = toColumnMajor(s);
      EXPECT_EQ(g.m, s.n);
      EXPECT_EQ(g.n, s.m);
      EXPECT_EQ(g.first.transposed, transB);
      EXPECT_EQ(g.second.transposed, transA);
      columnMajorGemm(g, s.batch, b, a, got);
      EXPECT_EQ(got, want) << "transA " << transA << " transB " << transB;
    }
}

TEST(GemmShape, ChecksLeadingDimensions) {
  GemmShape s;
  s.m = 4;
  s.n = 8;
  s.k = 16;
  s.lda = 16;
  s.ldb = 8;
  s.ldc = 8;
  EXPECT_EQ(checkGemmShape(s), "");
  s.lda = 8;
  EXPECT_EQ(checkGemmShape(s), "lda 8 is smaller than k 16");
  s.transA = true;
  s.lda = 3;
  EXPECT_EQ(checkGemmShape(s), "lda 3 is smaller than m 4");
  s.lda = 4;
  s.ldc = 7;
  EXPECT_EQ(checkGemmShape(s), "ldc 7 is smaller than n 8");
  s.ldc = 8;
  s.k = 0;
  EXPECT_EQ(checkGemmShape(s), "m, n, k = 4, 8, 0 are not all positive");
  s.k = 16;
  s.batch = 0;
  EXPECT_EQ(checkGemmShape(s), "batch 0 is not positive");
}

TEST(GemmShape, AlignmentAndCacheKey) {
  alignas(16) char buffer[64];
  const void *aligned[] = {buffer, buffer + 16, nullptr};
  EXPECT_EQ(commonAlignment(aligned, 3), 16);
  const void *misaligned[] = {buffer, buffer + 6};
  EXPECT_EQ(commonAlignment(misaligned, 2), 2);
  GemmShape x, y;
  x.m = y.m = 8;
  EXPECT_TRUE(x == y);
  EXPECT_EQ(GemmShapeHash()(x), GemmShapeHash()(y));
  y.epilogue = 1;
  EXPECT_FALSE(x == y);
}

} // namespace
