//===- ShardingRuleExternalModels.h - rules of upstream ops -----*- C++ -*-===//
//
// External models of `ShardingRuleOpInterface` for upstream dialects, one
// registration function per dialect family, registered the way upstream
// registers its sharding models (`DialectRegistry::addExtension`): the
// interface is attached when the dialect is loaded.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_EXTENSIONS_SHARDINGRULEEXTERNALMODELS_H
#define DTENSOR_DIALECT_DTENSOR_EXTENSIONS_SHARDINGRULEEXTERNALMODELS_H

namespace mlir {
class DialectRegistry;
namespace dtensor {

/// Every structured linalg op (indexing maps and iterator types) and
/// `linalg.softmax`.
void registerLinalgShardingRuleExternalModels(DialectRegistry &registry);

/// Reshapes, slices, concatenation, padding, casts, `tensor.dim`, element
/// access, and the tensor creations (empty, splat, from_elements, generate).
void registerTensorShardingRuleExternalModels(DialectRegistry &registry);

/// Elementwise arith and math ops (the `Elementwise` trait) and
/// `arith.constant`.
void registerArithMathShardingRuleExternalModels(DialectRegistry &registry);

/// Elementwise tosa ops (numpy broadcasting), `tosa.matmul` and
/// `tosa.const`.
void registerTosaShardingRuleExternalModels(DialectRegistry &registry);

/// All of the above. scf and func need no model: the analysis follows
/// control flow through `RegionBranchOpInterface` and calls through
/// `CallOpInterface`, and the partitioner gives their results local types.
void registerAllShardingRuleExternalModels(DialectRegistry &registry);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_EXTENSIONS_SHARDINGRULEEXTERNALMODELS_H
