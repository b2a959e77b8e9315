//===- FakeTensorAnalysis.h - metadata-only sharding analysis ---*- C++ -*-===//
//
// The fake-tensor analysis computes, without touching any data, the metadata of
// every tensor value of a program in the global view: global shape, element
// type, placements on the function's mesh, the local shape on every rank and
// the bytes each rank holds. It also chooses a sharding strategy for every op
// (PyTorch DTensor's candidates, cost model and tie rules) and records where an
// operand has to be redistributed before its use.
//
// Ops that already carry `dtensor.specs` keep those result placements; explicit
// `dtensor.redistribute` ops and argument/result specs are honoured. On a
// program annotated by `dtensor-fake-propagate` the analysis therefore finds
// no further redistribution, and later passes query the same metadata.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_FAKETENSORANALYSIS_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_FAKETENSORANALYSIS_H

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"
#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/RedistributePlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace dtensor {

class ForcedStrategies;
struct GlobalPlannerOptions;
class PropagationMemo;

/// What to do with an op that has tensor operands or results but no sharding
/// rule.
enum class UnknownOpPolicy {
  /// Emit an error naming the op (the default).
  Error,
  /// Replicate all its operands and results, with a warning.
  Replicate,
};

/// How strategies are chosen.
enum class StrategyMode {
  /// PyTorch DTensor parity: candidates, costs and tie rules op by op in
  /// program order.
  PyTorch,
  /// All ops of a function together, minimising the total communication cost
  /// under the same cost model; never worse than PyTorch's plan.
  Global,
  /// As Global, with the minimum proven: the strategy choice as a 0-1
  /// program solved with COIN-OR CBC (the heuristic past its limits).
  Exact,
};

/// Options of the analysis.
struct FakeTensorOptions {
  UnknownOpPolicy unknownOps = UnknownOpPolicy::Error;
  StrategyMode strategy = StrategyMode::Global;
  /// `max-bytes-per-rank`: every rank's peak (`computeMemoryPeak`) must
  /// stay within it (`fitMemoryBudget`); 0 for no budget.
  int64_t maxBytesPerRank = 0;

  bool operator==(const FakeTensorOptions &o) const {
    return unknownOps == o.unknownOps && strategy == o.strategy &&
           maxBytesPerRank == o.maxBytesPerRank;
  }
};

/// The analysis options from a pass's `unknown-ops` and `strategy` options
/// (a pass without `strategy` plans globally). Every pass that runs the
/// analysis builds its options here.
inline FakeTensorOptions
makeFakeTensorOptions(UnknownOpPolicy unknownOps,
                      StrategyMode strategy = StrategyMode::Global,
                      int64_t maxBytesPerRank = 0) {
  FakeTensorOptions options;
  options.unknownOps = unknownOps;
  options.strategy = strategy;
  options.maxBytesPerRank = maxBytesPerRank;
  return options;
}

/// How a function was planned.
struct PlannerStats {
  int64_t plannedOps = 0;
  /// strategy=exact was asked for.
  bool exactRequested = false;
  /// Solved as a 0-1 program (else by the heuristic).
  bool exact = false;
  /// The program's optimum was proven.
  bool provenOptimal = false;
  /// A lower bound on the optimum under the planner's model (the plan's
  /// cost when proven optimal; 0 when unknown).
  double lowerBound = 0;
  /// Solved under max-bytes-per-rank, with memory rows (optimality is then
  /// under the planner's memory model).
  bool underBudget = false;
};

/// A redistribution the program needs: `value` goes from its placements to
/// `target` before `users` read it. Explicit `dtensor.redistribute` ops are
/// listed too (with `op` set).
struct Redistribution {
  Value value;
  Placements target;
  /// The explicit op, or null for a redistribution the analysis requires.
  RedistributeOp op;
  /// Operands that read the redistributed value (empty for explicit ops).
  llvm::SmallVector<OpOperand *, 2> users;
  /// The collective steps the analysis planned (the cheapest plan under the
  /// cost model, `planRedistributeMinCost`): what partitioning emits and the
  /// report prints. Valid if `planned`; otherwise `planError` says why.
  llvm::SmallVector<RedistributeStep, 0> steps;
  bool planned = false;
  std::string planError;
  /// For a required redistribution without a direct plan (P(max) ->
  /// P(sum)): the replicated placements it goes through
  /// (`getReplicatedIntermediate`); materialisation emits it as two explicit
  /// redistributions, and `steps` holds the steps of both halves.
  std::optional<Placements> through;
};

/// One sharding strategy of an op, scored as the per-op choice rule
/// (`selectCandidate`, PyTorch's `_select_strategy`) scores it.
struct ScoredCandidate {
  ShardingCandidate candidate;
  /// PyTorch's `redistribute_cost` (µs) of moving the op's inputs from the
  /// placements they have to the candidate's (destination operands
  /// excluded, as PyTorch has none).
  double costUs = 0;
  /// Some input changes placements (even at cost 0).
  bool needsRedistribution = false;
};

/// The strategies compared for one op and the one a plan uses.
struct StrategyChoice {
  /// The candidates of the op's sharding rule, in the rule's order.
  llvm::SmallVector<ScoredCandidate, 4> candidates;
  /// Index of the candidate the plan uses.
  int64_t chosen = -1;
  /// Index of the cheapest other candidate (the first of equal cost); -1
  /// when the rule offers only one.
  int64_t runnerUp = -1;
};

/// Everything the analysis knows about one function.
class FunctionPlan {
public:
  /// The function's mesh, null if it has none (every value on one device).
  MeshOp getMesh() const { return mesh; }
  /// Mesh axis sizes (empty without a mesh).
  llvm::ArrayRef<int64_t> getMeshShape() const { return meshShape; }
  /// Number of ranks.
  int64_t getNumRanks() const;

  /// Metadata of a tensor value of this function, or null for a non-tensor.
  const FakeTensor *lookup(Value v) const;
  /// Local shapes of `v` on every rank (row-major rank order).
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>>
  getLocalShapes(Value v) const;
  /// Bytes of `v` held by each rank.
  llvm::SmallVector<int64_t> getLocalBytes(Value v) const;

  /// Placements `operand` must have when its owner reads it, if they differ
  /// from the operand value's placements.
  const Placements *getRequiredPlacements(OpOperand &operand) const;

  /// All redistributions in program order: required ones, deduplicated per
  /// (value, target), and explicit `dtensor.redistribute` ops.
  llvm::ArrayRef<Redistribution> getRedistributions() const {
    return redistributions;
  }

  /// Tensor values in program order: arguments first, then op results.
  llvm::ArrayRef<Value> getValues() const { return values; }

  /// The collective steps of a redistribution of this plan, as the analysis
  /// planned them (`Redistribution::steps`) and partitioning emits them.
  /// Returns false with `error` set if the redistribution has no plan.
  bool planSteps(const Redistribution &r,
                 llvm::SmallVectorImpl<RedistributeStep> &steps,
                 std::string &error) const;

  /// Cost (µs) of one redistribution of this plan: the transition costs of
  /// the steps it runs (`planCost`). With PyTorch's steps (strategy=pytorch)
  /// that is PyTorch's `redistribute_cost`, or, where PyTorch has none
  /// (P(max) -> P(sum)), its costs of the two transitions through R: the
  /// same sum as the two explicit redistributions materialisation emits, so
  /// that a plan costs the same before and after propagation.
  double getCost(const Redistribution &r) const;

  /// Total cost (µs) of the plan's redistributions under the cost model per
  /// call of the function, counted as the report counts them: those in a
  /// loop times its trip count (`getCountedTripCount`), the dearest region
  /// of a branch.
  double computeCommCost() const;
  /// Total cost (µs) of the PyTorch (greedy) plan of the same function.
  double getPytorchCommCost() const { return pytorchCommCost; }
  /// Ops PyTorch DTensor refuses (strategy=pytorch only; see
  /// `getPyTorchRefusal` of the sharding-rule interface).
  llvm::ArrayRef<std::pair<Operation *, std::string>>
  getPyTorchRefusals() const {
    return pytorchRefusals;
  }

  /// The strategies `op`'s sharding rule offers for the placements its
  /// operands have in this plan, scored as the choice rule scores them, and
  /// the one this plan uses: the candidate with the operand placements the
  /// plan requires and the result placements it gives (a strategy the rule
  /// offers only for pins is added when the plain candidates lack it; the
  /// same strategy offered twice is listed once). strategy=pytorch chooses the
  /// cheapest; the global planner may choose a locally dearer one that
  /// saves more later. Computed on demand, so planning does not pay for it.
  /// Fails for an op without a sharding rule or one whose placements in
  /// this plan no strategy of its rule has.
  FailureOr<StrategyChoice> getStrategyChoice(Operation *op) const;

  /// Builds the `#dtensor.spec` of placements on this function's mesh; null
  /// without a mesh.
  SpecAttr getSpecAttr(llvm::ArrayRef<Placement> placements) const;

private:
  friend class FakeTensorAnalysis;
  friend class FunctionPropagator;
  /// Plans the steps of every redistribution (`Redistribution::steps`):
  /// PyTorch's greedy steps, or with `minCost` the cheapest steps under the
  /// cost model (never dearer than PyTorch's).
  void planRedistributions(bool minCost);
  /// `computeCommCost` after `planRedistributions(/*minCost=*/true)`,
  /// without planning the steps into the redistributions.
  double computeMinCostCommCost() const;
  /// The total over the redistributions of `costOf`, counted as
  /// `computeCommCost` counts it.
  double
  sumCommCost(llvm::function_ref<double(const Redistribution &)> costOf) const;

  MeshOp mesh;
  llvm::SmallVector<int64_t, 4> meshShape;
  llvm::DenseMap<Value, FakeTensor> tensors;
  llvm::DenseMap<OpOperand *, Placements> required;
  llvm::SmallVector<Redistribution> redistributions;
  llvm::SmallVector<Value> values;
  double pytorchCommCost = 0;
  llvm::SmallVector<std::pair<Operation *, std::string>> pytorchRefusals;
  /// How strided-shard steps are priced: as PyTorch does for PyTorch's
  /// plan, as the collectives they run for the planner's.
  StridedCost stridedCost = StridedCost::PyTorch;

public:
  /// How the global planner planned this function (strategy=global/exact).
  PlannerStats plannerStats;
};

/// The fake-tensor analysis of a module. Construct it on a module; check
/// `succeeded()` (errors have been emitted on the offending ops) before using
/// the plans.
class FakeTensorAnalysis {
public:
  explicit FakeTensorAnalysis(ModuleOp module,
                              FakeTensorOptions options = FakeTensorOptions());
  ~FakeTensorAnalysis();

  /// True if every function was analysed without error.
  bool succeeded() const { return ok; }

  /// The plan of a function; null for an external declaration.
  const FunctionPlan *getPlan(FunctionOpInterface func) const;
  /// Prices the strided-shard steps of every plan as the collectives they
  /// run (as plans are compared under strategy=global and exact), not at
  /// PyTorch's 0: a strategy=pytorch analysis compared with a global one.
  void priceStridedStepsAsCollectives();

  /// Functions with a plan, in the order they were analysed (callees first).
  llvm::ArrayRef<FunctionOpInterface> getFunctions() const { return functions; }

private:
  friend class FunctionPropagator;
  FunctionPlan *analyze(FunctionOpInterface func);
  /// The cheapest of `pytorch` and the global planner's plans of `func`;
  /// their propagations reuse the choices `memo` recorded for `pytorch`.
  /// `completePyTorch` lists and prices `pytorch` (its placements are
  /// final): it runs beside the planner where the context has threads.
  std::unique_ptr<FunctionPlan>
  planGlobally(FunctionOpInterface func, std::unique_ptr<FunctionPlan> pytorch,
               PropagationMemo &memo,
               llvm::function_ref<void()> completePyTorch);
  /// A plan of `func` with the strategies of `forced`, the other ops chosen
  /// greedily; null if propagation fails (quietly). It carries
  /// `pytorchCost` and `stats` over.
  std::unique_ptr<FunctionPlan> propagateForced(FunctionOpInterface func,
                                                const ForcedStrategies &forced,
                                                double pytorchCost,
                                                const PlannerStats &stats);
  /// `plan`, or a plan within `options.maxBytesPerRank`: the exact
  /// planner's under the budget (`planFunctionUnderBudget`) or the greedy
  /// fit's (`fitMemoryBudget`), the cheaper that fits. `memo` is the
  /// function's (null with strategy=pytorch, which re-plans greedily only).
  FailureOr<std::unique_ptr<FunctionPlan>>
  fitBudget(FunctionOpInterface func, std::unique_ptr<FunctionPlan> plan,
            PropagationMemo *memo);
  /// The exact planner's plan under the budget, if its peak fits.
  std::unique_ptr<FunctionPlan> planUnderBudget(FunctionOpInterface func,
                                                const FunctionPlan &plan,
                                                double pytorchCost,
                                                PropagationMemo &memo);
  /// The global planner's options for this analysis's strategy, with the
  /// function's rule classes from its memo.
  GlobalPlannerOptions getPlannerOptions(PropagationMemo &memo) const;

  ModuleOp module;
  FakeTensorOptions options;
  SymbolTableCollection symbolTable;
  llvm::DenseMap<Operation *, std::unique_ptr<FunctionPlan>> plans;
  llvm::DenseSet<Operation *> inProgress;
  llvm::SmallVector<FunctionOpInterface> functions;
  bool ok = true;
};

/// The fake-tensor analysis as an MLIR analysis of a module, so that it is
/// computed once and shared: a module pass calls
/// `getAnalysis<FakeTensorAnalysisCache>().get(options)`. The result is
/// computed on first use (and again if asked with other options) and lives
/// as long as the pass manager keeps the analysis: a pass that leaves the IR
/// as it was calls `markAnalysesPreserved<FakeTensorAnalysisCache>()` (or
/// `markAllAnalysesPreserved()`), and the next pass on the module gets the
/// same plans without re-running the analysis. Any other pass invalidates it.
class FakeTensorAnalysisCache {
public:
  explicit FakeTensorAnalysisCache(Operation *op);

  /// The analysis of the module under `options`; errors are emitted when it
  /// is computed.
  const FakeTensorAnalysis &get(const FakeTensorOptions &options);

  /// Kept only while preserved explicitly.
  bool isInvalidated(const AnalysisManager::PreservedAnalyses &pa) const {
    return !pa.isPreserved<FakeTensorAnalysisCache>();
  }

private:
  ModuleOp module;
  FakeTensorOptions options;
  std::unique_ptr<FakeTensorAnalysis> analysis;
};

/// Scores candidate `c` of `op`, whose operands have placements `current`,
/// for the per-op choice rule (`selectCandidate`): PyTorch's
/// `redistribute_cost` of every tensor input that changes placements,
/// destination operands excluded.
CandidateCost scoreCandidate(Operation *op, llvm::ArrayRef<Placements> current,
                             const ShardingCandidate &c,
                             llvm::ArrayRef<int64_t> meshShape);

/// Byte size of one element of `type` (i1 counts as one byte).
int64_t getElementByteSize(Type type);

/// Byte size of a whole (global) tensor of static shape.
int64_t getTensorByteSize(RankedTensorType type);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_FAKETENSORANALYSIS_H
