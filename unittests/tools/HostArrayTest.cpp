//===- HostArrayTest.cpp - shards, assembly and random inputs -------------===//

#include "HostArray.h"
#include "Npy.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace dtensor_run;
using mlir::dtensor::Placement;
using mlir::dtensor::ReduceOp;

namespace {

TensorLayout layout(dtrt_dtype dtype, std::vector<int64_t> shape,
                    std::vector<Placement> placements) {
  return {dtype, std::move(shape), {placements.begin(), placements.end()}};
}

/// An array of `shape` whose element i is i.
HostArray iota(dtrt_dtype dtype, std::vector<int64_t> shape) {
  HostArray a(dtype, shape);
  visitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < a.numElements(); ++i)
      a.set<T>(i, static_cast<T>(i));
  });
  return a;
}

std::vector<HostArray> shardAll(const HostArray &g, const TensorLayout &l,
                                std::vector<int64_t> mesh) {
  std::vector<HostArray> parts;
  int64_t n = 1;
  for (int64_t m : mesh)
    n *= m;
  for (int64_t r = 0; r < n; ++r)
    parts.push_back(shardOf(g, l, mesh, r));
  return parts;
}

// [10, 3] on a 2x2 mesh with [S(0), S(0)]: dim 0 is chunked 5/5, then each
// half 3/2, so ranks hold rows 3, 2, 3, 2 (torch.chunk, axis by axis).
TEST(HostArray, UnevenTwoDimMeshRowsAndRoundTrip) {
  TensorLayout l =
      layout(DTRT_I32, {10, 3}, {Placement::shard(0), Placement::shard(0)});
  HostArray g = iota(DTRT_I32, {10, 3});
  std::vector<HostArray> parts = shardAll(g, l, {2, 2});
  std::vector<int64_t> rows;
  for (const HostArray &p : parts)
    rows.push_back(p.shape[0]);
  EXPECT_EQ(rows, (std::vector<int64_t>{3, 2, 3, 2}));
  // Rank 1 holds rows 3 and 4: its first element is global element 9.
  EXPECT_EQ(parts[1].get<int32_t>(0), 9);
  EXPECT_EQ(assemble(l, {2, 2}, parts).data, g.data);
}

TEST(HostArray, RoundTripMixedPlacements) {
  // S(1) then S(0) on a 2x3 mesh of an uneven [7, 5] f64 array.
  TensorLayout l =
      layout(DTRT_F64, {7, 5}, {Placement::shard(1), Placement::shard(0)});
  HostArray g = iota(DTRT_F64, {7, 5});
  EXPECT_EQ(assemble(l, {2, 3}, shardAll(g, l, {2, 3})).data, g.data);
  // Replicated on one axis, sharded on the other.
  TensorLayout r =
      layout(DTRT_I16, {5, 4}, {Placement::replicate(), Placement::shard(1)});
  HostArray h = iota(DTRT_I16, {5, 4});
  EXPECT_EQ(assemble(r, {2, 3}, shardAll(h, r, {2, 3})).data, h.data);
}

// Partial inputs are split into random parts whose reduction is the value,
// so that a nonlinear use of a partial value shows under --check.
TEST(HostArray, PartialInputsSplitIntoRandomParts) {
  for (dtrt_dtype dtype : {DTRT_I32, DTRT_I8, DTRT_I64, DTRT_I1}) {
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min}) {
      TensorLayout l = layout(dtype, {3, 4}, {Placement::partial(op)});
      HostArray g = randomGlobal(l, 5, 1);
      std::vector<HostArray> parts = shardAll(g, l, {3});
      // Exact reduction, integer sums wrapping.
      EXPECT_EQ(assemble(l, {3}, parts).data, g.data);
      if (op == ReduceOp::Sum && dtype != DTRT_I1)
        EXPECT_NE(parts[1].data, HostArray(dtype, {3, 4}).data);
    }
  }
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max}) {
    TensorLayout l = layout(DTRT_F64, {8}, {Placement::partial(op)});
    HostArray g = randomGlobal(l, 5, 1);
    std::vector<HostArray> parts = shardAll(g, l, {4});
    HostArray back = assemble(l, {4}, parts);
    for (int64_t i = 0; i < 8; ++i) {
      EXPECT_NEAR(back.get<double>(i), g.get<double>(i), 1e-12);
      // No part is the value itself except coordinate 0 of max.
      EXPECT_NE(parts[2].get<double>(i), g.get<double>(i));
    }
  }
  // Two partial-sum axes: the parts of all four ranks add up.
  TensorLayout l2 = layout(DTRT_I32, {5}, {Placement::partial(),
                                          Placement::partial()});
  HostArray g2 = randomGlobal(l2, 9, 0);
  EXPECT_EQ(assemble(l2, {2, 2}, shardAll(g2, l2, {2, 2})).data, g2.data);
}

TEST(HostArray, IntegerPartialSumWraps) {
  TensorLayout l = layout(DTRT_I32, {2}, {Placement::partial()});
  std::vector<HostArray> parts(4, HostArray(DTRT_I32, {2}));
  for (HostArray &p : parts) {
    p.set<int32_t>(0, std::numeric_limits<int32_t>::max() - 2);
    p.set<int32_t>(1, std::numeric_limits<int32_t>::min());
  }
  HostArray g = assemble(l, {4}, parts);
  // 4 * (2^31 - 3) = 2^33 - 12 == -12 (mod 2^32); 4 * -2^31 == 0.
  EXPECT_EQ(g.get<int32_t>(0), -12);
  EXPECT_EQ(g.get<int32_t>(1), 0);
}

TEST(HostArray, Int64AboveTwoPow53StaysExact) {
  TensorLayout l = layout(DTRT_I64, {2}, {Placement::partial()});
  std::vector<HostArray> parts(2, HostArray(DTRT_I64, {2}));
  parts[0].set<int64_t>(0, (int64_t(1) << 62) + 1);
  parts[1].set<int64_t>(0, 2);
  parts[0].set<int64_t>(1, std::numeric_limits<int64_t>::max());
  parts[1].set<int64_t>(1, 1);
  HostArray g = assemble(l, {2}, parts);
  EXPECT_EQ(g.get<int64_t>(0), (int64_t(1) << 62) + 3);
  EXPECT_EQ(g.get<int64_t>(1), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(formatElement(g, 0), "4611686018427387907");
}

TEST(HostArray, PartialMaxMinAvgAndBool) {
  std::vector<HostArray> parts(2, HostArray(DTRT_F32, {1}));
  parts[0].set<float>(0, 1.0f);
  parts[1].set<float>(0, 4.0f);
  auto reduce = [&](ReduceOp op) {
    return assemble(layout(DTRT_F32, {1}, {Placement::partial(op)}), {2}, parts)
        .get<float>(0);
  };
  EXPECT_EQ(reduce(ReduceOp::Max), 4.0f);
  EXPECT_EQ(reduce(ReduceOp::Min), 1.0f);
  EXPECT_EQ(reduce(ReduceOp::Avg), 2.5f);
  // i1: sum is xor, as in the runtime.
  std::vector<HostArray> bits(2, HostArray(DTRT_I1, {1}));
  bits[0].set<uint8_t>(0, 1);
  bits[1].set<uint8_t>(0, 1);
  EXPECT_EQ(assemble(layout(DTRT_I1, {1}, {Placement::partial()}), {2}, bits)
                .get<uint8_t>(0),
            0);
}

// A rank's random shard equals the shard of the random global tensor, so
// the one-rank check sees the same values without any rank building it.
TEST(HostArray, RandomShardMatchesRandomGlobal) {
  for (dtrt_dtype dtype : {DTRT_F32, DTRT_I8, DTRT_I1, DTRT_I64}) {
    TensorLayout l =
        layout(dtype, {9, 5}, {Placement::shard(0), Placement::shard(1)});
    HostArray g = randomGlobal(l, /*seed=*/7, /*argIndex=*/2);
    for (int64_t r = 0; r < 6; ++r)
      EXPECT_EQ(randomShard(l, {3, 2}, r, 7, 2).data,
                shardOf(g, l, {3, 2}, r).data);
  }
  TensorLayout l = layout(DTRT_F32, {4, 4}, {});
  EXPECT_EQ(randomGlobal(l, 1, 0).data, randomGlobal(l, 1, 0).data);
  EXPECT_NE(randomGlobal(l, 1, 0).data, randomGlobal(l, 2, 0).data);
  EXPECT_NE(randomGlobal(l, 1, 0).data, randomGlobal(l, 1, 1).data);
  HostArray ints = randomGlobal(layout(DTRT_I8, {1000}, {}), 3, 0);
  for (int64_t i = 0; i < ints.numElements(); ++i) {
    EXPECT_GE(ints.get<int8_t>(i), -8);
    EXPECT_LE(ints.get<int8_t>(i), 8);
  }
}

TEST(Npy, WriteThenReadBlock) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("hostarray", "npy", path));
  HostArray g = iota(DTRT_I16, {4, 6});
  std::string err;
  ASSERT_TRUE(writeNpy(path.str().str(), g, err)) << err;
  NpyHeader header;
  ASSERT_TRUE(readNpyHeader(path.str().str(), header, err)) << err;
  EXPECT_EQ(header.dtype, DTRT_I16);
  EXPECT_EQ(header.shape, (std::vector<int64_t>{4, 6}));
  HostArray block;
  ASSERT_TRUE(
      readNpyBlock(path.str().str(), header, {2, 3}, {1, 2}, block, err));
  // Rows 1-2, columns 2-4.
  EXPECT_EQ(block.get<int16_t>(0), 8);
  EXPECT_EQ(block.get<int16_t>(5), 16);
  llvm::sys::fs::remove(path);
}

// 16-bit floats: random inputs are the f32 values rounded to nearest even,
// partial sums of random parts add up to the value (within the rounding of
// the parts), shards assemble exactly, and elements print with the type's
// digits.
TEST(HostArray, HalfFloatsRandomPartialAndFormat) {
  for (dtrt_dtype dtype : {DTRT_BF16, DTRT_F16}) {
    TensorLayout l = layout(dtype, {4, 16}, {Placement::shard(1)});
    HostArray g = randomGlobal(l, /*seed=*/5, /*argIndex=*/0);
    TensorLayout f = layout(DTRT_F32, {4, 16}, {Placement::shard(1)});
    HostArray wide = randomGlobal(f, 5, 0);
    for (int64_t i = 0; i < g.numElements(); ++i) {
      float want = wide.get<float>(i);
      uint16_t bits = dtype == DTRT_BF16 ? dtrt_float_to_bf16(want)
                                         : dtrt_float_to_f16(want);
      EXPECT_EQ(g.get<uint16_t>(i), bits) << i;
    }
    EXPECT_EQ(assemble(l, {4}, shardAll(g, l, {4})).data, g.data);
    TensorLayout p =
        layout(dtype, {4, 16}, {Placement::partial(ReduceOp::Sum)});
    HostArray value = randomGlobal(p, 5, 0);
    HostArray sum = assemble(p, {2}, shardAll(value, p, {2}));
    for (int64_t i = 0; i < value.numElements(); ++i) {
      float x = static_cast<float>(value.get<BF16Element>(i));
      if (dtype == DTRT_F16)
        x = static_cast<float>(value.get<F16Element>(i));
      float y = dtype == DTRT_BF16 ? static_cast<float>(sum.get<BF16Element>(i))
                                   : static_cast<float>(sum.get<F16Element>(i));
      EXPECT_NEAR(y, x, 0.02 * (std::fabs(x) + 0.1)) << i;
    }
  }
  HostArray h(DTRT_BF16, {1});
  h.set<BF16Element>(0, BF16Element(1.0f / 3.0f));
  EXPECT_EQ(formatElement(h, 0), "0.334"); // 0.333984375
  HostArray k(DTRT_F16, {1});
  k.set<F16Element>(0, F16Element(1.0f / 3.0f));
  EXPECT_EQ(formatElement(k, 0), "0.33325");
}

TEST(Npy, HalfFloatDescriptors) {
  EXPECT_EQ(dtypeFromNpy("<f2"), DTRT_F16);
  EXPECT_EQ(dtypeFromNpy("<u2"), DTRT_BF16);
  EXPECT_EQ(dtypeFromName("bf16"), DTRT_BF16);
  EXPECT_EQ(dtypeFromName("f16"), DTRT_F16);
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("bf16", "npy", path));
  HostArray g(DTRT_BF16, {3});
  for (int64_t i = 0; i < 3; ++i)
    g.set<BF16Element>(i, BF16Element(0.5f * static_cast<float>(i) - 1.0f));
  std::string err;
  ASSERT_TRUE(writeNpy(path.str().str(), g, err)) << err;
  HostArray back;
  ASSERT_TRUE(readNpy(path.str().str(), back, err)) << err;
  EXPECT_EQ(back.dtype, DTRT_BF16);
  EXPECT_EQ(back.data, g.data);
  EXPECT_EQ(static_cast<float>(back.get<BF16Element>(1)), -0.5f);
  llvm::sys::fs::remove(path);
}

} // namespace
