//===- TestShardingModel.cpp - sharding rule of the test dialect ----------===//
//
// What a downstream compiler writes to give its own op a sharding rule: an
// external model of ShardingRuleOpInterface, attached when the dialect is
// loaded. `dtensor_test.scaled_add` is elementwise, so the model uses the
// pointwise rule from ShardingRuleUtils; partials are reduced first
// (scale * b is not linear in a way the rule knows). The local rewrite is
// the interface's default: results take their local types in place.
//
//===----------------------------------------------------------------------===//

#include "TestDialect.h"

#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleUtils.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {
struct ScaledAddShardingModel
    : public ShardingRuleOpInterface::ExternalModel<ScaledAddShardingModel,
                                                    test::ScaledAddOp> {
  /// PyTorch's pointwise rule: follow the operand with the most shards.
  LogicalResult
  getShardingCandidates(Operation *op, ArrayRef<int64_t> meshShape,
                        ArrayRef<Placements> operands,
                        SmallVectorImpl<ShardingCandidate> &out) const {
    return elementwiseCandidates(op, meshShape, operands, out);
  }
  /// Every strategy, for the global planner.
  LogicalResult
  getAllShardingCandidates(Operation *op, ArrayRef<int64_t> meshShape,
                           ArrayRef<Placements>,
                           SmallVectorImpl<ShardingCandidate> &out) const {
    return allElementwiseCandidates(op, meshShape, out);
  }
};
} // namespace

void mlir::dtensor::test::registerTestShardingModel(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, test::DTensorTestDialect *) {
    test::ScaledAddOp::attachInterface<ScaledAddShardingModel>(*ctx);
  });
}
