//===- ShardingRuleOpInterface.h - per-op sharding rules --------*- C++ -*-===//
//
// The sharding-rule op interface and what its methods exchange: candidate
// strategies, the metadata of a tensor value, and the partition context an
// op's local rewrite works through. Also the queries on created values that
// the analysis, the planner and the partitioner share, answered through the
// interface.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_H
#define DTENSOR_DIALECT_DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_H

#include "dtensor/Support/Placement.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"

namespace mlir {
class OpBuilder;
namespace dtensor {

/// One candidate strategy.
struct ShardingCandidate {
  /// Target placements per operand; empty for non-tensor operands.
  llvm::SmallVector<Placements, 4> operands;
  /// Placements per result; empty for non-tensor results.
  llvm::SmallVector<Placements, 2> results;
  /// Operands whose redistribution is not counted when choosing (destination
  /// operands of linalg ops, which PyTorch's out-of-place ops do not have).
  llvm::SmallVector<bool, 4> excludedFromCost;
};

/// Metadata of one tensor value.
struct FakeTensor {
  /// Global shape and element type, from the value's type.
  RankedTensorType type;
  /// One placement per axis of the function's mesh (empty without a mesh).
  Placements placements;
};

/// Size and offset of one dim of a shard, static where known.
struct LocalExtent {
  OpFoldResult size;
  OpFoldResult offset;
};

/// What an op's local rewrite (`ShardingRuleOpInterface::localize`) may ask
/// of the partitioner: the global-view metadata of values, local types and
/// sizes, this rank's part of a dim, the builder, and replacement of values
/// that keeps their metadata. `dtensor-partition` implements it.
class PartitionContext {
public:
  virtual ~PartitionContext();

  /// Mesh axis sizes of the function being partitioned.
  virtual llvm::ArrayRef<int64_t> getMeshShape() const = 0;
  /// The builder rewrites create ops with; its insertion point is free.
  virtual OpBuilder &getBuilder() = 0;
  /// Global-view metadata of `v` (also of a value that replaced one), or
  /// null for a value the analysis does not know.
  virtual const FakeTensor *lookup(Value v) const = 0;
  /// Local type of a tensor of type `global` under `placements` (dynamic
  /// dims where shards are uneven).
  virtual RankedTensorType
  getLocalType(RankedTensorType global,
               llvm::ArrayRef<Placement> placements) const = 0;
  /// Size of dim `d` of the local value `v`: static, or a `tensor.dim`.
  virtual OpFoldResult getDimSize(Location loc, Value v, int64_t d) = 0;
  /// This rank's size and offset of dim `d` of a tensor of global size `n`
  /// under `placements`, relative to the global tensor.
  virtual LocalExtent getExtent(Location loc, int64_t n,
                                llvm::ArrayRef<Placement> placements,
                                int64_t d) = 0;
  /// Sizes of this rank's local tensor of `global` under `placements`.
  virtual llvm::SmallVector<OpFoldResult>
  getLocalSizes(Location loc, RankedTensorType global,
                llvm::ArrayRef<Placement> placements) = 0;
  /// Replaces the uses of `from` by `to` (except in `except`, if set); `to`
  /// keeps the metadata of `from`.
  virtual void replace(Value from, Value to, Operation *except = nullptr) = 0;
  /// Gives the tensor results of `op` their local types, in place.
  virtual void localizeResultTypes(Operation *op) = 0;
};

class ShardingRuleOpInterface;

/// Default of `getAllShardingCandidates`: applies the op's rule to every
/// placement operand `followed` could have (R, P(sum), S(d) per mesh axis;
/// every tensor operand of the same rank takes the hypothesis) and keeps the
/// distinct candidates. Falls back to the op's candidates for `current`
/// when the followed operand is not a ranked tensor.
llvm::LogicalResult
enumerateFollowedCandidates(ShardingRuleOpInterface op, unsigned followed,
                            llvm::ArrayRef<int64_t> meshShape,
                            llvm::ArrayRef<Placements> current,
                            llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Calls `fn` with every assignment of one of `numOptions` options to each
/// of `numAxes` mesh axes, first axis varying slowest (itertools.product).
void forEachAxisAssignment(
    int64_t numAxes, int64_t numOptions,
    llvm::function_ref<void(llvm::ArrayRef<int64_t>)> fn);

/// True if `op` creates its tensor results from nothing but scalars and
/// attributes (no tensor operands, and the op says so through the
/// interface), so that every rank can build the same value.
bool isCreationOp(Operation *op);

/// True if `v` is created by the program from scalars: the result of a
/// creation op, or of an op that preserves creation (fill, broadcast,
/// transpose) of such values. Every rank can build any sharded placement of
/// it locally, so it is created in the placements its users need instead of
/// being redistributed.
bool isCreatedValue(Value v);

/// True if a created value is all zeros or undefined.
bool isZeroOrUndef(Value v);

/// True if only a value of zeros (or an undefined one) may be built
/// directly in `placements`: those with a P(sum) axis, since R -> P(sum)
/// divides by the axis size.
bool createInNeedsZero(llvm::ArrayRef<Placement> placements);

/// True if the created value `v` may be built directly in `placements`:
/// shards, replicas and P(avg|max|min) always; P(sum) only for values that
/// are all zeros or undefined (`tensor.empty`).
bool canCreateIn(Value v, llvm::ArrayRef<Placement> placements);

/// For the op defining a created value: the candidate that produces
/// `result` directly. Fails for other ops.
llvm::FailureOr<ShardingCandidate>
getCreationCandidate(Operation *op, llvm::ArrayRef<int64_t> meshShape,
                     llvm::ArrayRef<Placement> result);

} // namespace dtensor
} // namespace mlir

#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h.inc"

#endif // DTENSOR_DIALECT_DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_H
