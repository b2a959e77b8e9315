//===- FakePropagate.cpp - annotate placements, insert redistributions ----===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Analysis/MemoryLiveness.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/Transforms/MaterializePlan.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORFAKEPROPAGATE
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {
struct FakePropagatePass
    : public dtensor::impl::DTensorFakePropagateBase<FakePropagatePass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<int64_t> budget =
        parseMaxBytesPerRank(getOperation(), maxBytesPerRank);
    if (failed(budget))
      return signalPassFailure();
    const FakeTensorAnalysis &analysis =
        getAnalysis<FakeTensorAnalysisCache>().get(
            makeFakeTensorOptions(unknownOps, strategy, *budget));
    if (!analysis.succeeded())
      return signalPassFailure();
    for (FunctionOpInterface func : analysis.getFunctions()) {
      MaterializeStats stats = materializePlan(func, *analysis.getPlan(func));
      numRedistributions += stats.redistributions;
      numRecreated += stats.recreated;
      numAnnotated += stats.annotated;
    }
  }
};
} // namespace
