//===- Vectorize.cpp - tile and vectorize linalg ops on buffers -----------===//
//
// Tiles the linalg ops left on memrefs (after the BLAS lowering) to rows of
// `vector-size` elements along the innermost loop (whole rows for short
// innermost reductions; square blocks for permutations that move the
// innermost dim), vectorizes each tile with masks for partial tiles, and
// lowers the vector ops to the 1-D form that convert-vector-to-llvm takes
// (the rows of a block are unrolled by convert-vector-to-scf).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Dialect/DTensor/Transforms/ExpApproximation.h"
#include "mlir/Analysis/AliasAnalysis/LocalAliasAnalysis.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include <numeric>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORVECTORIZE
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
/// Element types whose vectors have the memory layout of their memrefs:
/// floats and integers of at least one byte (a vector of i1 is bit-packed).
bool hasVectorizableElements(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<FloatType>(element))
    return true;
  auto integer = dyn_cast<IntegerType>(element);
  return integer && integer.getWidth() >= 8 &&
         llvm::isPowerOf2_32(integer.getWidth());
}

/// Positions of the loops that `map` (a projected permutation of the loops
/// of `op`) reads, but loops of one iteration: they do not move data.
SmallVector<unsigned> getLoopPositions(linalg::LinalgOp op, AffineMap map) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> dims;
  for (AffineExpr result : map.getResults()) {
    unsigned dim = cast<AffineDimExpr>(result).getPosition();
    if (ranges[dim] != 1)
      dims.push_back(dim);
  }
  return dims;
}

/// The loop that the transposed inputs of a transpose-like op read
/// innermost, if `op` is one: an all-parallel op whose outputs are written
/// in loop order and whose innermost loop some inputs read across their rows
/// (`linalg.transpose`, `x^T + y`), all with the same innermost loop. Tiled
/// by square blocks on that loop and the innermost one, each block is read
/// by rows, transposed in registers and written by rows.
std::optional<unsigned> getTransposedLoop(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 2 || op.getNumReductionLoops() != 0)
    return std::nullopt;
  unsigned inner = numLoops - 1;
  std::optional<unsigned> across;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    SmallVector<unsigned> dims = getLoopPositions(op, map);
    if (op.isDpsInit(&operand)) {
      if (dims.empty() || dims.back() != inner || !llvm::is_sorted(dims))
        return std::nullopt;
      continue;
    }
    // Contiguous along the innermost loop, or not indexed by it.
    if (dims.empty() || dims.back() == inner || !llvm::is_contained(dims, inner))
      continue;
    if (across && *across != dims.back())
      return std::nullopt;
    across = dims.back();
  }
  return across;
}

/// The ops this pass vectorizes: linalg ops on buffers with at least one
/// loop, not convolutions, on vectorizable elements, whose outputs are
/// written in loop order and whose operands are contiguous (or broadcast)
/// along the innermost loop. Contractions that
/// reach this pass are those the BLAS lowering did not take (integers, dot
/// products, `blas=false`): vectorized along their innermost loop too.
bool isCandidate(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      linalg::isaConvolutionOpInterface(op) ||
      !isa<TilingInterface>(op.getOperation()))
    return false;
  if (!llvm::all_of(op->getOperandTypes(), hasVectorizableElements))
    return false;
  if (getTransposedLoop(op))
    return true;
  // The innermost loop must walk every output in memory order (outputs
  // indexed by the loops in increasing order, no transposed write) and read
  // every input contiguously or not at all (broadcast): a strided read
  // along it would be gathered one element at a time, slower than loops.
  unsigned inner = op.getNumLoops() - 1;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation())
      return false;
    SmallVector<unsigned> dims = getLoopPositions(op, map);
    if (!dims.empty() && llvm::is_contained(ArrayRef(dims).drop_back(), inner))
      return false;
    if (op.isDpsInit(&operand) && !llvm::is_sorted(dims))
      return false;
  }
  return true;
}

/// The side of the square blocks a transpose is done by: a row of 16 f32 is
/// one AVX-512 register, and a 16 x 16 block is transposed by 64 two-input
/// shuffles (upstream's Shuffle16x16 lowering). 4096 x 4096 f32 here: 11 ms,
/// against 15 ms with 8 x 8 blocks and 92 ms as scalar loops.
constexpr int64_t transposeBlock = 16;

/// Tile sizes (0: the loop is not tiled) and the vector sizes of the tile.
struct TilePlan {
  SmallVector<int64_t> tileSizes;
  SmallVector<int64_t> vectorSizes;
};

/// Lanes of a vector over a whole static loop of `range` iterations of
/// `op`: the range, but rounded up to a multiple of 8 (the extra lanes
/// masked) where an operand is bf16: LLVM 22's X86 backend aborts ("Do not
/// know how to soft promote this operator's operand") on loads and stores of
/// `<8k+1 x bfloat>` for AVX-512 BF16 CPUs (znver4).
int64_t getWholeLoopLanes(linalg::LinalgOp op, int64_t range) {
  bool bf16 = llvm::any_of(op->getOperandTypes(), [](Type type) {
    return getElementTypeOrSelf(type).isBF16();
  });
  return bf16 && range % 8 == 1 && range > 1 ? llvm::alignTo(range, 8) : range;
}

/// Of a transpose-like op, square blocks of `transposeBlock` on the loop
/// `across` (that its transposed inputs read innermost) and on the innermost
/// loop (one masked block when the loop is static and not longer), one
/// element on the others.
TilePlan planTransposeTiles(ArrayRef<int64_t> ranges, unsigned across) {
  TilePlan plan;
  for (auto [loop, range] : llvm::enumerate(ranges)) {
    bool blocked = loop == across || loop + 1 == ranges.size();
    if (!blocked) {
      plan.tileSizes.push_back(range == 1 ? 0 : 1);
      plan.vectorSizes.push_back(1);
    } else if (!ShapedType::isDynamic(range) && range <= transposeBlock) {
      // Masked to the range: blocks of one shape (LLVM fails to select
      // some odd-length bf16 vectors, e.g. the rows of a 16 x 9 block).
      plan.tileSizes.push_back(0);
      plan.vectorSizes.push_back(transposeBlock);
    } else {
      plan.tileSizes.push_back(transposeBlock);
      plan.vectorSizes.push_back(transposeBlock);
    }
  }
  return plan;
}

/// One element on every outer loop; `vectorSize` elements on the innermost
/// loop, or the whole loop when it is static and short (a reduction of up to
/// `maxReduction` elements, a parallel loop of up to `vectorSize`). Blocks
/// for transpose-like ops.
TilePlan planTiles(linalg::LinalgOp op, int64_t vectorSize,
                   int64_t maxReduction) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (std::optional<unsigned> across = getTransposedLoop(op))
    return planTransposeTiles(ranges, *across);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  TilePlan plan;
  for (int64_t range : ArrayRef(ranges).drop_back()) {
    plan.tileSizes.push_back(range == 1 ? 0 : 1);
    plan.vectorSizes.push_back(1);
  }
  int64_t inner = ranges.back();
  int64_t whole = linalg::isReductionIterator(iterators.back())
                      ? std::max(maxReduction, vectorSize)
                      : vectorSize;
  if (!ShapedType::isDynamic(inner) && inner <= whole) {
    plan.tileSizes.push_back(0);
    plan.vectorSizes.push_back(getWholeLoopLanes(op, inner));
  } else {
    plan.tileSizes.push_back(vectorSize);
    plan.vectorSizes.push_back(vectorSize);
  }
  return plan;
}

/// Whether the iterations of the outermost loop that tiling `op` by `plan`
/// makes are independent: its dim is parallel and indexes every output, so
/// each iteration writes its own slice of them.
bool isIndependentLoop(linalg::LinalgOp op, const TilePlan &plan) {
  const int64_t *first = llvm::find_if(
      plan.tileSizes, [](int64_t size) { return size != 0; });
  if (first == plan.tileSizes.end())
    return false;
  unsigned dim = first - plan.tileSizes.begin();
  if (!linalg::isParallelIterator(op.getIteratorTypesArray()[dim]))
    return false;
  AffineExpr loop = getAffineDimExpr(dim, op.getContext());
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return llvm::is_contained(op.getMatchingIndexingMap(&init).getResults(),
                              loop);
  });
}

/// Tiles `op` by `plan` with scf.for loops; returns the tiled op (`op`
/// itself when no loop is tiled).
FailureOr<Operation *> tile(RewriterBase &rewriter, linalg::LinalgOp op,
                            const TilePlan &plan) {
  if (llvm::all_of(plan.tileSizes, [](int64_t s) { return s == 0; }))
    return op.getOperation();
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  options.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), plan.tileSizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()),
                        options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  if (isIndependentLoop(op, plan))
    tiled->loops.front()->setAttr(dtensor::DTensorDialect::kParallelLoopAttrName,
                                  rewriter.getUnitAttr());
  rewriter.eraseOp(op);
  return tiled->tiledOps.front();
}

/// Tiles and vectorizes `op`; on failure of the vectorizer the (tiled) op
/// stays a linalg op, lowered to loops later.
LogicalResult tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op,
                               int64_t vectorSize, int64_t maxReduction) {
  TilePlan plan = planTiles(op, vectorSize, maxReduction);
  FailureOr<Operation *> tiled = tile(rewriter, op, plan);
  // Fixed-length vectors only (the vectorizer expects one flag per size).
  SmallVector<bool> scalable(plan.vectorSizes.size(), false);
  if (failed(tiled) || failed(linalg::vectorizeOpPrecondition(
                           *tiled, plan.vectorSizes, scalable)))
    return failure();
  rewriter.setInsertionPoint(*tiled);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, *tiled, plan.vectorSizes, scalable);
  if (failed(vectorized))
    return failure();
  if (vectorized->replacements.empty())
    rewriter.eraseOp(*tiled);
  else
    rewriter.replaceOp(*tiled, vectorized->replacements);
  return success();
}

/// The identity of a min/max combining kind on `element` (-inf for a float
/// max, the largest integer for a signed min, ...); null for other kinds.
TypedAttr getMinMaxIdentity(vector::CombiningKind kind, Type element) {
  using Kind = vector::CombiningKind;
  if (auto f = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case Kind::MAXIMUMF:
    case Kind::MAXNUMF:
      return FloatAttr::get(f, APFloat::getInf(sem, /*Negative=*/true));
    case Kind::MINIMUMF:
    case Kind::MINNUMF:
      return FloatAttr::get(f, APFloat::getInf(sem, /*Negative=*/false));
    default:
      return {};
    }
  }
  auto i = dyn_cast<IntegerType>(element);
  if (!i)
    return {};
  unsigned width = i.getWidth();
  switch (kind) {
  case Kind::MAXSI:
    return IntegerAttr::get(i, APInt::getSignedMinValue(width));
  case Kind::MINSI:
    return IntegerAttr::get(i, APInt::getSignedMaxValue(width));
  case Kind::MAXUI:
    return IntegerAttr::get(i, APInt::getMinValue(width));
  case Kind::MINUI:
    return IntegerAttr::get(i, APInt::getMaxValue(width));
  default:
    return {};
  }
}

/// A masked min/max `vector.reduction` (a partial tile of a reduction over
/// a dynamic dim) as the unmasked reduction of the vector with its masked
/// lanes set to the kind's identity. With the masked form left to
/// upstream's lowering (MLIR 22), the masked lanes (read as poison) took
/// part: the max of a row of negative numbers on an uneven shard came out
/// as -1.4e-45 instead of the row's max.
struct MaskedMinMaxReductionAsSelect : OpRewritePattern<vector::MaskOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MaskOp mask,
                                PatternRewriter &rewriter) const override {
    auto reduction =
        dyn_cast_or_null<vector::ReductionOp>(mask.getMaskableOp());
    if (!reduction || mask.hasPassthru())
      return rewriter.notifyMatchFailure(mask, "not a masked reduction");
    VectorType type = reduction.getSourceVectorType();
    TypedAttr identity =
        getMinMaxIdentity(reduction.getKind(), type.getElementType());
    if (!identity || mask.getMask().getType() != type.clone(rewriter.getI1Type()))
      return rewriter.notifyMatchFailure(mask, "not a min/max reduction");
    Location loc = mask.getLoc();
    Value fill = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(type, identity));
    Value kept = arith::SelectOp::create(rewriter, loc, mask.getMask(),
                                         reduction.getVector(), fill);
    rewriter.replaceOpWithNewOp<vector::ReductionOp>(
        mask, reduction.getKind(), kept, reduction.getAcc(),
        reduction.getFastmath());
    return success();
  }
};

/// A float min/max `vector.reduction` as ceil(log2(lanes)) elementwise
/// combines of its two halves, then the combine with the accumulator. Of an
/// odd number of lanes, the halves share the middle lane: min and max are
/// idempotent.
/// Without `nnan`, LLVM lowers `llvm.vector.reduce.fmax` to a tree down to
/// one register, then to a chain of scalar max over that register's lanes:
/// on AVX-512, 16 dependent `vmaxss` with a NaN check each per softmax row.
/// The halves give log2 steps on whole registers. minnum/maxnum and
/// minimum/maximum are associative and commutative: the value is the same,
/// up to the sign of a zero among equal lanes.
struct MinMaxReductionAsTree : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    using Kind = vector::CombiningKind;
    Kind kind = op.getKind();
    if (kind != Kind::MAXNUMF && kind != Kind::MINNUMF &&
        kind != Kind::MAXIMUMF && kind != Kind::MINIMUMF)
      return rewriter.notifyMatchFailure(op, "not a float min/max");
    VectorType type = op.getSourceVectorType();
    int64_t lanes = type.getNumElements();
    if (type.getRank() != 1 || type.isScalable() || lanes < 2 ||
        isa<vector::MaskOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "not fixed unmasked lanes");
    Location loc = op.getLoc();
    arith::FastMathFlagsAttr fastmath = op.getFastmathAttr();
    Value tree = op.getVector();
    for (; lanes > 1; lanes = llvm::divideCeil(lanes, 2)) {
      int64_t half = llvm::divideCeil(lanes, 2);
      SmallVector<int64_t> low(half), high(half);
      std::iota(low.begin(), low.end(), 0);
      std::iota(high.begin(), high.end(), lanes - half);
      Value lowHalf =
          vector::ShuffleOp::create(rewriter, loc, tree, tree, low);
      Value highHalf =
          vector::ShuffleOp::create(rewriter, loc, tree, tree, high);
      tree = vector::makeArithReduction(rewriter, loc, kind, lowHalf,
                                        highHalf, fastmath);
    }
    Value result = vector::ExtractOp::create(rewriter, loc, tree, 0);
    if (Value acc = op.getAcc())
      result =
          vector::makeArithReduction(rewriter, loc, kind, result, acc, fastmath);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A transposed `vector.transfer_read` of a memref with unit dims it does not
/// read (a block of a permutation that moves the innermost dim, tiled by one
/// on the loops between) as the same read of the rank-reduced subview: its
/// map becomes a permutation of a minor identity, which upstream lowers to a
/// row-wise read and a `vector.transpose`. Left as it was, convert-vector-to-scf
/// unrolled it into strided element gathers whose masks did not match the
/// rows (lanes past a partial block's edge read as poison).
struct DropUnreadUnitDimsOfTransposedRead
    : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto source = dyn_cast<MemRefType>(read.getBase().getType());
    AffineMap map = read.getPermutationMap();
    if (!source || !map.isProjectedPermutation() ||
        map.isMinorIdentity() || map.getNumResults() == map.getNumDims())
      return rewriter.notifyMatchFailure(read, "not a transposed read");
    llvm::SmallBitVector unread(map.getNumDims(), true);
    for (AffineExpr result : map.getResults())
      unread.reset(cast<AffineDimExpr>(result).getPosition());
    for (unsigned dim : unread.set_bits())
      if (source.getDimSize(dim) != 1)
        return rewriter.notifyMatchFailure(read, "an unread dim is not unit");
    Location loc = read.getLoc();
    SmallVector<OpFoldResult> offsets, sizes, indices;
    SmallVector<OpFoldResult> strides(source.getRank(),
                                      rewriter.getIndexAttr(1));
    SmallVector<int64_t> reducedShape;
    for (auto [dim, index] : llvm::enumerate(read.getIndices())) {
      if (unread.test(dim)) {
        offsets.push_back(index);
        sizes.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      offsets.push_back(rewriter.getIndexAttr(0));
      sizes.push_back(memref::getMixedSize(rewriter, loc, read.getBase(), dim));
      indices.push_back(index);
      reducedShape.push_back(source.getDimSize(dim));
    }
    MemRefType reducedType = memref::SubViewOp::inferRankReducedResultType(
        reducedShape, source, offsets, sizes, strides);
    Value reduced = memref::SubViewOp::create(
        rewriter, loc, reducedType, read.getBase(), offsets, sizes, strides);
    rewriter.replaceOpWithNewOp<vector::TransferReadOp>(
        read, read.getVectorType(), reduced,
        getValueOrCreateConstantIndexOp(rewriter, loc, indices),
        AffineMapAttr::get(compressDims(map, unread)), read.getPadding(),
        read.getMask(), read.getInBoundsAttr());
    return success();
  }
};

/// First step of the lowering: reductions over unit dims (an outer reduction
/// loop tiled by one) become elementwise combines, the others
/// `vector.reduction`s; masks are folded into the transfers, and those of
/// min/max reductions into a select of the identity.
void populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MaskedMinMaxReductionAsSelect>(ctx);
  vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns, ctx);
  vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerReduction);
}

/// `x / broadcast(s)` as `x * broadcast(1 / s)`: one division per
/// broadcast scalar (a softmax's row sum, a norm's row statistic) instead of
/// one per element; vector divisions are several times slower than
/// multiplications. As PyTorch's softmax kernel, the result can differ from
/// the division in the last bit.
struct DivideByBroadcastAsMultiply : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getRhs().getDefiningOp<vector::BroadcastOp>();
    if (!broadcast || !isa<VectorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "divisor is not a broadcast");
    Value scalar = broadcast.getSource();
    auto scalarVector = dyn_cast<VectorType>(scalar.getType());
    if (scalarVector && scalarVector.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "broadcast of a vector");
    Type element = getElementTypeOrSelf(scalar.getType());
    TypedAttr one = rewriter.getFloatAttr(element, 1.0);
    if (scalarVector)
      one = DenseElementsAttr::get(scalarVector, one);
    Location loc = op.getLoc();
    Value oneValue = arith::ConstantOp::create(rewriter, loc, one);
    Value reciprocal = arith::DivFOp::create(rewriter, loc, oneValue, scalar,
                                             op.getFastmathAttr());
    Value spread = vector::BroadcastOp::create(rewriter, loc, op.getType(),
                                               reciprocal);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), spread,
                                               op.getFastmathAttr());
    return success();
  }
};

/// Second step: the n-D vector ops (all leading dims of size one) to 1-D
/// ops, f32 math functions to polynomials, divisions by a broadcast scalar
/// as multiplications. Broadcasts and shape casts are
/// left to convert-vector-to-llvm: their lowering patterns and the
/// leading-unit-dim patterns undo each other.
void populateVectorCleanupPatterns(RewritePatternSet &patterns) {
  patterns.add<MaskedMinMaxReductionAsSelect>(patterns.getContext(),
                                              /*benefit=*/2);
  vector::populateVectorMaskOpLoweringPatterns(patterns);
  vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
  vector::populateVectorTransferDropUnitDimsPatterns(patterns);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  patterns.add<DropUnreadUnitDimsOfTransposedRead>(patterns.getContext());
  // exp on f32 vectors in fewer instructions than upstream's polynomial
  // (the softmax is bound by it), the other functions upstream's.
  dtensor::populateExpApproximationPatterns(patterns);
  populateMathPolynomialApproximationPatterns(patterns);
  // A transposed 16x16 block by lane-interleaving shuffles, other block
  // shapes as one shuffle of their flattened rows.
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::Shuffle16x16);
  patterns.add<DivideByBroadcastAsMultiply, MinMaxReductionAsTree>(
      patterns.getContext());
  // Elementwise ops on broadcast scalars (a row statistic divided by the
  // row length, its rsqrt) computed once on the scalar.
  vector::populateSinkVectorOpsPatterns(patterns);
}

/// Whether `loop` runs its body at least once: constant bounds with the
/// lower below the upper.
bool hasIterations(LoopLikeOpInterface loop) {
  std::optional<SmallVector<OpFoldResult>> lower = loop.getLoopLowerBounds();
  std::optional<SmallVector<OpFoldResult>> upper = loop.getLoopUpperBounds();
  if (!lower || !upper || lower->size() != upper->size())
    return false;
  for (auto [lb, ub] : llvm::zip(*lower, *upper)) {
    std::optional<int64_t> l = getConstantIntValue(lb);
    std::optional<int64_t> u = getConstantIntValue(ub);
    if (!l || !u || *l >= *u)
      return false;
  }
  return true;
}

/// Whether `op` itself (not the ops in its regions) may write or free the
/// memory of `buffer`. Ops with neither effects declared nor recursive
/// effects may write anything.
bool mayWrite(Operation *op, Value buffer, LocalAliasAnalysis &aliases) {
  auto interface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!interface)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  interface.getEffects(effects);
  return llvm::any_of(effects, [&](const MemoryEffects::EffectInstance &e) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
      return false;
    Value written = e.getValue();
    return !written || !aliases.alias(written, buffer).isNo();
  });
}

/// Whether some op in `loop` may write or free the memory of `buffer`.
/// Linalg ops on buffers declare their effects and have a region too: both
/// are looked at.
bool isWrittenIn(LoopLikeOpInterface loop, Value buffer,
                 LocalAliasAnalysis &aliases) {
  WalkResult result = loop->walk([&](Operation *op) {
    if (op != loop.getOperation() && mayWrite(op, buffer, aliases))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Reads of buffers a loop does not write, at indices defined outside it,
/// and the pure ops on them, moved before the loop: a row statistic (a
/// softmax's max and sum, a norm's mean and variance) is read, divided and
/// square-rooted once per row instead of once per tile. LLVM cannot do it:
/// the aligned pointer of a `memref.alloc` comes through an inttoptr, which
/// loses the malloc's noalias. A read that may fall out of bounds (not
/// 0-d) moves only out of loops that surely run.
void hoistInvariantReads(Operation *root) {
  LocalAliasAnalysis aliases;
  // Post-order: inner loops first, so a read climbs as far as it may.
  root->walk([&](LoopLikeOpInterface loop) {
    bool runs = hasIterations(loop);
    auto shouldMove = [&](Operation *op, Region *) {
      if (isMemoryEffectFree(op) && op->getNumRegions() == 0)
        return true;
      auto read = dyn_cast<vector::TransferReadOp>(op);
      if (!read || read.getMask() ||
          (!runs && read.getShapedType().getRank() != 0))
        return false;
      return !isWrittenIn(loop, read.getBase(), aliases);
    };
    moveLoopInvariantCode(
        loop.getLoopRegions(),
        [&](Value value, Region *) {
          return loop.isDefinedOutsideOfLoop(value);
        },
        shouldMove, [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
  });
}

struct VectorizePass
    : public dtensor::impl::DTensorVectorizeBase<VectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    if (vectorSize < 1 || maxReductionSize < 1) {
      emitError(getOperation().getLoc())
          << "dtensor-vectorize: vector-size and max-reduction-size must be "
             "positive, got "
          << static_cast<int64_t>(vectorSize) << " and "
          << static_cast<int64_t>(maxReductionSize);
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      if (succeeded(
              tileAndVectorize(rewriter, op, vectorSize, maxReductionSize)))
        ++numVectorized;
      else
        ++numSkipped;
    }
    // Not converging leaves some vector ops for convert-vector-to-scf; the
    // bound keeps patterns that undo each other from looping.
    GreedyRewriteConfig config;
    config.setMaxNumRewrites(20000);
    RewritePatternSet reductions(&getContext());
    populateReductionLoweringPatterns(reductions);
    (void)applyPatternsGreedily(getOperation(), std::move(reductions), config);
    RewritePatternSet cleanup(&getContext());
    populateVectorCleanupPatterns(cleanup);
    (void)applyPatternsGreedily(getOperation(), std::move(cleanup), config);
    hoistInvariantReads(getOperation());
  }
};
} // namespace
