//===- RuntimeCalls.h - building checked dtrt calls -------------*- C++ -*-===//
//
// Helpers shared by the lowerings that call the dtrt runtime on GPUs (NCCL
// collectives, cuBLASLt GEMMs, the compute stream).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CONVERSION_DTENSORTORUNTIME_RUNTIMECALLS_H
#define DTENSOR_CONVERSION_DTENSORTORUNTIME_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
class ModuleOp;
namespace dtensor {

/// Returns the private declaration `name` of `type` in `module`, adding it
/// at the start of the module body if absent.
func::FuncOp declareRuntimeFunction(OpBuilder &builder, ModuleOp module,
                                    StringRef name, FunctionType type);

/// Calls `fn` (a runtime function returning an i32 status) with `args` at
/// the builder's insertion point; a non-zero status calls
/// `dtrt_abort(dtrt_last_error())`, which never returns.
void createCheckedRuntimeCall(OpBuilder &builder, Location loc, func::FuncOp fn,
                              ValueRange args);

/// The address of the first element of buffer `memref`, as an i64 (the
/// aligned pointer plus the offset of its strided layout).
Value createBufferAddress(OpBuilder &builder, Location loc, Value memref);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_DTENSORTORUNTIME_RUNTIMECALLS_H
