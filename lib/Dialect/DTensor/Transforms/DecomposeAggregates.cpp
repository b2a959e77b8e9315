//===- DecomposeAggregates.cpp - decompose linalg aggregate ops -----------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORDECOMPOSEAGGREGATES
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
struct DecomposeAggregatesPass
    : public dtensor::impl::DTensorDecomposeAggregatesBase<
          DecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> ops;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> repl = op.decomposeOperation(rewriter);
      if (failed(repl)) {
        op->emitError() << "cannot decompose '" << op->getName() << "'";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *repl);
    }
  }
};
} // namespace
