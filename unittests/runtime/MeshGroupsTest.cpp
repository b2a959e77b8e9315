//===- MeshGroupsTest.cpp - communicator colour and key per axes mask -----===//
//
// The MPI_Comm_split colour/key (and the NCCL group rank) of every rank for
// every axes mask: each group has the product of its axes' sizes as members,
// group ranks 0..size-1 in row-major order of the axes, and ranks of one
// group share every coordinate outside the axes.
//
//===----------------------------------------------------------------------===//

#include "Mesh.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace dtrt;

namespace {

TEST(MeshGroups, ColourAndKeyOnA2x3Mesh) {
  std::vector<int64_t> shape = {2, 3};
  // Rank 4 is at (1, 1).
  std::vector<int64_t> coords = meshCoords(4, shape);
  ASSERT_EQ(coords, (std::vector<int64_t>{1, 1}));
  GroupPlacement alone = placeInGroup(coords, shape, 0);
  EXPECT_EQ(alone.color, 4);
  EXPECT_EQ(alone.rank, 0);
  EXPECT_EQ(alone.size, 1);
  GroupPlacement axis0 = placeInGroup(coords, shape, 1);
  EXPECT_EQ(axis0.color, 1); // coordinate on axis 1
  EXPECT_EQ(axis0.rank, 1);
  EXPECT_EQ(axis0.size, 2);
  GroupPlacement axis1 = placeInGroup(coords, shape, 2);
  EXPECT_EQ(axis1.color, 1); // coordinate on axis 0
  EXPECT_EQ(axis1.rank, 1);
  EXPECT_EQ(axis1.size, 3);
  GroupPlacement world = placeInGroup(coords, shape, 3);
  EXPECT_EQ(world.color, 0);
  EXPECT_EQ(world.rank, 4); // the world rank
  EXPECT_EQ(world.size, 6);
}

/// Every mask of a 2x2x3 mesh partitions the ranks into groups of the right
/// size whose keys are 0..size-1 and whose members agree outside the axes.
TEST(MeshGroups, EveryMaskPartitionsTheWorld) {
  std::vector<int64_t> shape = {2, 2, 3};
  int64_t size = meshSize(shape);
  for (uint64_t mask = 0; mask < 8; ++mask) {
    int64_t expected = 1;
    for (size_t axis = 0; axis < shape.size(); ++axis)
      if (mask & (uint64_t(1) << axis))
        expected *= shape[axis];
    std::map<int64_t, std::set<int64_t>> keysByColour;
    std::map<int64_t, std::vector<int64_t>> outsideByColour;
    for (int64_t rank = 0; rank < size; ++rank) {
      std::vector<int64_t> coords = meshCoords(rank, shape);
      GroupPlacement placement = placeInGroup(coords, shape, mask);
      EXPECT_EQ(placement.size, expected) << "mask " << mask;
      EXPECT_TRUE(keysByColour[placement.color].insert(placement.rank).second)
          << "mask " << mask << ": key " << placement.rank << " twice";
      std::vector<int64_t> outside;
      for (size_t axis = 0; axis < shape.size(); ++axis)
        if (!(mask & (uint64_t(1) << axis)))
          outside.push_back(coords[axis]);
      auto [it, inserted] = outsideByColour.emplace(placement.color, outside);
      if (!inserted) {
        EXPECT_EQ(it->second, outside) << "mask " << mask;
      }
    }
    EXPECT_EQ(static_cast<int64_t>(keysByColour.size()), size / expected);
    for (auto &[colour, keys] : keysByColour) {
      EXPECT_EQ(*keys.begin(), 0);
      EXPECT_EQ(*keys.rbegin(), expected - 1);
    }
  }
}

} // namespace
