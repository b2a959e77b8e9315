//===- GlobalPlanner.h - whole-function strategy choice ---------*- C++ -*-===//
//
// PyTorch DTensor chooses each op's strategy greedily, in program order.
// strategy=global chooses the strategies of all top-level ops of a function
// together to minimise the plan's cost: communication (PyTorch's cost model,
// the redistributions the analysis will plan) plus compute, the per-rank time
// of every planned op under the chosen strategy (`getComputeCost`: flops
// divided by the ranks its iteration space is split over, at
// `kComputeFlopsPerUs`). The compute term is what keeps a plan from
// replicating (gathering) every weight to save an all_reduce: duplicated
// work is paid for.
//
// The function is cut where every value made before a point and read after
// it is a result of the op just before it (an MLP layer's activation, a
// Block stack's residual stream); each segment between two cuts is solved
// for every pair of placements of its cut values, by enumeration when small
// or as a 0-1 program with COIN-OR CBC (the formulation of Alpa, OSDI 2022,
// with redistributions shared by the readers of a value, as the analysis
// shares them), identical segments once; dynamic programming over the chain
// of segments gives the optimum and a lower bound. A segment past
// `segmentOpLimit`, or one the solver does not finish, gets the heuristic
// (the plan is then not proven optimal and the report gives the lower
// bound): values read by several ops ("cut" values) split the ops into trees
// that dynamic programming solves exactly for given placements of the cut
// values, and coordinate descent over those placements, started from the
// PyTorch plan, finds the plan. The analysis keeps the PyTorch plan whenever
// the global one is not strictly cheaper, so it is never worse, and ties go
// to the first candidate in PyTorch's candidate order (enumeration order),
// so plans are deterministic.
//
// Hook for a memory term or constraint: every cost the planner sees comes
// from two places, `Planner::moveCost` (per value and pair of placement ids)
// and the per-candidate cost `ModelOp::candidateCost` (today the compute
// term). A per-rank memory budget adds, per candidate, the bytes its results
// hold on a rank (`ModelOp::candidateBytes` next to `candidateCost`), as a
// knapsack row of each segment's 0-1 program and, across segments, a resource
// dimension of the chain's dynamic programming state; `getComputeCost` and
// `computePlanComputeCost` show the shape such a per-op term takes at the
// plan level (FakeTensorAnalysis::planGlobally compares plans with it).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"

namespace mlir {
namespace dtensor {

/// Strategies chosen per op.
using ForcedStrategies = llvm::DenseMap<Operation *, ShardingCandidate>;

struct GlobalPlannerOptions {
  /// Solve exactly (with the heuristic as the fallback); false: the
  /// heuristic alone (unit tests of the heuristic).
  bool exact = true;
  /// Segments (ops between two cuts) with at most this many ops are solved
  /// exactly; a function with a larger one gets the heuristic.
  int64_t segmentOpLimit = 2000;
  /// Segments with at most this many strategy combinations are solved by
  /// enumeration, larger ones as 0-1 programs.
  double enumerationLimit = 512;
  /// A segment solved as 0-1 programs is solved once per pair of states of
  /// its two cuts: a cut with more states joins its segments into one.
  int64_t maxCutStates = 6;
  /// Branch-and-bound nodes the solver may explore for one program (a
  /// deterministic limit), and a wall-time limit in seconds as a safeguard.
  int64_t nodeLimit = 2000;
  double timeLimitSeconds = 60;
};

/// Plans the top-level ops of `func`. `pytorch` is the function's greedy
/// plan: values the planner does not choose (arguments, results of control
/// flow and calls) keep their placements there, and those ops keep their
/// requirements. Returns the plans worth trying, best first (none: nothing
/// cheaper than PyTorch's was found): the exact one, and the heuristic's
/// when the exact one is not proven optimal.
llvm::SmallVector<ForcedStrategies, 2> planFunctionGlobally(FunctionOpInterface func,
                                      const FunctionPlan &pytorch,
                                      const GlobalPlannerOptions &options = {},
                                      PlannerStats *stats = nullptr);

/// Floating-point operations of one execution of `op` in the global view:
/// for a linalg op, its static iteration count times the arithmetic ops of
/// its body; for an elementwise op on tensors, its result elements; 0 for
/// everything else (reshapes, slices and copies move data, not compute) and
/// for dynamic shapes.
double getOpFlops(Operation *op);

/// Per-rank compute time (µs) of `op` run with the given operand and result
/// placements: its flops divided by the size of every mesh axis on which some
/// operand or result is sharded (`computeCost`).
double getComputeCost(Operation *op, llvm::ArrayRef<int64_t> meshShape,
                      llvm::ArrayRef<Placements> operands,
                      llvm::ArrayRef<Placements> results);

/// True for the ops of a function body the planner chooses strategies for
/// (tensor results; not a terminator, call, control flow, dtensor op or
/// created value).
bool isPlannedOp(Operation *op);

/// Compute term of a plan: `getComputeCost` summed over the planned ops of
/// `func`, with the placements `plan` reads (required or current) and makes.
double computePlanComputeCost(FunctionOpInterface func,
                              const FunctionPlan &plan);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H
