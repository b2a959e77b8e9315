//===- ShardingRules.h - per-op sharding strategies -------------*- C++ -*-===//
//
// Candidate strategies of an op in PyTorch DTensor terms: for each candidate,
// the placements every tensor operand must have and the placements of every
// result. Rules come from structure and interfaces (linalg indexing maps and
// iterator types, the Elementwise trait, reassociations of reshapes, slices),
// never from op names.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_SHARDINGRULES_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_SHARDINGRULES_H

#include "dtensor/Support/Placement.h"
#include "mlir/IR/Operation.h"

namespace mlir {
namespace dtensor {

/// One candidate strategy.
struct ShardingCandidate {
  /// Target placements per operand; empty for non-tensor operands.
  llvm::SmallVector<Placements, 4> operands;
  /// Placements per result; empty for non-tensor results.
  llvm::SmallVector<Placements, 2> results;
  /// Operands whose redistribution is not counted when choosing (destination
  /// operands of linalg ops, which PyTorch's out-of-place ops do not have).
  llvm::SmallVector<bool, 4> excludedFromCost;
};

/// Computes the candidates of `op` given the current placements of its
/// operands (`operands[i]` empty for a non-tensor operand) on a mesh of
/// `meshShape`. Candidates are in PyTorch's order. Returns failure if no rule
/// covers `op`. Control flow (func, scf) is not handled here.
LogicalResult
getShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> meshShape,
                      llvm::ArrayRef<Placements> operands,
                      llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Every candidate strategy of `op`, independent of where its operands are
/// now (used to plan a whole function): for loop-space ops, each placement
/// of the loops per mesh axis; for rules that follow an operand, the rule
/// applied to every placement that operand could have. `current` is used
/// only for operands the rule does not follow.
LogicalResult
getAllShardingCandidates(Operation *op, llvm::ArrayRef<int64_t> meshShape,
                         llvm::ArrayRef<Placements> current,
                         llvm::SmallVectorImpl<ShardingCandidate> &out);

/// True if `op` creates its tensor results from nothing but scalars and
/// attributes, so that every rank can build the same value (constants,
/// tensor.empty, splats, from_elements, generate).
bool isCreationOp(Operation *op);

/// True if `v` is created by the program from scalars: the result of a
/// creation op, or a fill, broadcast or transpose of such values. Every rank
/// can build any sharded placement of it locally, so it is created in the
/// placements its users need instead of being redistributed.
bool isCreatedValue(Value v);

/// True if the created value `v` may be built directly in `placements`:
/// shards, replicas and P(avg|max|min) always; P(sum) only for values that
/// are all zeros or undefined (`tensor.empty`).
bool canCreateIn(Value v, llvm::ArrayRef<Placement> placements);

/// For the op defining a created value: the candidate that produces
/// `result` directly (operands of a copy mapped back through its indexing
/// maps). Fails for other ops.
FailureOr<ShardingCandidate>
getCreationCandidate(Operation *op, llvm::ArrayRef<int64_t> meshShape,
                     llvm::ArrayRef<Placement> result);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_SHARDINGRULES_H
