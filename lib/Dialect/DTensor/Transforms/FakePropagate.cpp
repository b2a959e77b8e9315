//===- FakePropagate.cpp - annotate placements, insert redistributions ----===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Analysis/ShardingRules.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORFAKEPROPAGATE
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {
struct FakePropagatePass
    : public dtensor::impl::DTensorFakePropagateBase<FakePropagatePass> {
  using Base::Base;

  void runOnOperation() override {
    FakeTensorOptions options;
    options.unknownOps = unknownOps;
    FakeTensorAnalysis analysis(getOperation(), options);
    if (!analysis.succeeded())
      return signalPassFailure();
    for (FunctionOpInterface func : analysis.getFunctions())
      materialize(func, *analysis.getPlan(func));
  }

  /// Clones the ops creating `value` (a creation op, or fills of one) and
  /// annotates the copies with `spec`: each rank builds its part directly.
  Value createIn(OpBuilder &b, Value value, SpecAttr spec) {
    Operation *def = value.getDefiningOp();
    IRMapping mapping;
    if (auto fill = dyn_cast<linalg::FillOp>(def))
      mapping.map(fill.getDpsInits()[0],
                  createIn(b, fill.getDpsInits()[0], spec));
    Operation *copy = b.clone(*def, mapping);
    copy->setAttr(DTensorDialect::kSpecsAttrName,
                  ArrayAttr::get(b.getContext(), {spec}));
    return copy->getResult(0);
  }

  /// Inserts the redistributions the plan requires and annotates every op
  /// with the placements of its results.
  void materialize(FunctionOpInterface func, const FunctionPlan &plan) {
    if (!plan.getMesh())
      return;
    OpBuilder b(func.getContext());
    for (const Redistribution &r : plan.getRedistributions()) {
      if (r.op)
        continue;
      Value value = r.value;
      if (Operation *def = value.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(value.getParentBlock());
      Value replacement;
      if (canCreateIn(value, r.target)) {
        replacement = createIn(b, value, plan.getSpecAttr(r.target));
        ++numRecreated;
      } else {
        replacement = RedistributeOp::create(b, value.getLoc(), value,
                                             plan.getSpecAttr(r.target));
        ++numRedistributions;
      }
      for (OpOperand *user : r.users)
        user->set(replacement);
    }
    // Created values whose users all moved to a copy are gone.
    for (const Redistribution &r : plan.getRedistributions()) {
      Value value = r.value;
      Operation *def = value.getDefiningOp();
      while (def && !r.op && isCreatedValue(value) && def->use_empty()) {
        auto fill = dyn_cast<linalg::FillOp>(def);
        Value init = fill ? fill.getDpsInits()[0] : Value();
        def->erase();
        value = init;
        def = init ? init.getDefiningOp() : nullptr;
      }
    }
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
      ++numAnnotated;
    });
  }
};
} // namespace
