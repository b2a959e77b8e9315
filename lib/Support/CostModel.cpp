//===- CostModel.cpp - PyTorch DTensor communication cost model -----------===//

#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/ShardingMath.h"

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

double mlir::dtensor::redistributeCost(int64_t globalBytes,
                                       llvm::ArrayRef<int64_t> mesh,
                                       llvm::ArrayRef<Placement> current,
                                       llvm::ArrayRef<Placement> target) {
  if (llvm::all_of(current, [](Placement p) { return p.isReplicate(); }))
    return 0.0;
  double gb = static_cast<double>(globalBytes) /
              static_cast<double>(numShards(mesh, current)) /
              (1024.0 * 1024.0 * 1024.0);
  double cost = 0.0;
  for (auto [axis, cur, tgt] : llvm::enumerate(current, target)) {
    if (cur == tgt)
      continue;
    int64_t k = mesh[axis];
    if (cur.isShard() && tgt.isReplicate()) {
      gb *= k;
      cost += allGatherCost(gb, k);
    } else if (cur.isShard() && tgt.isShard()) {
      cost += allToAllCost(gb, k);
    } else if (cur.isPartial() && tgt.isReplicate()) {
      cost += allReduceCost(gb, k);
    } else if (cur.isPartial() && tgt.isShard()) {
      cost += reduceScatterCost(gb, k);
      gb /= k;
    } else if (tgt.isPartial() && !cur.isReplicate()) {
      // S -> P, or a partial of another reduction: not expressible.
      return kInfiniteCost;
    }
  }
  return cost;
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
