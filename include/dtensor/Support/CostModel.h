//===- CostModel.h - PyTorch DTensor communication cost model ---*- C++ -*-===//
//
// The cost model of PyTorch's `_collective_utils.py`, in microseconds, and the
// strategy choice rule of `_sharding_prop.py`. No MLIR IR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_COSTMODEL_H
#define DTENSOR_SUPPORT_COSTMODEL_H

#include "dtensor/Support/Placement.h"

#include <limits>

namespace mlir {
namespace dtensor {

/// Cost of an impossible redistribution (S -> P, across meshes).
constexpr double kInfiniteCost = std::numeric_limits<double>::infinity();

/// Per-collective costs for `gb` GiB per rank over a group of `k` ranks.
double allGatherCost(double gb, int64_t k);
double reduceScatterCost(double gb, int64_t k);
double allReduceCost(double gb, int64_t k);
double allToAllCost(double gb, int64_t k);

/// How transitions from or to a strided shard `_S(d, sf)` are priced.
enum class StridedCost : uint8_t {
  /// As the collective they run: `_S` -> R is an all-gather like S -> R.
  Collective,
  /// As PyTorch 2.15 prices them: 0 (`_compute_placement_transition_cost`
  /// has no case for `_StridedShard`, whose `is_shard()` is false). Used by
  /// strategy=pytorch, so that it picks what PyTorch picks.
  PyTorch,
};

/// PyTorch `_compute_placement_transition_cost`: cost of changing mesh axis
/// `axis` of `before` to `to`, for a tensor of `globalBytes`. S -> P and
/// P(op) -> P(other) are infinite.
double transitionCost(int64_t globalBytes, llvm::ArrayRef<int64_t> meshShape,
                      llvm::ArrayRef<Placement> before, int64_t axis,
                      Placement to,
                      StridedCost strided = StridedCost::Collective);

/// PyTorch `redistribute_cost`: cost of moving a tensor of `globalBytes` from
/// `current` to `target` placements on a mesh, the sum of the transition
/// costs of PyTorch's own steps (`planRedistribute`). Fully replicated
/// sources cost nothing; S -> P is infinite.
double redistributeCost(int64_t globalBytes, llvm::ArrayRef<int64_t> meshShape,
                        llvm::ArrayRef<Placement> current,
                        llvm::ArrayRef<Placement> target,
                        StridedCost strided = StridedCost::Collective);

/// Sustained compute rate (FLOP per µs) of the compute term of the global
/// planner's objective: 100 TFLOP/s, an H100-class device on f32/tf32
/// GEMMs, the hardware PyTorch's communication constants describe.
constexpr double kComputeFlopsPerUs = 1e8;
/// The least time (µs) an op with any compute takes: one kernel launch.
/// Below it, splitting an op's work over more ranks saves nothing, so small
/// ops leave the choice to communication and PyTorch's candidate order.
constexpr double kKernelLaunchUs = 4.0;

/// Per-rank time (µs) of an op of `flops` floating-point operations whose
/// iteration space is split `ways` ways (1: every rank does all of it):
/// flops / ways / kComputeFlopsPerUs, at least kKernelLaunchUs (0 for an op
/// without flops).
double computeCost(double flops, int64_t ways);

/// One candidate strategy as seen by the choice rule.
struct CandidateCost {
  /// Sum of the redistribution costs of all inputs.
  double cost = 0;
  /// True if some input must change placements (even at cost 0).
  bool needsRedistribution = false;
};

/// PyTorch `_select_strategy`: the first candidate that needs no
/// redistribution at total cost 0 wins; otherwise the first of minimal cost.
/// Returns -1 for an empty list.
int64_t selectCandidate(llvm::ArrayRef<CandidateCost> candidates);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_COSTMODEL_H
