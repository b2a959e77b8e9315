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

int64_t mlir::dtensor::stridedChunkSize(int64_t size, int64_t splitFactor,
                                        int64_t numChunks, int64_t index) {
  int64_t total = 0;
  for (int64_t g = 0; g < splitFactor; ++g)
    total += chunkExtent(chunkExtent(size, splitFactor, g).size, numChunks,
                         index)
                 .size;
  return total;
}

SmallVector<int64_t> mlir::dtensor::stridedChunkPositions(int64_t size,
                                                          int64_t splitFactor,
                                                          int64_t numChunks,
                                                          int64_t index) {
  SmallVector<int64_t> positions;
  for (int64_t g = 0; g < splitFactor; ++g) {
    ShardExtent group = chunkExtent(size, splitFactor, g);
    ShardExtent part = chunkExtent(group.size, numChunks, index);
    for (int64_t i = 0; i < part.size; ++i)
      positions.push_back(group.offset + part.offset + i);
  }
  return positions;
}

SmallVector<int64_t> mlir::dtensor::computeLocalIndices(
    int64_t globalSize, ArrayRef<int64_t> mesh, ArrayRef<Placement> placements,
    ArrayRef<int64_t> coords, int64_t d) {
  SmallVector<int64_t> indices(globalSize);
  for (int64_t i = 0; i < globalSize; ++i)
    indices[i] = i;
  for (auto [axis, p] : llvm::enumerate(placements)) {
    if (!p.isShardLike(d))
      continue;
    int64_t n = indices.size();
    SmallVector<int64_t> next;
    if (p.isShard()) {
      ShardExtent e = chunkExtent(n, mesh[axis], coords[axis]);
      next.assign(indices.begin() + e.offset,
                  indices.begin() + e.offset + e.size);
    } else {
      for (int64_t pos : stridedChunkPositions(n, p.getSplitFactor(),
                                               mesh[axis], coords[axis]))
        next.push_back(indices[pos]);
    }
    indices = std::move(next);
  }
  return indices;
}

LocalShard mlir::dtensor::computeLocalShard(ArrayRef<int64_t> globalShape,
                                            ArrayRef<int64_t> mesh,
                                            ArrayRef<Placement> placements,
                                            ArrayRef<int64_t> coords) {
  LocalShard shard;
  shard.shape.assign(globalShape.begin(), globalShape.end());
  shard.offsets.assign(globalShape.size(), 0);
  shard.strided.resize(globalShape.size());
  // Dims with a strided shard: the positions PyTorch tracks
  // (`shard_dim_to_global_offsets`), the offset being the first one.
  SmallVector<bool, 4> strided(globalShape.size(), false);
  for (const Placement &p : placements)
    if (p.isStridedShard())
      strided[p.getDim()] = true;
  for (auto [d, isStrided] : llvm::enumerate(strided)) {
    if (!isStrided)
      continue;
    SmallVector<int64_t> idx =
        computeLocalIndices(globalShape[d], mesh, placements, coords, d);
    shard.shape[d] = idx.size();
    shard.offsets[d] = idx.empty() ? globalShape[d] : idx.front();
    shard.strided[d] = std::move(idx);
  }
  for (auto [axis, p] : llvm::enumerate(placements)) {
    if (!p.isShard() || strided[p.getDim()])
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
    if (!p.isShardLike() || result[p.getDim()] == dynamic)
      continue;
    int64_t &size = result[p.getDim()];
    int64_t groups = p.isStridedShard() ? p.getSplitFactor() : 1;
    bool even = size % groups == 0 && (size / groups) % mesh[axis] == 0;
    size = even ? size / mesh[axis] : dynamic;
  }
  return result;
}

int64_t mlir::dtensor::numShards(ArrayRef<int64_t> mesh,
                                 ArrayRef<Placement> placements) {
  int64_t n = 1;
  for (auto [axis, p] : llvm::enumerate(placements))
    if (p.isShardLike())
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
    if (p.isShardLike() && (p.getDim() < 0 || p.getDim() >= tensorRank)) {
      os << "placement " << p << " shards dim " << p.getDim()
         << " but the tensor has rank " << tensorRank;
      return msg;
    }
  }
  return msg;
}

std::string mlir::dtensor::checkStridedShards(ArrayRef<Placement> placements,
                                              ArrayRef<int64_t> shape,
                                              int64_t dynamic) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  for (const Placement &p : placements) {
    if (!p.isStridedShard() || p.getDim() >= (int64_t)shape.size())
      continue;
    int64_t size = shape[p.getDim()];
    if (size == dynamic || size % p.getSplitFactor() == 0)
      continue;
    os << "placement " << p << " splits dim " << p.getDim() << " of size "
       << size << " into " << p.getSplitFactor()
       << " groups, which does not divide it";
    return msg;
  }
  return msg;
}

bool mlir::dtensor::isShardable(ArrayRef<int64_t> globalShape,
                                ArrayRef<int64_t> mesh,
                                ArrayRef<Placement> placements) {
  // As PyTorch's `is_tensor_shardable`: after each axis, a dim holds at
  // least as many elements as its shards so far (times the split factor of
  // a strided shard).
  SmallVector<int64_t, 4> shardsPerDim(globalShape.size(), 1);
  for (auto [axis, p] : llvm::enumerate(placements)) {
    if (!p.isShardLike())
      continue;
    int64_t &shards = shardsPerDim[p.getDim()];
    shards *= mesh[axis];
    int64_t bound = p.isStridedShard() ? shards * p.getSplitFactor() : shards;
    if (globalShape[p.getDim()] < bound)
      return false;
    // The project's restriction: the groups of a strided shard are even.
    if (p.isStridedShard() && globalShape[p.getDim()] % p.getSplitFactor())
      return false;
  }
  return true;
}
