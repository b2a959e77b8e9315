//===- RedistributePlan.cpp - placements to collective steps --------------===//

#include "dtensor/Support/RedistributePlan.h"
#include "dtensor/Support/CostModel.h"

#include <map>
#include <queue>

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
  // A strided shard only goes to and comes from R directly (PyTorch's
  // cases 9 and 12); other moves pass through R (see `addStep`).
  if (from.isStridedShard() || to.isStridedShard()) {
    if (from.isStridedShard() && to.isReplicate())
      kind = StepKind::AllGather;
    else if (from.isReplicate() && to.isStridedShard())
      kind = StepKind::LocalChunk;
    else {
      error = "cannot redistribute " + from.str() + " to " + to.str();
      return false;
    }
    return true;
  }
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
  auto addDirect = [&](int64_t axis, Placement to) {
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
  // Moves from or to a strided shard that are not a gather or a chunk go
  // through R, as PyTorch's graph-based planner does (`_S` -> S(0) is an
  // all-gather and a local chunk, P -> `_S` an all-reduce and a chunk).
  auto addStep = [&](int64_t axis, Placement to) {
    Placement from = state[axis];
    StepKind kind;
    std::string ignored;
    if ((from.isStridedShard() || to.isStridedShard()) &&
        !classify(from, to, kind, ignored) && !to.isPartial())
      return addDirect(axis, Placement::replicate()) && addDirect(axis, to);
    return addDirect(axis, to);
  };
  int64_t n = current.size();
  // Inner to outer: clear the axes whose target is not reachable directly
  // because outer axes shard the same dim differently. PyTorch does this
  // only for a sharded source: [R, P(sum)] -> [S(0), S(0)] is a local chunk
  // and a reduce-scatter.
  bool sharded =
      llvm::any_of(current, [](Placement p) { return p.isShardLike(); });
  for (int64_t axis = sharded ? n - 1 : -1; axis >= 0; --axis) {
    Placement tgt = target[axis];
    if (tgt.isShardLike()) {
      bool aligned = true;
      for (int64_t i = 0; i < axis; ++i)
        if (state[i].isShardLike(tgt.getDim()) !=
                target[i].isShardLike(tgt.getDim()) ||
            (state[i].isShardLike(tgt.getDim()) && state[i] != target[i]))
          aligned = false;
      if (!aligned)
        tgt = Placement::replicate();
    }
    // As PyTorch's `generate_greedy_transform_infos`: every other
    // transition is taken here too, so that R -> S(1) on an inner axis
    // comes before the outer all-gather ([S(0), R] -> [R, S(1)] gathers the
    // half). The alignment check above keeps every step valid.
    if (state[axis] != tgt)
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

double mlir::dtensor::planCost(llvm::ArrayRef<RedistributeStep> steps,
                               llvm::ArrayRef<int64_t> mesh,
                               int64_t globalBytes, StridedCost strided) {
  double total = 0;
  for (const RedistributeStep &step : steps)
    total += transitionCost(globalBytes, mesh, step.before, step.axis, step.to,
                            strided);
  return total;
}

/// True if changing axis `axis` of `state` to `to` is one valid step: a dim
/// sharded by an inner (later) axis cannot change its outer shards, since
/// shards apply left to right.
static bool validStep(llvm::ArrayRef<Placement> state, int64_t axis,
                      Placement to) {
  Placement from = state[axis];
  for (int64_t b = axis + 1, e = state.size(); b < e; ++b) {
    if (from.isShardLike() && state[b].isShardLike(from.getDim()))
      return false;
    if (to.isShardLike() && state[b].isShardLike(to.getDim()))
      return false;
  }
  StepKind kind;
  std::string error;
  return classify(from, to, kind, error);
}

namespace {
/// A state of the search: placements and the path cost to reach them.
struct Node {
  double cost;
  int64_t steps;
  std::string key;
  bool operator>(const Node &o) const {
    return cost != o.cost ? cost > o.cost : steps > o.steps;
  }
};
} // namespace

bool mlir::dtensor::planRedistributeMinCost(
    llvm::ArrayRef<Placement> current, llvm::ArrayRef<Placement> target,
    llvm::ArrayRef<int64_t> mesh, int64_t globalBytes, int64_t tensorRank,
    llvm::SmallVectorImpl<RedistributeStep> &steps, std::string &error) {
  llvm::SmallVector<RedistributeStep> greedy;
  if (!planRedistribute(current, target, greedy, error))
    return false;
  double greedyCost = planCost(greedy, mesh, globalBytes);
  // Candidate placements per axis: R, a shard of any dim, and the partials
  // of the source and the target.
  llvm::SmallVector<Placement> options{Placement::replicate()};
  for (int64_t d = 0; d < tensorRank; ++d)
    options.push_back(Placement::shard(d));
  for (Placement p : llvm::concat<const Placement>(current, target))
    if (p.isPartial() && !llvm::is_contained(options, p))
      options.push_back(p);

  // Dijkstra over states; the string key is the printed placements.
  std::map<std::string, std::pair<Placements, double>> best;
  std::map<std::string, std::pair<std::string, RedistributeStep>> parent;
  std::priority_queue<Node, std::vector<Node>, std::greater<Node>> queue;
  std::string start = placementsToString(current);
  std::string goal = placementsToString(target);
  best[start] = {Placements(current.begin(), current.end()), 0.0};
  queue.push({0.0, 0, start});
  while (!queue.empty()) {
    Node n = queue.top();
    queue.pop();
    auto it = best.find(n.key);
    if (n.cost > it->second.second)
      continue;
    if (n.key == goal)
      break;
    Placements state = it->second.first;
    for (int64_t axis = 0, e = state.size(); axis < e; ++axis) {
      for (Placement to : options) {
        if (to == state[axis] || !validStep(state, axis, to))
          continue;
        // Partial placements are only introduced where the target has them.
        if (to.isPartial() && target[axis] != to)
          continue;
        Placements next = state;
        next[axis] = to;
        double c =
            n.cost + transitionCost(globalBytes, mesh, state, axis, to);
        std::string key = placementsToString(next);
        auto [bit, inserted] = best.try_emplace(key, next, c);
        if (!inserted && c >= bit->second.second)
          continue;
        bit->second = {next, c};
        RedistributeStep step;
        step.axis = axis;
        step.from = state[axis];
        step.to = to;
        step.before = state;
        classify(step.from, to, step.kind, error);
        parent[key] = {n.key, step};
        queue.push({c, n.steps + 1, key});
      }
    }
  }
  auto g = best.find(goal);
  // Keep PyTorch's plan unless the search found a strictly cheaper one.
  if (g == best.end() || g->second.second >= greedyCost - 1e-9) {
    steps.assign(greedy.begin(), greedy.end());
    return true;
  }
  llvm::SmallVector<RedistributeStep> path;
  for (std::string key = goal; key != start;) {
    auto &[prev, step] = parent[key];
    path.push_back(step);
    key = prev;
  }
  steps.assign(path.rbegin(), path.rend());
  return true;
}

std::optional<Placements>
mlir::dtensor::getReplicatedIntermediate(llvm::ArrayRef<Placement> current,
                                         llvm::ArrayRef<Placement> target) {
  llvm::SmallVector<RedistributeStep> steps;
  std::string error;
  if (planRedistribute(current, target, steps, error))
    return std::nullopt;
  Placements mid(current.begin(), current.end());
  for (auto [axis, to] : llvm::enumerate(target))
    if (to.isPartial() && !mid[axis].isReplicate() && mid[axis] != to)
      mid[axis] = Placement::replicate();
  llvm::SmallVector<RedistributeStep> first, second;
  if (!planRedistribute(current, mid, first, error) ||
      !planRedistribute(mid, target, second, error))
    return std::nullopt;
  return mid;
}

bool mlir::dtensor::planRequiredRedistribution(
    llvm::ArrayRef<Placement> current, llvm::ArrayRef<Placement> target,
    llvm::ArrayRef<int64_t> mesh, int64_t globalBytes, int64_t tensorRank,
    llvm::SmallVectorImpl<RedistributeStep> &steps, std::string &error) {
  steps.clear();
  std::optional<Placements> mid = getReplicatedIntermediate(current, target);
  if (!mid)
    return planRedistributeMinCost(current, target, mesh, globalBytes,
                                   tensorRank, steps, error);
  llvm::SmallVector<RedistributeStep> second;
  if (!planRedistributeMinCost(current, *mid, mesh, globalBytes, tensorRank,
                               steps, error) ||
      !planRedistributeMinCost(*mid, target, mesh, globalBytes, tensorRank,
                               second, error))
    return false;
  steps.append(second.begin(), second.end());
  return true;
}

double mlir::dtensor::minRedistributeCost(llvm::ArrayRef<Placement> current,
                                          llvm::ArrayRef<Placement> target,
                                          llvm::ArrayRef<int64_t> mesh,
                                          int64_t globalBytes,
                                          int64_t tensorRank) {
  if (current == target)
    return 0;
  llvm::SmallVector<RedistributeStep> steps;
  std::string error;
  if (!planRequiredRedistribution(current, target, mesh, globalBytes,
                                  tensorRank, steps, error))
    return kInfiniteCost;
  return planCost(steps, mesh, globalBytes);
}
