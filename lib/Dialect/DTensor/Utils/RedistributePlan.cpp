//===- RedistributePlan.cpp - placements to collective steps --------------===//

#include "dtensor/Dialect/DTensor/Utils/RedistributePlan.h"

using namespace mlir::dtensor;

llvm::StringRef mlir::dtensor::stringifyStepKind(StepKind kind) {
  switch (kind) {
  case StepKind::AllGather:
    return "all_gather";
  case StepKind::AllReduce:
    return "all_reduce";
  case StepKind::ReduceScatter:
    return "reduce_scatter";
  case StepKind::AllToAll:
    return "all_to_all";
  case StepKind::LocalChunk:
    return "local_chunk";
  case StepKind::LocalDivide:
    return "local_divide";
  case StepKind::LocalKeep:
    return "local_keep";
  }
  llvm_unreachable("unknown step kind");
}

bool mlir::dtensor::isCollective(StepKind kind) {
  return kind == StepKind::AllGather || kind == StepKind::AllReduce ||
         kind == StepKind::ReduceScatter || kind == StepKind::AllToAll;
}

/// Classifies a single-axis transition; returns false if it is impossible.
static bool classify(Placement from, Placement to, StepKind &kind,
                     std::string &error) {
  if (from.isShard() && to.isReplicate())
    kind = StepKind::AllGather;
  else if (from.isShard() && to.isShard())
    kind = StepKind::AllToAll;
  else if (from.isPartial() && to.isReplicate())
    kind = StepKind::AllReduce;
  else if (from.isPartial() && to.isShard())
    kind = StepKind::ReduceScatter;
  else if (from.isReplicate() && to.isShard())
    kind = StepKind::LocalChunk;
  else if (from.isReplicate() && to.isPartial())
    kind = to.getReduceOp() == ReduceOp::Sum ? StepKind::LocalDivide
                                             : StepKind::LocalKeep;
  else {
    error = "cannot redistribute " + from.str() + " to " + to.str();
    return false;
  }
  return true;
}

bool mlir::dtensor::planRedistribute(
    llvm::ArrayRef<Placement> current, llvm::ArrayRef<Placement> target,
    llvm::SmallVectorImpl<RedistributeStep> &steps, std::string &error) {
  assert(current.size() == target.size() && "placements of one mesh");
  Placements state(current.begin(), current.end());
  auto addStep = [&](int64_t axis, Placement to) {
    RedistributeStep step;
    step.axis = axis;
    step.from = state[axis];
    step.to = to;
    step.before = state;
    if (!classify(step.from, to, step.kind, error))
      return false;
    steps.push_back(step);
    state[axis] = to;
    return true;
  };
  int64_t n = current.size();
  // Inner to outer: clear the axes whose target is not reachable directly
  // because outer axes shard the same dim differently.
  for (int64_t axis = n - 1; axis >= 0; --axis) {
    Placement tgt = target[axis];
    if (tgt.isShard()) {
      bool aligned = true;
      for (int64_t i = 0; i < axis; ++i)
        if (state[i].isShard(tgt.getDim()) != target[i].isShard(tgt.getDim()))
          aligned = false;
      if (!aligned)
        tgt = Placement::replicate();
    }
    // A shard of a dim that an inner axis still shards cannot be moved before
    // the inner axis is undone; inner axes were handled first, so only
    // transitions away from a shard are taken here.
    if (state[axis] != tgt &&
        !(state[axis].isReplicate() && !tgt.isReplicate()))
      if (!addStep(axis, tgt))
        return false;
  }
  // Outer to inner: everything that is left.
  for (int64_t axis = 0; axis < n; ++axis)
    if (state[axis] != target[axis])
      if (!addStep(axis, target[axis]))
        return false;
  return true;
}
