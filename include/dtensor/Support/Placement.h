//===- Placement.h - PyTorch DTensor placements -----------------*- C++ -*-===//
//
// A placement says how a tensor is laid out along one mesh axis. This header
// has no dependency on MLIR IR so that the pure sharding arithmetic built on it
// can be unit tested on its own.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_PLACEMENT_H
#define DTENSOR_SUPPORT_PLACEMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

// `ReduceOp` (Sum, Avg, Max, Min), `stringifyReduceOp` and
// `symbolizeReduceOp`, generated from ReduceOp.td.
#include "mlir/Support/LLVM.h"
#include "dtensor/Support/ReduceOpEnums.h.inc"

namespace mlir {
namespace dtensor {

/// One placement: `S(d)`, `R`, `P(op)` or `_S(d, sf)`.
///
/// `_S(d, sf)` is PyTorch's `_StridedShard(dim=d, split_factor=sf)`: dim d
/// (its current local size on this mesh axis) is viewed as `sf` torch.chunk
/// groups, each group is chunked over the axis, and a rank keeps its chunk of
/// every group, concatenated in group order. It arises when a reshape merges
/// dims of which a non-leading one is sharded. Like PyTorch's `is_shard()`,
/// `isShard()` is false for it; `isShardLike()` covers both.
class Placement {
public:
  enum class Kind : uint8_t { Replicate, Shard, Partial, StridedShard };

  /// Default-constructs `R`.
  constexpr Placement() = default;

  static constexpr Placement replicate() { return Placement(); }
  static constexpr Placement shard(int32_t dim) {
    Placement p;
    p.kind = Kind::Shard;
    p.dim = dim;
    return p;
  }
  static constexpr Placement stridedShard(int32_t dim, int64_t splitFactor) {
    Placement p;
    p.kind = Kind::StridedShard;
    p.dim = dim;
    p.splitFactor = splitFactor;
    return p;
  }
  static constexpr Placement partial(ReduceOp op = ReduceOp::Sum) {
    Placement p;
    p.kind = Kind::Partial;
    p.reduce = op;
    return p;
  }

  Kind getKind() const { return kind; }
  bool isReplicate() const { return kind == Kind::Replicate; }
  bool isShard() const { return kind == Kind::Shard; }
  bool isShard(int64_t d) const { return kind == Kind::Shard && dim == d; }
  bool isPartial() const { return kind == Kind::Partial; }
  bool isStridedShard() const { return kind == Kind::StridedShard; }
  bool isStridedShard(int64_t d) const {
    return kind == Kind::StridedShard && dim == d;
  }
  /// `S(d)` or `_S(d, sf)` (PyTorch `_is_shard_like`).
  bool isShardLike() const { return isShard() || isStridedShard(); }
  bool isShardLike(int64_t d) const { return isShard(d) || isStridedShard(d); }
  /// The sharded tensor dim; only valid for `S(d)` and `_S(d, sf)`.
  int32_t getDim() const { return dim; }
  /// The number of groups of `_S(d, sf)`; only valid for it.
  int64_t getSplitFactor() const { return splitFactor; }
  /// The same kind of shard (and split factor) on tensor dim `d`.
  Placement withDim(int32_t d) const {
    Placement p = *this;
    p.dim = d;
    return p;
  }
  /// The pending reduction; only valid for `P(op)`.
  ReduceOp getReduceOp() const { return reduce; }

  bool operator==(const Placement &o) const {
    return kind == o.kind && (!isShardLike() || dim == o.dim) &&
           (kind != Kind::StridedShard || splitFactor == o.splitFactor) &&
           (kind != Kind::Partial || reduce == o.reduce);
  }
  bool operator!=(const Placement &o) const { return !(*this == o); }

  /// Prints `S(0)`, `R`, `P(sum)` or `_S(0, 4)` (PyTorch's `str()`).
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

private:
  Kind kind = Kind::Replicate;
  ReduceOp reduce = ReduceOp::Sum;
  int32_t dim = 0;
  int64_t splitFactor = 0;
};

inline llvm::hash_code hash_value(const Placement &p) {
  return llvm::hash_combine(
      static_cast<uint8_t>(p.getKind()), p.isShardLike() ? p.getDim() : 0,
      p.isStridedShard() ? p.getSplitFactor() : 0,
      p.isPartial() ? static_cast<uint8_t>(p.getReduceOp()) : 0);
}

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const Placement &p) {
  p.print(os);
  return os;
}

/// Prints `[S(0), R]`.
std::string placementsToString(llvm::ArrayRef<Placement> placements);

/// Placements of a value: one per mesh axis.
using Placements = llvm::SmallVector<Placement, 2>;

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_PLACEMENT_H
