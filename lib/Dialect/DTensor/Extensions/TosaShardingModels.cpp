//===- TosaShardingModels.cpp - sharding rules of tosa ops ----------------===//
//
// Elementwise tosa ops (the `Elementwise` or `ResultsBroadcastableShape`
// trait) get the pointwise rule with numpy broadcasting; `tosa.matmul` is an
// einsum over [N, H, C] x [N, C, W] -> [N, H, W]; `tosa.const` is a
// creation.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleUtils.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// The loop space of tosa.matmul: loops n, h, w, c.
static LoopSpace matmulSpace(tosa::MatMulOp op) {
  LoopSpace space;
  space.numLoops = 4;
  space.isReduction = {false, false, false, true};
  auto dm = [](Value v, llvm::ArrayRef<int64_t> loops) {
    DimMap m;
    m.shape = cast<RankedTensorType>(v.getType()).getShape();
    m.dimToLoop.assign(loops.begin(), loops.end());
    return m;
  };
  for (Value v : op->getOperands()) {
    space.isInit.push_back(false);
    space.initResult.push_back(-1);
    if (v == op.getA())
      space.operands.push_back(dm(v, {0, 1, 3}));
    else if (v == op.getB())
      space.operands.push_back(dm(v, {0, 3, 2}));
    else
      space.operands.push_back(std::nullopt);
  }
  // Zero points are replicated scalars tensors; they are not indexed.
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (i >= 2 && isa<RankedTensorType>(v.getType())) {
      DimMap m;
      m.shape = cast<RankedTensorType>(v.getType()).getShape();
      m.dimToLoop.assign(m.shape.size(), -1);
      space.operands[i] = m;
    }
  space.results.push_back(dm(op.getResult(), {0, 1, 2}));
  space.combiner = ReduceOp::Sum;
  return space;
}

struct MatMulShardingModel
    : public ShardingRuleOpInterface::ExternalModel<MatMulShardingModel,
                                                    tosa::MatMulOp> {
  LogicalResult
  getShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placements> current,
                        llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    einsumCandidates(matmulSpace(cast<tosa::MatMulOp>(op)), mesh, current, out);
    return success();
  }
};

template <typename OpTy>
void attachByTraits(MLIRContext *ctx) {
  if constexpr (std::is_same_v<OpTy, tosa::MatMulOp>)
    OpTy::template attachInterface<MatMulShardingModel>(*ctx);
  else if constexpr (OpTy::template hasTrait<OpTrait::ConstantLike>())
    OpTy::template attachInterface<CreationShardingModel<OpTy>>(*ctx);
  else if constexpr (OpTy::template hasTrait<OpTrait::Elementwise>() ||
                     OpTy::template hasTrait<
                         OpTrait::ResultsBroadcastableShape>())
    OpTy::template attachInterface<ElementwiseShardingModel<OpTy>>(*ctx);
}

template <typename... OpTys>
void attachAllByTraits(MLIRContext *ctx) {
  (attachByTraits<OpTys>(ctx), ...);
}

} // namespace

void mlir::dtensor::registerTosaShardingRuleExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    attachAllByTraits<
#define GET_OP_LIST
#include "mlir/Dialect/Tosa/IR/TosaOps.cpp.inc"
        >(ctx);
  });
}
