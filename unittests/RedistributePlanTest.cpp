//===- RedistributePlanTest.cpp - redistribution planning -----------------===//

#include "dtensor/Dialect/DTensor/Utils/RedistributePlan.h"

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
