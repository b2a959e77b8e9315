//===- RedistributePlanTest.cpp - redistribution planning -----------------===//

#include "dtensor/Support/RedistributePlan.h"

#include "gtest/gtest.h"

using namespace mlir::dtensor;

namespace {

std::string plan(std::vector<Placement> from, std::vector<Placement> to) {
  llvm::SmallVector<RedistributeStep> steps;
  std::string err;
  if (!planRedistribute(from, to, steps, err))
    return "error: " + err;
  std::string s;
  for (const RedistributeStep &st : steps) {
    if (!s.empty())
      s += "; ";
    s += stringifyStepKind(st.kind).str() + "@" + std::to_string(st.axis);
  }
  return s;
}

const Placement R = Placement::replicate();
const Placement S0 = Placement::shard(0);
const Placement S1 = Placement::shard(1);
const Placement P = Placement::partial();

TEST(RedistributePlan, SingleAxis) {
  EXPECT_EQ(plan({S0}, {R}), "all_gather@0");
  EXPECT_EQ(plan({P}, {R}), "all_reduce@0");
  EXPECT_EQ(plan({P}, {S0}), "reduce_scatter@0");
  EXPECT_EQ(plan({S0}, {S1}), "all_to_all@0");
  EXPECT_EQ(plan({R}, {S1}), "local_chunk@0");
  EXPECT_EQ(plan({R}, {P}), "local_divide@0");
  EXPECT_EQ(plan({R}, {Placement::partial(ReduceOp::Max)}), "local_keep@0");
  EXPECT_EQ(plan({S0}, {S0}), "");
  EXPECT_EQ(plan({S0}, {P}), "error: cannot redistribute S(0) to P(sum)");
}

TEST(RedistributePlan, NestedShardsUndoInnerFirst) {
  EXPECT_EQ(plan({S0, S0}, {R, R}), "all_gather@1; all_gather@0");
  // The inner shard of dim 0 has to go before axis 0 can change.
  EXPECT_EQ(plan({S0, S1}, {S1, S0}),
            "all_gather@1; all_to_all@0; local_chunk@1");
  EXPECT_EQ(plan({S0, S0}, {R, S0}),
            "all_gather@1; all_gather@0; local_chunk@1");
  EXPECT_EQ(plan({P, S0}, {R, S0}), "all_reduce@0");
}

TEST(RedistributePlan, StepsRecordTheStateBefore) {
  llvm::SmallVector<RedistributeStep> steps;
  std::string err;
  ASSERT_TRUE(planRedistribute({S0, S1}, {S1, S0}, steps, err));
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(placementsToString(steps[1].before), "[S(0), R]");
  EXPECT_EQ(placementsToString(steps[2].before), "[S(1), R]");
}

} // namespace

namespace {
std::string planMin(std::vector<Placement> from, std::vector<Placement> to,
                    std::vector<int64_t> mesh, int64_t bytes,
                    int64_t rank = 2) {
  llvm::SmallVector<RedistributeStep> steps;
  std::string err;
  if (!planRedistributeMinCost(from, to, mesh, bytes, rank, steps, err))
    return "error: " + err;
  std::string s;
  for (const RedistributeStep &st : steps) {
    if (!s.empty())
      s += "; ";
    s += stringifyStepKind(st.kind).str() + "@" + std::to_string(st.axis);
  }
  return s;
}

TEST(RedistributePlanMinCost, ReduceScatterGatherBeatsTwoAllReduces) {
  // [P, P] -> [R, R] of 64 MiB on 2x2: PyTorch all-reduces the full tensor
  // twice; reduce-scatter on one axis, all-reduce the half on the other and
  // all-gather costs less.
  int64_t bytes = int64_t(64) << 20;
  std::string plan = planMin({P, P}, {R, R}, {2, 2}, bytes);
  EXPECT_EQ(plan, "reduce_scatter@0; all_reduce@1; all_gather@0");
  llvm::SmallVector<RedistributeStep> greedy, best;
  std::string err;
  ASSERT_TRUE(planRedistribute({P, P}, {R, R}, greedy, err));
  ASSERT_TRUE(planRedistributeMinCost({P, P}, {R, R}, {2, 2}, bytes, 2, best,
                                      err));
  EXPECT_LT(planCost(best, {2, 2}, bytes), planCost(greedy, {2, 2}, bytes));
}

TEST(RedistributePlanMinCost, KeepsPyTorchPlanWhenNotCheaper) {
  EXPECT_EQ(planMin({S0}, {R}, {4}, 1 << 20), "all_gather@0");
  // Gathering over the 2-rank axis instead of the 4-rank one is cheaper.
  EXPECT_EQ(planMin({S0, S1}, {S1, S0}, {2, 4}, 1 << 20),
            "all_gather@0; all_to_all@1; local_chunk@0");
  // Tiny tensors: latency dominates, two all-reduces are cheapest (in
  // PyTorch's order: outer to inner for a source without shards).
  EXPECT_EQ(planMin({P, P}, {R, R}, {2, 2}, 64), "all_reduce@0; all_reduce@1");
  EXPECT_EQ(planMin({S0}, {P}, {4}, 64),
            "error: cannot redistribute S(0) to P(sum)");
}
} // namespace

// A strided shard goes to R by an all-gather and comes from R by a local
// chunk; everything else passes through R (PyTorch 2.15 runs `_S(0, 4)` ->
// S(0) as one all-gather, P -> `_S` as one all-reduce: CommDebugMode).
TEST(RedistributePlan, StridedShard) {
  const Placement SS = Placement::stridedShard(0, 4);
  const Placement SS2 = Placement::stridedShard(0, 2);
  EXPECT_EQ(plan({SS}, {R}), "all_gather@0");
  EXPECT_EQ(plan({R}, {SS}), "local_chunk@0");
  EXPECT_EQ(plan({SS}, {S0}), "all_gather@0; local_chunk@0");
  EXPECT_EQ(plan({S0}, {SS}), "all_gather@0; local_chunk@0");
  EXPECT_EQ(plan({P}, {SS}), "all_reduce@0; local_chunk@0");
  EXPECT_EQ(plan({SS}, {SS2}), "all_gather@0; local_chunk@0");
  EXPECT_EQ(plan({SS}, {P}), "error: cannot redistribute _S(0, 4) to P(sum)");
  // Inner axes first, as for nested plain shards.
  EXPECT_EQ(plan({S0, SS2}, {R, R}), "all_gather@1; all_gather@0");
  EXPECT_EQ(plan({SS, S0}, {R, R}), "all_gather@1; all_gather@0");
  EXPECT_EQ(plan({S0, SS2}, {S0, S0}), "all_gather@1; local_chunk@1");
  EXPECT_EQ(plan({SS, R}, {S0, R}), "all_gather@0; local_chunk@0");
}
