//===- MemoryBudget.cpp - fit a plan into max-bytes-per-rank --------------===//

#include "dtensor/Dialect/DTensor/Analysis/MemoryBudget.h"

#include "dtensor/Dialect/DTensor/Analysis/MemoryLiveness.h"
#include "dtensor/Support/MemoryPeak.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {
/// How many ops are constrained in turn per round.
constexpr size_t kOpsPerRound = 6;

/// A plan with its peak and cost.
struct Trial {
  std::unique_ptr<FunctionPlan> plan;
  ForcedStrategies forced;
  MemoryPeak peak;
  int64_t worst = 0;
  double cost = 0;
};

Trial evaluate(FunctionOpInterface func, std::unique_ptr<FunctionPlan> plan,
               ForcedStrategies forced) {
  Trial t;
  t.peak = computeMemoryPeak(func, *plan);
  t.worst = t.peak.bytes[t.peak.getWorstRank()];
  t.cost = plan->computeCommCost();
  t.plan = std::move(plan);
  t.forced = std::move(forced);
  return t;
}

/// The ops whose strategy shapes the buffers live at the peak.
llvm::SetVector<Operation *> opsAtPeak(const Trial &t,
                                       const ForcedStrategies &forced) {
  llvm::SetVector<Operation *> ops;
  auto consider = [&](Operation *op) {
    if (op && isa<ShardingRuleOpInterface>(op) && !forced.contains(op) &&
        !op->hasAttr(DTensorDialect::kSpecsAttrName))
      ops.insert(op);
  };
  for (const PeakBuffer &b : t.peak.liveAtWorst) {
    if (ops.size() >= kOpsPerRound)
      break;
    consider(b.value.getDefiningOp());
    if (b.kind == BufferKind::Value)
      continue;
    for (const Redistribution &r : t.plan->getRedistributions())
      if (r.value == b.value)
        for (OpOperand *user : r.users)
          consider(user->getOwner());
  }
  return ops;
}

/// True if `c` is the strategy `op` has in `plan`.
bool isCurrent(Operation *op, const ShardingCandidate &c,
               const FunctionPlan &plan) {
  for (auto [v, ps] : llvm::zip_equal(op->getResults(), c.results))
    if (const FakeTensor *t = plan.lookup(v); t && t->placements != ps)
      return false;
  for (OpOperand &o : op->getOpOperands()) {
    const FakeTensor *t = plan.lookup(o.get());
    if (!t)
      continue;
    const Placements *req = plan.getRequiredPlacements(o);
    if ((req ? *req : t->placements) != c.operands[o.getOperandNumber()])
      return false;
  }
  return true;
}

/// Every re-plan with one more op of the peak constrained.
llvm::SmallVector<Trial, 4> tryConstraints(FunctionOpInterface func,
                                           const Trial &current,
                                           Replanner replan) {
  llvm::SmallVector<Trial, 4> trials;
  const FunctionPlan &plan = *current.plan;
  for (Operation *op : opsAtPeak(current, current.forced)) {
    llvm::SmallVector<Placements, 4> operands;
    for (Value v : op->getOperands())
      operands.push_back(plan.lookup(v) ? plan.lookup(v)->placements
                                        : Placements());
    llvm::SmallVector<ShardingCandidate, 8> candidates;
    if (failed(cast<ShardingRuleOpInterface>(op).getAllShardingCandidates(
            plan.getMeshShape(), operands, candidates)))
      continue;
    for (const ShardingCandidate &c : candidates) {
      if (isCurrent(op, c, plan))
        continue;
      ForcedStrategies forced = current.forced;
      forced.set(op, c);
      if (std::unique_ptr<FunctionPlan> p = replan(forced))
        trials.push_back(evaluate(func, std::move(p), std::move(forced)));
    }
  }
  return trials;
}
} // namespace

FailureOr<std::unique_ptr<FunctionPlan>>
mlir::dtensor::fitMemoryBudget(FunctionOpInterface func,
                               std::unique_ptr<FunctionPlan> plan,
                               int64_t maxBytesPerRank, Replanner replan) {
  Trial current = evaluate(func, std::move(plan), ForcedStrategies());
  while (current.worst > maxBytesPerRank) {
    llvm::SmallVector<Trial, 4> trials = tryConstraints(func, current, replan);
    Trial *fit = nullptr, *smallest = nullptr;
    for (Trial &t : trials) {
      if (t.worst <= maxBytesPerRank && (!fit || t.cost < fit->cost - 1e-9))
        fit = &t;
      if (!smallest || t.worst < smallest->worst ||
          (t.worst == smallest->worst && t.cost < smallest->cost - 1e-9))
        smallest = &t;
    }
    if (fit)
      return std::move(fit->plan);
    if (!smallest || smallest->worst >= current.worst) {
      int64_t rank = current.peak.getWorstRank();
      return func.emitError()
             << "no plan fits max-bytes-per-rank=" << maxBytesPerRank << " ("
             << formatByteSize(maxBytesPerRank)
             << "); the smallest peak reached is "
             << formatByteSize(current.worst) << " (" << current.worst
             << " bytes) on rank " << rank;
    }
    current = std::move(*smallest);
  }
  return std::move(current.plan);
}
