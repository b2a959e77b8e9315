//===- RuleEquivalence.h - ops whose sharding rules see the same input -*- C++ -*-===//
//
// A sharding rule sees an op's tensor operands only through their types and
// placements. Two ops that differ at most in which tensors they read (of
// the same types) -- the layers of a long program -- get the same
// candidates for the same placements, so a rule's answer computed for one
// can serve the other. The global planner and the propagation's memo key
// their caches on this equivalence.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_RULEEQUIVALENCE_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_RULEEQUIVALENCE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/Hashing.h"

namespace mlir {
namespace dtensor {

/// A hash of `op` that is equal for ops `isSameRuleInput` finds equal: its
/// name, attributes and result types, its tensor operands by type and its
/// other operands by identity (locations ignored).
llvm::hash_code hashRuleInput(Operation *op);

/// True if `a` and `b` differ at most in the tensor values they read (of
/// the same types): same name, attributes, result types and regions, the
/// same non-tensor operands, tensor operands of the same types.
bool isSameRuleInput(Operation *a, Operation *b);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_RULEEQUIVALENCE_H
