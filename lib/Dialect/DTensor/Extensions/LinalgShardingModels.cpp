//===- LinalgShardingModels.cpp - sharding rules of linalg ops ------------===//
//
// Every structured op through `linalg::LinalgOp`: its indexing maps and
// iterator types give the loop space (parallel loops carry shards, sharded
// reduction loops give partials with the region's combiner). Fills,
// broadcasts and transposes keep created values created. `linalg.softmax`
// follows its input except along the softmax dim. Locally, `linalg.index`
// of a sharded loop is offset to the global index.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// The structured ops whose copy of a created value is created too.
template <typename OpTy>
constexpr bool kIsCreatedCopy =
    std::is_same_v<OpTy, linalg::FillOp> ||
    std::is_same_v<OpTy, linalg::BroadcastOp> ||
    std::is_same_v<OpTy, linalg::TransposeOp>;

template <typename OpTy>
struct StructuredOpShardingModel
    : public ShardingRuleOpInterface::ExternalModel<
          StructuredOpShardingModel<OpTy>, OpTy> {
  /// Calls `withSpace` on the op's loop space, or gives the replicated
  /// candidate for maps that are not projected permutations (convolutions).
  /// Fails for ops on buffers.
  static LogicalResult
  withLoopSpace(Operation *op, llvm::ArrayRef<int64_t> mesh,
                llvm::SmallVectorImpl<ShardingCandidate> &out,
                llvm::function_ref<void(const LoopSpace &)> withSpace) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!linalgOp.hasPureTensorSemantics())
      return failure();
    FailureOr<LoopSpace> space = buildLinalgSpace(linalgOp);
    if (failed(space))
      out.push_back(replicatedCandidate(op, mesh.size()));
    else
      withSpace(*space);
    return success();
  }

  LogicalResult
  getShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placements> current,
                        llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return withLoopSpace(op, mesh, out, [&](const LoopSpace &space) {
      loopSpaceCandidates(space, mesh, current, out);
    });
  }

  LogicalResult
  getAllShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                           llvm::ArrayRef<Placements> current,
                           llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return withLoopSpace(op, mesh, out, [&](const LoopSpace &space) {
      enumerateLoopSpace(space, mesh, out);
    });
  }

  LogicalResult getPinnableShardingCandidates(
      Operation *op, llvm::ArrayRef<int64_t> mesh,
      llvm::ArrayRef<Placements> current,
      llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return withLoopSpace(op, mesh, out, [&](const LoopSpace &space) {
      enumeratePinnableLoopSpace(space, mesh, current, out);
    });
  }

  bool preservesCreation(Operation *op) const {
    return kIsCreatedCopy<OpTy> &&
           cast<linalg::LinalgOp>(op).hasPureTensorSemantics();
  }

  bool createsZeroOrUndef(Operation *op) const {
    if (!preservesCreation(op))
      return false;
    if constexpr (std::is_same_v<OpTy, linalg::FillOp>) {
      Value fill = cast<linalg::FillOp>(op).getInputs()[0];
      return matchPattern(fill, m_AnyZeroFloat()) ||
             matchPattern(fill, m_Zero());
    }
    return isZeroOrUndef(op->getOperand(0));
  }

  FailureOr<ShardingCandidate>
  getCreationCandidate(Operation *op, llvm::ArrayRef<int64_t> mesh,
                       llvm::ArrayRef<Placement> result) const {
    if (!preservesCreation(op))
      return failure();
    FailureOr<LoopSpace> space = buildLinalgSpace(cast<linalg::LinalgOp>(op));
    if (failed(space))
      return failure();
    return creationCandidate(*space, mesh, result);
  }

  /// Results take their local types; `linalg.index` of a sharded loop
  /// becomes a global index by adding this rank's offset of that loop.
  LogicalResult localize(Operation *op, PartitionContext &ctx) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    SmallVector<linalg::IndexOp> indices;
    if (Block *body = linalgOp.getBlock())
      body->walk([&](linalg::IndexOp i) { indices.push_back(i); });
    if (!indices.empty() && linalgOp.hasPureTensorSemantics()) {
      // A strided shard's local indices are not one offset away from the
      // global ones.
      for (linalg::IndexOp i : indices)
        if (Placement p = stridedShardOfLoop(linalgOp, i.getDim(), ctx);
            p.isStridedShard())
          return op->emitOpError()
                 << "reads linalg.index " << i.getDim()
                 << " of a loop with strided shard " << p.str()
                 << ", which partitioning does not support";
      OpBuilder &b = ctx.getBuilder();
      DenseMap<int64_t, Value> offsets;
      for (linalg::IndexOp i : indices) {
        int64_t loop = i.getDim();
        auto it = offsets.find(loop);
        if (it == offsets.end()) {
          b.setInsertionPoint(op);
          it = offsets.try_emplace(loop, loopOffset(linalgOp, loop, ctx)).first;
        }
        if (!it->second)
          continue;
        b.setInsertionPointAfter(i);
        auto global = arith::AddIOp::create(b, i.getLoc(), i, it->second);
        i.getResult().replaceAllUsesExcept(global, global);
      }
    }
    ctx.localizeResultTypes(op);
    return success();
  }

  /// Calls `fn(tensor, dim)` for each tensor operand dim that `loop` indexes,
  /// in operand order, until it returns true.
  static void walkOperandDimsOfLoop(
      linalg::LinalgOp op, int64_t loop, PartitionContext &ctx,
      llvm::function_ref<bool(const FakeTensor &, int64_t)> fn) {
    for (OpOperand &o : op->getOpOperands()) {
      const FakeTensor *t = ctx.lookup(o.get());
      if (!t || !isa<RankedTensorType>(o.get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&o);
      for (auto [d, e] : llvm::enumerate(map.getResults()))
        if (auto dimExpr = dyn_cast<AffineDimExpr>(e);
            dimExpr && dimExpr.getPosition() == loop &&
            fn(*t, static_cast<int64_t>(d)))
          return;
    }
  }

  /// A strided shard of an operand dim indexed by `loop`, or R if none.
  static Placement stridedShardOfLoop(linalg::LinalgOp op, int64_t loop,
                                      PartitionContext &ctx) {
    Placement found = Placement::replicate();
    walkOperandDimsOfLoop(op, loop, ctx, [&](const FakeTensor &t, int64_t d) {
      for (Placement p : t.placements)
        if (p.isStridedShard(d)) {
          found = p;
          return true;
        }
      return false;
    });
    return found;
  }

  /// This rank's offset of `loop` in the global iteration space, or null if
  /// no operand shards it. Every operand indexing a sharded loop shards it
  /// alike (the loop-space rule), so the first one that does decides.
  static Value loopOffset(linalg::LinalgOp op, int64_t loop,
                          PartitionContext &ctx) {
    Value offset;
    walkOperandDimsOfLoop(op, loop, ctx, [&](const FakeTensor &t, int64_t d) {
      if (llvm::none_of(t.placements,
                        [&](Placement p) { return p.isShard(d); }))
        return false;
      OpFoldResult off =
          ctx.getExtent(op.getLoc(), t.type.getDimSize(d), t.placements, d)
              .offset;
      offset =
          getValueOrCreateConstantIndexOp(ctx.getBuilder(), op.getLoc(), off);
      return true;
    });
    return offset;
  }
};

/// Softmax: any sharding of the other dims (PyTorch's except-dim rule); the
/// softmax dim cannot be sharded.
struct SoftmaxShardingModel
    : public ShardingRuleOpInterface::ExternalModel<SoftmaxShardingModel,
                                                    linalg::SoftmaxOp> {
  LogicalResult
  getShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placements> current,
                        llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    int64_t dim = cast<linalg::SoftmaxOp>(op).getDimension();
    exceptDimCandidates(
        op, mesh, current, [&](int64_t d) { return d == dim; },
        /*numInputs=*/1, out);
    return success();
  }
};

template <typename OpTy>
void attachStructured(MLIRContext *ctx) {
  OpTy::template attachInterface<StructuredOpShardingModel<OpTy>>(*ctx);
}

template <typename... OpTys>
void attachAllStructured(MLIRContext *ctx) {
  (attachStructured<OpTys>(ctx), ...);
}

} // namespace

void mlir::dtensor::registerLinalgShardingRuleExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachAllStructured<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
    linalg::SoftmaxOp::attachInterface<SoftmaxShardingModel>(*ctx);
  });
}
