//===- ExecutionCount.h - how often a block runs per call -------*- C++ -*-===//
//
// The loops and branches around a block of a function, and how many times
// the block runs per call of the function: the product of the trip counts of
// the loops around it (a loop without a static trip count counts
// `kUnknownTripCount` times). A branch (scf.if, scf.index_switch: a region
// op that is not a loop) runs at most one of its regions; whoever sums costs
// over it chooses how to combine them (the report takes the dearest region).
//
// Dispatch is by interface: `LoopLikeOpInterface` (its static trip count)
// for loops, `RegionBranchOpInterface` for branches.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_EXECUTIONCOUNT_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_EXECUTIONCOUNT_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace dtensor {

/// Iterations assumed for a loop whose trip count is not static.
constexpr int64_t kUnknownTripCount = 1;

/// How an op with regions runs them.
enum class ScopeKind {
  /// Its regions run once each, in order (or it is not control flow).
  Plain,
  /// A loop: its regions run once per iteration.
  Loop,
  /// A branch: at most one of its regions runs.
  Branch,
};

/// Classifies `op` by its interfaces.
ScopeKind getScopeKind(Operation *op);

/// The static trip count of a loop, if it has one.
std::optional<int64_t> getStaticTripCount(Operation *loop);

/// Iterations counted for a loop: its static trip count, else
/// `kUnknownTripCount`.
int64_t getCountedTripCount(Operation *loop);

/// One loop or branch around a block.
struct ExecutionScope {
  Operation *op;
  ScopeKind kind;
  /// The region of `op` that holds the block.
  unsigned regionIndex;
  /// Loops: the static trip count, if known.
  std::optional<int64_t> tripCount;
};

/// The loops and branches around `block` up to (not including) `root`,
/// innermost first.
llvm::SmallVector<ExecutionScope> getExecutionScopes(Block *block,
                                                     Operation *root);

/// Times a block inside `scopes` runs per run of the root: the product of
/// the counted trip counts of the loops.
int64_t getExecutionCount(llvm::ArrayRef<ExecutionScope> scopes);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_EXECUTIONCOUNT_H
