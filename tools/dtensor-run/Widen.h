//===- Widen.h - a module recomputed in f64 ---------------------*- C++ -*-===//
//
// For --grad-check: retypes every f16/bf16/f32 value of a module (op
// results, block arguments, function types, float constants) to f64, so
// that the loss is evaluated in double precision for finite differences.
// Casts between float types become identities and are removed.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_WIDEN_H
#define DTENSOR_TOOLS_DTENSOR_RUN_WIDEN_H

#include "mlir/IR/BuiltinOps.h"

namespace dtensor_run {

/// Retypes `module` in place; fails (after the verifier's error) when the
/// result does not verify, e.g. a bitcast between f32 and i32.
llvm::LogicalResult widenFloatsToF64(mlir::ModuleOp module);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_WIDEN_H
