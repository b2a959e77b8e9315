//===- FiniteDiffTest.cpp - the math of --grad-check ----------------------===//

#include "FiniteDiff.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace dtensor_run;

namespace {

TEST(FiniteDiff, StepIsRelativeToTheMagnitude) {
  double base = std::cbrt(std::numeric_limits<double>::epsilon());
  EXPECT_DOUBLE_EQ(finiteDifferenceStep(0.0), base);
  EXPECT_DOUBLE_EQ(finiteDifferenceStep(0.5), base);
  EXPECT_DOUBLE_EQ(finiteDifferenceStep(-100.0), 100.0 * base);
}

TEST(FiniteDiff, CentralDifferenceOfACubic) {
  // d/dx x^3 at 1.5 = 6.75; the step keeps the error far below 1e-8.
  double x = 1.5, h = finiteDifferenceStep(x);
  double plus = x + h, minus = x - h;
  double fd = (plus * plus * plus - minus * minus * minus) / (plus - minus);
  EXPECT_NEAR(fd, 6.75, 1e-8);
}

TEST(FiniteDiff, ErrorIsRelativeAboveTheScale) {
  EXPECT_NEAR(gradientError(1.01, 1.0, 1e-6), 0.01, 1e-12);
  EXPECT_NEAR(gradientError(2.0, 1.0, 1e-6), 1.0, 1e-15);
  // Below the scale the error is measured against the scale.
  EXPECT_NEAR(gradientError(1e-5, 0.0, 1e-2), 1e-3, 1e-15);
}

TEST(FiniteDiff, ErrorOfNonFiniteValuesIsInfinite) {
  double inf = std::numeric_limits<double>::infinity();
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isinf(gradientError(nan, 1.0, 1e-6)));
  EXPECT_TRUE(std::isinf(gradientError(1.0, inf, 1e-6)));
}

TEST(FiniteDiff, ScaleFollowsTheLargestDifference) {
  EXPECT_DOUBLE_EQ(errorScale({0.5, -3.0, 1.0}), 3.0 * kScaleFraction);
  EXPECT_DOUBLE_EQ(errorScale({0.0, 0.0}), kScaleFloor);
  EXPECT_DOUBLE_EQ(errorScale({std::numeric_limits<double>::quiet_NaN(), 2.0}),
                   2.0 * kScaleFraction);
}

TEST(FiniteDiff, SamplesAreDistinctSortedAndSeeded) {
  std::vector<int64_t> all = sampleElements(5, 8, 1);
  EXPECT_EQ(all, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  std::vector<int64_t> some = sampleElements(1000, 16, 7);
  ASSERT_EQ(some.size(), 16u);
  for (size_t i = 1; i < some.size(); ++i)
    EXPECT_LT(some[i - 1], some[i]);
  EXPECT_GE(some.front(), 0);
  EXPECT_LT(some.back(), 1000);
  EXPECT_EQ(some, sampleElements(1000, 16, 7));
  EXPECT_NE(some, sampleElements(1000, 16, 8));
}

} // namespace
