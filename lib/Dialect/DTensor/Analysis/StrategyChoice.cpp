//===- StrategyChoice.cpp - the strategies compared for one op ------------===//
//
// Why a plan gives an op the placements it has: the candidates of the op's
// sharding rule for the placements its operands arrive with, scored as the
// per-op choice rule scores them, and the one the plan uses. The report
// explains each collective with it.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"

using namespace mlir;
using namespace mlir::dtensor;

CandidateCost mlir::dtensor::scoreCandidate(Operation *op,
                                            llvm::ArrayRef<Placements> current,
                                            const ShardingCandidate &c,
                                            llvm::ArrayRef<int64_t> meshShape) {
  CandidateCost cost;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || c.excludedFromCost[i])
      continue;
    if (current[i] != c.operands[i]) {
      cost.needsRedistribution = true;
      // PyTorch's choice, with PyTorch's prices.
      cost.cost += redistributeCost(getTensorByteSize(type), meshShape,
                                    current[i], c.operands[i],
                                    StridedCost::PyTorch);
    }
  }
  return cost;
}

/// Whether the plan gives `op` the placements of candidate `c`: its tensor
/// operands are read in `reads` (destination operands, which a created
/// value adopts, are not compared) and its results have `c.results`.
static bool usesCandidate(Operation *op, llvm::ArrayRef<Placements> reads,
                          llvm::ArrayRef<Placements> results,
                          const ShardingCandidate &c) {
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (isa<RankedTensorType>(v.getType()) && !c.excludedFromCost[i] &&
        reads[i] != c.operands[i])
      return false;
  for (auto [i, r] : llvm::enumerate(op->getResults()))
    if (isa<RankedTensorType>(r.getType()) && results[i] != c.results[i])
      return false;
  return true;
}

FailureOr<StrategyChoice>
FunctionPlan::getStrategyChoice(Operation *op) const {
  auto rule = dyn_cast<ShardingRuleOpInterface>(op);
  if (!rule)
    return failure();
  // The placements each operand has (`current`) and is read in (`reads`).
  llvm::SmallVector<Placements, 4> current, reads, results;
  for (OpOperand &o : op->getOpOperands()) {
    const FakeTensor *t = lookup(o.get());
    current.push_back(t ? t->placements : Placements());
    const Placements *req = getRequiredPlacements(o);
    reads.push_back(req ? *req : current.back());
  }
  for (Value r : op->getResults()) {
    const FakeTensor *t = lookup(r);
    results.push_back(t ? t->placements : Placements());
  }
  llvm::SmallVector<ShardingCandidate, 4> offered, candidates;
  if (failed(rule.getShardingCandidates(meshShape, current, offered)))
    return failure();
  // A rule may offer one strategy twice (from two loop spaces).
  for (ShardingCandidate &c : offered)
    if (llvm::none_of(candidates, [&](const ShardingCandidate &k) {
          return k.operands == c.operands && k.results == c.results;
        }))
      candidates.push_back(std::move(c));
  auto findChosen = [&]() -> int64_t {
    for (auto [i, c] : llvm::enumerate(candidates))
      if (usesCandidate(op, reads, results, c))
        return i;
    return -1;
  };
  int64_t chosen = findChosen();
  if (chosen < 0) {
    // A pin (or the global planner) may ask for a strategy the rule offers
    // only for pins.
    llvm::SmallVector<ShardingCandidate, 8> pinnable;
    if (succeeded(
            rule.getPinnableShardingCandidates(meshShape, current, pinnable)))
      for (ShardingCandidate &c : pinnable)
        if (usesCandidate(op, reads, results, c)) {
          candidates.push_back(std::move(c));
          chosen = candidates.size() - 1;
          break;
        }
  }
  if (chosen < 0)
    return failure();
  StrategyChoice choice;
  choice.chosen = chosen;
  for (ShardingCandidate &c : candidates) {
    CandidateCost cost = scoreCandidate(op, current, c, meshShape);
    choice.candidates.push_back(
        {std::move(c), cost.cost, cost.needsRedistribution});
  }
  for (auto [i, c] : llvm::enumerate(choice.candidates))
    if (static_cast<int64_t>(i) != chosen &&
        (choice.runnerUp < 0 ||
         c.costUs < choice.candidates[choice.runnerUp].costUs))
      choice.runnerUp = i;
  return choice;
}
