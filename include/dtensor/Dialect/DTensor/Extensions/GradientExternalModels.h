//===- GradientExternalModels.h - reverse rules of upstream ops -*- C++ -*-===//
//
// External models of `GradientOpInterface` for upstream dialects, one
// registration function per dialect family, registered like the sharding
// models (`DialectRegistry::addExtension`).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_EXTENSIONS_GRADIENTEXTERNALMODELS_H
#define DTENSOR_DIALECT_DTENSOR_EXTENSIONS_GRADIENTEXTERNALMODELS_H

namespace mlir {
class DialectRegistry;
namespace dtensor {

/// Every structured linalg op, from its indexing maps and scalar body
/// (elementwise, broadcast, transpose, contractions, sum and max/min
/// reductions, fill).
void registerLinalgGradientExternalModels(DialectRegistry &registry);

/// `tensor.expand_shape`, `collapse_shape`, `extract_slice`, `insert_slice`,
/// `pad`, `concat` and `extract`.
void registerTensorGradientExternalModels(DialectRegistry &registry);

/// The arith and math ops of structured bodies, on scalars or elementwise on
/// tensors, outside structured ops.
void registerArithMathGradientExternalModels(DialectRegistry &registry);

/// `dtensor.redistribute` (the identity of the global view).
void registerDTensorGradientExternalModels(DialectRegistry &registry);

/// All of the above.
void registerAllGradientExternalModels(DialectRegistry &registry);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_EXTENSIONS_GRADIENTEXTERNALMODELS_H
