//===- HostArray.h - host arrays, their shards and assembly -----*- C++ -*-===//
//
// The runner's host data, free of MLIR IR so that it is unit-tested on its
// own: arrays of any DTRT_FOR_EACH_DTYPE element type, seeded random inputs
// generated element by element (a rank builds its shard without the global
// tensor), the shard of a rank on an n-D mesh (uneven shards included), and
// the exact assembly of a global value from every rank's part.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_HOSTARRAY_H
#define DTENSOR_TOOLS_DTENSOR_RUN_HOSTARRAY_H

#include "ElementType.h"

#include "dtensor/Support/Placement.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dtensor_run {

/// A host array: raw little-endian elements in C order.
struct HostArray {
  dtrt_dtype dtype = DTRT_F32;
  std::vector<int64_t> shape;
  std::vector<char> data;

  HostArray() = default;
  /// A zero-filled array.
  HostArray(dtrt_dtype dtype, llvm::ArrayRef<int64_t> shape);

  int64_t numElements() const;
  /// Element `i` (row-major) as a `T`, which must be the storage type.
  template <typename T> T get(int64_t i) const;
  template <typename T> void set(int64_t i, T value);
};

template <typename T> T HostArray::get(int64_t i) const {
  T value;
  std::memcpy(&value, data.data() + i * sizeof(T), sizeof(T));
  return value;
}

template <typename T> void HostArray::set(int64_t i, T value) {
  std::memcpy(data.data() + i * sizeof(T), &value, sizeof(T));
}

/// The global type and layout of an argument or result.
struct TensorLayout {
  dtrt_dtype dtype = DTRT_F32;
  std::vector<int64_t> shape;
  mlir::dtensor::Placements placements;
};

/// Per dim, the global indices of a block's elements where a strided shard
/// applies (empty for contiguous dims); see `forEachRun`.
using StridedIndices = llvm::ArrayRef<llvm::SmallVector<int64_t>>;

/// "[3, 4]".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Row-major strides of `shape` in elements.
std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// The multi-index of row-major element `flat` of `shape`.
std::vector<int64_t> unflatten(llvm::ArrayRef<int64_t> shape, int64_t flat);

/// Calls `fn(global, local, count)` for each run of `count` contiguous
/// elements (along the last dim) of the block of `shape` at `offsets` in an
/// array of `globalShape`; `global` and `local` are row-major element indices
/// of the run's first element in the global array and in the block. Dims
/// with a non-empty `strided[d]` (a strided shard, `LocalShard::strided`)
/// take their global indices from it instead of from `offsets[d]`.
void forEachRun(llvm::ArrayRef<int64_t> globalShape,
                llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> offsets,
                llvm::function_ref<void(int64_t, int64_t, int64_t)> fn,
                StridedIndices strided = {});

/// Turns `block` (the block of shape `block.shape` at `offsets` of a global
/// input, as every rank of a replicated layout would hold it) into rank
/// `coords`'s part of a partial input: along each partial axis the global
/// value is split into random parts whose reduction is exact (P(sum): the
/// other coordinates hold seeded noise and coordinate 0 the rest, integers
/// wrapping, i1 by xor; P(avg): noise that averages to zero; P(max)/P(min):
/// coordinate 0 holds the value, the others values no larger/smaller). So a
/// plan that treats a nonlinear use of a partial value as linear gives a
/// wrong result under --check. Layouts mixing partial reductions keep the
/// whole value on coordinate 0 and zeros (sum) or copies elsewhere.
void splitPartial(HostArray &block, const TensorLayout &layout,
                  llvm::ArrayRef<int64_t> mesh, llvm::ArrayRef<int64_t> coords,
                  llvm::ArrayRef<int64_t> offsets, uint64_t seed,
                  uint64_t argIndex, StridedIndices strided = {});

/// The block of the random global input `argIndex` of shape `shape` at
/// `offsets`. Element g of the global tensor depends only on (seed,
/// argIndex, g): floats are uniform in +-1/sqrt(last dim) for rank >= 2 (as
/// nn.Linear's initialisation) and +-1 otherwise, integers in [-8, 8], i1 in
/// {0, 1}.
HostArray randomBlock(const TensorLayout &layout, llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int64_t> offsets, uint64_t seed,
                      uint64_t argIndex, StridedIndices strided = {});

/// The whole random global input (randomBlock of the global shape).
HostArray randomGlobal(const TensorLayout &layout, uint64_t seed,
                       uint64_t argIndex);

/// Rank `rank`'s shard of the random global input, built without it.
HostArray randomShard(const TensorLayout &layout, llvm::ArrayRef<int64_t> mesh,
                      int64_t rank, uint64_t seed, uint64_t argIndex);

/// Rank `rank`'s shard of `global` under `layout` on `mesh`.
/// Partial layouts are split as by `splitPartial` with `seed` and
/// `argIndex`.
HostArray shardOf(const HostArray &global, const TensorLayout &layout,
                  llvm::ArrayRef<int64_t> mesh, int64_t rank,
                  uint64_t seed = 0, uint64_t argIndex = 0);

/// The global value of `layout` from every rank's part (`locals[r]` of rank
/// r): shards placed at their offsets, replicas taken from coordinate 0,
/// partials reduced exactly in the element type (integer sums wrap; float
/// sums are accumulated in double and rounded once; i1 sum is xor, max or,
/// min and).
HostArray assemble(const TensorLayout &layout, llvm::ArrayRef<int64_t> mesh,
                   const std::vector<HostArray> &locals);

/// Element `i` of `a` printed exactly ("nan", "-inf", 9007199254740993).
std::string formatElement(const HostArray &a, int64_t i);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_HOSTARRAY_H
