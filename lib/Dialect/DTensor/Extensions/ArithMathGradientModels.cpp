//===- ArithMathGradientModels.cpp - reverse rules of arith/math ops ------===//
//
// Arith and math ops outside structured bodies, on scalars or elementwise on
// tensors: the adjoint of operand i is adj * d(result)/d(operand i), the
// derivative built by the same forward-mode rules as structured bodies
// (TangentBuilder) seeded with 1 on that operand, cast to the operand's
// type (extf/truncf). A value used in two operand slots (x * x) is seeded
// once and its whole adjoint given to the first slot.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/GradientExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// `v` converted to the float (or tensor of float) type `to`.
Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  unsigned from = getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth();
  if (getElementTypeOrSelf(to).getIntOrFloatBitWidth() > from)
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

template <typename OpTy>
struct ElementwiseGradientModel
    : public GradientOpInterface::ExternalModel<ElementwiseGradientModel<OpTy>,
                                                OpTy> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    Location loc = op->getLoc();
    Value adj = resultAdjoints[0];
    auto shaped = dyn_cast<ShapedType>(op->getResult(0).getType());
    if (shaped && !shaped.hasStaticShape())
      return op->emitOpError() << "has no gradient rule on dynamic shapes";
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      Value v = operand.get();
      bool first =
          llvm::find(op->getOperands(), v) == op->getOperands().begin() + i;
      if (!needed[i] || !adj || !first) {
        operandAdjoints.push_back(Value());
        continue;
      }
      TangentBuilder tangents(b, loc);
      tangents.setTangent(v, tangents.constant(v.getType(), 1.0));
      if (failed(tangents.differentiate(op)))
        return op->emitOpError() << "has no derivative rule";
      Value t = tangents.getTangent(op->getResult(0));
      Value contribution = t ? tangents.mul(adj, t) : Value();
      operandAdjoints.push_back(
          contribution ? castFloat(b, loc, contribution, v.getType())
                       : Value());
    }
    return success();
  }
};

template <typename... OpTys> void attachAll(MLIRContext *ctx) {
  (OpTys::template attachInterface<ElementwiseGradientModel<OpTys>>(*ctx), ...);
}

} // namespace

void mlir::dtensor::registerArithMathGradientExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachAll<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
              arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
              arith::MaxNumFOp, arith::MinNumFOp, arith::SelectOp,
              arith::ExtFOp, arith::TruncFOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachAll<math::ExpOp, math::LogOp, math::Log1pOp, math::TanhOp,
              math::SqrtOp, math::RsqrtOp, math::AbsFOp>(ctx);
  });
}
