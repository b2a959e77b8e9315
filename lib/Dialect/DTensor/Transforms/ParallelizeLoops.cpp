//===- ParallelizeLoops.cpp - loops marked parallel to threaded chunks ----===//
//
// Rewrites every outermost `scf.for` marked `dtensor.parallel_loop` into an
// `scf.parallel` over `threads` chunks of its iterations, each chunk an
// `scf.for` over a contiguous range (so allocations hoisted out of the inner
// loop stay per thread). convert-scf-to-openmp later runs the chunks on
// OpenMP threads.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORPARALLELIZELOOPS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {
/// Whether `loop` is marked and neither a marked loop nor a parallel one (a
/// chunk of an earlier run: the vectorized ops of a fused row loop) encloses
/// it: threads run one level of loops.
bool isOutermostMarked(scf::ForOp loop) {
  if (!loop->hasAttr(DTensorDialect::kParallelLoopAttrName))
    return false;
  for (Operation *parent = loop->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<scf::ParallelOp>(parent) ||
        parent->hasAttr(DTensorDialect::kParallelLoopAttrName))
      return false;
  return true;
}

/// Replaces `loop` (index-typed, without loop-carried values) by an
/// scf.parallel over `threads` chunks of its iterations.
void splitIntoChunks(OpBuilder &b, scf::ForOp loop, int64_t threads) {
  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value step = loop.getStep();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value numChunks = arith::ConstantIndexOp::create(b, loc, threads);
  // Iterations n = ceildiv(ub - lb, step) (0 when ub <= lb), chunk span
  // ceildiv(n, T) * step.
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                         span, zero);
  span = arith::SelectOp::create(b, loc, positive, span, zero);
  Value trips = arith::CeilDivUIOp::create(b, loc, span, step);
  Value perChunk = arith::CeilDivUIOp::create(b, loc, trips, numChunks);
  Value chunkSpan = arith::MulIOp::create(b, loc, perChunk, step);
  auto parallel = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                          ValueRange{numChunks},
                                          ValueRange{one});
  b.setInsertionPointToStart(parallel.getBody());
  Value chunk = parallel.getInductionVars().front();
  Value begin = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, chunk, chunkSpan));
  Value end = arith::MinSIOp::create(
      b, loc, ub, arith::AddIOp::create(b, loc, begin, chunkSpan));
  // The loop itself becomes the chunk's loop over [begin, end).
  loop->moveBefore(parallel.getBody()->getTerminator());
  loop.getLowerBoundMutable().assign(begin);
  loop.getUpperBoundMutable().assign(end);
}

struct ParallelizeLoopsPass
    : public dtensor::impl::DTensorParallelizeLoopsBase<ParallelizeLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threads < 1) {
      getOperation().emitError()
          << "dtensor-parallelize-loops: threads must be at least 1, got "
          << static_cast<int64_t>(threads);
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (isOutermostMarked(loop) && loop.getNumRegionIterArgs() == 0 &&
          loop.getLowerBound().getType().isIndex())
        loops.push_back(loop);
    });
    OpBuilder b(&getContext());
    if (threads > 1) {
      for (scf::ForOp loop : loops) {
        splitIntoChunks(b, loop, threads);
        ++numParallelized;
      }
    }
    getOperation().walk([](Operation *op) {
      op->removeAttr(DTensorDialect::kParallelLoopAttrName);
    });
  }
};
} // namespace
