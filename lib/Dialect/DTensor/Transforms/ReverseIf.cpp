//===- ReverseIf.cpp - the reverse of scf.if for dtensor-autodiff ---------===//
//
// The reverse of `scf.if %c` is an `scf.if %c` with the same branches: each
// branch recomputes its forward body (a copy, so the reverse needs nothing
// the forward branch made to escape it), sweeps the copy backwards seeded
// with the adjoints of the values it yields, and yields the adjoint of each
// active value the forward branches capture from above (zeros where the
// branch does not read it). Those adjoints are then added to the captures'.
// The condition is not differentiated (an i1).
//
//===----------------------------------------------------------------------===//

#include "ReverseSweep.h"

#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::dtensor;

LogicalResult ReverseSweep::reverseIf(scf::IfOp ifOp, OpBuilder &b,
                                      llvm::ArrayRef<Value> resultAdjoints) {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(ifOp->getRegions(), used);
  llvm::SmallVector<Value> captured;
  for (Value v : used)
    if (isActive(v) && isFloatLike(v.getType()))
      captured.push_back(v);
  if (captured.empty())
    return success();
  Location loc = ifOp.getLoc();
  auto rev = scf::IfOp::create(b, loc, ValueRange(captured).getTypes(),
                               ifOp.getCondition(), /*withElseRegion=*/true);
  for (auto [forward, reverse] :
       llvm::zip(ifOp->getRegions(), rev->getRegions())) {
    Block *revBlock = &reverse.front();
    if (!revBlock->empty() && revBlock->back().hasTrait<OpTrait::IsTerminator>())
      revBlock->back().erase();
    OpBuilder rb = OpBuilder::atBlockEnd(revBlock);
    if (failed(buildReverseBranch(rb, loc, forward, resultAdjoints, captured)))
      return failure();
  }
  for (auto [c, adj] : llvm::zip(captured, rev.getResults()))
    accumulate(b, c, adj);
  ++ctx.numRules;
  return success();
}

LogicalResult
ReverseSweep::buildReverseBranch(OpBuilder &rb, Location loc, Region &forward,
                                 llvm::ArrayRef<Value> resultAdjoints,
                                 llvm::ArrayRef<Value> captured) {
  // An `scf.if` without results may have no else block: it reads nothing.
  llvm::SmallVector<Value> next;
  if (forward.empty()) {
    for (Value c : captured)
      next.push_back(buildZerosLike(rb, loc, c));
    scf::YieldOp::create(rb, loc, next);
    return success();
  }
  Block &body = forward.front();
  IRMapping mapping;
  llvm::SmallVector<Operation *> cloned;
  for (Operation &op : body.without_terminator())
    cloned.push_back(rb.clone(op, mapping));
  ReverseSweep inner(ctx, this);
  inner.markActive(cloned, {});
  Operation *yield = body.getTerminator();
  for (auto [v, adj] : llvm::zip(yield->getOperands(), resultAdjoints))
    if (adj && isFloatLike(v.getType()))
      inner.accumulate(rb, mapping.lookupOrDefault(v), adj);
  if (failed(inner.sweep(cloned, rb)))
    return failure();
  for (Value c : captured) {
    Value adj = inner.lookup(c);
    next.push_back(adj ? adj : buildZerosLike(rb, loc, c));
  }
  scf::YieldOp::create(rb, loc, next);
  return success();
}
