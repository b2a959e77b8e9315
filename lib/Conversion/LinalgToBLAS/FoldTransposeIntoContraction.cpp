//===- FoldTransposeIntoContraction.cpp - transposes into GEMM maps -------===//
//
// On tensors, before bufferization: a contraction that reads a
// `linalg.transpose` -- directly, or through a `tensor.collapse_shape`, the
// way torch-mlir writes attention (transpose + collapse of the heads into
// the batch + `linalg.batch_matmul`) -- reads the transpose's input
// instead: the named op becomes a `linalg.generic`, the collapsed dims are
// expanded into its iteration space (upstream's reshape fusion by
// expansion) and the permutation is composed into its indexing map. A
// transpose of a contraction's result whose init is a fill is folded into
// the output map the same way. After bufferization such an operand is a
// strided view of the original buffer, which `dtensor-linalg-to-blas`
// passes with a transpose flag and a leading dimension: no copy is made.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::dtensor {
#define GEN_PASS_DEF_DTENSORFOLDTRANSPOSEINTOCONTRACTION
#include "dtensor/Conversion/Passes.h.inc"
} // namespace mlir::dtensor

using namespace mlir;

namespace {

/// True if `op` is a linalg contraction on tensors.
bool isTensorContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         linalg::isaContractionOpInterface(linalgOp);
}

/// The transpose `v` is read from, directly or through a collapse_shape.
linalg::TransposeOp getTransposeSource(Value v) {
  if (auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>())
    v = collapse.getSrc();
  return v.getDefiningOp<linalg::TransposeOp>();
}

/// True when expanding `collapse` into the loops of the contraction reading
/// it through `operand` would split a reduction loop: several k loops are
/// no GEMM (torch-mlir's output projection reads the heads, transposed and
/// collapsed into the model dim, along k). The transpose stays a copy.
bool expandsReduction(OpOperand *operand, tensor::CollapseShapeOp collapse) {
  auto op = cast<linalg::LinalgOp>(operand->getOwner());
  AffineMap map = op.getMatchingIndexingMap(operand);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [i, group] :
       llvm::enumerate(collapse.getReassociationIndices())) {
    if (group.size() < 2)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!dim || linalg::isReductionIterator(iterators[dim.getPosition()]))
      return true;
  }
  return false;
}

/// A named contraction reading a transpose becomes a linalg.generic, the
/// form the patterns below rewrite.
struct GeneralizeContraction
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp>(op) || !isTensorContraction(op))
      return rewriter.notifyMatchFailure(op, "not a named contraction");
    if (llvm::none_of(op.getDpsInputs(),
                      [](Value v) { return getTransposeSource(v); }))
      return rewriter.notifyMatchFailure(op, "no transposed operand");
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// The map through which a transpose's input is read when the transpose's
/// result is read through `map`: result dim i is input dim perm[i].
AffineMap composePermutation(AffineMap map, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> results(map.getNumResults());
  for (auto [i, p] : llvm::enumerate(perm))
    results[p] = map.getResult(i);
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

/// A contraction reading a transpose reads the transpose's input.
struct FoldOperandTranspose : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isTensorContraction(op))
      return rewriter.notifyMatchFailure(op, "not a contraction");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> inputs = op.getDpsInputs();
    bool changed = false;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto transpose = input.getDefiningOp<linalg::TransposeOp>();
      if (!transpose)
        continue;
      maps[i] = composePermutation(maps[i], transpose.getPermutation());
      input = transpose.getInput();
      changed = true;
    }
    if (!changed)
      return rewriter.notifyMatchFailure(op, "no transposed operand");
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputsMutable().assign(inputs);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// transpose(contraction(init = fill(v, x))) -> a contraction writing the
/// transposed layout directly, into fill(v, transpose's init).
struct FoldResultTranspose : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    auto op = transpose.getInput().getDefiningOp<linalg::GenericOp>();
    if (!op || !isTensorContraction(op) || !op->hasOneUse())
      return rewriter.notifyMatchFailure(transpose, "not of a contraction");
    auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    if (!fill || !fill.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(transpose, "init is not a fill");
    // The output map, permuted: result dim i is the old result dim perm[i].
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    AffineMap out = maps.back();
    SmallVector<AffineExpr> results;
    for (int64_t p : transpose.getPermutation())
      results.push_back(out.getResult(p));
    maps.back() =
        AffineMap::get(out.getNumDims(), 0, results, rewriter.getContext());
    Value init =
        linalg::FillOp::create(rewriter, fill.getLoc(), fill.getDpsInputs()[0],
                               transpose.getInit())
            .getResult(0);
    auto fused = linalg::GenericOp::create(
        rewriter, op.getLoc(), init.getType(), op.getDpsInputs(), init, maps,
        op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), fused.getRegion(),
                                fused.getRegion().begin());
    rewriter.replaceOp(transpose, fused.getResults());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FoldTransposeIntoContractionPass
    : public dtensor::impl::DTensorFoldTransposeIntoContractionBase<
          FoldTransposeIntoContractionPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns
        .add<GeneralizeContraction, FoldOperandTranspose, FoldResultTranspose>(
            ctx);
    // Expand a contraction's loops over a collapse_shape of a transpose
    // only: expanding a plain collapse (the Block's [B*T, D] tokens) would
    // split one large GEMM into a loop of small ones.
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [](OpOperand *operand) {
          auto collapse =
              operand->get().getDefiningOp<tensor::CollapseShapeOp>();
          return isTensorContraction(operand->getOwner()) && collapse &&
                 collapse.getSrc().getDefiningOp<linalg::TransposeOp>() &&
                 !expandsReduction(operand, collapse);
        });
    linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
