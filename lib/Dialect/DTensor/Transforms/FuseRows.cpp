//===- FuseRows.cpp - fuse row reductions with their row consumers --------===//
//
// Tiles the last op of a chain of row-wise linalg ops on tensors (a
// reduction over the innermost dim and the elementwise ops that read its
// result broadcast along that dim: softmax, layer norm) to one row per
// iteration and fuses the whole chain into that loop, so that each row is
// read from memory once and the later sweeps over it hit the cache.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORFUSEROWS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
/// True when `map` starts with the loops d0, ..., d(outer-1) in order: the
/// operand (or result) is indexed by the row first.
bool startsWithRow(AffineMap map, unsigned outer) {
  if (map.getNumResults() < outer)
    return false;
  for (unsigned i = 0; i < outer; ++i) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!dim || dim.getPosition() != i)
      return false;
  }
  return true;
}

/// A row op with `outer` row dims: a linalg op on tensors, not a
/// contraction or convolution, whose loops are the `outer` parallel row
/// loops plus at most one innermost loop, with projected-permutation maps
/// (constant 0 results allowed on inputs) and outputs indexed by the row
/// loops first.
bool isRowOp(linalg::LinalgOp op, unsigned outer) {
  if (!op.hasPureTensorSemantics() || linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op) ||
      !isa<TilingInterface>(op.getOperation()))
    return false;
  unsigned loops = op.getNumLoops();
  if (outer == 0 || loops < outer || loops > outer + 1)
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < outer; ++i)
    if (!linalg::isParallelIterator(iterators[i]))
      return false;
  // Constant 0 results: torch-mlir's keepdim reductions ([B, H, S, 1]).
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return false;
  // Outputs through constant indices cannot be tiled (TilingInterface).
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    return map.isProjectedPermutation() && startsWithRow(map, outer);
  });
}

/// True when `op` reduces along its innermost loop.
bool isRowReduction(linalg::LinalgOp op) {
  return op.getNumReductionLoops() > 0;
}

/// The ops fused with `root`: the producers reachable through row-indexed
/// operands that are row ops with the root's row dims and whose results
/// are only read, row-indexed, by ops of the set (fused, they die).
llvm::SetVector<Operation *> collectRowChain(linalg::LinalgOp root,
                                             unsigned outer) {
  llvm::SetVector<Operation *> chain;
  chain.insert(root);
  auto readsByRow = [&](OpOperand &use) {
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return user && chain.contains(user) &&
           startsWithRow(user.getMatchingIndexingMap(&use), outer);
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned i = 0; i < chain.size(); ++i) {
      for (Value operand : chain[i]->getOperands()) {
        auto producer = operand.getDefiningOp<linalg::LinalgOp>();
        if (!producer || chain.contains(producer) ||
            producer->getBlock() != root->getBlock() ||
            !isRowOp(producer, outer))
          continue;
        if (!llvm::all_of(producer->getResults(), [&](Value result) {
              return llvm::all_of(result.getUses(), readsByRow);
            }))
          continue;
        chain.insert(producer);
        changed = true;
      }
    }
  }
  return chain;
}

/// Tiles `root` to one row per iteration and fuses `chain` into the loops;
/// erases the root and the fused producers. Returns the outermost loop
/// (null when there is none).
FailureOr<Operation *> fuseChain(RewriterBase &rewriter, linalg::LinalgOp root,
                                 unsigned outer,
                                 const llvm::SetVector<Operation *> &chain) {
  SmallVector<int64_t> sizes(root.getNumLoops(), 0);
  for (unsigned i = 0; i < outer; ++i)
    sizes[i] = 1;
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  options.tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!chain.contains(producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(fused))
    return failure();
  for (OpResult result : root->getResults())
    rewriter.replaceAllUsesWith(result, fused->replacements.lookup(result));
  rewriter.eraseOp(root);
  // The fused producers are dead now (or once the loop bounds no longer
  // read their results); erase users before producers.
  for (Operation *op : llvm::reverse(chain.getArrayRef().drop_front()))
    if (op->use_empty())
      rewriter.eraseOp(op);
  // Every row is independent: the row loops may run on several threads.
  for (LoopLikeOpInterface loop : fused->loops)
    loop->setAttr(dtensor::DTensorDialect::kParallelLoopAttrName,
                  rewriter.getUnitAttr());
  // No loop when every row dim has one element.
  if (fused->loops.empty())
    return static_cast<Operation *>(nullptr);
  return fused->loops.front().getOperation();
}

/// Drops the unit dims of the linalg ops that are not contractions or
/// convolutions (those keep their form for BLAS): torch-mlir's keepdim
/// statistics ([B, H, S, 1], written through a constant index) become row
/// reductions that this pass and the vectorizer take.
void dropUnitDims(func::FuncOp func) {
  linalg::ControlDropUnitDims control;
  linalg::ControlDropUnitDims::ControlFnTy all = control.controlFn;
  control.controlFn = [all](Operation *op) -> SmallVector<unsigned> {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (linalgOp && (linalg::isaContractionOpInterface(linalgOp) ||
                     linalg::isaConvolutionOpInterface(linalgOp)))
      return {};
    return all(op);
  };
  RewritePatternSet patterns(func.getContext());
  linalg::populateFoldUnitExtentDimsPatterns(patterns, control);
  (void)applyPatternsGreedily(func, std::move(patterns));
}

struct FuseRowsPass
    : public dtensor::impl::DTensorFuseRowsBase<FuseRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    dropUnitDims(func);
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> claimed;
    SmallVector<Operation *> loops;
    // Last ops first: a chain's root is the op whose result leaves it.
    for (linalg::LinalgOp root : llvm::reverse(ops)) {
      if (claimed.contains(root))
        continue;
      unsigned outer = root.getNumLoops() == 0 ? 0 : root.getNumLoops() - 1;
      if (!isRowOp(root, outer))
        continue;
      llvm::SetVector<Operation *> chain = collectRowChain(root, outer);
      if (chain.size() < 2 || llvm::none_of(chain, [](Operation *op) {
            return isRowReduction(cast<linalg::LinalgOp>(op));
          }))
        continue;
      claimed.insert(chain.begin(), chain.end());
      FailureOr<Operation *> loop = fuseChain(rewriter, root, outer, chain);
      if (succeeded(loop)) {
        if (*loop)
          loops.push_back(*loop);
        ++numFused;
      }
    }
    if (loops.empty())
      return;
    // Row-sized intermediates instead of slices of whole-tensor ones; loop
    // bounds (`tensor.dim` of a fused result, dynamic rows) taken from the
    // operands so that the unfused producers die; one copy of a producer
    // fused through several slices (CSE inside the row loops only: shared
    // fills outside would become copies after bufferization).
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    (void)applyPatternsGreedily(func, std::move(patterns));
    DominanceInfo dominance(func);
    for (Operation *loop : loops)
      eliminateCommonSubExpressions(rewriter, dominance, loop);
  }
};
} // namespace
