//===- GradientUtils.h - shared pieces of the reverse rules -----*- C++ -*-===//
//
// What the gradient models and `dtensor-autodiff` share: forward-mode
// tangents of the scalar ops of a structured op's body (the derivative of
// the body with respect to one block argument), and tensor helpers (zeros,
// the elementwise sum of two adjoints). The scalar rules are the only place
// that names arith and math ops; everything else goes through
// `GradientOpInterface`.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_EXTENSIONS_GRADIENTUTILS_H
#define DTENSOR_DIALECT_DTENSOR_EXTENSIONS_GRADIENTUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace dtensor {

/// Builds tangents (forward-mode derivatives) of scalar ops that are
/// already built, in program order. A null tangent stands for zero and is
/// never materialised. The rules hold elementwise, so they also serve
/// arith and math ops on tensors.
class TangentBuilder {
public:
  TangentBuilder(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc) {}

  /// Sets the tangent of `primal` (a block argument, usually 1.0).
  void setTangent(Value primal, Value tangent) { tangents[primal] = tangent; }
  /// The tangent of `primal`, null for zero.
  Value getTangent(Value primal) const { return tangents.lookup(primal); }
  /// Marks `acc` as the accumulator of a max/min reduction, bound to the
  /// reduction's result: `max(acc, x)` then passes x's tangent where x
  /// equals the result (the selected element) and zero elsewhere.
  void addMinMaxAccumulator(Value acc) { minMaxAccumulators.insert(acc); }

  /// Builds the tangents of `op`'s results from its operands' tangents.
  /// Ops without float results and ops whose operands all have zero
  /// tangents get none. Fails, without emitting, for a float op with a
  /// non-zero input tangent and no rule.
  LogicalResult differentiate(Operation *op);

  /// `a + b`, `a - b`, `a * b` of scalars or null (zero) tangents.
  Value add(Value a, Value b);
  Value sub(Value a, Value b);
  Value mul(Value a, Value b);
  /// A float constant of `type` (a splat for a static shaped type).
  Value constant(Type type, double value);

private:
  Value binaryTangent(Operation *op, Value ta, Value tb);
  Value unaryTangent(Operation *op, Value ta);
  Value minMaxTangent(Operation *op, Value ta, Value tb, bool isMax);
  Value selectOrZero(Value cond, Value ta, Value tb, Type type);

  OpBuilder &builder;
  Location loc;
  llvm::DenseMap<Value, Value> tangents;
  llvm::DenseSet<Value> minMaxAccumulators;
};

/// Whether `type` is a float or a shaped type of floats.
bool isFloatLike(Type type);

/// Zeros of `like`'s type: `tensor.empty` + `linalg.fill` for a tensor
/// (dynamic sizes taken from `like`), `arith.constant` for a scalar.
Value buildZerosLike(OpBuilder &builder, Location loc, Value like);

/// The elementwise sum of two adjoints of the same type: `linalg.add` for
/// tensors, `arith.addf` for scalars.
Value buildAdjointSum(OpBuilder &builder, Location loc, Value a, Value b);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_EXTENSIONS_GRADIENTUTILS_H
