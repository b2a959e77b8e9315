//===- SerialKernels.cpp - ops without parallel loops as one-thread kernels ===//
//
// The loop path maps the scf.parallel loops of each linalg op to the GPU.
// An op with no parallel loop (a 0-d elementwise op, such as a loss divided
// by its count, or a reduction to a scalar the block reductions do not
// take) lowers to sequential loops, or to no loop at all: nothing would
// map it, and its loads and stores would run on the host, on device
// buffers. Each such op becomes the body of a gpu.launch of one thread.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORGPUSERIALKERNELS
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {
struct SerialKernelsPass
    : public dtensor::impl::DTensorGPUSerialKernelsBase<SerialKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> serial;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumParallelLoops() == 0 &&
          !op->getParentOfType<gpu::LaunchOp>())
        serial.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : serial) {
      Location loc = op.getLoc();
      rewriter.setInsertionPoint(op);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto launch =
          gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
      rewriter.setInsertionPointToEnd(&launch.getBody().front());
      Operation *terminator = gpu::TerminatorOp::create(rewriter, loc);
      rewriter.moveOpBefore(op, terminator);
      ++numSerial;
    }
  }
};
} // namespace
