//===- ExpApproximation.h - exp on f32 vectors as a polynomial --*- C++ -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_EXPAPPROXIMATION_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_EXPAPPROXIMATION_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {

/// Adds a pattern that replaces `math.exp` on vectors of f32 with upstream's
/// approximation (Cody-Waite reduction by ln 2, degree-5 polynomial, the
/// same constants and so the same results within an ulp) in fewer
/// instructions: `benefit` above that of
/// `populateMathPolynomialApproximationPatterns` makes it take precedence in
/// one pattern set.
void populateExpApproximationPatterns(RewritePatternSet &patterns,
                                      PatternBenefit benefit = 2);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_EXPAPPROXIMATION_H
