//===- LinalgToCuBLAS.h - contractions to cuBLASLt calls --------*- C++ -*-===//

#ifndef DTENSOR_CONVERSION_LINALGTOCUBLAS_LINALGTOCUBLAS_H
#define DTENSOR_CONVERSION_LINALGTOCUBLAS_LINALGTOCUBLAS_H

namespace mlir {
class RewritePatternSet;
namespace dtensor {

/// Adds the pattern that rewrites a contraction on memrefs (any
/// `linalg::LinalgOp` recognised by `linalg::inferContractionDims`, see
/// `dtensor-linalg-to-cublaslt`) into calls of `dtrt_cublaslt_matmul`, or,
/// with `emulate`, into a `linalg.generic` over the views those calls would
/// read and write (a CPU reference of the call's arguments).
void populateLinalgToCuBLASLtPatterns(RewritePatternSet &patterns,
                                      bool emulate = false);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_LINALGTOCUBLAS_LINALGTOCUBLAS_H
