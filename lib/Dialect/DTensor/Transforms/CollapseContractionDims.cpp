//===- CollapseContractionDims.cpp - one loop per GEMM dim ---------------===//
//
// Collapses the runs of m, n or k loops of a contraction on tensors that
// every operand reads consecutively into one loop, so that the BLAS and
// cuBLASLt lowerings (one m, n and k loop each) take contractions written
// on 3-D and 4-D activations.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORCOLLAPSECONTRACTIONDIMS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
/// The runs of `dims` (loops of one kind, increasing) that are consecutive
/// in the loop order and read consecutively by every map that reads them:
/// the longest such prefixes, greedily, of two loops or more.
SmallVector<ReassociationIndices> collapsibleRuns(ArrayRef<unsigned> dims,
                                                  ArrayRef<AffineMap> maps) {
  SmallVector<ReassociationIndices> runs;
  size_t i = 0;
  while (i < dims.size()) {
    ReassociationIndices run{static_cast<int64_t>(dims[i])};
    size_t j = i + 1;
    for (; j < dims.size() && dims[j] == dims[j - 1] + 1; ++j) {
      ReassociationIndices longer = run;
      longer.push_back(dims[j]);
      if (!linalg::areDimSequencesPreserved(maps, longer))
        break;
      run = std::move(longer);
    }
    if (run.size() > 1)
      runs.push_back(std::move(run));
    i = std::max(j, i + 1);
  }
  return runs;
}

/// The runs to collapse in `op` (none if it is no contraction on tensors).
SmallVector<ReassociationIndices> planCollapse(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() ||
      !isa<linalg::GenericOp>(op.getOperation()) ||
      !linalg::isaContractionOpInterface(op))
    return {};
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<ReassociationIndices> runs;
  for (ArrayRef<unsigned> kind : {ArrayRef<unsigned>(dims->m),
                                  ArrayRef<unsigned>(dims->n),
                                  ArrayRef<unsigned>(dims->k)})
    llvm::append_range(runs, collapsibleRuns(kind, maps));
  llvm::sort(runs, [](const ReassociationIndices &a,
                      const ReassociationIndices &b) {
    return a.front() < b.front();
  });
  return runs;
}

struct CollapseContractionDimsPass
    : public dtensor::impl::DTensorCollapseContractionDimsBase<
          CollapseContractionDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<ReassociationIndices> runs = planCollapse(op);
      if (runs.empty())
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, runs, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
      ++numCollapsed;
    }
  }
};
} // namespace
