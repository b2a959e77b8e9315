//===- CostModelTest.cpp - PyTorch cost model and strategy choice ---------===//

#include "dtensor/Support/CostModel.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir::dtensor;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(CostModel, CollectiveFormulas) {
  // 6.6 + (k-1)*0.6 + gb*(k-1)/k/87.7*1e6
  EXPECT_NEAR(allGatherCost(1.0, 4), 6.6 + 1.8 + 0.75 / 87.7 * 1e6, 1e-6);
  EXPECT_NEAR(reduceScatterCost(0.5, 2), 6.6 + 0.6 + 0.25 / 87.7 * 1e6, 1e-6);
  // 6.6 + 2*(k-1)*0.6 + gb*2*(k-1)/k/87.7*1e6
  EXPECT_NEAR(allReduceCost(1.0, 4), 6.6 + 3.6 + 1.5 / 87.7 * 1e6, 1e-6);
  EXPECT_NEAR(allToAllCost(1.0, 4), allGatherCost(1.0, 4) + 1.0, 1e-9);
}

TEST(CostModel, RedistributeCost) {
  int64_t bytes = 32 * 512 * 4;
  double gbShard = bytes / 4.0 / kGiB;
  // R -> anything is free.
  EXPECT_EQ(redistributeCost(bytes, {4}, {Placement::replicate()},
                             {Placement::shard(0)}),
            0.0);
  EXPECT_EQ(redistributeCost(bytes, {4}, {Placement::replicate()},
                             {Placement::partial()}),
            0.0);
  // S -> R all-gathers the full tensor.
  EXPECT_NEAR(redistributeCost(bytes, {4}, {Placement::shard(0)},
                               {Placement::replicate()}),
              allGatherCost(gbShard * 4, 4), 1e-9);
  // P -> R all-reduces the local (full-size) tensor.
  EXPECT_NEAR(redistributeCost(bytes, {4}, {Placement::partial()},
                               {Placement::replicate()}),
              allReduceCost(bytes / kGiB, 4), 1e-9);
  EXPECT_NEAR(redistributeCost(bytes, {4}, {Placement::shard(0)},
                               {Placement::shard(1)}),
              allToAllCost(gbShard, 4), 1e-9);
  EXPECT_TRUE(std::isinf(redistributeCost(bytes, {4}, {Placement::shard(0)},
                                          {Placement::partial()})));
  EXPECT_EQ(redistributeCost(bytes, {4}, {Placement::shard(0)},
                             {Placement::shard(0)}),
            0.0);
}

TEST(CostModel, TwoAxes) {
  int64_t bytes = 1 << 20;
  double full = bytes / kGiB;
  // [S(0), P] -> [R, R] on 2x2: PyTorch's steps go inner to outer for a
  // sharded source: all-reduce the half, then gather it to the full tensor.
  EXPECT_NEAR(redistributeCost(
                  bytes, {2, 2}, {Placement::shard(0), Placement::partial()},
                  {Placement::replicate(), Placement::replicate()}),
              allReduceCost(full / 2, 2) + allGatherCost(full, 2), 1e-9);
  // [S(0), S(1)] -> [S(1), S(0)]: axis 1 S(1) -> R, axis 0 S(0) -> S(1),
  // axis 1 R -> S(0) (docs/semantics.md section 2), not two all-to-alls.
  EXPECT_NEAR(redistributeCost(bytes, {2, 2},
                               {Placement::shard(0), Placement::shard(1)},
                               {Placement::shard(1), Placement::shard(0)}),
              allGatherCost(full / 2, 2) + allToAllCost(full / 2, 2), 1e-9);
  // [P, S(1)] -> [S(0), S(1)]: reduce-scatter the quarter... of a half.
  EXPECT_NEAR(redistributeCost(bytes, {2, 2},
                               {Placement::partial(), Placement::shard(1)},
                               {Placement::shard(0), Placement::shard(1)}),
              reduceScatterCost(full / 2, 2), 1e-9);
}

// PyTorch 2.15's `_compute_placement_transition_cost` has no case for a
// strided shard (`_StridedShard.is_shard()` is false): its gathers and chunks
// cost nothing there. strategy=pytorch prices them so (to pick what PyTorch
// picks); the planner prices the collective they run, as for a plain shard.
TEST(CostModel, StridedShard) {
  int64_t bytes = 32 * 4;
  const Placement SS = Placement::stridedShard(0, 4);
  const Placement R = Placement::replicate();
  const StridedCost pt = StridedCost::PyTorch;
  EXPECT_EQ(transitionCost(bytes, {4}, {SS}, 0, R, pt), 0.0);
  EXPECT_EQ(transitionCost(bytes, {4}, {R}, 0, SS, pt), 0.0);
  EXPECT_EQ(redistributeCost(bytes, {4}, {SS}, {Placement::shard(0)}, pt), 0.0);
  EXPECT_TRUE(std::isinf(
      transitionCost(bytes, {4}, {SS}, 0, Placement::partial(), pt)));
  double gather = allGatherCost(bytes / kGiB, 4);
  EXPECT_NEAR(transitionCost(bytes, {4}, {SS}, 0, R), gather, 1e-9);
  EXPECT_EQ(transitionCost(bytes, {4}, {R}, 0, SS), 0.0);
  // _S -> S(0) runs as an all-gather and a local chunk.
  EXPECT_NEAR(redistributeCost(bytes, {4}, {SS}, {Placement::shard(0)}),
              gather, 1e-9);
  EXPECT_TRUE(
      std::isinf(transitionCost(bytes, {4}, {SS}, 0, Placement::partial())));
}

TEST(SelectCandidate, NoRedistributionAtZeroCostWins) {
  // A candidate that is free but needs a (free) redistribution loses to a
  // later one that needs none.
  EXPECT_EQ(selectCandidate({{0.0, true}, {0.0, false}}), 1);
  // Otherwise the cheapest, first on ties.
  EXPECT_EQ(selectCandidate({{5.0, true}, {3.0, true}, {3.0, true}}), 1);
  EXPECT_EQ(selectCandidate({{5.0, true}, {0.0, true}, {2.0, true}}), 1);
  EXPECT_EQ(selectCandidate({}), -1);
}

} // namespace
