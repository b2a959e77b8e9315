//===- CompareTest.cpp - the --check comparison ---------------------------===//

#include "Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace dtensor_run;

namespace {

template <typename T>
HostArray array(dtrt_dtype dtype, std::vector<int64_t> shape,
                std::vector<T> values) {
  HostArray a(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i)
    a.set<T>(i, values[i]);
  return a;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Compare, IntegersAreExact) {
  int64_t big = int64_t(1) << 53;
  // 2^53 and 2^53 + 1 are the same double; they must still differ.
  HostArray x = array<int64_t>(DTRT_I64, {2}, {big, big + 1});
  HostArray y = array<int64_t>(DTRT_I64, {2}, {big, big});
  CompareResult r = compareOutputs({x}, {y}, /*rtol=*/1, /*atol=*/1);
  EXPECT_FALSE(r.ok);
  ASSERT_TRUE(r.first);
  EXPECT_EQ(r.first->index, (std::vector<int64_t>{1}));
  EXPECT_EQ(r.first->actual, "9007199254740993");
  EXPECT_EQ(r.first->expected, "9007199254740992");
  EXPECT_TRUE(compareOutputs({x}, {x}, 0, 0).ok);
}

TEST(Compare, IntegerErrorsDoNotOverflow) {
  HostArray x = array<int32_t>(DTRT_I32, {1}, {INT32_MIN});
  HostArray y = array<int32_t>(DTRT_I32, {1}, {INT32_MAX});
  CompareResult r = compareOutputs({x}, {y}, 0, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.maxAbsErr, 4294967295.0);
}

TEST(Compare, NaNAndInfinities) {
  HostArray x = array<float>(DTRT_F32, {4}, {kNaN, kInf, -kInf, 1.0f});
  CompareResult same = compareOutputs({x}, {x}, 0, 0);
  EXPECT_TRUE(same.ok);
  EXPECT_EQ(same.maxAbsErr, 0);
  EXPECT_EQ(formatCheckReport(same),
            "check: PASS max_abs_err=0.000000e+00 max_rel_err=0.000000e+00\n");

  HostArray y = array<float>(DTRT_F32, {4}, {kNaN, -kInf, -kInf, 1.0f});
  CompareResult flipped = compareOutputs({x}, {y}, 1e-4, 1e-5);
  EXPECT_FALSE(flipped.ok);
  EXPECT_EQ(flipped.first->index, (std::vector<int64_t>{1}));
  EXPECT_EQ(flipped.first->actual, "inf");
  EXPECT_EQ(flipped.first->expected, "-inf");

  HostArray z = array<float>(DTRT_F32, {4}, {0.5f, kInf, -kInf, 1.0f});
  CompareResult nan = compareOutputs({x}, {z}, 1e-4, 1e-5);
  EXPECT_FALSE(nan.ok);
  EXPECT_EQ(nan.first->actual, "nan");
  EXPECT_EQ(nan.first->expected, "0.5");
  EXPECT_TRUE(std::isinf(nan.maxAbsErr));
}

TEST(Compare, NamesTheMultiIndexOfTheOutput) {
  HostArray ok = array<double>(DTRT_F64, {1}, {1.0});
  HostArray a = array<double>(DTRT_F64, {2, 3}, {0, 0, 0, 0, 0, 2.0});
  HostArray e = array<double>(DTRT_F64, {2, 3}, {0, 0, 0, 0, 0, 1.0});
  CompareResult r = compareOutputs({ok, a}, {ok, e}, 1e-4, 1e-5);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(formatCheckReport(r),
            "check: FAIL max_abs_err=1.000000e+00 max_rel_err=1.000000e+00\n"
            "check: output #1 differs first at [1, 2]: got 2, expected 1\n");
}

TEST(Compare, FloatTolerances) {
  HostArray x = array<float>(DTRT_F32, {2}, {1.0f, 100.0f});
  HostArray y = array<float>(DTRT_F32, {2}, {1.00001f, 100.001f});
  EXPECT_TRUE(compareOutputs({x}, {y}, 1e-4, 1e-5).ok);
  EXPECT_FALSE(compareOutputs({x}, {y}, 0, 0).ok);
}

// Without --rtol/--atol each dtype has its own tolerances: one bf16 ulp at
// 1 (2^-7) passes for bf16 and fails for f32.
TEST(Compare, DefaultTolerancesByDType) {
  EXPECT_EQ(defaultTolerance(DTRT_F32).rtol, 1e-4);
  EXPECT_EQ(defaultTolerance(DTRT_F16).rtol, 1e-2);
  EXPECT_EQ(defaultTolerance(DTRT_BF16).rtol, 5e-2);
  HostArray x(DTRT_BF16, {1}), y(DTRT_BF16, {1});
  x.set<BF16Element>(0, BF16Element(1.0f));
  y.set<BF16Element>(0, BF16Element(1.0078125f));
  EXPECT_TRUE(compareOutputs({x}, {y}, std::nullopt, std::nullopt).ok);
  EXPECT_FALSE(compareOutputs({x}, {y}, 1e-4, 1e-5).ok);
  HostArray u = array<float>(DTRT_F32, {1}, {1.0f});
  HostArray v = array<float>(DTRT_F32, {1}, {1.0078125f});
  EXPECT_FALSE(compareOutputs({u}, {v}, std::nullopt, std::nullopt).ok);
  // A bf16 NaN matches a NaN only.
  y.set<BF16Element>(0, BF16Element(kNaN));
  EXPECT_FALSE(compareOutputs({x}, {y}, std::nullopt, std::nullopt).ok);
}

TEST(Compare, ShapeMismatch) {
  HostArray x(DTRT_F32, {2, 3}), y(DTRT_F32, {3, 2});
  CompareResult r = compareOutputs({x}, {y}, 0, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.shapeError,
            "output #0 is f32 [2, 3] but the one-rank run gives f32 [3, 2]");
}

} // namespace
