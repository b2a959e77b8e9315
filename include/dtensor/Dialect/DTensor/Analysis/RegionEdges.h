//===- RegionEdges.h - where the tensors of a region op flow ----*- C++ -*-===//
//
// The control-flow edges of a region-branch op (scf.for, scf.if, scf.while,
// ...), read from upstream's RegionBranchOpInterface and
// RegionBranchTerminatorOpInterface: for each edge, the operands it forwards
// and the successor inputs (region arguments or the op's results) that
// receive them. The fake-tensor analysis runs its fixed point over them and
// the global planner follows loop-carried values through them.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_REGIONEDGES_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_REGIONEDGES_H

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace dtensor {

/// One control-flow edge of a region-branch op: the operands forwarded to a
/// successor and the successor's inputs (entry arguments of a region, or the
/// op's results), from the op itself (`from` null) or from a terminator of
/// region `from`.
struct RegionEdge {
  Region *from = nullptr;
  llvm::SmallVector<OpOperand *, 4> operands;
  llvm::SmallVector<Value, 4> inputs;
};

/// The edges of `op`, entry edges first, then the terminators' in region
/// order. Fails where they do not describe where every tensor goes (a
/// terminator without the interface, a result no terminator reaches): the
/// op is then an op without a rule.
FailureOr<llvm::SmallVector<RegionEdge>>
getRegionEdges(RegionBranchOpInterface op);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_REGIONEDGES_H
