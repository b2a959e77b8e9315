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

/// One placement: `S(d)`, `R` or `P(op)`.
class Placement {
public:
  enum class Kind : uint8_t { Replicate, Shard, Partial };

  /// Default-constructs `R`.
  constexpr Placement() = default;

  static constexpr Placement replicate() { return Placement(); }
  static constexpr Placement shard(int32_t dim) {
    Placement p;
    p.kind = Kind::Shard;
    p.dim = dim;
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
  /// The sharded tensor dim; only valid for `S(d)`.
  int32_t getDim() const { return dim; }
  /// The pending reduction; only valid for `P(op)`.
  ReduceOp getReduceOp() const { return reduce; }

  bool operator==(const Placement &o) const {
    return kind == o.kind && (kind != Kind::Shard || dim == o.dim) &&
           (kind != Kind::Partial || reduce == o.reduce);
  }
  bool operator!=(const Placement &o) const { return !(*this == o); }

  /// Prints `S(0)`, `R` or `P(sum)`.
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

private:
  Kind kind = Kind::Replicate;
  ReduceOp reduce = ReduceOp::Sum;
  int32_t dim = 0;
};

inline llvm::hash_code hash_value(const Placement &p) {
  return llvm::hash_combine(
      static_cast<uint8_t>(p.getKind()), p.isShard() ? p.getDim() : 0,
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
