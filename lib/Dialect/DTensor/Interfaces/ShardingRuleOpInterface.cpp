//===- ShardingRuleOpInterface.cpp - per-op sharding rules ----------------===//

#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"
#include "dtensor/Support/ShardingMath.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::dtensor;

#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.cpp.inc"

PartitionContext::~PartitionContext() = default;

void mlir::dtensor::forEachAxisAssignment(
    int64_t numAxes, int64_t numOptions,
    llvm::function_ref<void(llvm::ArrayRef<int64_t>)> fn) {
  llvm::SmallVector<int64_t> idx(numAxes, 0);
  while (true) {
    fn(idx);
    int64_t a = numAxes - 1;
    while (a >= 0 && ++idx[a] == numOptions)
      idx[a--] = 0;
    if (a < 0)
      return;
  }
}

LogicalResult mlir::dtensor::enumerateFollowedCandidates(
    ShardingRuleOpInterface op, unsigned followed,
    llvm::ArrayRef<int64_t> mesh, llvm::ArrayRef<Placements> current,
    llvm::SmallVectorImpl<ShardingCandidate> &out) {
  Operation *raw = op.getOperation();
  if (raw->getNumOperands() <= followed)
    return op.getShardingCandidates(mesh, current, out);
  auto type = dyn_cast<RankedTensorType>(raw->getOperand(followed).getType());
  if (!type)
    return op.getShardingCandidates(mesh, current, out);
  llvm::SmallVector<Placement> options{Placement::replicate(),
                                       Placement::partial()};
  for (int64_t d = 0; d < type.getRank(); ++d)
    options.push_back(Placement::shard(d));
  bool any = false, failedRule = false;
  forEachAxisAssignment(
      mesh.size(), options.size(), [&](llvm::ArrayRef<int64_t> idx) {
        Placements hyp;
        for (int64_t i : idx)
          hyp.push_back(options[i]);
        if (failedRule || !isShardable(type.getShape(), mesh, hyp))
          return;
        llvm::SmallVector<Placements, 4> cur(current.begin(), current.end());
        for (auto [i, v] : llvm::enumerate(raw->getOperands()))
          if (auto t = dyn_cast<RankedTensorType>(v.getType());
              t && t.getRank() == type.getRank())
            cur[i] = hyp;
        llvm::SmallVector<ShardingCandidate, 2> cands;
        if (failed(op.getShardingCandidates(mesh, cur, cands))) {
          failedRule = true;
          return;
        }
        any = true;
        for (ShardingCandidate &c : cands) {
          bool seen = llvm::any_of(out, [&](const ShardingCandidate &o) {
            return o.operands == c.operands && o.results == c.results;
          });
          if (!seen)
            out.push_back(std::move(c));
        }
      });
  if (failedRule)
    return failure();
  return success(any);
}

bool mlir::dtensor::isCreationOp(Operation *op) {
  if (!llvm::all_of(op->getOperandTypes(),
                    [](Type t) { return !isa<TensorType>(t); }))
    return false;
  auto rule = dyn_cast<ShardingRuleOpInterface>(op);
  return rule && rule.createsFromScalars();
}

/// True if `op` keeps a created value created (fills and structured copies).
static bool preservesCreation(Operation *op) {
  auto rule = dyn_cast<ShardingRuleOpInterface>(op);
  return rule && rule.preservesCreation();
}

bool mlir::dtensor::isCreatedValue(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return false;
  if (isCreationOp(def))
    return true;
  if (!preservesCreation(def))
    return false;
  return llvm::all_of(def->getOperands(), [](Value x) {
    return !isa<TensorType>(x.getType()) || isCreatedValue(x);
  });
}

bool mlir::dtensor::isZeroOrUndef(Value v) {
  if (auto rule =
          dyn_cast_if_present<ShardingRuleOpInterface>(v.getDefiningOp()))
    if (rule.createsZeroOrUndef())
      return true;
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

bool mlir::dtensor::createInNeedsZero(llvm::ArrayRef<Placement> ps) {
  return llvm::any_of(ps, [](Placement p) {
    return p.isPartial() && p.getReduceOp() == ReduceOp::Sum;
  });
}

bool mlir::dtensor::canCreateIn(Value v, llvm::ArrayRef<Placement> ps) {
  return isCreatedValue(v) && (!createInNeedsZero(ps) || isZeroOrUndef(v));
}

FailureOr<ShardingCandidate>
mlir::dtensor::getCreationCandidate(Operation *op, llvm::ArrayRef<int64_t> mesh,
                                    llvm::ArrayRef<Placement> result) {
  if (op->getNumResults() != 1)
    return failure();
  if (isCreationOp(op)) {
    ShardingCandidate c;
    c.operands.assign(op->getNumOperands(), Placements());
    c.excludedFromCost.assign(op->getNumOperands(), false);
    c.results.push_back(Placements(result.begin(), result.end()));
    return c;
  }
  if (!preservesCreation(op))
    return failure();
  return cast<ShardingRuleOpInterface>(op).getCreationCandidate(mesh, result);
}
