//===- ArithMathShardingModels.cpp - sharding rules of arith/math ---------===//
//
// Every arith and math op with the `Elementwise` trait gets the pointwise
// rule; constant-like ops (`arith.constant`) are creations.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {
/// Attaches the model that the op's traits call for, if any.
template <typename OpTy>
void attachByTraits(MLIRContext *ctx) {
  if constexpr (OpTy::template hasTrait<OpTrait::ConstantLike>())
    OpTy::template attachInterface<CreationShardingModel<OpTy>>(*ctx);
  else if constexpr (OpTy::template hasTrait<OpTrait::Elementwise>())
    OpTy::template attachInterface<ElementwiseShardingModel<OpTy>>(*ctx);
}

template <typename... OpTys>
void attachAllByTraits(MLIRContext *ctx) {
  (attachByTraits<OpTys>(ctx), ...);
}
} // namespace

void mlir::dtensor::registerArithMathShardingRuleExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachAllByTraits<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachAllByTraits<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(ctx);
  });
}
