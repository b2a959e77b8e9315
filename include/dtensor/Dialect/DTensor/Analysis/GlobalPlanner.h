//===- GlobalPlanner.h - whole-function strategy choice ---------*- C++ -*-===//
//
// PyTorch DTensor chooses each op's strategy greedily, in program order. The
// global planner chooses the strategies of all ops of a function together,
// those inside loops with one body (scf.for) and branches (scf.if) included,
// to minimise the total communication cost under the same cost model, every
// move counted as often as it runs (the trip counts of the loops around the
// value it moves; `kUnknownTripCount` for a loop without a static one). A
// loop-carried value (and a branch's result) has the placements of its
// source, the op making what the first terminator forwards (the analysis's
// fixed point under forced strategies); the other edges into it (the init
// operand, the other branches) are redistributed to it once. A region op
// whose inputs cannot be followed (swapped loop-carried values, scf.while)
// keeps PyTorch's plan inside. Called functions are planned on their own. With `exact`, the function is cut where every value made before a
// point and read after it is a result of the op just before it (an MLP
// layer's activation, a Block stack's residual stream); each segment between
// two cuts is solved for every pair of placements of its cut values, by
// enumeration when small or as a 0-1 program with COIN-OR CBC (the
// formulation of Alpa, OSDI 2022, with redistributions shared by the readers
// of a value, as the analysis shares them), identical segments once; dynamic
// programming over the chain of segments gives the optimum and a lower
// bound. A segment with too many strategy combinations to enumerate is
// solved by variable elimination (`MinSumElimination`, with the incoming
// state as a variable and one variable per placement a read wants) when its
// tables stay small, else as 0-1 programs. With `conserveWork`
// (strategy=global) contractions keep only the strategies that split their
// work at least as many ways as PyTorch's. A segment past `segmentOpLimit`,
// or one the solver does not finish,
// gets the heuristic: values read by several ops ("cut" values) split the
// ops into trees that dynamic programming solves exactly for given
// placements of the cut values, and coordinate descent over those
// placements, started from the PyTorch plan, finds the plan. The analysis
// keeps the PyTorch plan whenever the global one is not cheaper, so it is
// never worse.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir {
namespace dtensor {

class RuleClasses;

/// The strategy forced on each op of a function: the global planner's
/// choices, and the constraints of `fitMemoryBudget`. Candidates are held by
/// pointer, so that a plan of 60 000 ops shares the planner's few candidate
/// lists instead of copying one candidate per op; the owners of what they
/// point into are kept alive with the map.
class ForcedStrategies {
public:
  using Map = llvm::DenseMap<Operation *, const ShardingCandidate *>;

  /// The candidate forced on `op`, null if none.
  const ShardingCandidate *lookup(Operation *op) const {
    return choices.lookup(op);
  }
  bool contains(Operation *op) const { return choices.contains(op); }
  size_t size() const { return choices.size(); }
  void reserve(size_t n) { choices.reserve(n); }
  Map::const_iterator begin() const { return choices.begin(); }
  Map::const_iterator end() const { return choices.end(); }

  /// Forces `c` on `op`; `c` must outlive this map, or belong to an owner
  /// passed to `keepAlive`.
  void set(Operation *op, const ShardingCandidate *c) { choices[op] = c; }
  /// Forces a copy of `c` on `op`.
  void set(Operation *op, const ShardingCandidate &c);
  /// Keeps `owner` (what forced candidates point into) alive with the map.
  void keepAlive(std::shared_ptr<const void> owner);
  /// Forces every strategy of `other` on top of these.
  void override(const ForcedStrategies &other);

private:
  Map choices;
  std::vector<std::shared_ptr<const void>> owners;
};

struct GlobalPlannerOptions {
  /// Solve exactly (strategy=global and exact); else the heuristic alone.
  bool exact = false;
  /// For ops that reduce (a strategy makes a partial result from inputs
  /// that are not partial: contractions, reductions), only strategies that
  /// split the op's work at least as many ways as its strategy in the
  /// PyTorch plan (the product of the mesh axes its result is sharded or
  /// partial on): no rank does more of any contraction than under PyTorch's
  /// plan. The cost model counts communication alone, so without this its
  /// optimum may replicate work (gather a data-parallel batch, or every
  /// weight of a tensor-parallel Block). Elementwise ops and data movement
  /// stay free. strategy=global.
  bool conserveWork = false;
  /// Segments (ops between two cuts) with at most this many ops are solved
  /// exactly; a function with a larger one gets the heuristic.
  int64_t segmentOpLimit = 2000;
  /// Segments with at most this many strategy combinations are solved by
  /// enumeration, larger ones as 0-1 programs.
  double enumerationLimit = 512;
  /// Larger segments are solved by variable elimination when no table it
  /// builds has more than this many entries, else as 0-1 programs.
  int64_t eliminationTableLimit = 1 << 22;
  /// A segment solved as 0-1 programs is solved once per pair of states of
  /// its two cuts: a cut with more states joins its segments into one.
  int64_t maxCutStates = 6;
  /// Branch-and-bound nodes the solver may explore for one program (a
  /// deterministic limit), and the wall time in seconds all the 0-1
  /// programs of one function may take, as a safeguard: past it the rest
  /// are not solved (the plan is then not proven optimal).
  int64_t nodeLimit = 2000;
  double timeLimitSeconds = 10;
  /// With a positive value (max-bytes-per-rank), `planFunctionUnderBudget`
  /// solves the whole function as one 0-1 program with a row per program
  /// point bounding the bytes live there on every rank (values, their
  /// redistributed copies and the collectives' temporaries, as
  /// `MemoryLiveness` counts them; sizes the largest shard), for functions
  /// without followed loops or branches and of at most `budgetOpLimit`
  /// planned ops. The caller checks the plan's real peak.
  int64_t maxBytesPerRank = 0;
  int64_t budgetOpLimit = 500;
  /// The function's ops grouped by rule, if the caller has them (the
  /// propagation's memo builds them beside the first propagation); else
  /// the planner groups them itself.
  const RuleClasses *ruleClasses = nullptr;
};

/// Plans the ops of `func`. `pytorch` is the function's greedy
/// plan: values the planner does not choose (arguments, results of calls
/// and of control flow it does not follow) keep their placements there, and
/// those ops keep their requirements. Returns the plans worth trying, best first (none: nothing
/// cheaper than PyTorch's was found): the exact one, and the heuristic's
/// when the exact one is not proven optimal.
llvm::SmallVector<ForcedStrategies, 2> planFunctionGlobally(FunctionOpInterface func,
                                      const FunctionPlan &pytorch,
                                      const GlobalPlannerOptions &options = {},
                                      PlannerStats *stats = nullptr);

/// With `options.maxBytesPerRank`: the plan of least communication cost
/// among those whose modelled peak fits (see `GlobalPlannerOptions`), as
/// strategies for every planned op of `func`; none where the function is
/// outside the model (followed loops or branches, other region ops, more
/// than `budgetOpLimit` planned ops) or no plan fits. `plan` plays the part
/// of the PyTorch plan in `planFunctionGlobally`.
std::optional<ForcedStrategies>
planFunctionUnderBudget(FunctionOpInterface func, const FunctionPlan &plan,
                        const GlobalPlannerOptions &options,
                        PlannerStats *stats = nullptr);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H
