//===- SplitReductions.cpp - large reductions to a scalar in two stages ---===//
//
// On GPUs a reduction to a scalar is one block (dtensor-gpu-block-
// reductions), so one SM reads the whole input. Split in two (upstream's
// splitReduction: G partials of contiguous chunks, then their combination),
// the first stage is G blocks, one per partial, and the second one block
// over G values.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORSPLITREDUCTIONS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// The number of partials for a reduction of `size` elements: the largest
/// divisor of `size` up to `maxParts` leaving chunks of at least
/// `minChunk` elements; 0 when that is fewer than 8 partials.
int64_t numPartials(int64_t size, int64_t maxParts, int64_t minChunk) {
  for (int64_t g = std::min(maxParts, size / minChunk); g >= 8; --g)
    if (size % g == 0)
      return g;
  return 0;
}

/// `op` with its reduction loops collapsed into one (they are every loop),
/// or failure if an operand does not read them as one contiguous run.
FailureOr<linalg::LinalgOp> collapseAll(RewriterBase &b, linalg::LinalgOp op) {
  if (op.getNumLoops() == 1)
    return op;
  ReassociationIndices all;
  for (int64_t i = 0, e = op.getNumLoops(); i < e; ++i)
    all.push_back(i);
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {all}))
    return failure();
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, {all}, b);
  if (failed(collapsed))
    return failure();
  b.replaceOp(op, collapsed->results);
  return collapsed->collapsedOp;
}

struct SplitReductionsPass
    : public dtensor::impl::DTensorSplitReductionsBase<SplitReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && op.getNumParallelLoops() == 0 &&
          op.getNumLoops() > 0 && op.getNumDpsInits() == 1 &&
          !op.hasDynamicShape() &&
          llvm::product_of(op.getStaticLoopRanges()) >= minSize)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      // Decided before collapsing: an op that stays whole stays as it is.
      int64_t parts = numPartials(llvm::product_of(op.getStaticLoopRanges()),
                                  maxPartials, minChunk);
      if (parts == 0)
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgOp> flat = collapseAll(rewriter, op);
      if (failed(flat))
        continue;
      auto control = [&](linalg::LinalgOp) {
        return linalg::SplitReductionOptions{parts, 0, false};
      };
      rewriter.setInsertionPoint(*flat);
      if (succeeded(linalg::splitReduction(rewriter, *flat, control)))
        ++numSplit;
    }
  }
};
} // namespace
