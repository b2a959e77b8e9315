//===- GradientUtils.cpp - shared pieces of the reverse rules -------------===//
//
// Forward-mode rules of the scalar ops structured bodies are written in
// (a, b the operands, r the result, ta, tb their tangents):
//   addf: ta + tb      subf: ta - tb      mulf: ta b + a tb
//   divf: (ta - r tb) / b                 negf: -ta
//   exp: r ta   log: ta / a   tanh: (1 - r r) ta   sqrt: ta / (r + r)
//   rsqrt: -0.5 r r r ta    log1p: ta / (1 + a)    absf: a < 0 ? -ta : ta
//   maximumf/maxnumf: a > b ? ta : tb     minimumf/minnumf: a < b ? ta : tb
//     (ties go to b, so relu `max(x, 0)` has derivative 0 at 0 as in
//     PyTorch); with one operand the accumulator of a max/min reduction
//     (bound to the result): x == r ? tx : 0
//   select: c ? ta : tb (no derivative through the condition)
//   extf/truncf: the tangent extended/truncated.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dtensor;

bool mlir::dtensor::isFloatLike(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

Value TangentBuilder::constant(Type type, double value) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(
            shaped, builder.getFloatAttr(shaped.getElementType(), value)));
  return arith::ConstantOp::create(builder, loc,
                                   builder.getFloatAttr(type, value));
}

Value TangentBuilder::add(Value a, Value b) {
  if (!a || !b)
    return a ? a : b;
  return arith::AddFOp::create(builder, loc, a, b);
}

Value TangentBuilder::sub(Value a, Value b) {
  if (!b)
    return a;
  if (!a)
    return arith::NegFOp::create(builder, loc, b);
  return arith::SubFOp::create(builder, loc, a, b);
}

Value TangentBuilder::mul(Value a, Value b) {
  if (!a || !b)
    return Value();
  // The seed is 1: keep the derivative of a linear body free of `* 1`.
  if (matchPattern(b, m_OneFloat()))
    return a;
  if (matchPattern(a, m_OneFloat()))
    return b;
  return arith::MulFOp::create(builder, loc, a, b);
}

Value TangentBuilder::selectOrZero(Value cond, Value ta, Value tb, Type type) {
  if (!ta && !tb)
    return Value();
  return arith::SelectOp::create(builder, loc, cond,
                                 ta ? ta : constant(type, 0.0),
                                 tb ? tb : constant(type, 0.0));
}

Value TangentBuilder::minMaxTangent(Operation *op, Value ta, Value tb,
                                    bool isMax) {
  Value a = op->getOperand(0), b = op->getOperand(1);
  Type type = op->getResult(0).getType();
  // A max/min reduction: the element equal to the result gets the tangent.
  for (auto [acc, other, tOther] : {std::tuple{a, b, tb}, {b, a, ta}})
    if (minMaxAccumulators.contains(acc)) {
      Value eq = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OEQ,
                                       other, acc);
      return tOther ? selectOrZero(eq, tOther, Value(), type)
                    : constant(type, 0.0);
    }
  Value cond = arith::CmpFOp::create(
      builder, loc,
      isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a, b);
  return selectOrZero(cond, ta, tb, type);
}

Value TangentBuilder::binaryTangent(Operation *op, Value ta, Value tb) {
  Value a = op->getOperand(0), b = op->getOperand(1), r = op->getResult(0);
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<arith::AddFOp>([&](auto) { return add(ta, tb); })
      .Case<arith::SubFOp>([&](auto) { return sub(ta, tb); })
      .Case<arith::MulFOp>([&](auto) { return add(mul(ta, b), mul(a, tb)); })
      .Case<arith::DivFOp>([&](auto) {
        Value num = sub(ta, mul(r, tb));
        return num ? Value(arith::DivFOp::create(builder, loc, num, b))
                   : Value();
      })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>(
          [&](auto) { return minMaxTangent(op, ta, tb, /*isMax=*/true); })
      .Case<arith::MinimumFOp, arith::MinNumFOp>(
          [&](auto) { return minMaxTangent(op, ta, tb, /*isMax=*/false); })
      .Default([](Operation *) { return Value(); });
}

Value TangentBuilder::unaryTangent(Operation *op, Value ta) {
  Value a = op->getOperand(0), r = op->getResult(0);
  Type type = r.getType();
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivFOp::create(builder, loc, x, y);
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<arith::NegFOp>(
          [&](auto) { return arith::NegFOp::create(builder, loc, ta); })
      .Case<math::ExpOp>([&](auto) { return mul(r, ta); })
      .Case<math::LogOp>([&](auto) { return div(ta, a); })
      .Case<math::Log1pOp>(
          [&](auto) { return div(ta, add(constant(type, 1.0), a)); })
      .Case<math::TanhOp>(
          [&](auto) { return mul(sub(constant(type, 1.0), mul(r, r)), ta); })
      .Case<math::SqrtOp>([&](auto) { return div(ta, add(r, r)); })
      .Case<math::RsqrtOp>([&](auto) {
        return mul(mul(constant(type, -0.5), mul(r, mul(r, r))), ta);
      })
      .Case<math::AbsFOp>([&](auto) {
        Value neg = arith::CmpFOp::create(
            builder, loc, arith::CmpFPredicate::OLT, a, constant(type, 0.0));
        return Value(arith::SelectOp::create(
            builder, loc, neg, arith::NegFOp::create(builder, loc, ta), ta));
      })
      .Case<arith::ExtFOp>([&](auto) {
        return Value(arith::ExtFOp::create(builder, loc, type, ta));
      })
      .Case<arith::TruncFOp>([&](auto) {
        return Value(arith::TruncFOp::create(builder, loc, type, ta));
      })
      .Default([](Operation *) { return Value(); });
}

LogicalResult TangentBuilder::differentiate(Operation *op) {
  if (op->getNumResults() != 1 || !isFloatLike(op->getResult(0).getType()))
    return success();
  llvm::SmallVector<Value, 3> ts;
  bool any = false;
  for (Value v : op->getOperands()) {
    ts.push_back(getTangent(v));
    any |= static_cast<bool>(ts.back());
  }
  if (!any)
    return success();
  Value t;
  if (auto select = dyn_cast<arith::SelectOp>(op))
    t = selectOrZero(select.getCondition(), ts[1], ts[2],
                     op->getResult(0).getType());
  else if (op->getNumOperands() == 2)
    t = binaryTangent(op, ts[0], ts[1]);
  else if (op->getNumOperands() == 1)
    t = unaryTangent(op, ts[0]);
  if (!t)
    return failure();
  tangents[op->getResult(0)] = t;
  return success();
}

Value mlir::dtensor::buildZerosLike(OpBuilder &builder, Location loc,
                                    Value like) {
  Type elem = getElementTypeOrSelf(like.getType());
  Value zero =
      arith::ConstantOp::create(builder, loc, builder.getFloatAttr(elem, 0.0));
  if (!isa<RankedTensorType>(like.getType()))
    return zero;
  Value empty = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, like), elem);
  return linalg::FillOp::create(builder, loc, ValueRange{zero},
                                ValueRange{empty})
      .getResult(0);
}

Value mlir::dtensor::buildAdjointSum(OpBuilder &builder, Location loc, Value a,
                                     Value b) {
  if (!isa<RankedTensorType>(a.getType()))
    return arith::AddFOp::create(builder, loc, a, b);
  Value empty = tensor::EmptyOp::create(builder, loc,
                                        tensor::getMixedSizes(builder, loc, a),
                                        getElementTypeOrSelf(a.getType()));
  return linalg::AddOp::create(builder, loc, TypeRange{a.getType()},
                               ValueRange{a, b}, ValueRange{empty})
      ->getResult(0);
}
