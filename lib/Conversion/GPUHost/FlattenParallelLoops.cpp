//===- FlattenParallelLoops.cpp - one-dimensional parallel loop nests -----===//

#include "dtensor/Conversion/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"

#include <numeric>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORGPUFLATTENPARALLELLOOPS
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
struct FlattenParallelLoopsPass
    : public dtensor::impl::DTensorGPUFlattenParallelLoopsBase<
          FlattenParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && op.getNumLoops() > 1)
        outermost.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp op : outermost) {
      // One group with every dim, in order: the last varies fastest.
      std::vector<unsigned> all(op.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(op);
      collapseParallelLoops(rewriter, op, {all});
    }
  }
};
} // namespace
