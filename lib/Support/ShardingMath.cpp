//===- ShardingMath.cpp - shard sizes, offsets and local shapes -----------===//

#include "dtensor/Support/ShardingMath.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir::dtensor;
using llvm::ArrayRef;
using llvm::SmallVector;

ShardExtent mlir::dtensor::chunkExtent(int64_t size, int64_t numChunks,
                                       int64_t index) {
  assert(numChunks > 0 && index >= 0 && index < numChunks && size >= 0);
  if (size % numChunks == 0) {
    int64_t chunk = size / numChunks;
    return {chunk, chunk * index};
  }
  // ceil(size / numChunks) without overflowing near INT64_MAX.
  int64_t full = size / numChunks + (size % numChunks != 0);
  int64_t start;
  if (llvm::MulOverflow(full, index, start) || start > size)
    return {0, size};
  return {std::min(full, size - start), start};
}

SmallVector<int64_t, 4> mlir::dtensor::rankToCoords(ArrayRef<int64_t> mesh,
                                                    int64_t rank) {
  SmallVector<int64_t, 4> coords(mesh.size(), 0);
  for (int64_t i = static_cast<int64_t>(mesh.size()) - 1; i >= 0; --i) {
    coords[i] = rank % mesh[i];
    rank /= mesh[i];
  }
  return coords;
}

int64_t mlir::dtensor::coordsToRank(ArrayRef<int64_t> mesh,
                                    ArrayRef<int64_t> coords) {
  int64_t rank = 0;
  for (auto [size, c] : llvm::zip_equal(mesh, coords))
    rank = rank * size + c;
  return rank;
}

int64_t mlir::dtensor::meshNumDevices(ArrayRef<int64_t> mesh) {
  int64_t n = 1;
  for (int64_t s : mesh)
    n *= s;
  return n;
}

LocalShard mlir::dtensor::computeLocalShard(ArrayRef<int64_t> globalShape,
                                            ArrayRef<int64_t> mesh,
                                            ArrayRef<Placement> placements,
                                            ArrayRef<int64_t> coords) {
  LocalShard shard;
  shard.shape.assign(globalShape.begin(), globalShape.end());
  shard.offsets.assign(globalShape.size(), 0);
  for (auto [axis, p] : llvm::enumerate(placements)) {
    if (!p.isShard())
      continue;
    int64_t d = p.getDim();
    ShardExtent e = chunkExtent(shard.shape[d], mesh[axis], coords[axis]);
    shard.shape[d] = e.size;
    // An empty shard reports the global end as its offset.
    if (e.size == 0)
      shard.offsets[d] = globalShape[d];
    else
      shard.offsets[d] += e.offset;
  }
  return shard;
}

SmallVector<SmallVector<int64_t, 4>>
mlir::dtensor::computeAllLocalShapes(ArrayRef<int64_t> globalShape,
                                     ArrayRef<int64_t> mesh,
                                     ArrayRef<Placement> placements) {
  int64_t n = meshNumDevices(mesh);
  SmallVector<SmallVector<int64_t, 4>> shapes;
  shapes.reserve(n);
  for (int64_t r = 0; r < n; ++r)
    shapes.push_back(
        computeLocalShard(globalShape, mesh, placements, rankToCoords(mesh, r))
            .shape);
  return shapes;
}

SmallVector<int64_t>
mlir::dtensor::computeAllLocalBytes(ArrayRef<int64_t> globalShape,
                                    int64_t elementBytes, ArrayRef<int64_t> mesh,
                                    ArrayRef<Placement> placements) {
  SmallVector<int64_t> bytes;
  for (const auto &shape : computeAllLocalShapes(globalShape, mesh, placements)) {
    int64_t n = elementBytes;
    for (int64_t d : shape)
      n *= d;
    bytes.push_back(n);
  }
  return bytes;
}

SmallVector<int64_t, 4> mlir::dtensor::computeLocalTypeShape(
    ArrayRef<int64_t> globalShape, ArrayRef<int64_t> mesh,
    ArrayRef<Placement> placements, int64_t dynamic) {
  // Shards of a dim are all equal iff every chunking step divides evenly;
  // once sizes differ their sums differ, so they never become equal again.
  // This avoids enumerating the ranks of large meshes.
  SmallVector<int64_t, 4> result(globalShape.begin(), globalShape.end());
  for (auto [axis, p] : llvm::enumerate(placements)) {
    if (!p.isShard() || result[p.getDim()] == dynamic)
      continue;
    int64_t &size = result[p.getDim()];
    size = size % mesh[axis] == 0 ? size / mesh[axis] : dynamic;
  }
  return result;
}

int64_t mlir::dtensor::numShards(ArrayRef<int64_t> mesh,
                                 ArrayRef<Placement> placements) {
  int64_t n = 1;
  for (auto [axis, p] : llvm::enumerate(placements))
    if (p.isShard())
      n *= mesh[axis];
  return n;
}

std::string mlir::dtensor::checkPlacements(ArrayRef<Placement> placements,
                                           int64_t meshRank,
                                           int64_t tensorRank) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  if (static_cast<int64_t>(placements.size()) != meshRank) {
    os << "expected " << meshRank << " placements (one per mesh axis) but got "
       << placements.size();
    return msg;
  }
  for (const Placement &p : placements) {
    if (p.isShard() && (p.getDim() < 0 || p.getDim() >= tensorRank)) {
      os << "placement " << p << " shards dim " << p.getDim()
         << " but the tensor has rank " << tensorRank;
      return msg;
    }
  }
  return msg;
}

bool mlir::dtensor::isShardable(ArrayRef<int64_t> globalShape,
                                ArrayRef<int64_t> mesh,
                                ArrayRef<Placement> placements) {
  SmallVector<int64_t, 4> shardsPerDim(globalShape.size(), 1);
  for (auto [axis, p] : llvm::enumerate(placements))
    if (p.isShard())
      shardsPerDim[p.getDim()] *= mesh[axis];
  for (auto [size, shards] : llvm::zip_equal(globalShape, shardsPerDim))
    if (shards > 1 && size < shards)
      return false;
  return true;
}
