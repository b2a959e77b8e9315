//===- FuseElementwise.cpp - fuse elementwise linalg chains ---------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORFUSEELEMENTWISE
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// True if `op` is a linalg op whose loops are all parallel.
bool isAllParallel(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumLoops() == linalgOp.getNumParallelLoops();
}

/// True if the body of linalg op `op` reads one of its inits. Fused into a
/// consumer with more loops, such a producer would accumulate into its init
/// once per consumer iteration.
bool readsInits(Operation *op) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return llvm::any_of(linalgOp.getDpsInitsMutable(), [&](OpOperand &init) {
    return linalgOp.payloadUsesValueFromOperand(&init);
  });
}

struct FuseElementwisePass
    : public dtensor::impl::DTensorFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    // Named elementwise ops take part once they are generics.
    SmallVector<linalg::LinalgOp> named;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op) && op.hasPureTensorSemantics() &&
          isAllParallel(op) && !isa<linalg::FillOp>(op) &&
          linalg::isElementwise(op))
        named.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return isAllParallel(producer) && isAllParallel(fused->getOwner()) &&
             fused->get().hasOneUse() && !readsInits(producer);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
