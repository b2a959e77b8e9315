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
/// each `S(d)` chunking the current local size of dim d.
struct LocalShard {
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> offsets;
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

/// PyTorch `is_tensor_shardable`: every sharded dim has at least as many
/// elements as shards applied to it.
bool isShardable(llvm::ArrayRef<int64_t> globalShape,
                 llvm::ArrayRef<int64_t> meshShape,
                 llvm::ArrayRef<Placement> placements);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_SHARDINGMATH_H
