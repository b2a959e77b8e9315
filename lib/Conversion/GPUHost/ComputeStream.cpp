//===- ComputeStream.cpp - GPU ops on the runtime's compute stream --------===//
//
// Pitfall P3 of the GPU notes: a token-less gpu op gets a stream of its own
// and a host synchronisation; gpu-to-llvm lowers `async [%t]` onto the
// stream behind %t. The runtime's compute stream is cast to a token once per
// function and every gpu op depends on it.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/DTensorToRuntime/RuntimeCalls.h"
#include "dtensor/Conversion/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORGPUSTREAM
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// `i32 dtrt_cuda_compute_stream(ptr *stream)` at the start of `func`, the
/// stream cast to a !gpu.async.token.
Value createStreamToken(OpBuilder &b, func::FuncOp func) {
  Location loc = func.getLoc();
  b.setInsertionPointToStart(&func.getBody().front());
  Type i64 = b.getI64Type();
  func::FuncOp getStream = dtensor::declareRuntimeFunction(
      b, func->getParentOfType<ModuleOp>(), "dtrt_cuda_compute_stream",
      b.getFunctionType({i64}, {b.getI32Type()}));
  Value slot = memref::AllocaOp::create(b, loc, MemRefType::get({1}, i64));
  Value address = dtensor::createBufferAddress(b, loc, slot);
  dtensor::createCheckedRuntimeCall(b, loc, getStream, {address});
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value stream = memref::LoadOp::create(b, loc, slot, zero);
  Value ptr = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), stream);
  return UnrealizedConversionCastOp::create(
             b, loc, gpu::AsyncTokenType::get(b.getContext()), ptr)
      .getResult(0);
}

/// Rebuilds the token-less gpu op `op` as `async [token]`.
void makeAsync(IRRewriter &b, Operation *op, Value token) {
  b.setInsertionPoint(op);
  Type tokenType = token.getType();
  Location loc = op->getLoc();
  TypeSwitch<Operation *>(op)
      .Case([&](gpu::AllocOp o) {
        auto n = gpu::AllocOp::create(
            b, loc, o.getType(), tokenType, {token}, o.getDynamicSizes(),
            o.getSymbolOperands(), o.getHostSharedAttr());
        b.replaceOp(o, {n.getMemref(), n.getAsyncToken()});
      })
      .Case([&](gpu::DeallocOp o) {
        b.replaceOpWithNewOp<gpu::DeallocOp>(o, tokenType, ValueRange{token},
                                             o.getMemref());
      })
      .Case([&](gpu::MemcpyOp o) {
        b.replaceOpWithNewOp<gpu::MemcpyOp>(o, tokenType, ValueRange{token},
                                            o.getDst(), o.getSrc());
      })
      .Case([&](gpu::MemsetOp o) {
        b.replaceOpWithNewOp<gpu::MemsetOp>(o, tokenType, ValueRange{token},
                                            o.getDst(), o.getValue());
      })
      .Case([&](gpu::LaunchFuncOp o) {
        auto n = gpu::LaunchFuncOp::create(
            b, loc, o.getKernel(), o.getGridSizeOperandValues(),
            o.getBlockSizeOperandValues(), o.getDynamicSharedMemorySize(),
            o.getKernelOperands(), tokenType, {token});
        b.replaceOp(o, n);
      });
}

struct ComputeStreamPass
    : public dtensor::impl::DTensorGPUStreamBase<ComputeStreamPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<Operation *> ops;
      WalkResult walk = func.walk([&](Operation *op) {
        if (isa<gpu::LaunchOp>(op)) {
          op->emitOpError() << "is not outlined; run gpu-kernel-outlining "
                               "before dtensor-gpu-stream";
          return WalkResult::interrupt();
        }
        auto async = dyn_cast<gpu::AsyncOpInterface>(op);
        if (async && async.getAsyncDependencies().empty() &&
            !async.getAsyncToken())
          ops.push_back(op);
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      if (ops.empty())
        continue;
      Value token = createStreamToken(rewriter, func);
      for (Operation *op : ops)
        makeAsync(rewriter, op, token);
    }
  }
};

} // namespace
