//===- Partition.cpp - global view to local SPMD program ------------------===//
//
// Every rank runs the same local program. Tensors take the type of their
// shard (dynamic dims where shards are uneven); redistributions become the
// collectives of their per-axis plan; created values are created locally.
// Sizes and offsets of uneven shards are computed at run time from the
// rank's coordinates (`dtensor.process_index`).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Analysis/MemoryLiveness.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"
#include "dtensor/Dialect/DTensor/Transforms/MaterializePlan.h"
#include "dtensor/Support/ShardingMath.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORPARTITION
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// Rewrites one function into its local program.
class Localizer : public PartitionContext {
public:
  Localizer(FunctionOpInterface func, const FunctionPlan &plan,
            unsigned &numCollectives)
      : func(func), plan(plan), mesh(plan.getMesh()),
        meshShape(plan.getMeshShape()), b(func.getContext()),
        numCollectives(numCollectives) {
    for (const Redistribution &r : plan.getRedistributions())
      if (r.op)
        explicitRedistributions[r.op] = &r;
  }

  LogicalResult run();

  // PartitionContext.
  ArrayRef<int64_t> getMeshShape() const override { return meshShape; }
  OpBuilder &getBuilder() override { return b; }
  /// Metadata of a value of the function, also after it was replaced.
  const FakeTensor *lookup(Value v) const override {
    // Replacements first: a replacement may be a value of the plan with
    // other placements (the local operand of a from_local).
    if (const FakeTensor *t = replaced.lookup(v))
      return t;
    return plan.lookup(v);
  }
  RankedTensorType getLocalType(RankedTensorType global,
                                ArrayRef<Placement> ps) const override {
    return RankedTensorType::get(computeLocalTypeShape(global.getShape(),
                                                       meshShape, ps,
                                                       ShapedType::kDynamic),
                                 global.getElementType());
  }
  OpFoldResult getDimSize(Location loc, Value v, int64_t d) override;
  /// LocalExtent of dim `d` of a tensor of global size `n` under `ps` on this
  /// rank, relative to the global tensor.
  LocalExtent getExtent(Location loc, int64_t n, ArrayRef<Placement> ps,
                        int64_t d) override;
  /// Sizes of the local tensor of `global` under `ps`.
  SmallVector<OpFoldResult> getLocalSizes(Location loc, RankedTensorType global,
                                          ArrayRef<Placement> ps) override;
  /// Replaces `from` (a value of the plan) by `to`, keeping its metadata.
  void replace(Value from, Value to, Operation *except = nullptr) override {
    if (const FakeTensor *t = lookup(from))
      replaced[to] = t;
    if (except)
      from.replaceAllUsesExcept(to, except);
    else
      from.replaceAllUsesWith(to);
  }
  /// Gives the results of `op` their local types, in place.
  void localizeResultTypes(Operation *op) override;

private:
  Value index(Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  /// This rank's coordinate on a mesh axis, created once per function.
  Value coord(int64_t axis);
  /// Chunk `c` of `k` of a dim of `size` elements (torch.chunk rule).
  LocalExtent chunk(Location loc, OpFoldResult size, int64_t k, Value c);
  /// Slices `[offset, offset + size)` of dim `d` of `v`.
  Value sliceDim(Location loc, Value v, int64_t d, OpFoldResult offset,
                 OpFoldResult size);
  /// Pads dim `d` of `v` at the end to `size` elements.
  Value padDim(Location loc, Value v, int64_t d, OpFoldResult size);
  /// Views dim `d` of `v` as `[groups, size / groups]` (dims d and d + 1).
  Value splitDim(Location loc, Value v, int64_t d, int64_t groups);
  /// Merges dims `d` and `d + 1` of `v`.
  Value mergeDims(Location loc, Value v, int64_t d);
  /// R -> `_S(d, sf)` on an axis of `k` ranks: this rank's chunk of each of
  /// the `sf` groups of dim d.
  Value stridedChunk(Location loc, Value cur, Placement to, int64_t axis);
  /// `_S(d, sf)` -> R: all-gathers every group's chunks (padded to equal
  /// blocks) and keeps the `n` elements of dim d.
  Value gatherStrided(Location loc, Value cur, Placement from, OpFoldResult n,
                      int64_t k, FlatSymbolRefAttr meshRef,
                      DenseI64ArrayAttr axes);
  /// All-gathers dim `d` of `cur` over `axes` (`k` ranks) into the `n`
  /// elements it has after the gather, padding uneven shards to equal
  /// blocks and slicing the padding off.
  Value gatherPadded(Location loc, Value cur, int64_t d, OpFoldResult n,
                     int64_t k, FlatSymbolRefAttr meshRef,
                     DenseI64ArrayAttr axes);
  Value castTo(Location loc, Value v, Type type);

  /// Emits the redistribution steps the analysis planned for `op`.
  LogicalResult lowerRedistribute(RedistributeOp op);
  /// Emits one step of a redistribution of a tensor of type `global`.
  Value lowerStep(Location loc, Value cur, const RedistributeStep &step,
                  RankedTensorType global);
  /// What the collective steps share: the step, the global type, the
  /// placements after the step, the axis size and the mesh axis operands.
  struct StepContext {
    const RedistributeStep &step;
    RankedTensorType global;
    Placements after;
    int64_t k;
    FlatSymbolRefAttr meshRef;
    DenseI64ArrayAttr axes;
  };
  Value lowerAllGather(Location loc, Value cur, const StepContext &s);
  Value lowerReduceScatter(Location loc, Value cur, const StepContext &s);
  Value lowerAllToAll(Location loc, Value cur, const StepContext &s);
  Value lowerLocalDivide(Location loc, Value cur, const RedistributeStep &step);
  LogicalResult localizeOp(Operation *op);

  FunctionOpInterface func;
  const FunctionPlan &plan;
  DenseMap<Value, const FakeTensor *> replaced;
  /// What the analysis planned for each explicit redistribution.
  DenseMap<Operation *, const Redistribution *> explicitRedistributions;
  MeshOp mesh;
  ArrayRef<int64_t> meshShape;
  OpBuilder b;
  DenseMap<int64_t, Value> coords;
  unsigned &numCollectives;
};

} // namespace

Value Localizer::coord(int64_t axis) {
  auto it = coords.find(axis);
  if (it != coords.end())
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.getFunctionBody().front());
  Value c =
      ProcessIndexOp::create(b, func.getLoc(), b.getIndexType(),
                             FlatSymbolRefAttr::get(mesh.getSymNameAttr()),
                             b.getDenseI64ArrayAttr({axis}));
  coords[axis] = c;
  return c;
}

LocalExtent Localizer::chunk(Location loc, OpFoldResult size, int64_t k,
                             Value c) {
  std::optional<int64_t> n = getConstantIntValue(size);
  if (k == 1)
    return {size, b.getIndexAttr(0)};
  if (n && *n % k == 0) {
    Value off = arith::MulIOp::create(b, loc, c, index(loc, *n / k));
    return {b.getIndexAttr(*n / k), off};
  }
  // full = ceil(n / k); start = full * c; size = max(0, min(n, start + full)
  // - start); offset = min(start, n).
  Value nv = getValueOrCreateConstantIndexOp(b, loc, size);
  Value full = arith::CeilDivUIOp::create(b, loc, nv, index(loc, k));
  Value start = arith::MulIOp::create(b, loc, full, c);
  Value end = arith::MinUIOp::create(
      b, loc, nv, arith::AddIOp::create(b, loc, start, full));
  Value offset = arith::MinUIOp::create(b, loc, start, nv);
  Value len = arith::SubIOp::create(b, loc, end, offset);
  return {len, offset};
}

LocalExtent Localizer::getExtent(Location loc, int64_t n,
                                 ArrayRef<Placement> ps, int64_t d) {
  OpFoldResult size = b.getIndexAttr(n);
  OpFoldResult offset = b.getIndexAttr(0);
  for (auto [axis, p] : llvm::enumerate(ps)) {
    if (!p.isShardLike(d))
      continue;
    if (p.isStridedShard()) {
      // `sf` groups of size / sf (the verifier keeps them even), each
      // chunked; the offset is that of the first element, as PyTorch's.
      int64_t sf = p.getSplitFactor();
      std::optional<int64_t> ns = getConstantIntValue(size);
      OpFoldResult group =
          ns ? OpFoldResult(b.getIndexAttr(*ns / sf))
             : OpFoldResult(arith::DivUIOp::create(
                                b, loc,
                                getValueOrCreateConstantIndexOp(b, loc, size),
                                index(loc, sf))
                                .getResult());
      LocalExtent e = chunk(loc, group, meshShape[axis], coord(axis));
      std::optional<int64_t> es = getConstantIntValue(e.size);
      size = es ? OpFoldResult(b.getIndexAttr(*es * sf))
                : OpFoldResult(arith::MulIOp::create(
                                   b, loc,
                                   getValueOrCreateConstantIndexOp(b, loc,
                                                                   e.size),
                                   index(loc, sf))
                                   .getResult());
      Value o = getValueOrCreateConstantIndexOp(b, loc, offset);
      Value eo = getValueOrCreateConstantIndexOp(b, loc, e.offset);
      offset = arith::AddIOp::create(b, loc, o, eo).getResult();
      continue;
    }
    LocalExtent e = chunk(loc, size, meshShape[axis], coord(axis));
    size = e.size;
    Value o = getValueOrCreateConstantIndexOp(b, loc, offset);
    Value eo = getValueOrCreateConstantIndexOp(b, loc, e.offset);
    offset = arith::AddIOp::create(b, loc, o, eo).getResult();
  }
  return {size, offset};
}

SmallVector<OpFoldResult> Localizer::getLocalSizes(Location loc,
                                                   RankedTensorType global,
                                                   ArrayRef<Placement> ps) {
  RankedTensorType local = getLocalType(global, ps);
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < global.getRank(); ++d) {
    if (!local.isDynamicDim(d))
      sizes.push_back(b.getIndexAttr(local.getDimSize(d)));
    else
      sizes.push_back(getExtent(loc, global.getDimSize(d), ps, d).size);
  }
  return sizes;
}

OpFoldResult Localizer::getDimSize(Location loc, Value v, int64_t d) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return tensor::DimOp::create(b, loc, v, d).getResult();
}

Value Localizer::sliceDim(Location loc, Value v, int64_t d, OpFoldResult offset,
                          OpFoldResult size) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t i = 0; i < type.getRank(); ++i)
    sizes.push_back(i == d ? size : getDimSize(loc, v, i));
  offsets[d] = offset;
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

Value Localizer::padDim(Location loc, Value v, int64_t d, OpFoldResult size) {
  auto type = cast<RankedTensorType>(v.getType());
  std::optional<int64_t> want = getConstantIntValue(size);
  if (want && !type.isDynamicDim(d) && type.getDimSize(d) == *want)
    return v;
  SmallVector<OpFoldResult> low(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> high(type.getRank(), b.getIndexAttr(0));
  Value have = getValueOrCreateConstantIndexOp(b, loc, getDimSize(loc, v, d));
  Value target = getValueOrCreateConstantIndexOp(b, loc, size);
  high[d] = arith::SubIOp::create(b, loc, target, have).getResult();
  SmallVector<int64_t> shape(type.getShape());
  shape[d] = want ? *want : ShapedType::kDynamic;
  auto padded = RankedTensorType::get(shape, type.getElementType());
  Value zero = arith::ConstantOp::create(b, loc, type.getElementType(),
                                         b.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(b, loc, padded, v, low, high, zero);
}

Value Localizer::splitDim(Location loc, Value v, int64_t d, int64_t groups) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i != d) {
      reassoc.push_back({static_cast<int64_t>(shape.size())});
      shape.push_back(type.getDimSize(i));
      sizes.push_back(getDimSize(loc, v, i));
      continue;
    }
    int64_t at = shape.size();
    reassoc.push_back({at, at + 1});
    shape.push_back(groups);
    sizes.push_back(b.getIndexAttr(groups));
    if (!type.isDynamicDim(d)) {
      shape.push_back(type.getDimSize(d) / groups);
      sizes.push_back(b.getIndexAttr(type.getDimSize(d) / groups));
    } else {
      shape.push_back(ShapedType::kDynamic);
      sizes.push_back(arith::DivUIOp::create(
                          b, loc, tensor::DimOp::create(b, loc, v, d),
                          index(loc, groups))
                          .getResult());
    }
  }
  auto result = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, result, v, reassoc, sizes);
}

Value Localizer::mergeDims(Location loc, Value v, int64_t d) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i == d + 1)
      continue;
    if (i == d)
      reassoc.push_back({i, i + 1});
    else
      reassoc.push_back({i});
  }
  return tensor::CollapseShapeOp::create(b, loc, v, reassoc);
}

Value Localizer::stridedChunk(Location loc, Value cur, Placement to,
                              int64_t axis) {
  int64_t d = to.getDim();
  Value groups = splitDim(loc, cur, d, to.getSplitFactor());
  LocalExtent e = chunk(loc, getDimSize(loc, groups, d + 1), meshShape[axis],
                        coord(axis));
  return mergeDims(loc, sliceDim(loc, groups, d + 1, e.offset, e.size), d);
}

Value Localizer::gatherStrided(Location loc, Value cur, Placement from,
                               OpFoldResult n, int64_t k,
                               FlatSymbolRefAttr meshRef,
                               DenseI64ArrayAttr axes) {
  int64_t d = from.getDim(), sf = from.getSplitFactor();
  // Gathering dim d + 1 of [sf, chunk] puts the ranks' chunks of each group
  // side by side, in rank order: the group's elements, padding aside.
  std::optional<int64_t> ns = getConstantIntValue(n);
  OpFoldResult group =
      ns ? OpFoldResult(b.getIndexAttr(*ns / sf))
         : OpFoldResult(
               arith::DivUIOp::create(
                   b, loc, getValueOrCreateConstantIndexOp(b, loc, n),
                   index(loc, sf))
                   .getResult());
  Value gathered = gatherPadded(loc, splitDim(loc, cur, d, sf), d + 1, group,
                                k, meshRef, axes);
  return mergeDims(loc, gathered, d);
}

Value Localizer::castTo(Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

/// Multiplies a static size by `k`, or returns dynamic.
static int64_t mulStatic(int64_t s, int64_t k) {
  return ShapedType::isDynamic(s) ? ShapedType::kDynamic : s * k;
}

Value Localizer::gatherPadded(Location loc, Value cur, int64_t d,
                              OpFoldResult n, int64_t k,
                              FlatSymbolRefAttr meshRef,
                              DenseI64ArrayAttr axes) {
  // Every rank pads to ceil(n / k); only the trailing chunks are short, so
  // the data is the first n elements of the gather.
  std::optional<int64_t> ns = getConstantIntValue(n);
  OpFoldResult full =
      ns ? OpFoldResult(b.getIndexAttr((*ns + k - 1) / k))
         : OpFoldResult(arith::CeilDivUIOp::create(
                            b, loc, getValueOrCreateConstantIndexOp(b, loc, n),
                            index(loc, k))
                            .getResult());
  Value padded = padDim(loc, cur, d, full);
  auto pt = cast<RankedTensorType>(padded.getType());
  SmallVector<int64_t> shape(pt.getShape());
  shape[d] = mulStatic(shape[d], k);
  Value gathered = AllGatherOp::create(
      b, loc, RankedTensorType::get(shape, pt.getElementType()), padded,
      meshRef, axes, b.getI64IntegerAttr(d));
  return sliceDim(loc, gathered, d, b.getIndexAttr(0), n);
}

LogicalResult Localizer::lowerRedistribute(RedistributeOp op) {
  Location loc = op.getLoc();
  auto global = cast<RankedTensorType>(op.getType());
  // The steps are the ones the analysis planned (and the report prints).
  const Redistribution *r = explicitRedistributions.lookup(op);
  assert(r && "every explicit redistribution is in the plan");
  if (!r->planned)
    return op.emitError() << "cannot redistribute: " << r->planError;
  b.setInsertionPoint(op);
  Value cur = op.getSource();
  for (const RedistributeStep &step : r->steps) {
    Placements after = step.before;
    after[step.axis] = step.to;
    cur = castTo(loc, lowerStep(loc, cur, step, global),
                 getLocalType(global, after));
  }
  replace(op.getResult(), castTo(loc, cur, getLocalType(global, r->target)));
  op.erase();
  return success();
}

Value Localizer::lowerStep(Location loc, Value cur,
                           const RedistributeStep &step,
                           RankedTensorType global) {
  FlatSymbolRefAttr meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
  DenseI64ArrayAttr axes = b.getDenseI64ArrayAttr({step.axis});
  Placements after = step.before;
  after[step.axis] = step.to;
  StepContext s{step, global, after, meshShape[step.axis], meshRef, axes};
  switch (step.kind) {
  case StepKind::AllGather:
    ++numCollectives;
    return lowerAllGather(loc, cur, s);
  case StepKind::AllReduce:
    ++numCollectives;
    return AllReduceOp::create(
        b, loc, cur.getType(), cur, meshRef, axes,
        ReduceOpAttr::get(b.getContext(), step.from.getReduceOp()));
  case StepKind::ReduceScatter:
    ++numCollectives;
    return lowerReduceScatter(loc, cur, s);
  case StepKind::AllToAll:
    ++numCollectives;
    return lowerAllToAll(loc, cur, s);
  case StepKind::LocalChunk: {
    if (step.to.isStridedShard())
      return stridedChunk(loc, cur, step.to, step.axis);
    int64_t d = step.to.getDim();
    LocalExtent e = chunk(loc, getDimSize(loc, cur, d), meshShape[step.axis],
                          coord(step.axis));
    return sliceDim(loc, cur, d, e.offset, e.size);
  }
  case StepKind::LocalDivide:
    return lowerLocalDivide(loc, cur, step);
  case StepKind::LocalKeep:
    return cur;
  }
  llvm_unreachable("unknown step kind");
}

Value Localizer::lowerAllGather(Location loc, Value cur, const StepContext &s) {
  auto curType = cast<RankedTensorType>(cur.getType());
  int64_t d = s.step.from.getDim();
  OpFoldResult n = getExtent(loc, s.global.getDimSize(d), s.after, d).size;
  if (s.step.from.isStridedShard())
    return gatherStrided(loc, cur, s.step.from, n, s.k, s.meshRef, s.axes);
  std::optional<int64_t> ns = getConstantIntValue(n);
  if (ns && !curType.isDynamicDim(d) && curType.getDimSize(d) * s.k == *ns)
    return AllGatherOp::create(b, loc, getLocalType(s.global, s.after), cur,
                               s.meshRef, s.axes, b.getI64IntegerAttr(d));
  return gatherPadded(loc, cur, d, n, s.k, s.meshRef, s.axes);
}

Value Localizer::lowerReduceScatter(Location loc, Value cur,
                                    const StepContext &s) {
  int64_t d = s.step.to.getDim();
  OpFoldResult n = getDimSize(loc, cur, d);
  std::optional<int64_t> ns = getConstantIntValue(n);
  auto kind = ReduceOpAttr::get(b.getContext(), s.step.from.getReduceOp());
  if (ns && *ns % s.k == 0)
    return ReduceScatterOp::create(b, loc, getLocalType(s.global, s.after), cur,
                                   s.meshRef, s.axes, kind,
                                   b.getI64IntegerAttr(d));
  // Uneven: pad to s.k equal blocks; block c starts where torch.chunk's chunk
  // c starts, so slicing its head gives the chunk.
  Value nv = getValueOrCreateConstantIndexOp(b, loc, n);
  Value full = arith::CeilDivUIOp::create(b, loc, nv, index(loc, s.k));
  Value total = arith::MulIOp::create(b, loc, full, index(loc, s.k));
  OpFoldResult totalOfr = total;
  if (ns)
    totalOfr = b.getIndexAttr(((*ns + s.k - 1) / s.k) * s.k);
  Value padded = padDim(loc, cur, d, totalOfr);
  auto pt = cast<RankedTensorType>(padded.getType());
  SmallVector<int64_t> shape(pt.getShape());
  shape[d] =
      ShapedType::isDynamic(shape[d]) ? ShapedType::kDynamic : shape[d] / s.k;
  Value scattered = ReduceScatterOp::create(
      b, loc, RankedTensorType::get(shape, s.global.getElementType()), padded,
      s.meshRef, s.axes, kind, b.getI64IntegerAttr(d));
  LocalExtent e = chunk(loc, n, s.k, coord(s.step.axis));
  return sliceDim(loc, scattered, d, b.getIndexAttr(0), e.size);
}

Value Localizer::lowerAllToAll(Location loc, Value cur, const StepContext &s) {
  auto curType = cast<RankedTensorType>(cur.getType());
  int64_t i = s.step.from.getDim(), j = s.step.to.getDim();
  OpFoldResult nj = getDimSize(loc, cur, j);
  std::optional<int64_t> njs = getConstantIntValue(nj);
  OpFoldResult ni = getExtent(loc, s.global.getDimSize(i), s.after, i).size;
  std::optional<int64_t> nis = getConstantIntValue(ni);
  bool even = njs && *njs % s.k == 0 && nis && !curType.isDynamicDim(i) &&
              curType.getDimSize(i) * s.k == *nis;
  if (even)
    return AllToAllOp::create(b, loc, getLocalType(s.global, s.after), cur,
                              s.meshRef, s.axes, b.getI64IntegerAttr(j),
                              b.getI64IntegerAttr(i));
  // Uneven shards: gather dim i, then keep this rank's chunk of dim j.
  Value whole = gatherPadded(loc, cur, i, ni, s.k, s.meshRef, s.axes);
  LocalExtent e =
      chunk(loc, getDimSize(loc, whole, j), s.k, coord(s.step.axis));
  return sliceDim(loc, whole, j, e.offset, e.size);
}

Value Localizer::lowerLocalDivide(Location loc, Value cur,
                                  const RedistributeStep &step) {
  // R -> P(sum): floats hold 1/k of the value on every rank (PyTorch);
  // integers, which cannot be divided exactly, keep the value on group rank
  // 0 and zeros elsewhere.
  int64_t k = meshShape[step.axis];
  auto curType = cast<RankedTensorType>(cur.getType());
  Type elt = curType.getElementType();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < curType.getRank(); ++d)
    sizes.push_back(getDimSize(loc, cur, d));
  Value init = tensor::EmptyOp::create(b, loc, sizes, elt);
  bool isFloat = isa<FloatType>(elt);
  Value kv, keep;
  if (isFloat) {
    kv = arith::ConstantOp::create(b, loc, elt, b.getFloatAttr(elt, double(k)));
  } else {
    keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                 coord(step.axis), index(loc, 0));
    kv = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  }
  auto map = b.getMultiDimIdentityMap(curType.getRank());
  SmallVector<utils::IteratorType> iters(curType.getRank(),
                                         utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{cur}, ValueRange{init},
             ArrayRef<AffineMap>{map, map}, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value q =
                   isFloat
                       ? arith::DivFOp::create(nb, nl, args[0], kv).getResult()
                       : arith::SelectOp::create(nb, nl, keep, args[0], kv)
                             .getResult();
               linalg::YieldOp::create(nb, nl, q);
             })
      .getResult(0);
}

LogicalResult Localizer::localizeOp(Operation *op) {
  if (auto r = dyn_cast<RedistributeOp>(op))
    return lowerRedistribute(r);
  if (isa<FromLocalOp, ToLocalOp>(op)) {
    b.setInsertionPoint(op);
    Value local = op->getOperand(0);
    Type want = op->getResult(0).getType();
    if (auto f = dyn_cast<FromLocalOp>(op))
      want = getLocalType(f.getType(), f.getSpec().getPlacements());
    else
      want = op->getResult(0).getType();
    // A distinct value, so that the operand keeps its own metadata.
    Value repl = tensor::CastOp::create(b, op->getLoc(), want, local);
    // The local operand is R in the plan; the replacement carries the
    // result's placements.
    if (const FakeTensor *t = lookup(op->getResult(0)))
      replaced[repl] = t;
    op->getResult(0).replaceAllUsesWith(repl);
    op->erase();
    return success();
  }
  // Everything else through its sharding rule; ops without one (control
  // flow, calls, unknown ops replicated by policy) take local result types.
  if (auto rule = dyn_cast<ShardingRuleOpInterface>(op))
    return rule.localize(*this);
  localizeResultTypes(op);
  return success();
}

void Localizer::localizeResultTypes(Operation *op) {
  for (Value r : op->getResults())
    if (const FakeTensor *t = lookup(r))
      r.setType(getLocalType(t->type, t->placements));
}

LogicalResult Localizer::run() {
  Block &entry = func.getFunctionBody().front();
  // Arguments arrive as local shards.
  for (BlockArgument arg : entry.getArguments())
    if (const FakeTensor *t = plan.lookup(arg))
      arg.setType(getLocalType(t->type, t->placements));
  SmallVector<Operation *> ops;
  func.getFunctionBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { ops.push_back(op); });
  // Block arguments of nested regions first (loop-carried values).
  for (Operation *op : ops)
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (const FakeTensor *t = plan.lookup(arg))
            arg.setType(getLocalType(t->type, t->placements));
  for (Operation *op : ops)
    if (failed(localizeOp(op)))
      return failure();
  // The signature follows the local types.
  Operation *ret = entry.getTerminator();
  func.setType(FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                                 ret->getOperandTypes()));
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous collectives
//===----------------------------------------------------------------------===//

namespace {
/// True if `op` does work a collective in flight can overlap: a structured
/// (destination-style) op, a call, or an op with regions (a loop).
bool isCompute(Operation *op) {
  return isa<DestinationStyleOpInterface, CallOpInterface>(op) ||
         op->getNumRegions() > 0;
}

/// The `_start` form of `op` with the same operands and attributes.
template <typename StartOp>
Operation *createStart(OpBuilder &b, CollectiveOpInterface op) {
  auto request = RequestType::get(op->getContext(), op.getResultTensorType());
  return StartOp::create(b, op->getLoc(), TypeRange{request}, op->getOperands(),
                         op->getAttrs());
}

/// Replaces the synchronous collective `op` by its `_start` form and a wait
/// before `firstUser`.
void makeAsync(CollectiveOpInterface op, Operation *firstUser) {
  OpBuilder b(op);
  Operation *start =
      llvm::TypeSwitch<Operation *, Operation *>(op)
          .Case(
              [&](AllReduceOp) { return createStart<AllReduceStartOp>(b, op); })
          .Case(
              [&](AllGatherOp) { return createStart<AllGatherStartOp>(b, op); })
          .Case([&](ReduceScatterOp) {
            return createStart<ReduceScatterStartOp>(b, op);
          })
          .Case([&](AllToAllOp) { return createStart<AllToAllStartOp>(b, op); })
          .Case([&](BroadcastOp) {
            return createStart<BroadcastStartOp>(b, op);
          });
  b.setInsertionPoint(firstUser);
  Value result = WaitOp::create(b, op->getLoc(), start->getResult(0));
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}
} // namespace

/// Makes every synchronous collective of `func` whose first use (in its
/// block) comes after some compute asynchronous. Returns how many.
static unsigned makeCollectivesAsync(FunctionOpInterface func) {
  llvm::SmallVector<std::pair<CollectiveOpInterface, Operation *>> todo;
  func->walk([&](CollectiveOpInterface op) {
    if (op.isAsync() || op->use_empty())
      return;
    Block *block = op->getBlock();
    Operation *first = nullptr;
    for (Operation *user : op->getResult(0).getUsers()) {
      Operation *u = block->findAncestorOpInBlock(*user);
      if (u && (!first || u->isBeforeInBlock(first)))
        first = u;
    }
    if (!first)
      return;
    for (Operation *it = op->getNextNode(); it != first; it = it->getNextNode())
      if (isCompute(it)) {
        todo.push_back({op, first});
        return;
      }
  });
  for (auto [op, first] : todo)
    makeAsync(op, first);
  return todo.size();
}

namespace {
struct PartitionPass
    : public dtensor::impl::DTensorPartitionBase<PartitionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<int64_t> budget =
        parseMaxBytesPerRank(module, maxBytesPerRank);
    if (failed(budget))
      return signalPassFailure();
    FakeTensorOptions options =
        makeFakeTensorOptions(unknownOps, strategy, *budget);
    const FakeTensorAnalysis *analysis =
        &getAnalysis<FakeTensorAnalysisCache>().get(options);
    if (!analysis->succeeded())
      return signalPassFailure();
    unsigned inserted = 0;
    for (FunctionOpInterface func : analysis->getFunctions()) {
      MaterializeStats stats = materializePlan(func, *analysis->getPlan(func));
      inserted += stats.redistributions + stats.recreated;
    }
    // Values were added (redistributions, created copies): analyse the
    // materialised program, where every redistribution is explicit and
    // every op carries its placements. Otherwise the plan still describes
    // the program.
    std::unique_ptr<FakeTensorAnalysis> materialized;
    if (inserted) {
      // The pins hold the budgeted plan; it needs no second fitting.
      options.maxBytesPerRank = 0;
      materialized = std::make_unique<FakeTensorAnalysis>(module, options);
      analysis = materialized.get();
      if (!analysis->succeeded())
        return signalPassFailure();
    }
    unsigned count = 0;
    // Callees were analysed first; localise in the same order so that call
    // sites see the callees' local signatures.
    for (FunctionOpInterface func : analysis->getFunctions()) {
      const FunctionPlan &plan = *analysis->getPlan(func);
      if (!plan.getMesh())
        continue;
      Localizer localizer(func, plan, count);
      if (failed(localizer.run()))
        return signalPassFailure();
      if (asyncCollectives)
        numAsync += makeCollectivesAsync(func);
    }
    // Placements of ops are global-view metadata.
    module.walk(
        [](Operation *op) { op->removeAttr(DTensorDialect::kSpecsAttrName); });
    numCollectives += count;
  }
};
} // namespace
