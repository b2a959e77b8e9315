//===- PackContraction.h - contraction operands packed for a GEMM -*- C++ -*-===//
//
// A contraction on buffers that a GEMM call cannot read in place (a batch
// dim innermost, an m, n or k group split or permuted, a C with no
// contiguous dim) becomes one once the offending operands are copied into
// fresh buffers laid out as the GEMM reads them. Shared by the CBLAS and
// cuBLASLt lowerings, which decide which operands need it.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CONVERSION_UTILS_PACKCONTRACTION_H
#define DTENSOR_CONVERSION_UTILS_PACKCONTRACTION_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {

/// The loop dims of the packed copy of operand `i` (0: A, 1: B, 2: C) of a
/// contraction with dims `d`, in the copy's dim order: the batch dims, then
/// the rows, then the columns of the matrix it holds (A [batch, m, k], B
/// [batch, k, n], C [batch, m, n]), each group in loop order.
SmallVector<unsigned> packedOrder(const linalg::ContractionDimensions &d,
                                  unsigned i);

/// True if operand `i` of `op` (dims `d`) is indexed in packedOrder and its
/// buffer's innermost dim has a static unit stride: the layout of a packed
/// copy, or one as good.
bool isPackedLayout(linalg::LinalgOp op, const linalg::ContractionDimensions &d,
                    unsigned i);

/// Rewrites the contraction `op` (dims `d`; inputs A, B, init C) so that the
/// operands `pack[i]` are read from fresh packed buffers: a
/// `linalg.transpose` of each packed input into its copy; a packed C filled
/// with zeros when `foldZeroFill` and the op's C holds zeros (holdsZeros:
/// the fill of C is erased), else copied in too; the same body over the
/// copies, as a new `linalg.generic` (returned); a packed C transposed back
/// into the op's C; the copies freed. `op` is erased.
/// With `computeType`, every copy has that element type (the copies are
/// `linalg.generic`s extending the inputs and truncating C back) and the
/// body is `acc + a * b` in it: a 16-bit contraction run as an f32 GEMM,
/// rounded once. The caller then packs every operand of another type.
linalg::GenericOp packContractionOperands(RewriterBase &rewriter,
                                          linalg::LinalgOp op,
                                          const linalg::ContractionDimensions &d,
                                          ArrayRef<bool> pack,
                                          bool foldZeroFill,
                                          FloatType computeType = {});

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_UTILS_PACKCONTRACTION_H
