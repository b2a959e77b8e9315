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

//===----------------------------------------------------------------------===//
// Strided shards (`_S(d, sf)`, PyTorch's _StridedShard)
//===----------------------------------------------------------------------===//

namespace {
/// A 1-D tensor of `size` elements on `mesh` and every rank's global
/// indices, in row-major rank order, as PyTorch 2.15 computes them
/// (`_StridedShard._local_shard_size_and_offset(offset_mode=ALL)` and
/// `Shard._local_shard_size_and_offset` composed left to right; generated
/// by running PyTorch).
struct StridedCase {
  int64_t size;
  std::vector<int64_t> mesh;
  std::vector<Placement> placements;
  std::vector<std::vector<int64_t>> indices;
};

const StridedCase kStridedCases[] = {
  {32, {4}, {Placement::stridedShard(0, 4)},
   {{0, 1, 8, 9, 16, 17, 24, 25}, {2, 3, 10, 11, 18, 19, 26, 27}, {4, 5, 12, 13, 20, 21, 28, 29}, {6, 7, 14, 15, 22, 23, 30, 31}}},
  {9, {4}, {Placement::stridedShard(0, 2)},
   {{0, 1, 5}, {2, 3, 6}, {4, 7}, {8}}},
  {18, {4}, {Placement::stridedShard(0, 3)},
   {{0, 1, 6, 7, 12, 13}, {2, 3, 8, 9, 14, 15}, {4, 5, 10, 11, 16, 17}, {}}},
  {24, {4}, {Placement::stridedShard(0, 4)},
   {{0, 1, 6, 7, 12, 13, 18, 19}, {2, 3, 8, 9, 14, 15, 20, 21}, {4, 5, 10, 11, 16, 17, 22, 23}, {}}},
  {12, {3}, {Placement::stridedShard(0, 4)},
   {{0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}}},
  {32, {2, 2}, {Placement::shard(0), Placement::stridedShard(0, 2)},
   {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}, {16, 17, 18, 19, 24, 25, 26, 27}, {20, 21, 22, 23, 28, 29, 30, 31}}},
  {32, {2, 2}, {Placement::stridedShard(0, 4), Placement::shard(0)},
   {{0, 1, 2, 3, 8, 9, 10, 11}, {16, 17, 18, 19, 24, 25, 26, 27}, {4, 5, 6, 7, 12, 13, 14, 15}, {20, 21, 22, 23, 28, 29, 30, 31}}},
  {32, {2, 2}, {Placement::stridedShard(0, 4), Placement::stridedShard(0, 4)},
   {{0, 1, 8, 9, 16, 17, 24, 25}, {2, 3, 10, 11, 18, 19, 26, 27}, {4, 5, 12, 13, 20, 21, 28, 29}, {6, 7, 14, 15, 22, 23, 30, 31}}},
  {20, {2, 2}, {Placement::stridedShard(0, 2), Placement::shard(0)},
   {{0, 1, 2, 3, 4}, {10, 11, 12, 13, 14}, {5, 6, 7, 8, 9}, {15, 16, 17, 18, 19}}},
  {30, {2, 4}, {Placement::replicate(), Placement::stridedShard(0, 3)},
   {{0, 1, 2, 10, 11, 12, 20, 21, 22}, {3, 4, 5, 13, 14, 15, 23, 24, 25}, {6, 7, 8, 16, 17, 18, 26, 27, 28}, {9, 19, 29}, {0, 1, 2, 10, 11, 12, 20, 21, 22}, {3, 4, 5, 13, 14, 15, 23, 24, 25}, {6, 7, 8, 16, 17, 18, 26, 27, 28}, {9, 19, 29}}},
};
} // namespace

TEST(StridedShard, LocalIndicesMatchPyTorch) {
  for (const StridedCase &c : kStridedCases) {
    for (size_t r = 0; r < c.indices.size(); ++r) {
      auto coords = rankToCoords(c.mesh, r);
      auto idx = computeLocalIndices(c.size, c.mesh, c.placements, coords, 0);
      EXPECT_EQ(std::vector<int64_t>(idx.begin(), idx.end()), c.indices[r])
          << placementsToString(c.placements) << " rank " << r;
      LocalShard s = computeLocalShard({c.size}, c.mesh, c.placements, coords);
      EXPECT_EQ(s.shape[0], static_cast<int64_t>(c.indices[r].size()));
      // PyTorch's global offset: the first index, the size when empty.
      EXPECT_EQ(s.offsets[0],
                c.indices[r].empty() ? c.size : c.indices[r].front());
    }
  }
}

TEST(StridedShard, ChunkSizesAndPositions) {
  // 9 elements, 2 groups [0..4], [5..8], over 4: PyTorch's docstring example.
  EXPECT_EQ(stridedChunkSize(9, 2, 4, 0), 3);
  EXPECT_EQ(stridedChunkSize(9, 2, 4, 3), 1);
  auto pos = stridedChunkPositions(9, 2, 4, 2);
  EXPECT_EQ(std::vector<int64_t>(pos.begin(), pos.end()),
            (std::vector<int64_t>{4, 7}));
  // Every element lands on exactly one rank.
  for (int64_t n : {8, 12, 18, 30})
    for (int64_t sf : {2, 3})
      for (int64_t k : {2, 3, 4}) {
        std::vector<int> seen(n, 0);
        for (int64_t r = 0; r < k; ++r) {
          auto p = stridedChunkPositions(n, sf, k, r);
          EXPECT_EQ(static_cast<int64_t>(p.size()),
                    stridedChunkSize(n, sf, k, r));
          for (int64_t i : p)
            ++seen[i];
        }
        for (int s : seen)
          EXPECT_EQ(s, 1) << n << " " << sf << " " << k;
      }
}

TEST(StridedShard, LocalTypeShapeAgreesWithTheRanks) {
  // A static local size is every rank's (dynamic is always safe).
  for (const StridedCase &c : kStridedCases) {
    auto type = computeLocalTypeShape({c.size}, c.mesh, c.placements, -1);
    bool equal = llvm::all_of(c.indices, [&](const auto &i) {
      return i.size() == c.indices.front().size();
    });
    if (type[0] != -1) {
      EXPECT_TRUE(equal) << placementsToString(c.placements);
      EXPECT_EQ(type[0], static_cast<int64_t>(c.indices.front().size()));
    }
  }
  EXPECT_EQ(computeLocalTypeShape({32, 3}, {4}, {Placement::stridedShard(0, 4)},
                                  -1),
            (llvm::SmallVector<int64_t, 4>{8, 3}));
  EXPECT_EQ(computeLocalTypeShape({18}, {4}, {Placement::stridedShard(0, 3)},
                                  -1),
            (llvm::SmallVector<int64_t, 4>{-1}));
}

TEST(StridedShard, PrintCompareAndCheck) {
  Placement p = Placement::stridedShard(0, 4);
  EXPECT_EQ(p.str(), "_S(0, 4)");
  EXPECT_FALSE(p.isShard());
  EXPECT_TRUE(p.isShardLike(0));
  EXPECT_NE(p, Placement::shard(0));
  EXPECT_NE(p, Placement::stridedShard(0, 2));
  EXPECT_EQ(p, Placement::stridedShard(0, 4));
  EXPECT_NE(hash_value(p), hash_value(Placement::stridedShard(0, 2)));
  EXPECT_EQ(p.withDim(2), Placement::stridedShard(2, 4));
  EXPECT_EQ(checkPlacements({Placement::stridedShard(2, 4)}, 1, 2),
            "placement _S(2, 4) shards dim 2 but the tensor has rank 2");
  EXPECT_EQ(checkStridedShards({p}, {8}, -1), "");
  EXPECT_EQ(checkStridedShards({Placement::stridedShard(0, 3)}, {8}, -1),
            "placement _S(0, 3) splits dim 0 of size 8 into 3 groups, which "
            "does not divide it");
  EXPECT_EQ(numShards({2, 2}, {Placement::shard(0), p}), 4);
  // is_tensor_shardable: at least shards * split factor elements.
  EXPECT_TRUE(isShardable({8}, {2}, {p}));
  EXPECT_FALSE(isShardable({4}, {2}, {p}));
}
