//===- DTensorDialect.h - dtensor dialect -----------------------*- C++ -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_H
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_H

#include "dtensor/Support/Placement.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"

#include "dtensor/Dialect/DTensor/IR/DTensorOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorOpsTypes.h.inc"

namespace mlir {
namespace dtensor {

/// Parses `[S(0), R, P(sum)]`.
ParseResult parseSpecPlacements(AsmParser &parser,
                                llvm::SmallVectorImpl<Placement> &placements);

/// Returns and clears the type written after the last `#dtensor.spec<...>`
/// parsed as an attribute (`#dtensor.spec<...> : tensor<4xf32>`), which the
/// attribute parser consumes as the attribute's type.
Type takeSpecTrailingType();

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_H
