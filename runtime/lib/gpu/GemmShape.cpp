//===- GemmShape.cpp - Row-major GEMMs as cuBLASLt's column-major ---------===//

#include "GemmShape.h"

#include <functional>
#include <tuple>

using namespace dtrt;

namespace {
auto fields(const GemmShape &s) {
  return std::make_tuple(s.inDtype, s.outDtype, s.transA, s.transB, s.batch,
                         s.m, s.n, s.k, s.lda, s.strideA, s.ldb, s.strideB,
                         s.ldc, s.strideC, s.epilogue, s.alignment);
}

/// The column-major view of a row-major `rows` x `cols` matrix stored with
/// leading dimension `ld` (its transpose), transposed back when `trans`.
ColumnMajorOperand view(int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                        bool trans) {
  ColumnMajorOperand operand;
  operand.rows = cols;
  operand.cols = rows;
  operand.ld = ld;
  operand.stride = stride;
  operand.transposed = trans;
  return operand;
}
} // namespace

bool GemmShape::operator==(const GemmShape &other) const {
  return fields(*this) == fields(other);
}

ColumnMajorGemm dtrt::toColumnMajor(const GemmShape &s) {
  ColumnMajorGemm gemm;
  gemm.m = s.n;
  gemm.n = s.m;
  gemm.k = s.k;
  // Row-major B is k x n (n x k when transposed); its column-major view is
  // n x k, which is op(B)^T as stored, so it is transposed exactly when B is.
  gemm.first = s.transB ? view(s.n, s.k, s.ldb, s.strideB, true)
                        : view(s.k, s.n, s.ldb, s.strideB, false);
  gemm.second = s.transA ? view(s.k, s.m, s.lda, s.strideA, true)
                         : view(s.m, s.k, s.lda, s.strideA, false);
  gemm.result = view(s.m, s.n, s.ldc, s.strideC, false);
  return gemm;
}

std::string dtrt::checkGemmShape(const GemmShape &s) {
  if (s.batch < 1)
    return "batch " + std::to_string(s.batch) + " is not positive";
  if (s.m < 1 || s.n < 1 || s.k < 1)
    return "m, n, k = " + std::to_string(s.m) + ", " + std::to_string(s.n) +
           ", " + std::to_string(s.k) + " are not all positive";
  auto tooSmall = [](const char *ld, int64_t value, const char *dim,
                     int64_t extent) {
    return std::string(ld) + " " + std::to_string(value) + " is smaller than " +
           dim + " " + std::to_string(extent);
  };
  int64_t rowA = s.transA ? s.m : s.k, rowB = s.transB ? s.k : s.n;
  if (s.lda < rowA)
    return tooSmall("lda", s.lda, s.transA ? "m" : "k", rowA);
  if (s.ldb < rowB)
    return tooSmall("ldb", s.ldb, s.transB ? "k" : "n", rowB);
  if (s.ldc < s.n)
    return tooSmall("ldc", s.ldc, "n", s.n);
  return "";
}

int32_t dtrt::commonAlignment(const void *const *pointers, size_t count) {
  int32_t alignment = 16;
  for (size_t i = 0; i < count; ++i) {
    auto address = reinterpret_cast<uintptr_t>(pointers[i]);
    if (!pointers[i])
      continue;
    while (alignment > 1 && address % alignment != 0)
      alignment /= 2;
  }
  return alignment;
}

size_t GemmShapeHash::operator()(const GemmShape &shape) const {
  size_t hash = 0;
  std::apply(
      [&hash](auto... field) {
        ((hash = hash * 1000003u ^ std::hash<int64_t>()(int64_t(field))), ...);
      },
      fields(shape));
  return hash;
}
