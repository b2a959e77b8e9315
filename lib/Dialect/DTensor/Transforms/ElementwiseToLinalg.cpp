//===- ElementwiseToLinalg.cpp - elementwise ops to linalg, no folding ----===//
//
// Upstream's convert-elementwise-to-linalg patterns, applied by a walk that
// never folds: folders such as `arith.xori %x, %x -> dense<0>` build a
// constant of the result type, which is invalid for a dynamically shaped
// local tensor (uneven shards).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORELEMENTWISETOLINALG
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
/// Counts the ops the patterns replace.
struct ReplacementCounter : public RewriterBase::Listener {
  void notifyOperationReplaced(Operation *, ValueRange) override { ++count; }
  int64_t count = 0;
};

struct ElementwiseToLinalgPass
    : public dtensor::impl::DTensorElementwiseToLinalgBase<
          ElementwiseToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    ReplacementCounter counter;
    walkAndApplyPatterns(getOperation(), std::move(patterns), &counter);
    numConverted += counter.count;
  }
};
} // namespace
