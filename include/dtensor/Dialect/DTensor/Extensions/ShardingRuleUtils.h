//===- ShardingRuleUtils.h - shared math of sharding rules ------*- C++ -*-===//
//
// The rule math the external models share, as in PyTorch DTensor. Most ops
// are described in a "loop space": every operand and result dim maps to a
// loop (linalg indexing maps, or numpy broadcasting for elementwise ops).
// Three rules work on that description:
//   - pointwise: one candidate that follows the input with the most shards;
//   - reduction (one input): follow the input, a sharded reduction loop makes
//     the result partial with the region's combiner;
//   - contraction (einsum): all-replicate, then per mesh axis one candidate
//     per batch, contracting and free loop, expanded over the mesh axes.
// Structural helpers (follow an operand, map placements through a dim
// mapping) serve reshapes, slices, concatenation, padding and softmax.
// Nothing here dispatches on ops: the models call these helpers.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_EXTENSIONS_SHARDINGRULEUTILS_H
#define DTENSOR_DIALECT_DTENSOR_EXTENSIONS_SHARDINGRULEUTILS_H

#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace dtensor {

/// How partial values may pass through a pointwise computation.
enum class Linearity {
  None, ///< partial inputs must be reduced first
  Add,  ///< linear in all inputs together (add, sub, neg, copy): P(sum|avg)
        ///< on every input, R inputs divided
  One,  ///< linear in one input at a time, the others replicated (mul; div
        ///< in its numerator): the inputs in `LoopSpace::linearIn`
  Max,  ///< max: P(max) on every input
  Min,  ///< min: P(min) on every input
};

/// Operand or result dims mapped to loops; -1 for a broadcast dim.
struct DimMap {
  llvm::SmallVector<int64_t, 4> dimToLoop;
  llvm::ArrayRef<int64_t> shape;
  int64_t loopDim(int64_t d) const { return dimToLoop[d]; }
  /// Position of loop `l` in this operand, or -1.
  int64_t find(int64_t l) const;
};

/// An op described as loops over which operands and results are indexed.
struct LoopSpace {
  int64_t numLoops = 0;
  llvm::SmallVector<bool, 4> isReduction;
  /// One per op operand; std::nullopt for non-tensor operands.
  llvm::SmallVector<std::optional<DimMap>, 4> operands;
  llvm::SmallVector<bool, 4> isInit;
  llvm::SmallVector<DimMap, 1> results;
  /// Which result each init feeds (-1 for inputs).
  llvm::SmallVector<int64_t, 4> initResult;
  Linearity linearity = Linearity::None;
  /// For `Linearity::One`: per op operand, whether the computation is linear
  /// in that operand alone (the others held fixed), so that it may be the one
  /// partial input.
  llvm::SmallVector<bool, 4> linearIn;
  /// Combiner of reduction loops, if it can become a partial placement.
  std::optional<ReduceOp> combiner;
  /// True if the payload reads destination operands.
  bool readsInits = false;
};

/// How partials pass through the scalar (or tensor elementwise) op `op`.
/// `Linearity::One` ops are linear in each operand alone, except division,
/// which is linear in its numerator only.
Linearity classifyScalarOp(Operation *op);

/// Whether the values yielded by `body` are linear (additive and
/// homogeneous of degree one) in the block arguments marked in `partial`,
/// with every other block argument and value held fixed, decided from the
/// def-use structure of the body: sums and differences of linear values,
/// products of a linear value with fixed ones, quotients by fixed values,
/// negations, float casts and selects under a fixed condition are linear;
/// every other op of a linear value (exp, max, a product of two linear
/// values such as `x * x`) is not. A literal zero is linear in anything.
bool isLinearIn(Block &body, const llvm::SmallBitVector &partial);

/// Loop space of a linalg op whose maps are all projected permutations (with
/// constant results allowed for broadcast dims). Fails otherwise, e.g. for
/// convolutions.
FailureOr<LoopSpace> buildLinalgSpace(linalg::LinalgOp op);

/// Loop space of an elementwise op with numpy broadcasting (arith/math on
/// tensors of one shape, tosa with size-1 broadcast dims).
FailureOr<LoopSpace> buildElementwiseSpace(Operation *op);

/// PyTorch's candidates of a loop-space op given its operands' placements:
/// the pointwise rule without reduction loops, the reduction rule for one
/// input, the einsum rule otherwise.
void loopSpaceCandidates(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                         llvm::ArrayRef<Placements> current,
                         llvm::SmallVectorImpl<ShardingCandidate> &out);

/// The einsum rule alone (contractions whose operands are not followed).
void einsumCandidates(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                      llvm::ArrayRef<Placements> current,
                      llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Every strategy of a loop-space op (whole-function planning): per mesh
/// axis, replicate, shard one loop (a reduction loop gives a partial with
/// the combiner), or pass partial inputs through a linear payload.
void enumerateLoopSpace(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                        llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Every strategy an explicit `dtensor.specs` may ask of a loop-space op
/// (`getPinnableShardingCandidates`): those of `enumerateLoopSpace` first,
/// then what PyTorch's rules also make: partials kept as P(avg) where the
/// strategies pass P(sum) through, if an operand in `current` is P(avg)
/// (the pointwise rule keeps the reduction of the input it follows), and
/// shards of dims with fewer elements than their shards (the pointwise rule
/// does not ask `is_tensor_shardable`). The planner never sees the latter.
void enumeratePinnableLoopSpace(const LoopSpace &space,
                                llvm::ArrayRef<int64_t> mesh,
                                llvm::ArrayRef<Placements> current,
                                llvm::SmallVectorImpl<ShardingCandidate> &out);

/// The candidate of a created copy (fill, broadcast, transpose) producing
/// its result in `result`, operands mapped back through the loop space.
ShardingCandidate creationCandidate(const LoopSpace &space,
                                    llvm::ArrayRef<int64_t> mesh,
                                    llvm::ArrayRef<Placement> result);

/// Candidates of an elementwise op (pointwise rule); fails for ops with
/// regions, without results, or with shapes numpy broadcasting rejects.
LogicalResult
elementwiseCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                      llvm::ArrayRef<Placements> current,
                      llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Every strategy of an elementwise op.
LogicalResult
allElementwiseCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                         llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Every strategy an explicit `dtensor.specs` may ask of an elementwise op
/// (`enumeratePinnableLoopSpace`).
LogicalResult
allPinnableElementwiseCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                                 llvm::ArrayRef<Placements> current,
                                 llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Candidate with every tensor operand and result replicated.
ShardingCandidate replicatedCandidate(Operation *op, size_t meshRank);

/// PyTorch 2.15's `_shard_except_dim_strategy` (softmax, scans) expanded
/// over the mesh: per axis R or a shard of any dim not in `blocked`, the
/// same for every tensor operand and result; shards only where the input is
/// sharded; an uneven shard only where the input already holds it. The first
/// `numInputs` operands are inputs, the others destinations (not costed).
void exceptDimCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                         llvm::ArrayRef<Placements> current,
                         llvm::function_ref<bool(int64_t)> blocked,
                         unsigned numInputs,
                         llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Follows the tensor operand among the first `numFollowable` with the most
/// shards (ties: first), forcing R on the axes that shard a dim in `blocked`
/// and on partial axes. All tensor operands and results take the same
/// placements.
ShardingCandidate
followWithBlockedDims(Operation *op, llvm::ArrayRef<int64_t> mesh,
                      llvm::ArrayRef<Placements> current,
                      llvm::function_ref<bool(int64_t)> blocked,
                      unsigned numFollowable = ~0u);

/// Maps placements of a source through a dim mapping (`srcToDst` gives the
/// destination dim or -1 meaning the shard cannot survive). Partials survive
/// if `keepPartial`. Returns the source target and the destination
/// placements.
std::pair<Placements, Placements>
mapPlacements(llvm::ArrayRef<Placement> src,
              llvm::function_ref<int64_t(int64_t axis, int64_t dim)> srcToDst,
              bool keepPartial);

/// Number of shards applied to dim `d` by axes 0..axis.
int64_t shardsOnDimUpTo(llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placement> ps, int64_t d, int64_t axis);

/// Candidate of an op reading operand 0 in `m.first`, result in `m.second`.
ShardingCandidate unaryCandidate(Operation *op,
                                 const std::pair<Placements, Placements> &m);

/// True if a slice covers source dim `d` completely.
bool coversDim(OffsetSizeAndStrideOpInterface op, int64_t d, int64_t dimSize);

/// Local rewrite of an op that creates its single tensor result from
/// scalars: replicated and partial values stay as they are; sharded ones are
/// built at their local size (empty, splat, splat constants) or built whole
/// and sliced to this rank's part.
LogicalResult localizeCreation(Operation *op, PartitionContext &ctx);

//===----------------------------------------------------------------------===//
// Reusable models
//===----------------------------------------------------------------------===//

/// Sharding rule of an elementwise op (the Elementwise trait, or numpy
/// broadcasting): the pointwise rule, linearity from `classifyScalarOp`.
template <typename OpTy>
struct ElementwiseShardingModel
    : public ShardingRuleOpInterface::ExternalModel<
          ElementwiseShardingModel<OpTy>, OpTy> {
  LogicalResult
  getShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placements> current,
                        llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return elementwiseCandidates(op, mesh, current, out);
  }
  LogicalResult
  getAllShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                           llvm::ArrayRef<Placements>,
                           llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return allElementwiseCandidates(op, mesh, out);
  }
  LogicalResult getPinnableShardingCandidates(
      Operation *op, llvm::ArrayRef<int64_t> mesh,
      llvm::ArrayRef<Placements> current,
      llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return allPinnableElementwiseCandidates(op, mesh, current, out);
  }
};

/// Sharding rule of an op that creates a tensor from scalars and
/// attributes (constants, empty tensors, splats): replicated, created
/// directly in the placements its users need, built locally when
/// partitioned.
/// `Derived`, if given, is a model deriving from this one that overrides
/// more methods (e.g. `createsZeroOrUndef`).
template <typename OpTy, typename Derived = void>
struct CreationShardingModel
    : public ShardingRuleOpInterface::ExternalModel<
          std::conditional_t<std::is_void_v<Derived>,
                             CreationShardingModel<OpTy, Derived>, Derived>,
          OpTy> {
  LogicalResult
  getShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placements>,
                        llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    if (!isCreationOp(op))
      return failure();
    out.push_back(replicatedCandidate(op, mesh.size()));
    return success();
  }
  LogicalResult
  getAllShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                           llvm::ArrayRef<Placements> current,
                           llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return getShardingCandidates(op, mesh, current, out);
  }
  bool createsFromScalars(Operation *) const { return true; }
  LogicalResult localize(Operation *op, PartitionContext &ctx) const {
    return localizeCreation(op, ctx);
  }
};

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_EXTENSIONS_SHARDINGRULEUTILS_H
