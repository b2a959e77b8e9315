//===- ShardingMathTest.cpp - shard sizes and local shapes ----------------===//

#include "dtensor/Support/ShardingMath.h"

#include "gtest/gtest.h"

#include <limits>

using namespace mlir::dtensor;

namespace {

std::vector<int64_t> chunkSizes(int64_t n, int64_t k) {
  std::vector<int64_t> sizes;
  for (int64_t r = 0; r < k; ++r)
    sizes.push_back(chunkExtent(n, k, r).size);
  return sizes;
}

std::vector<std::vector<int64_t>> localShapes(std::vector<int64_t> shape,
                                              std::vector<int64_t> mesh,
                                              std::vector<Placement> ps) {
  std::vector<std::vector<int64_t>> out;
  for (const auto &s : computeAllLocalShapes(shape, mesh, ps))
    out.emplace_back(s.begin(), s.end());
  return out;
}

TEST(ChunkExtent, TorchChunkSizes) {
  EXPECT_EQ(chunkSizes(10, 4), (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(chunkSizes(10, 3), (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(chunkSizes(5, 4), (std::vector<int64_t>{2, 2, 1, 0}));
  EXPECT_EQ(chunkSizes(4, 3), (std::vector<int64_t>{2, 2, 0}));
  EXPECT_EQ(chunkSizes(7, 8), (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(chunkSizes(32, 4), (std::vector<int64_t>{8, 8, 8, 8}));
}

TEST(ChunkExtent, OffsetsAndEmptyShards) {
  EXPECT_EQ(chunkExtent(10, 4, 3), (ShardExtent{1, 9}));
  EXPECT_EQ(chunkExtent(10, 3, 2), (ShardExtent{2, 8}));
  // An empty shard past the end reports the global size as its offset.
  EXPECT_EQ(chunkExtent(5, 4, 3), (ShardExtent{0, 5}));
  EXPECT_EQ(chunkExtent(4, 3, 2), (ShardExtent{0, 4}));
}

TEST(ChunkExtent, SizesCoverTheDim) {
  for (int64_t n = 0; n < 40; ++n)
    for (int64_t k = 1; k < 10; ++k) {
      int64_t total = 0, next = 0;
      for (int64_t r = 0; r < k; ++r) {
        ShardExtent e = chunkExtent(n, k, r);
        if (e.size > 0) {
          EXPECT_EQ(e.offset, next) << n << " over " << k << " rank " << r;
          next = e.offset + e.size;
        }
        total += e.size;
      }
      EXPECT_EQ(total, n) << n << " over " << k;
    }
}

TEST(Coords, RowMajor) {
  EXPECT_EQ(rankToCoords({2, 4}, 5), (llvm::SmallVector<int64_t, 4>{1, 1}));
  EXPECT_EQ(rankToCoords({2, 4}, 3), (llvm::SmallVector<int64_t, 4>{0, 3}));
  for (int64_t r = 0; r < 24; ++r)
    EXPECT_EQ(coordsToRank({2, 3, 4}, rankToCoords({2, 3, 4}, r)), r);
}

TEST(LocalShard, NestedShardsOnOneDim) {
  // [10, 3] on 2x2 with [S(0), S(0)]: rows 3,2,3,2 at offsets 0,3,5,8.
  std::vector<int64_t> mesh{2, 2};
  std::vector<Placement> ps{Placement::shard(0), Placement::shard(0)};
  std::vector<int64_t> rows, offsets;
  for (int64_t r = 0; r < 4; ++r) {
    LocalShard s = computeLocalShard({10, 3}, mesh, ps, rankToCoords(mesh, r));
    rows.push_back(s.shape[0]);
    offsets.push_back(s.offsets[0]);
    EXPECT_EQ(s.shape[1], 3);
  }
  EXPECT_EQ(rows, (std::vector<int64_t>{3, 2, 3, 2}));
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 5, 8}));
}

TEST(LocalShard, TwoAxesShardDim1) {
  // [2, 5] on 2x2 with [S(1), S(1)]: (2,2),(2,1),(2,1),(2,1).
  EXPECT_EQ(
      localShapes({2, 5}, {2, 2}, {Placement::shard(1), Placement::shard(1)}),
      (std::vector<std::vector<int64_t>>{{2, 2}, {2, 1}, {2, 1}, {2, 1}}));
}

TEST(LocalShard, ReplicateAndPartialKeepTheShape) {
  EXPECT_EQ(localShapes({6, 4}, {2, 3},
                        {Placement::partial(), Placement::replicate()}),
            (std::vector<std::vector<int64_t>>(6, {6, 4})));
  EXPECT_EQ(localShapes({6, 4}, {2, 3},
                        {Placement::shard(0), Placement::shard(1)})[5],
            (std::vector<int64_t>{3, 0}));
}

TEST(LocalTypeShape, DynamicWhereUneven) {
  EXPECT_EQ(computeLocalTypeShape({10, 8}, {4}, {Placement::shard(0)}, -1),
            (llvm::SmallVector<int64_t, 4>{-1, 8}));
  EXPECT_EQ(computeLocalTypeShape({32, 8}, {4}, {Placement::shard(0)}, -1),
            (llvm::SmallVector<int64_t, 4>{8, 8}));
}

TEST(CheckPlacements, Diagnostics) {
  EXPECT_EQ(checkPlacements({Placement::shard(3)}, 1, 2),
            "placement S(3) shards dim 3 but the tensor has rank 2");
  EXPECT_EQ(checkPlacements({Placement::shard(0)}, 2, 2),
            "expected 2 placements (one per mesh axis) but got 1");
  EXPECT_EQ(checkPlacements({Placement::shard(1), Placement::partial()}, 2, 2),
            "");
}

TEST(Shardable, NeedsOneElementPerShard) {
  EXPECT_TRUE(isShardable({4, 8}, {4}, {Placement::shard(0)}));
  EXPECT_FALSE(isShardable({3, 8}, {4}, {Placement::shard(0)}));
  EXPECT_FALSE(
      isShardable({4, 8}, {2, 4}, {Placement::shard(0), Placement::shard(0)}));
  EXPECT_TRUE(
      isShardable({4, 8}, {2, 4}, {Placement::shard(0), Placement::shard(1)}));
}

TEST(Placement, PrintAndCompare) {
  EXPECT_EQ(placementsToString({Placement::shard(0), Placement::replicate(),
                                Placement::partial(ReduceOp::Max)}),
            "[S(0), R, P(max)]");
  EXPECT_NE(Placement::shard(0), Placement::shard(1));
  EXPECT_NE(Placement::partial(ReduceOp::Sum),
            Placement::partial(ReduceOp::Avg));
  EXPECT_EQ(Placement::replicate(), Placement());
}

} // namespace

namespace {
TEST(ChunkExtent, NoOverflowNearInt64Max) {
  const int64_t n = std::numeric_limits<int64_t>::max();
  int64_t total = 0;
  for (int64_t r = 0; r < 3; ++r) {
    ShardExtent e = chunkExtent(n, 3, r);
    EXPECT_GE(e.size, 0);
    total += e.size;
  }
  EXPECT_EQ(total, n);
  EXPECT_EQ(chunkExtent(n, 2, 1).offset, n / 2 + 1);
}

// Uneven shards of 7 rows of 3 f32 over 2 ranks: 4 and 3 rows; partial and
// replicated values are whole on every rank.
TEST(LocalBytes, PerRankBytesOfUnevenShards) {
  EXPECT_EQ(computeAllLocalBytes({7, 3}, 4, {2}, {Placement::shard(0)}),
            (llvm::SmallVector<int64_t>{48, 36}));
  EXPECT_EQ(computeAllLocalBytes({7, 3}, 4, {2}, {Placement::partial()}),
            (llvm::SmallVector<int64_t>{84, 84}));
  EXPECT_EQ(computeAllLocalBytes({}, 8, {3}, {Placement::replicate()}),
            (llvm::SmallVector<int64_t>{8, 8, 8}));
}
} // namespace
