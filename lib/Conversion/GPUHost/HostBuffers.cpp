//===- HostBuffers.cpp - host allocations and copies to the GPU -----------===//
//
// After bufferization every buffer of a host function is a host buffer; the
// kernels and library calls of dtensor-gpu-pipeline need device buffers.
// Upstream has no pass for it (finalize-memref-to-llvm's generic allocation
// functions would leave memref.copy a host memcpy).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORGPUHOSTBUFFERS
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// True if `op` runs on the host (not in a kernel).
bool isHostOp(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

/// True if `v` is a host stack buffer (an out-parameter of a runtime call,
/// such as a request handle), which stays on the host.
bool isHostStackBuffer(Value v) {
  return v.getDefiningOp<memref::AllocaOp>() != nullptr;
}

/// True if `t` is an element type of host bookkeeping: the pointer and
/// ownership arrays (`index`, `i1`) that the deallocation lowering fills and
/// reads on the host.
bool isBookkeepingType(Type t) { return t.isIndex() || t.isInteger(1); }

/// True if the buffer `v` is host bookkeeping: of a bookkeeping element type
/// and only read, written, cast, freed or passed to calls on the host.
bool isHostBookkeeping(Value v) {
  if (!isBookkeepingType(getElementTypeOrSelf(v.getType())))
    return false;
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    if (auto cast = dyn_cast<memref::CastOp>(user))
      return isHostBookkeeping(cast.getResult());
    return isa<memref::LoadOp, memref::StoreOp, memref::DimOp,
               memref::DeallocOp, func::CallOp>(user);
  });
}

void moveAlloc(IRRewriter &rewriter, memref::AllocOp op) {
  rewriter.setInsertionPoint(op);
  rewriter.replaceOp(
      op, gpu::AllocOp::create(rewriter, op.getLoc(), op.getType(),
                               /*asyncToken=*/Type(), ValueRange{},
                               op.getDynamicSizes(), op.getSymbolOperands())
              .getMemref());
}

void moveCopy(IRRewriter &rewriter, memref::CopyOp op) {
  rewriter.setInsertionPoint(op);
  auto source = cast<MemRefType>(op.getSource().getType());
  auto target = cast<MemRefType>(op.getTarget().getType());
  if (source.getLayout().isIdentity() && target.getLayout().isIdentity()) {
    gpu::MemcpyOp::create(rewriter, op.getLoc(), /*asyncToken=*/Type(),
                          ValueRange{}, op.getTarget(), op.getSource());
  } else {
    // Strided views: a copy kernel.
    linalg::CopyOp::create(rewriter, op.getLoc(), op.getSource(),
                           op.getTarget());
  }
  rewriter.eraseOp(op);
}

/// A bufferized constant: a device copy of the global, freed before the
/// function returns unless it is returned.
void moveGlobal(IRRewriter &rewriter, memref::GetGlobalOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPointAfter(op);
  Value device = gpu::AllocOp::create(rewriter, loc, op.getType(), Type(),
                                      ValueRange{}, ValueRange{}, ValueRange{})
                     .getMemref();
  rewriter.replaceAllUsesWith(op.getResult(), device);
  gpu::MemcpyOp::create(rewriter, loc, Type(), ValueRange{}, device,
                        op.getResult());
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func || op->getBlock() != &func.getFunctionBody().front())
    return;
  func.walk([&](func::ReturnOp ret) {
    if (llvm::is_contained(ret.getOperands(), device))
      return;
    rewriter.setInsertionPoint(ret);
    gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange{}, device);
  });
}

struct HostBuffersPass
    : public dtensor::impl::DTensorGPUHostBuffersBase<HostBuffersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    WalkResult checked = getOperation().walk([&](Operation *op) {
      if (!isHostOp(op))
        return WalkResult::advance();
      if (isa<memref::CopyOp, memref::GetGlobalOp>(op))
        ops.push_back(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        if (!isHostBookkeeping(alloc.getResult()))
          ops.push_back(op);
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        if (!isHostBookkeeping(dealloc.getMemref()))
          ops.push_back(op);
      if (auto alloca = dyn_cast<memref::AllocaOp>(op))
        if (alloca.getType().getNumElements() != 1)
          return fail(op, "is a host stack buffer of more than one element");
      Value accessed;
      if (auto load = dyn_cast<memref::LoadOp>(op))
        accessed = load.getMemRef();
      if (auto store = dyn_cast<memref::StoreOp>(op))
        accessed = store.getMemRef();
      if (accessed && !isHostStackBuffer(accessed) &&
          !isBookkeepingType(getElementTypeOrSelf(accessed.getType())))
        return fail(op, "reads or writes a buffer on the host, which is a "
                        "device buffer on the GPU");
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        moveAlloc(rewriter, alloc);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        rewriter.setInsertionPoint(op);
        rewriter.replaceOpWithNewOp<gpu::DeallocOp>(op, Type(), ValueRange{},
                                                    dealloc.getMemref());
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        moveCopy(rewriter, copy);
      } else {
        moveGlobal(rewriter, cast<memref::GetGlobalOp>(op));
      }
    }
  }

  static WalkResult fail(Operation *op, StringRef reason) {
    op->emitOpError() << reason
                      << "; dtensor-gpu-pipeline cannot move it to the GPU";
    return WalkResult::interrupt();
  }
};

} // namespace
