//===- BubbleUpSlices.cpp - compute a sliced result only on its slice -----===//
//
// Partitioning turns a replicated value read as a shard into a
// tensor.extract_slice of it: a bias broadcast to the global batch, then
// sliced to the rank's rows. Each rank then computes, and holds, the whole
// value to keep a part. Moving the slice above the op that makes the value
// (upstream's bubble-up patterns: all-parallel linalg ops, fills) computes
// only the rank's part, and leaves the bias add next to the GEMM where the
// lowerings fuse it.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORBUBBLEUPSLICES
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
struct BubbleUpSlicesPass
    : public dtensor::impl::DTensorBubbleUpSlicesBase<BubbleUpSlicesPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateBubbleUpExtractSliceOpPatterns(patterns);
    linalg::populateSwapExtractSliceWithFillPatterns(patterns);
    // A slice of a tensor.empty is a smaller tensor.empty.
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
