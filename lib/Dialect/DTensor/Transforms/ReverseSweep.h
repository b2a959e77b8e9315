//===- ReverseSweep.h - the reverse sweep of dtensor-autodiff ---*- C++ -*-===//
//
// Private to `dtensor-autodiff`: reverse-mode differentiation of a block of
// ops (a function body or a recomputed loop body). Ops are differentiated
// through `GradientOpInterface`, calls (`CallOpInterface`) through the
// callee's vector-Jacobian product function `@<callee>_vjp`, generated on
// demand, `scf.for` by loop reversal with the forward iter_args stored
// per iteration, and `scf.if` by a reverse `scf.if` on the same condition.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_LIB_DIALECT_DTENSOR_TRANSFORMS_REVERSESWEEP_H
#define DTENSOR_LIB_DIALECT_DTENSOR_TRANSFORMS_REVERSESWEEP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace dtensor {

/// What the sweeps of one module share: the symbol table, the vjp functions
/// built so far (one per callee) and the rule count.
class Differentiator {
public:
  explicit Differentiator(ModuleOp module) : symbols(module) {}

  /// The vjp function of `callee`: its arguments, then one adjoint per
  /// float result; its results, the adjoint of each float argument. Built
  /// once; fails (with an error on `call`) on recursion.
  FailureOr<func::FuncOp> getVjp(func::FuncOp callee, Operation *call);

  /// Reverses the body of `fn` (a single block): `wrt` are the arguments
  /// whose adjoints are wanted, `seed` gives the returned values their
  /// adjoints at the builder. Returns the adjoint of each `wrt` argument
  /// (null where the results do not depend on it), built before the
  /// return.
  FailureOr<llvm::SmallVector<Value>> sweepFunction(
      func::FuncOp fn, llvm::ArrayRef<BlockArgument> wrt,
      llvm::function_ref<void(OpBuilder &, class ReverseSweep &)> seed);

  SymbolTable symbols;
  unsigned numRules = 0;

private:
  llvm::DenseMap<Operation *, func::FuncOp> vjps;
  llvm::DenseSet<Operation *> inProgress;
};

/// The reverse sweep over a list of ops (in program order) of one block.
/// A value is active when it depends on a root (through operands or values
/// captured by a region); only active operands of ops whose results carry
/// an adjoint are differentiated.
class ReverseSweep {
public:
  /// `outer`: the sweep of the enclosing block (a loop body's sweep sees the
  /// values its enclosing block made active).
  ReverseSweep(Differentiator &ctx, const ReverseSweep *outer = nullptr)
      : ctx(ctx), outer(outer) {}

  /// Marks the roots and every float result of `ops` that depends on one.
  void markActive(llvm::ArrayRef<Operation *> ops, llvm::ArrayRef<Value> roots);
  bool isActive(Value v) const;

  /// Adds `adjoint` to the adjoint of `v`.
  void accumulate(OpBuilder &b, Value v, Value adjoint);
  /// The adjoint of `v`, null for zero.
  Value lookup(Value v) const { return adjoints.lookup(v); }

  /// Builds, at `b`, the adjoints of the operands of `ops` in reverse.
  LogicalResult sweep(llvm::ArrayRef<Operation *> ops, OpBuilder &b);

private:
  LogicalResult reverse(Operation *op, OpBuilder &b);
  LogicalResult reverseWithRule(Operation *op, OpBuilder &b,
                                llvm::ArrayRef<Value> resultAdjoints);
  LogicalResult reverseCall(CallOpInterface call, OpBuilder &b,
                            llvm::ArrayRef<Value> resultAdjoints);
  LogicalResult reverseFor(scf::ForOp loop, OpBuilder &b,
                           llvm::ArrayRef<Value> resultAdjoints);
  LogicalResult reverseIf(scf::IfOp ifOp, OpBuilder &b,
                          llvm::ArrayRef<Value> resultAdjoints);
  /// One branch of the reverse of an `scf.if`: the copy of `forward` swept
  /// back from `resultAdjoints`, yielding the adjoint of each `captured`.
  LogicalResult buildReverseBranch(OpBuilder &rb, Location loc,
                                   Region &forward,
                                   llvm::ArrayRef<Value> resultAdjoints,
                                   llvm::ArrayRef<Value> captured);
  /// The body of the reverse loop of `forward` (whose results end with the
  /// stacked iter_args of its `n` iterations) at iteration `j`.
  LogicalResult
  buildReverseBody(OpBuilder &rb, Location loc, scf::ForOp forward,
                   const llvm::SmallPtrSetImpl<Operation *> &recording, Value n,
                   Value j, ValueRange carried, llvm::ArrayRef<unsigned> floats,
                   llvm::ArrayRef<Value> captured);

  Differentiator &ctx;
  const ReverseSweep *outer;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> adjoints;
};

/// Erases the trivially dead ops of `fn`, nested blocks first.
void eraseDeadOps(func::FuncOp fn);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_LIB_DIALECT_DTENSOR_TRANSFORMS_REVERSESWEEP_H
