//===- RuleEquivalence.h - ops whose rules see the same input -*- C++ -*-===//
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
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace dtensor {

/// The ops of a region grouped by the input their sharding rules see: two
/// ops are in one class if they differ at most in the tensor values they
/// read (same name, attributes, result types and regions, the same
/// non-tensor operands, tensor operands of the same types). Grouped are the
/// ops with a sharding rule and a tensor result: the ops the global planner
/// chooses for and the ops making created values. Built once per function,
/// it spares the planner and the propagation's memo hashing and comparing
/// ops each time they look an op's rule up; it only reads the IR, so it may
/// be built beside a propagation of the same function.
class RuleClasses {
public:
  explicit RuleClasses(Region &region);

  /// The class of `op`, -1 for an op the constructor did not group.
  int lookup(Operation *op) const {
    auto it = classOf.find(op);
    return it == classOf.end() ? -1 : it->second;
  }
  /// The number of classes: ids are 0 .. size() - 1.
  int size() const { return numClasses; }

private:
  llvm::DenseMap<Operation *, int> classOf;
  int numClasses = 0;
};

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_RULEEQUIVALENCE_H
