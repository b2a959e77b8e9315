//===- TensorShardingModels.cpp - sharding rules of tensor ops ------------===//
//
// Reshapes map shards through their reassociation, slices keep shards on
// dims they cover whole, concatenation and padding follow an operand except
// along the dims they change, element access and reshapes by shape tensor
// replicate, and creations are built in the placements their users need.
// Local rewrites: expanded shapes, slices and inserts take local sizes on
// sharded dims, `tensor.dim` answers the global size.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

//===----------------------------------------------------------------------===//
// Candidates
//===----------------------------------------------------------------------===//

/// Size of dim `d` of `shape` on one rank after the shards of `ps` on mesh
/// axes before `axis` (PyTorch's `local_tensor_shapes`, even shards).
static int64_t localSizeBefore(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> mesh,
                               llvm::ArrayRef<Placement> ps, int64_t d,
                               int64_t axis) {
  int64_t size = shape[d];
  for (int64_t a = 0; a < axis; ++a)
    if (ps[a].isShardLike(d))
      size /= mesh[a];
  return size;
}

/// True if no mesh axis after `axis` shards a dim of `group` at or after `d`
/// (`_is_last_shard_in_flatten_range`).
static bool isLastShardInGroup(llvm::ArrayRef<Placement> ps, int64_t axis,
                               const ReassociationIndices &group, int64_t d) {
  for (int64_t a = axis + 1, e = ps.size(); a < e; ++a)
    if (ps[a].isShardLike() && ps[a].getDim() >= d &&
        llvm::is_contained(group, ps[a].getDim()))
      return false;
  return true;
}

/// The placement of the collapsed dim `j` (source dims `group`) for
/// `p = src[axis]` on source dim d, given the source placements `kept` of
/// the earlier axes; R if the shard cannot survive. PyTorch 2.15
/// (`_rewrite_plain_shard`): a shard of the first merged dim stays `S(j)`
/// (if even), a shard of a later one becomes `_S(j, sf)` with sf the local
/// size of the merged dims before it; a strided shard of the first merged
/// dim stays strided.
static Placement collapsePlacement(const ReassociationIndices &group,
                                   int64_t j, llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> mesh,
                                   llvm::ArrayRef<Placement> kept,
                                   llvm::ArrayRef<Placement> src, int64_t axis) {
  Placement p = src[axis];
  int64_t d = p.getDim();
  auto jd = static_cast<int32_t>(j);
  if (group.size() == 1)
    return p.withDim(jd);
  int64_t local = localSizeBefore(shape, mesh, kept, d, axis);
  bool even = local % mesh[axis] == 0;
  if (d == group.front()) {
    if (p.isShard())
      return shape[d] % shardsOnDimUpTo(mesh, src, d, axis) == 0
                 ? Placement::shard(jd)
                 : Placement::replicate();
    // The groups of the strided shard stay whole rows: even chunks only.
    bool rows = local % p.getSplitFactor() == 0 &&
                (local / p.getSplitFactor()) % mesh[axis] == 0;
    return rows ? p.withDim(jd) : Placement::replicate();
  }
  if (!p.isShard())
    return Placement::replicate();
  // Earlier merged dims must have the same local size on every rank.
  int64_t sf = 1;
  for (int64_t e : group) {
    if (e == d)
      break;
    for (int64_t a = 0; a < axis; ++a)
      if (kept[a].isShardLike(e) &&
          localSizeBefore(shape, mesh, kept, e, a) % mesh[a] != 0)
        return Placement::replicate();
    sf *= localSizeBefore(shape, mesh, kept, e, axis);
  }
  if (!even && (d != group.back() || !isLastShardInGroup(src, axis, group, d)))
    return Placement::replicate();
  if (sf == 1)
    return Placement::shard(jd);
  return Placement::stridedShard(jd, sf);
}

static ShardingCandidate collapseCandidate(tensor::CollapseShapeOp op,
                                           llvm::ArrayRef<int64_t> mesh,
                                           llvm::ArrayRef<Placement> src) {
  auto groups = op.getReassociationIndices();
  llvm::ArrayRef<int64_t> shape = op.getSrcType().getShape();
  Placements target, dst;
  for (auto [axis, p] : llvm::enumerate(src)) {
    Placement out = p.isPartial() ? p : Placement::replicate();
    if (p.isShardLike())
      for (auto [j, group] : llvm::enumerate(groups))
        if (llvm::is_contained(group, p.getDim()))
          out = collapsePlacement(group, j, shape, mesh, target, src, axis);
    target.push_back(out.isReplicate() ? out : p);
    dst.push_back(out);
  }
  return unaryCandidate(op, {target, dst});
}

/// The placement of the split of source dim d (into result dims `group`)
/// for `p = src[axis]`; R if the shard cannot survive. A shard stays on the
/// first new dim if it divides; a strided shard `_S(d, sf)` becomes `S(i)`
/// on the new dim whose preceding new dims hold `sf` groups
/// (`_expected_split_factor`), if that dim divides or is the last one.
static Placement expandPlacement(const ReassociationIndices &group,
                                 llvm::ArrayRef<int64_t> shape,
                                 llvm::ArrayRef<int64_t> mesh,
                                 llvm::ArrayRef<Placement> src, int64_t axis) {
  Placement p = src[axis];
  int64_t d = p.getDim();
  int64_t first = group.front();
  if (p.isShard()) {
    if (group.size() > 1 &&
        shape[first] % shardsOnDimUpTo(mesh, src, d, axis) != 0)
      return Placement::replicate();
    return Placement::shard(static_cast<int32_t>(first));
  }
  if (group.size() == 1)
    return p.withDim(static_cast<int32_t>(first));
  int64_t prefix = 1;
  for (auto [i, r] : llvm::enumerate(group)) {
    int64_t expected = prefix;
    for (int64_t a = 0; a < axis; ++a)
      if (src[a].isShardLike(d))
        expected = expected % mesh[a] == 0 ? expected / mesh[a] : -1;
    if (i > 0 && expected == p.getSplitFactor()) {
      bool last = i + 1 == group.size();
      if (shape[r] % mesh[axis] == 0 || last)
        return Placement::shard(static_cast<int32_t>(r));
      return Placement::replicate();
    }
    prefix *= shape[r];
  }
  return Placement::replicate();
}

static ShardingCandidate expandCandidate(tensor::ExpandShapeOp op,
                                         llvm::ArrayRef<int64_t> mesh,
                                         llvm::ArrayRef<Placement> src) {
  auto groups = op.getReassociationIndices();
  llvm::ArrayRef<int64_t> shape = op.getResultType().getShape();
  Placements target, dst;
  for (auto [axis, p] : llvm::enumerate(src)) {
    Placement out = p.isPartial() ? p : Placement::replicate();
    if (p.isShardLike())
      out = expandPlacement(groups[p.getDim()], shape, mesh, src, axis);
    target.push_back(out.isReplicate() ? out : p);
    dst.push_back(out);
  }
  return unaryCandidate(op, {target, dst});
}

static ShardingCandidate extractSliceCandidate(tensor::ExtractSliceOp op,
                                               llvm::ArrayRef<Placement> src) {
  llvm::SmallBitVector dropped = op.getDroppedDims();
  auto srcShape = op.getSourceType().getShape();
  auto m = mapPlacements(
      src,
      [&](int64_t, int64_t d) -> int64_t {
        if (dropped.test(d) || !coversDim(op, d, srcShape[d]))
          return -1;
        int64_t j = 0;
        for (int64_t i = 0; i < d; ++i)
          j += dropped.test(i) ? 0 : 1;
        return j;
      },
      /*keepPartial=*/true);
  return unaryCandidate(op, m);
}

static ShardingCandidate insertSliceCandidate(tensor::InsertSliceOp op,
                                              llvm::ArrayRef<Placement> dest) {
  auto destShape = op.getDestType().getShape();
  // Rank-reducing inserts are replicated; otherwise a dest shard survives on
  // the dims the source covers completely, and the source is sharded alike.
  bool sameRank = op.getSourceType().getRank() == op.getDestType().getRank();
  Placements target;
  for (const Placement &p : dest)
    target.push_back(p.isShard() && sameRank &&
                             coversDim(op, p.getDim(), destShape[p.getDim()])
                         ? p
                         : Placement::replicate());
  ShardingCandidate c;
  for (OpOperand &o : op->getOpOperands()) {
    c.operands.push_back(o.getOperandNumber() < 2 ? target : Placements());
    c.excludedFromCost.push_back(false);
  }
  c.results.push_back(target);
  return c;
}

/// Follows the tensor operand among the first `numFollowable` with the most
/// shards (ties: first), forcing R on the axes that shard a dim in `blocked`
/// and on partial axes. All tensor operands and results take the same
/// placements.

/// PyTorch 2.15's refusal of a view that flattens `groups` of `shape` (the
/// source dims; `_analyze_flatten` under strict views): a dim sharded by an
/// axis, not last in its group, whose size the axis does not divide.
static std::string flattenRefusal(llvm::ArrayRef<ReassociationIndices> groups,
                                  llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<int64_t> mesh,
                                  llvm::ArrayRef<Placement> src) {
  for (const ReassociationIndices &group : groups)
    for (int64_t d : llvm::drop_end(group))
      for (auto [axis, p] : llvm::enumerate(src))
        if (p.isShard(d) && shape[d] % mesh[axis] != 0)
          return ("flattening dim " + llvm::Twine(d) + " (size " +
                  llvm::Twine(shape[d]) + ") sharded unevenly over mesh axis " +
                  llvm::Twine(axis) + " (size " + llvm::Twine(mesh[axis]) +
                  ")")
              .str();
  return {};
}

/// The same for a view that splits source dim `d` into `groups[d]` of the
/// result `shape` (`Split` with `split_id == 0`): the first new dim must be
/// divisible by every axis sharding `d`.
static std::string unflattenRefusal(llvm::ArrayRef<ReassociationIndices> groups,
                                    llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<int64_t> mesh,
                                    llvm::ArrayRef<Placement> src) {
  for (auto [axis, p] : llvm::enumerate(src)) {
    if (p.isStridedShard() && groups[p.getDim()].size() > 1 &&
        expandPlacement(groups[p.getDim()], shape, mesh, src, axis)
            .isReplicate())
      return ("unflattening dim " + llvm::Twine(p.getDim()) +
              " with strided shard " + p.str() + " on mesh axis " +
              llvm::Twine(axis) + ", whose split factor matches no new dim")
          .str();
    if (!p.isShard() || groups[p.getDim()].size() < 2)
      continue;
    int64_t first = groups[p.getDim()].front();
    if (shape[first] % mesh[axis] != 0)
      return ("unflattening dim " + llvm::Twine(p.getDim()) +
              " sharded over mesh axis " + llvm::Twine(axis) + " (size " +
              llvm::Twine(mesh[axis]) + ") into a first dim of size " +
              llvm::Twine(shape[first]))
          .str();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

namespace {

/// A model whose single candidate is computed by `Derived::candidate`.
template <typename Derived, typename OpTy>
struct SingleCandidateModel
    : public ShardingRuleOpInterface::ExternalModel<Derived, OpTy> {
  LogicalResult
  getShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placements> current,
                        llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    out.push_back(static_cast<const Derived *>(this)->candidate(cast<OpTy>(op),
                                                                mesh, current));
    return success();
  }
};

struct CollapseShapeModel
    : SingleCandidateModel<CollapseShapeModel, tensor::CollapseShapeOp> {
  ShardingCandidate candidate(tensor::CollapseShapeOp op,
                              llvm::ArrayRef<int64_t> mesh,
                              llvm::ArrayRef<Placements> current) const {
    return collapseCandidate(op, mesh, current[0]);
  }
  std::string getPyTorchRefusal(Operation *op, llvm::ArrayRef<int64_t> mesh,
                                llvm::ArrayRef<Placements> current) const {
    auto c = cast<tensor::CollapseShapeOp>(op);
    return flattenRefusal(c.getReassociationIndices(),
                          c.getSrcType().getShape(), mesh, current[0]);
  }
};

struct ExpandShapeModel
    : SingleCandidateModel<ExpandShapeModel, tensor::ExpandShapeOp> {
  ShardingCandidate candidate(tensor::ExpandShapeOp op,
                              llvm::ArrayRef<int64_t> mesh,
                              llvm::ArrayRef<Placements> current) const {
    return expandCandidate(op, mesh, current[0]);
  }
  std::string getPyTorchRefusal(Operation *op, llvm::ArrayRef<int64_t> mesh,
                                llvm::ArrayRef<Placements> current) const {
    auto e = cast<tensor::ExpandShapeOp>(op);
    return unflattenRefusal(e.getReassociationIndices(),
                            e.getResultType().getShape(), mesh, current[0]);
  }
  /// Expands the local shard. The rule keeps a shard of a split dim only on
  /// the first new dim and only where it divides evenly, so an uneven shard
  /// (a dynamic local dim) is always alone in its group: its size is the
  /// source's local size over the group's static sizes.
  LogicalResult localize(Operation *op, PartitionContext &ctx) const {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    const FakeTensor *t = ctx.lookup(expand.getResult());
    RankedTensorType local = ctx.getLocalType(t->type, t->placements);
    OpBuilder &b = ctx.getBuilder();
    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    SmallVector<OpFoldResult> outputShape;
    for (auto [srcDim, group] :
         llvm::enumerate(expand.getReassociationIndices())) {
      int64_t staticProduct = 1, numDynamic = 0;
      for (int64_t d : group) {
        if (local.isDynamicDim(d))
          ++numDynamic;
        else
          staticProduct *= local.getDimSize(d);
      }
      assert(numDynamic <= 1 && "an uneven shard is alone in its group");
      (void)numDynamic;
      for (int64_t d : group) {
        if (!local.isDynamicDim(d)) {
          outputShape.push_back(b.getIndexAttr(local.getDimSize(d)));
          continue;
        }
        Value size = getValueOrCreateConstantIndexOp(
            b, loc, ctx.getDimSize(loc, expand.getSrc(), srcDim));
        if (staticProduct != 1)
          size = arith::DivUIOp::create(
              b, loc, size,
              arith::ConstantIndexOp::create(b, loc, staticProduct));
        outputShape.push_back(size);
      }
    }
    auto repl = tensor::ExpandShapeOp::create(b, loc, local, expand.getSrc(),
                                              expand.getReassociationIndices(),
                                              outputShape);
    ctx.replace(expand.getResult(), repl.getResult());
    op->erase();
    return success();
  }
};

struct ExtractSliceModel
    : SingleCandidateModel<ExtractSliceModel, tensor::ExtractSliceOp> {
  ShardingCandidate candidate(tensor::ExtractSliceOp op,
                              llvm::ArrayRef<int64_t>,
                              llvm::ArrayRef<Placements> current) const {
    return extractSliceCandidate(op, current[0]);
  }
  LogicalResult localize(Operation *op, PartitionContext &ctx) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    const FakeTensor *src = ctx.lookup(slice.getSource());
    const FakeTensor *res = ctx.lookup(slice.getResult());
    if (!src || !res || llvm::none_of(src->placements, [](Placement p) {
          return p.isShard();
        })) {
      ctx.localizeResultTypes(op);
      return success();
    }
    // Sharded dims are taken whole: their sizes become the local sizes.
    OpBuilder &b = ctx.getBuilder();
    b.setInsertionPoint(op);
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    for (const Placement &p : src->placements)
      if (p.isShard())
        sizes[p.getDim()] =
            ctx.getDimSize(op->getLoc(), slice.getSource(), p.getDim());
    RankedTensorType local = ctx.getLocalType(res->type, res->placements);
    auto repl = tensor::ExtractSliceOp::create(
        b, op->getLoc(), local, slice.getSource(), slice.getMixedOffsets(),
        sizes, slice.getMixedStrides());
    ctx.replace(slice.getResult(), repl.getResult());
    op->erase();
    return success();
  }
};

struct InsertSliceModel
    : SingleCandidateModel<InsertSliceModel, tensor::InsertSliceOp> {
  ShardingCandidate candidate(tensor::InsertSliceOp op, llvm::ArrayRef<int64_t>,
                              llvm::ArrayRef<Placements> current) const {
    return insertSliceCandidate(op, current[1]);
  }
  /// The rule follows the destination.
  LogicalResult getAllShardingCandidates(
      Operation *op, llvm::ArrayRef<int64_t> mesh,
      llvm::ArrayRef<Placements> current,
      llvm::SmallVectorImpl<ShardingCandidate> &out) const {
    return enumerateFollowedCandidates(cast<ShardingRuleOpInterface>(op),
                                       /*followed=*/1, mesh, current, out);
  }
  LogicalResult localize(Operation *op, PartitionContext &ctx) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    const FakeTensor *dest = ctx.lookup(insert.getDest());
    if (!dest || llvm::none_of(dest->placements,
                               [](Placement p) { return p.isShard(); })) {
      ctx.localizeResultTypes(op);
      return success();
    }
    OpBuilder &b = ctx.getBuilder();
    b.setInsertionPoint(op);
    SmallVector<OpFoldResult> sizes = insert.getMixedSizes();
    for (const Placement &p : dest->placements)
      if (p.isShard())
        sizes[p.getDim()] =
            ctx.getDimSize(op->getLoc(), insert.getSource(), p.getDim());
    auto repl = tensor::InsertSliceOp::create(
        b, op->getLoc(), insert.getSource(), insert.getDest(),
        insert.getMixedOffsets(), sizes, insert.getMixedStrides());
    ctx.replace(insert.getResult(), repl.getResult());
    op->erase();
    return success();
  }
};

struct ConcatModel : SingleCandidateModel<ConcatModel, tensor::ConcatOp> {
  ShardingCandidate candidate(tensor::ConcatOp op, llvm::ArrayRef<int64_t> mesh,
                              llvm::ArrayRef<Placements> current) const {
    int64_t dim = op.getDim();
    ShardingCandidate c = followWithBlockedDims(
        op, mesh, current, [&](int64_t d) { return d == dim; });
    // Concatenation is linear: inputs that are all partial with the same
    // reduction on an axis stay partial (the concatenated gradients of a DDP
    // bucket are reduced once).
    for (size_t axis = 0; axis < mesh.size(); ++axis) {
      if (current.empty() || current.front().size() <= axis)
        break;
      const Placement &p = current.front()[axis];
      if (!p.isPartial() || llvm::any_of(current, [&](const Placements &ps) {
            return ps.size() <= axis || ps[axis] != p;
          }))
        continue;
      for (Placements &ps : c.operands)
        ps[axis] = p;
      c.results.front()[axis] = p;
    }
    return c;
  }
};

struct PadModel : SingleCandidateModel<PadModel, tensor::PadOp> {
  ShardingCandidate candidate(tensor::PadOp op, llvm::ArrayRef<int64_t> mesh,
                              llvm::ArrayRef<Placements> current) const {
    auto low = op.getMixedLowPad(), high = op.getMixedHighPad();
    return followWithBlockedDims(
        op, mesh, current,
        [&](int64_t d) {
          return getConstantIntValue(low[d]) != 0 ||
                 getConstantIntValue(high[d]) != 0;
        },
        /*numFollowable=*/1);
  }
};

struct CastModel : SingleCandidateModel<CastModel, tensor::CastOp> {
  ShardingCandidate candidate(tensor::CastOp op, llvm::ArrayRef<int64_t> mesh,
                              llvm::ArrayRef<Placements> current) const {
    return followWithBlockedDims(op, mesh, current,
                                 [](int64_t) { return false; });
  }
};

/// Element access and reshapes by a shape tensor: replicated.
template <typename OpTy>
struct ReplicatedModel : SingleCandidateModel<ReplicatedModel<OpTy>, OpTy> {
  ShardingCandidate candidate(OpTy op, llvm::ArrayRef<int64_t> mesh,
                              llvm::ArrayRef<Placements>) const {
    return replicatedCandidate(op, mesh.size());
  }
};

/// Reads only the global shape: no requirement on the placements.
struct DimModel : SingleCandidateModel<DimModel, tensor::DimOp> {
  ShardingCandidate candidate(tensor::DimOp, llvm::ArrayRef<int64_t>,
                              llvm::ArrayRef<Placements> current) const {
    ShardingCandidate c;
    c.operands.push_back(current[0]);
    c.operands.push_back(Placements());
    c.excludedFromCost.assign(2, false);
    c.results.push_back(Placements());
    return c;
  }
  /// The global view asks for global sizes.
  LogicalResult localize(Operation *op, PartitionContext &ctx) const {
    auto dim = cast<tensor::DimOp>(op);
    auto type = dyn_cast<RankedTensorType>(dim.getSource().getType());
    std::optional<int64_t> d = dim.getConstantIndex();
    if (type && d && ctx.lookup(dim.getSource())) {
      OpBuilder &b = ctx.getBuilder();
      b.setInsertionPoint(op);
      dim.replaceAllUsesWith(
          arith::ConstantIndexOp::create(b, op->getLoc(), type.getDimSize(*d))
              .getResult());
      op->erase();
    }
    return success();
  }
};

/// tensor.empty is undefined, so it may also be built as P(sum).
struct EmptyModel : CreationShardingModel<tensor::EmptyOp, EmptyModel> {
  bool createsZeroOrUndef(Operation *) const { return true; }
};

} // namespace

void mlir::dtensor::registerTensorShardingRuleExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::CollapseShapeOp::attachInterface<CollapseShapeModel>(*ctx);
    tensor::ExpandShapeOp::attachInterface<ExpandShapeModel>(*ctx);
    tensor::ExtractSliceOp::attachInterface<ExtractSliceModel>(*ctx);
    tensor::InsertSliceOp::attachInterface<InsertSliceModel>(*ctx);
    tensor::ConcatOp::attachInterface<ConcatModel>(*ctx);
    tensor::PadOp::attachInterface<PadModel>(*ctx);
    tensor::CastOp::attachInterface<CastModel>(*ctx);
    tensor::DimOp::attachInterface<DimModel>(*ctx);
    tensor::ExtractOp::attachInterface<ReplicatedModel<tensor::ExtractOp>>(
        *ctx);
    tensor::InsertOp::attachInterface<ReplicatedModel<tensor::InsertOp>>(*ctx);
    tensor::ReshapeOp::attachInterface<ReplicatedModel<tensor::ReshapeOp>>(
        *ctx);
    tensor::BitcastOp::attachInterface<ReplicatedModel<tensor::BitcastOp>>(
        *ctx);
    tensor::EmptyOp::attachInterface<EmptyModel>(*ctx);
    tensor::SplatOp::attachInterface<CreationShardingModel<tensor::SplatOp>>(
        *ctx);
    tensor::FromElementsOp::attachInterface<
        CreationShardingModel<tensor::FromElementsOp>>(*ctx);
    tensor::GenerateOp::attachInterface<
        CreationShardingModel<tensor::GenerateOp>>(*ctx);
  });
}
