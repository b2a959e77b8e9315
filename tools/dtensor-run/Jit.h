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

/// The pipeline that lowers a partitioned module for the JIT.
inline constexpr llvm::StringLiteral kCPULowering =
    "dtensor-cpu-pipeline{partition=false}";

/// The CPU pipeline for `options` (vectorized unless `options.vectorize` is
/// false) with `threads` threads for the generated loops. With one thread:
/// the lowering of every one-rank reference, whatever `options.lowering` is.
std::string cpuLowering(const Options &options, int64_t threads = 1);

/// Threads for the generated loops: `options.threads` when dtensor-run was
/// built with an OpenMP runtime to load (libomp), else 1 (the BLAS still
/// gets `options.threads`).
int64_t loopThreads(const Options &options);

/// Lowers `module` (partitioned first with `options.strategy` when
/// `partition`, with async collectives unless `options.syncCollectives`)
/// with `lowering`, else `options.lowering` when it is not the default,
/// else the CPU pipeline (cpuLowering with loopThreads threads),
/// and JIT-compiles it for the host CPU's features; sets the BLAS threads to
/// `options.threads`. Exits with an error when any step fails.
std::unique_ptr<mlir::ExecutionEngine>
compileModule(mlir::ModuleOp module, llvm::StringRef entry, bool partition,
              const Options &options, llvm::StringRef lowering = {});

/// Whether the programs that compileModule lowers for `options` return
/// result buffers of their own, malloc'ed (the CPU pipeline, whatever its
/// options: its buffer deallocation gives each returned buffer to the
/// caller), which callEntry may then free.
inline bool ownsResults(const Options &options) {
  return llvm::StringRef(options.lowering).starts_with("dtensor-cpu-pipeline");
}

/// Calls `entry` `iters` times on `inputs`; returns the outputs of the last
/// call (each of the dtype of `results[i]`) and sets `seconds` to the
/// fastest call. Every call sees the same inputs (they are restored between
/// calls), but `inputs` may hold what the last call wrote into them. With
/// `ownsResults` (see ownsResults()), each call's result buffers are freed
/// once copied or superseded, so that every call allocates in memory the
/// previous one freed, as the caller of a compiled program would.
std::vector<HostArray> callEntry(mlir::ExecutionEngine &engine,
                                 llvm::StringRef entry,
                                 std::vector<HostArray> &inputs,
                                 const std::vector<TensorLayout> &results,
                                 int iters, double &seconds, bool ownsResults);

/// Calls `entry` once with argument i's data at `data[i]` (host or device
/// memory; its shape is that of `inputs[i]`); returns the result
/// descriptors (3 + 2 * rank words each, in the order of `results`).
std::vector<int64_t> invokeEntry(mlir::ExecutionEngine &engine,
                                 llvm::StringRef entry,
                                 llvm::ArrayRef<void *> data,
                                 const std::vector<HostArray> &inputs,
                                 const std::vector<TensorLayout> &results);

/// Copies the (possibly strided) host memref described by `words` into a
/// row-major host array of `dtype`.
HostArray copyStridedResult(const int64_t *words, int64_t rank,
                            dtrt_dtype dtype);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_JIT_H
