//===- FuseElementwise.cpp - fuse elementwise linalg chains ---------------===//
//
// Generalizes elementwise named ops and fuses elementwise producers into
// their consumers with upstream's elementwise fusion patterns; the control
// function keeps contractions out of every fusion so that the BLAS lowering
// still sees them as named ops or GEMM-shaped generics.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORFUSEELEMENTWISE
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
/// True for the linalg ops that fusion must leave alone: contractions (BLAS
/// lowers them), convolutions.
bool isContractionLike(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && (linalg::isaContractionOpInterface(linalgOp) ||
                      linalg::isaConvolutionOpInterface(linalgOp));
}

/// True for the named ops worth generalizing so that they can fuse:
/// elementwise ones, except transposes (the BLAS lowering folds those into
/// GEMM flags) and fills/copies (kept for fill folding and memcpy).
bool shouldGeneralize(linalg::LinalgOp op) {
  if (isa<linalg::GenericOp, linalg::TransposeOp, linalg::FillOp,
          linalg::CopyOp>(op) ||
      !op.hasPureTensorSemantics())
    return false;
  return linalg::isElementwise(op) && !isContractionLike(op);
}

/// Whether fusing `producer` into its consumer through `operand` is wanted:
/// neither side is a contraction, and the producer either has this one use
/// or is small and only used by non-contraction linalg ops (so that it dies
/// once fused everywhere, and recomputing it is cheap).
bool shouldFuse(OpOperand *operand, unsigned maxRecomputeOps,
                bool recomputeMath) {
  Operation *producer = operand->get().getDefiningOp();
  Operation *consumer = operand->getOwner();
  if (!producer || isContractionLike(producer) || isContractionLike(consumer))
    return false;
  // A producer that reads its own outputs (an accumulation into an init
  // value) or has no loops (a 0-d op) would, fused into a loop nest and
  // kept for its other users, update its output once per iteration.
  auto producerOp = dyn_cast<linalg::LinalgOp>(producer);
  if (!producerOp || producerOp.getNumLoops() == 0 ||
      llvm::any_of(producerOp.getDpsInitsMutable(), [&](OpOperand &init) {
        return producerOp.payloadUsesValueFromOperand(&init);
      }))
    return false;
  if (producer->hasOneUse())
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic ||
      generic.getBody()->getOperations().size() > maxRecomputeOps + 1)
    return false;
  // A math function (exp, rsqrt, ...) costs tens of instructions per
  // element: on a CPU computed once and stored (a softmax's exp(x - max),
  // read by the sum and by the divide, stays a row in cache once rows are
  // fused); a GPU recomputes it rather than store and reload it.
  if (!recomputeMath &&
      llvm::any_of(generic.getBody()->getOperations(), [](Operation &op) {
        return isa_and_nonnull<math::MathDialect>(op.getDialect());
      }))
    return false;
  return llvm::all_of(producer->getUsers(), [](Operation *user) {
    return isa<linalg::GenericOp>(user) && !isContractionLike(user);
  });
}

struct FuseElementwisePass
    : public dtensor::impl::DTensorFuseElementwiseBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> named;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (shouldGeneralize(op))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      if (succeeded(linalg::generalizeNamedOp(rewriter, op)))
        ++numGeneralized;
    }
    RewritePatternSet patterns(&getContext());
    unsigned maxOps = maxRecomputeOps;
    bool math = recomputeMath;
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [maxOps, math](OpOperand *operand) {
          return shouldFuse(operand, maxOps, math);
        });
    // `tensor.dim` of a fused producer's result would keep it alive: take
    // the dim from the producer's operands instead.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    // Not converging only leaves some chains unfused.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};
} // namespace
