//===- ShardingMath.h - shard sizes, offsets and local shapes ---*- C++ -*-===//
//
// Pure arithmetic of PyTorch DTensor layouts: torch.chunk shard sizes, local
// shapes and offsets on n-D meshes, rank coordinates. No MLIR IR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_SHARDINGMATH_H
#define DTENSOR_SUPPORT_SHARDINGMATH_H

#include "dtensor/Support/Placement.h"

#include <string>

namespace mlir {
namespace dtensor {

/// Size and offset of one shard along one dim.
struct ShardExtent {
  int64_t size = 0;
  int64_t offset = 0;
  bool operator==(const ShardExtent &o) const {
    return size == o.size && offset == o.offset;
  }
};

/// torch.chunk rule (`Shard.local_shard_size_and_offset`): the part of a dim of
/// `size` elements held by chunk `index` of `numChunks`. An empty chunk past
/// the end reports offset `size`.
ShardExtent chunkExtent(int64_t size, int64_t numChunks, int64_t index);

/// Size of chunk `index` of `numChunks` of `_S(d, splitFactor)` applied to a
/// dim of `size` elements: the dim is cut into `splitFactor` torch.chunk
/// groups and each group into `numChunks` torch.chunks; the chunk holds its
/// piece of every group (`_StridedShard._split_tensor`).
int64_t stridedChunkSize(int64_t size, int64_t splitFactor, int64_t numChunks,
                         int64_t index);

/// Positions (in `[0, size)`, increasing) of the elements of that chunk.
llvm::SmallVector<int64_t> stridedChunkPositions(int64_t size,
                                                 int64_t splitFactor,
                                                 int64_t numChunks,
                                                 int64_t index);

/// Global indices along dim `d` (of `globalSize` elements) of the elements
/// held at mesh `coords`, in local order: mesh axes apply left to right,
/// `S(d)` taking a torch.chunk of the current elements and `_S(d, sf)` its
/// strided chunk (PyTorch's `shard_dim_to_global_offsets`).
llvm::SmallVector<int64_t> computeLocalIndices(
    int64_t globalSize, llvm::ArrayRef<int64_t> meshShape,
    llvm::ArrayRef<Placement> placements, llvm::ArrayRef<int64_t> coords,
    int64_t d);

/// Row-major mesh coordinates of `rank`.
llvm::SmallVector<int64_t, 4> rankToCoords(llvm::ArrayRef<int64_t> meshShape,
                                           int64_t rank);
/// Linear rank of mesh coordinates (row-major).
int64_t coordsToRank(llvm::ArrayRef<int64_t> meshShape,
                     llvm::ArrayRef<int64_t> coords);
/// Number of devices of a mesh.
int64_t meshNumDevices(llvm::ArrayRef<int64_t> meshShape);

/// Local shape and global offsets of the shard held at mesh `coords`
/// (`compute_local_shape_and_global_offset`): mesh axes apply left to right,
/// each `S(d)` chunking the current local size of dim d. A dim with a strided
/// shard reports the global index of its first element (the dim's size if
/// the shard is empty), as PyTorch does.
struct LocalShard {
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> offsets;
  /// Per dim, the global indices of the local elements where a strided
  /// shard applies (`computeLocalIndices`), empty for the other dims (whose
  /// elements are `offsets[d]` on).
  llvm::SmallVector<llvm::SmallVector<int64_t>, 4> strided;
};
LocalShard computeLocalShard(llvm::ArrayRef<int64_t> globalShape,
                             llvm::ArrayRef<int64_t> meshShape,
                             llvm::ArrayRef<Placement> placements,
                             llvm::ArrayRef<int64_t> coords);

/// Local shapes on every rank, in row-major rank order.
llvm::SmallVector<llvm::SmallVector<int64_t, 4>>
computeAllLocalShapes(llvm::ArrayRef<int64_t> globalShape,
                      llvm::ArrayRef<int64_t> meshShape,
                      llvm::ArrayRef<Placement> placements);

/// Bytes of the local shard on every rank, in row-major rank order, for
/// elements of `elementBytes` bytes.
llvm::SmallVector<int64_t>
computeAllLocalBytes(llvm::ArrayRef<int64_t> globalShape, int64_t elementBytes,
                     llvm::ArrayRef<int64_t> meshShape,
                     llvm::ArrayRef<Placement> placements);

/// The shape of the local tensor type that holds every rank's shard: a dim is
/// static where all ranks agree and `kDynamic` (the `dynamic` argument) where
/// shards are uneven.
llvm::SmallVector<int64_t, 4>
computeLocalTypeShape(llvm::ArrayRef<int64_t> globalShape,
                      llvm::ArrayRef<int64_t> meshShape,
                      llvm::ArrayRef<Placement> placements, int64_t dynamic);

/// Product of the mesh sizes of the axes that shard (PyTorch `num_shards`).
int64_t numShards(llvm::ArrayRef<int64_t> meshShape,
                  llvm::ArrayRef<Placement> placements);

/// Checks placements against a mesh and a tensor rank. Returns an empty string
/// when valid, or a diagnostic such as
/// `placement S(3) shards dim 3 but the tensor has rank 2`.
std::string checkPlacements(llvm::ArrayRef<Placement> placements,
                            int64_t meshRank, int64_t tensorRank);

/// Checks that every `_S(d, sf)` of `placements` divides dim d of `shape`
/// into its `sf` groups (dims equal to `dynamic` are not checked). Returns an
/// empty string when valid, or a diagnostic such as `placement _S(0, 3)
/// splits dim 0 of size 8 into 3 groups, which does not divide it`.
std::string checkStridedShards(llvm::ArrayRef<Placement> placements,
                               llvm::ArrayRef<int64_t> shape, int64_t dynamic);

/// PyTorch `is_tensor_shardable`: every sharded dim has at least as many
/// elements as shards applied to it (times the split factor of a strided
/// shard), and, a restriction of the project, a strided shard's split
/// factor divides its dim.
bool isShardable(llvm::ArrayRef<int64_t> globalShape,
                 llvm::ArrayRef<int64_t> meshShape,
                 llvm::ArrayRef<Placement> placements);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_SHARDINGMATH_H
