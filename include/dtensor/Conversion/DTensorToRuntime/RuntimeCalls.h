//===- RuntimeCalls.h - building checked dtrt calls -------------*- C++ -*-===//
//
// Helpers shared by the lowerings that call the dtrt runtime on GPUs (NCCL
// collectives, cuBLASLt GEMMs, the compute stream).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CONVERSION_DTENSORTORUNTIME_RUNTIMECALLS_H
#define DTENSOR_CONVERSION_DTENSORTORUNTIME_RUNTIMECALLS_H

#include "dtensor/Support/Placement.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "dtrt/dtrt.h"

#include <optional>

namespace mlir {
class ModuleOp;
namespace dtensor {

/// The dtrt_dtype of element type `t` (the rows of dtrt.h, shared by the
/// MPI, NCCL and cuBLASLt entry points), if the runtime has one.
std::optional<dtrt_dtype> runtimeDtypeOf(Type t);

/// The dtrt_reduce_op of reduction `kind`.
dtrt_reduce_op runtimeReduceOpOf(ReduceOp kind);

/// Bit mask of mesh axes (`axes_mask` in dtrt.h).
uint64_t runtimeAxesMask(ArrayRef<int64_t> axes);

/// Returns the private declaration `name` of `type` in `module`, adding it
/// at the start of the module body if absent.
func::FuncOp declareRuntimeFunction(OpBuilder &builder, ModuleOp module,
                                    StringRef name, FunctionType type);

/// Calls `fn` (a runtime function returning an i32 status) with `args` at
/// the builder's insertion point; a non-zero status calls
/// `dtrt_abort(dtrt_last_error())`, which never returns.
void createCheckedRuntimeCall(OpBuilder &builder, Location loc, func::FuncOp fn,
                              ValueRange args);

/// The result of an all_to_all (concat dim `concatDim`, split dim
/// `splitDim`, `groupSize` ranks) from `received`, the tensor the runtime's
/// all-to-all wrote: the input with the split dim moved to the front, whose
/// equal blocks of rows came from the group ranks in order. Each block is
/// put back along the concat dim, as the sender's chunk of it.
Value unpackAllToAll(OpBuilder &builder, Location loc, Value received,
                     int64_t concatDim, int64_t splitDim, int64_t groupSize,
                     RankedTensorType resultType);

/// The address of the first element of buffer `memref`, as an i64 (the
/// aligned pointer plus the offset of its strided layout).
Value createBufferAddress(OpBuilder &builder, Location loc, Value memref);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_DTENSORTORUNTIME_RUNTIMECALLS_H
