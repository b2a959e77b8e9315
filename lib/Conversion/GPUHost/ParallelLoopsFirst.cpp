//===- ParallelLoopsFirst.cpp - parallel loops outside reduction loops ----===//
//
// convert-linalg-to-parallel-loops keeps the loop order of the op: a
// reduction loop before a parallel one (a bias gradient, the sum over the
// rows of a batch) becomes an scf.for around an scf.parallel, which the GPU
// mapping turns into one kernel launch per iteration of the host loop.
// With the parallel loops first, the op is one kernel whose threads each
// run the reduction loop, consecutive threads on consecutive columns.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORGPUPARALLELLOOPSFIRST
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// The loops of `op`, parallel ones first, each kind in its order; empty if
/// they already are in that order.
SmallVector<unsigned> parallelFirst(linalg::LinalgOp op) {
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (bool parallel : {true, false})
    for (auto [i, it] : llvm::enumerate(iterators))
      if ((it == utils::IteratorType::parallel) == parallel)
        order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return {};
  return order;
}

struct ParallelLoopsFirstPass
    : public dtensor::impl::DTensorGPUParallelLoopsFirstBase<
          ParallelLoopsFirstPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics() || op.getNumParallelLoops() == 0 ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      if (SmallVector<unsigned> order = parallelFirst(op); !order.empty())
        ops.emplace_back(op, std::move(order));
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : ops) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      if (succeeded(linalg::interchangeGenericOp(rewriter, generic, order)))
        ++numInterchanged;
    }
  }
};
} // namespace
