//===- ExecutionCount.cpp - how often a block runs per call ---------------===//

#include "dtensor/Dialect/DTensor/Analysis/ExecutionCount.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::dtensor;

ScopeKind mlir::dtensor::getScopeKind(Operation *op) {
  if (isa<LoopLikeOpInterface>(op))
    return ScopeKind::Loop;
  if (isa<RegionBranchOpInterface>(op) && op->getNumRegions() > 0)
    return ScopeKind::Branch;
  return ScopeKind::Plain;
}

std::optional<int64_t> mlir::dtensor::getStaticTripCount(Operation *loop) {
  auto loopLike = dyn_cast<LoopLikeOpInterface>(loop);
  if (!loopLike)
    return std::nullopt;
  std::optional<APInt> count = loopLike.getStaticTripCount();
  if (!count || count->getActiveBits() > 62)
    return std::nullopt;
  return static_cast<int64_t>(count->getZExtValue());
}

int64_t mlir::dtensor::getCountedTripCount(Operation *loop) {
  return getStaticTripCount(loop).value_or(kUnknownTripCount);
}

llvm::SmallVector<ExecutionScope>
mlir::dtensor::getExecutionScopes(Block *block, Operation *root) {
  llvm::SmallVector<ExecutionScope> scopes;
  for (Region *region = block ? block->getParent() : nullptr; region;) {
    Operation *op = region->getParentOp();
    if (!op || op == root)
      break;
    ScopeKind kind = getScopeKind(op);
    if (kind != ScopeKind::Plain)
      scopes.push_back({op, kind, region->getRegionNumber(),
                        kind == ScopeKind::Loop ? getStaticTripCount(op)
                                                : std::nullopt});
    region = op->getParentRegion();
  }
  return scopes;
}

int64_t
mlir::dtensor::getExecutionCount(llvm::ArrayRef<ExecutionScope> scopes) {
  int64_t count = 1;
  for (const ExecutionScope &s : scopes)
    if (s.kind == ScopeKind::Loop)
      count *= s.tripCount.value_or(kUnknownTripCount);
  return count;
}
