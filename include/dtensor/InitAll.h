//===- InitAll.h - register everything dtensor-mlir provides ----*- C++ -*-===//
//
// The entry points a downstream compiler calls to get the dtensor dialect,
// its external models and its passes (public contract, see docs/design.md).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_INITALL_H
#define DTENSOR_INITALL_H

namespace mlir {
class DialectRegistry;
namespace dtensor {

/// Inserts the dtensor dialect and the upstream dialects a global-view
/// program and the CPU pipeline use (arith, bufferization, cf, func, linalg,
/// math, memref, scf, tensor, tosa).
void registerAllDialects(DialectRegistry &registry);

/// Attaches dtensor's external models to upstream ops (sharding rules) and
/// the upstream models the dtensor pipelines rely on (bufferization).
void registerAllExtensions(DialectRegistry &registry);

/// Registers every dtensor pass and pipeline with the global registry, so
/// that `--dtensor-*` flags and `dtensor-cpu-pipeline` parse.
void registerAllPasses();

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_INITALL_H
