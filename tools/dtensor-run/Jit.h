//===- Jit.h - compiling and calling the entry function ---------*- C++ -*-===//
//
// Lowers a module with the CPU pipeline, JIT-compiles it with MLIR's
// ExecutionEngine and calls the entry through its C interface, passing
// host arrays as memref descriptors.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_JIT_H
#define DTENSOR_TOOLS_DTENSOR_RUN_JIT_H

#include "HostArray.h"
#include "Options.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <vector>

namespace dtensor_run {

/// Strips the global-view dtensor ops that are identities on one device.
void stripToOneDevice(mlir::ModuleOp module);

/// Lowers `module` (partitioned first with `options.strategy` when
/// `partition`) with the CPU pipeline (vectorized unless
/// `options.vectorize` is false) and JIT-compiles it for the host CPU's
/// features; sets the BLAS threads to `options.threads`. Exits with an error
/// when any step fails.
std::unique_ptr<mlir::ExecutionEngine> compileModule(mlir::ModuleOp module,
                                                     llvm::StringRef entry,
                                                     bool partition,
                                                     const Options &options);

/// Calls `entry` `iters` times on `inputs`; returns the outputs of the last
/// call (each of the dtype of `results[i]`) and sets `seconds` to the
/// fastest call. Every call sees the same inputs (they are restored between
/// calls), but `inputs` may hold what the last call wrote into them.
std::vector<HostArray> callEntry(mlir::ExecutionEngine &engine,
                                 llvm::StringRef entry,
                                 std::vector<HostArray> &inputs,
                                 const std::vector<TensorLayout> &results,
                                 int iters, double &seconds);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_JIT_H
