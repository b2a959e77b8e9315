//===- MaterializePlan.cpp - write a fake-tensor plan into the IR ---------===//

#include "dtensor/Dialect/DTensor/Transforms/MaterializePlan.h"

#include "dtensor/Dialect/DTensor/Analysis/ShardingRules.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {
/// The values materialization adds in place of planned ones (created copies
/// and redistributions): their placements, and the planned value each one
/// stands for.
struct Replacements {
  llvm::DenseMap<Value, Placements> placements;
  llvm::DenseMap<Value, Value> original;

  void add(Value replacement, Value of, const Placements &ps) {
    placements[replacement] = ps;
    original[replacement] = original.lookup(of) ? original.lookup(of) : of;
  }
};
} // namespace

/// Builds a copy of the created `value` directly in `target`: the ops
/// creating it are cloned, their created operands recursively, and the
/// copies are annotated. Each rank then builds its own part. An operand
/// that an earlier copy or redistribution replaced (the destination of a
/// fill whose other users need it elsewhere) is read in the placements the
/// copy needs: kept if it has them, else the planned value it replaced if
/// that one has them, else built anew from that planned value, so that no
/// two copies share a created operand in placements one of them does not
/// want.
static Value createIn(OpBuilder &b, const FunctionPlan &plan,
                      Replacements &repl, Value value,
                      const Placements &target) {
  Operation *def = value.getDefiningOp();
  FailureOr<ShardingCandidate> c =
      getCreationCandidate(def, plan.getMeshShape(), target);
  assert(succeeded(c) && "checked by canCreateIn");
  IRMapping mapping;
  for (OpOperand &o : def->getOpOperands()) {
    Value operand = o.get();
    const Placements &want = c->operands[o.getOperandNumber()];
    Value planned = operand;
    if (!plan.lookup(operand)) {
      auto made = repl.placements.find(operand);
      if (made == repl.placements.end() || made->second == want)
        continue;
      planned = repl.original.lookup(operand);
    }
    const FakeTensor *t = plan.lookup(planned);
    if (!t || t->placements == want)
      mapping.map(operand, planned);
    else
      mapping.map(operand, createIn(b, plan, repl, planned, want));
  }
  Operation *copy = b.clone(*def, mapping);
  copy->setAttr(DTensorDialect::kSpecsAttrName,
                ArrayAttr::get(b.getContext(), {plan.getSpecAttr(target)}));
  repl.add(copy->getResult(0), value, target);
  return copy->getResult(0);
}

/// Erases the created values in `worklist` that have no users left, and
/// then their created operands that became dead.
static void eraseDeadCreated(SmallVector<Operation *> worklist) {
  llvm::DenseSet<Operation *> erased;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (erased.contains(op) || !op->use_empty())
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        if (isCreatedValue(v))
          worklist.push_back(def);
    erased.insert(op);
    op->erase();
  }
}

/// Inserts the redistributions the plan requires and annotates every op
/// with the placements of its results.
MaterializeStats mlir::dtensor::materializePlan(FunctionOpInterface func,
                                                const FunctionPlan &plan) {
  MaterializeStats stats;
  if (!plan.getMesh())
    return stats;
  OpBuilder b(func.getContext());
  // Redistributions of block arguments go after each other at the block
  // start, in program order.
  llvm::DenseMap<Block *, Operation *> lastAtStart;
  llvm::SetVector<Operation *> recreated;
  Replacements repl;
  for (const Redistribution &r : plan.getRedistributions()) {
    if (r.op)
      continue;
    Value value = r.value;
    Block *block = value.getParentBlock();
    if (Operation *def = value.getDefiningOp())
      b.setInsertionPointAfter(def);
    else if (Operation *last = lastAtStart.lookup(block))
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPointToStart(block);
    Value replacement;
    if (canCreateIn(value, r.target)) {
      recreated.insert(value.getDefiningOp());
      replacement = createIn(b, plan, repl, value, r.target);
      ++stats.recreated;
    } else {
      // No direct plan (P(max) -> P(sum)): an explicit step through R.
      Value from = value;
      if (const FakeTensor *t = plan.lookup(value))
        if (std::optional<Placements> mid =
                getReplicatedIntermediate(t->placements, r.target)) {
          from = RedistributeOp::create(b, value.getLoc(), value,
                                        plan.getSpecAttr(*mid));
          ++stats.redistributions;
        }
      replacement = RedistributeOp::create(b, value.getLoc(), from,
                                           plan.getSpecAttr(r.target));
      repl.add(replacement, value, r.target);
      ++stats.redistributions;
    }
    if (!value.getDefiningOp())
      lastAtStart[block] = replacement.getDefiningOp();
    for (OpOperand *user : r.users)
      user->set(replacement);
  }
  // Created values whose users all moved to a copy are gone.
  SmallVector<Operation *> dead;
  for (Operation *def : recreated)
    dead.push_back(def);
  eraseDeadCreated(std::move(dead));
  Attribute unit = UnitAttr::get(func.getContext());
  func.getFunctionBody().walk([&](Operation *op) {
    if (isa<DTensorDialect>(op->getDialect()) || op->getNumResults() == 0)
      return;
    SmallVector<Attribute> specs;
    bool any = false;
    for (Value r : op->getResults()) {
      const FakeTensor *t = plan.lookup(r);
      specs.push_back(t ? Attribute(plan.getSpecAttr(t->placements)) : unit);
      any |= t != nullptr;
    }
    if (!any)
      return;
    op->setAttr(DTensorDialect::kSpecsAttrName,
                ArrayAttr::get(func.getContext(), specs));
    ++stats.annotated;
  });
  return stats;
}
