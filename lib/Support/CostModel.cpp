//===- CostModel.cpp - PyTorch DTensor communication cost model -----------===//

#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/RedistributePlan.h"
#include "dtensor/Support/ShardingMath.h"

#include <algorithm>

using namespace mlir::dtensor;

// Constants of PyTorch's MeshTopoInfo for intra-node mesh dims.
static constexpr double kBaseLatencyUs = 6.6;
static constexpr double kHopLatencyUs = 0.6;
static constexpr double kBandwidthGBs = 87.7;

double mlir::dtensor::allGatherCost(double gb, int64_t k) {
  int64_t hops = k - 1;
  double latency = kBaseLatencyUs + hops * kHopLatencyUs;
  double bw = (gb * hops / k) / kBandwidthGBs;
  return latency + bw * 1e6;
}

double mlir::dtensor::reduceScatterCost(double gb, int64_t k) {
  return allGatherCost(gb, k);
}

double mlir::dtensor::allReduceCost(double gb, int64_t k) {
  int64_t hops = k - 1;
  double latency = kBaseLatencyUs + 2 * hops * kHopLatencyUs;
  double bw = (gb * 2 * hops / k) / kBandwidthGBs;
  return latency + bw * 1e6;
}

double mlir::dtensor::allToAllCost(double gb, int64_t k) {
  return allGatherCost(gb, k) + 1.0;
}

double mlir::dtensor::transitionCost(int64_t globalBytes,
                                     llvm::ArrayRef<int64_t> mesh,
                                     llvm::ArrayRef<Placement> before,
                                     int64_t axis, Placement to,
                                     StridedCost strided) {
  Placement cur = before[axis];
  if (cur == to)
    return 0.0;
  // Priced as the shard it is, or (PyTorch) as nothing PyTorch knows.
  if (strided == StridedCost::Collective) {
    if (cur.isStridedShard())
      cur = Placement::shard(cur.getDim());
    if (to.isStridedShard())
      to = Placement::shard(to.getDim());
  } else if (cur.isStridedShard() || to.isStridedShard()) {
    return to.isPartial() ? kInfiniteCost : 0.0;
  }
  // PyTorch's `comm_bytes_gb` at this step: the bytes of one shard of the
  // state before it.
  double gb = static_cast<double>(globalBytes) /
              static_cast<double>(numShards(mesh, before)) /
              (1024.0 * 1024.0 * 1024.0);
  int64_t k = mesh[axis];
  if (cur.isShard() && to.isReplicate())
    return allGatherCost(gb * k, k);
  if (cur.isShard() && to.isShard())
    return allToAllCost(gb, k);
  if (cur.isPartial() && to.isReplicate())
    return allReduceCost(gb, k);
  if (cur.isPartial() && to.isShard())
    return reduceScatterCost(gb, k);
  if (to.isPartial() && !cur.isReplicate())
    return kInfiniteCost; // S -> P, or a partial of another reduction.
  return 0.0;
}

double mlir::dtensor::redistributeCost(int64_t globalBytes,
                                       llvm::ArrayRef<int64_t> mesh,
                                       llvm::ArrayRef<Placement> current,
                                       llvm::ArrayRef<Placement> target,
                                       StridedCost strided) {
  if (llvm::all_of(current, [](Placement p) { return p.isReplicate(); }) ||
      llvm::equal(current, target))
    return 0.0;
  // PyTorch prices the steps it runs (`_gen_transform_infos`, greedy): a
  // 2x2 [S(0), S(1)] -> [S(1), S(0)] is an all-gather, an all-to-all and a
  // local chunk, not two all-to-alls.
  llvm::SmallVector<RedistributeStep> steps;
  std::string error;
  if (!planRedistribute(current, target, steps, error))
    return kInfiniteCost;
  return planCost(steps, mesh, globalBytes, strided);
}

double mlir::dtensor::computeCost(double flops, int64_t ways) {
  if (flops <= 0)
    return 0;
  return std::max(kKernelLaunchUs,
                  flops / static_cast<double>(std::max<int64_t>(ways, 1)) /
                      kComputeFlopsPerUs);
}

int64_t mlir::dtensor::selectCandidate(llvm::ArrayRef<CandidateCost> cands) {
  if (cands.empty())
    return -1;
  int64_t best = 0;
  for (auto [i, c] : llvm::enumerate(cands)) {
    if (c.cost == 0 && !c.needsRedistribution)
      return i;
    if (c.cost < cands[best].cost)
      best = i;
  }
  return best;
}
