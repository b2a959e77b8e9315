//===- GemmShape.h - Row-major GEMMs as cuBLASLt's column-major --*- C++
//-*-===//
//
// cuBLASLt's heuristics cover column-major layouts best, so a row-major
// C = op(A) * op(B) runs as the column-major C^T = op(B)^T * op(A)^T: the
// same buffers, the operands swapped, m and n swapped. Pure, unit-tested in
// unittests/runtime.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_GPU_GEMMSHAPE_H
#define DTRT_LIB_GPU_GEMMSHAPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace dtrt {

/// The arguments of dtrt_cublaslt_matmul that fix the algorithm (not the
/// pointers, alpha or beta).
struct GemmShape {
  int32_t inDtype = 0, outDtype = 0;
  bool transA = false, transB = false;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t lda = 0, strideA = 0, ldb = 0, strideB = 0, ldc = 0, strideC = 0;
  int32_t epilogue = 0;
  /// The largest power of two (at most 16) dividing every pointer's address:
  /// algorithms depend on it.
  int32_t alignment = 16;

  bool operator==(const GemmShape &other) const;
};

/// One column-major operand of cuBLASLt: `rows` x `cols` with leading
/// dimension `ld`, transposed by the matmul when `transposed`.
struct ColumnMajorOperand {
  int64_t rows = 0, cols = 0, ld = 0, stride = 0;
  bool transposed = false;
};

/// The column-major problem D = op(first) * op(second), D `m` x `n`.
struct ColumnMajorGemm {
  int64_t m = 0, n = 0, k = 0;
  /// The buffer of the row-major B, then that of A.
  ColumnMajorOperand first, second;
  ColumnMajorOperand result;
};

/// The column-major form of a row-major `shape`.
ColumnMajorGemm toColumnMajor(const GemmShape &shape);

/// Checks that the row-major leading dimensions hold their rows (lda >= the
/// row length, ...), m, n, k are positive and batch >= 1; returns "" or the
/// first violation ("lda 3 is smaller than k 4").
std::string checkGemmShape(const GemmShape &shape);

/// The alignment class of `pointers` (see GemmShape::alignment).
int32_t commonAlignment(const void *const *pointers, size_t count);

/// A hash of every field, for the cache of algorithms.
struct GemmShapeHash {
  size_t operator()(const GemmShape &shape) const;
};

} // namespace dtrt

#endif // DTRT_LIB_GPU_GEMMSHAPE_H
