//===- GlobalPlanner.cpp - whole-function strategy choice -----------------===//
//
// The planner works on the ops of a function that have sharding rules
// ("planned" ops), at the top level and inside the loops and branches it
// follows (`isTransparent`); everything else keeps its PyTorch placements.
//
// Values read by more than one op ("cut" values) split the planned ops into
// trees ("segments"): every other value has a single reader. Given a
// placement for every cut value, each segment is solved exactly by dynamic
// programming from its leaves (arguments, fixed values, cut values) to its
// root (a cut value, or a value read by fixed ops or the return). The total
// is the sum over segments, so a change of one cut value re-solves only the
// segments that produce or read it. Coordinate descent over the placements
// of cut values, started from the PyTorch plan, finds the plan; each value's
// strategy is then read back from its segment.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Analysis/GlobalPlanner.h"
#include "dtensor/Dialect/DTensor/Analysis/ExecutionCount.h"
#include "dtensor/Dialect/DTensor/Analysis/RegionEdges.h"
#include "dtensor/Dialect/DTensor/Analysis/RuleEquivalence.h"
#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/MemoryPeak.h"
#include "dtensor/Support/MinSumElimination.h"
#include "dtensor/Support/MixedIntegerProgram.h"
#include "dtensor/Support/RedistributePlan.h"
#include "dtensor/Support/ShardingMath.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"

#include <chrono>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// One way to have a value: placements, cheapest cost to produce it there
/// (everything upstream within the segment) and the producing candidate.
struct Entry {
  Placements placements;
  double cost;
  int64_t candidate;
};
using Entries = llvm::SmallVector<Entry, 4>;

/// Choice variables grouped by the placement (id) they give a value.
using PlacementTerms =
    llvm::SmallVector<std::pair<int, llvm::SmallVector<int, 4>>, 4>;

/// A buffer of the memory rows: the points it is live at, bytes that do
/// not depend on the plan, and terms `bytes * variable` that do.
struct Buffer {
  int64_t from = 0, to = 0;
  double constant = 0;
  llvm::SmallVector<std::pair<int, double>, 4> terms;
};

/// Rows `u >= sum(vars) + offset` of an indicator variable u.
using IndicatorRows =
    llvm::SmallVector<std::pair<llvm::SmallVector<int, 4>, double>, 4>;

/// The strategies of a planned op.
using CandidateList = std::vector<const ShardingCandidate *>;

/// A planned op.
struct PlannedOp {
  Operation *op;
  /// Its strategies: shared by the ops with the same rule results, PyTorch
  /// strategy and pins (`Planner::addPlannedOp`).
  const CandidateList *candidates;
  /// The op whose segment this op belongs to (its root).
  int64_t root = -1;
};

/// A placement's code, and the code of a list of them, for interning.
int64_t placementCode(const Placement &p) {
  int64_t kind = static_cast<int64_t>(p.getKind());
  int64_t arg = p.isShardLike() ? p.getDim()
                : p.isPartial() ? static_cast<int64_t>(p.getReduceOp())
                                : 0;
  int64_t sf = p.isStridedShard() ? p.getSplitFactor() : 0;
  return kind | (arg << 2) | (sf << 32);
}

class Planner {
public:
  Planner(FunctionOpInterface func, const FunctionPlan &pytorch,
          const GlobalPlannerOptions &options)
      : func(func), body(func.getFunctionBody().front()), pytorch(pytorch),
        mesh(pytorch.getMeshShape()), options(options) {}

  llvm::SmallVector<ForcedStrategies, 2> run(PlannerStats &stats);
  /// The plan of `solveUnderBudget`, if one is found.
  std::optional<ForcedStrategies> runUnderBudget(PlannerStats &stats);

private:
  bool isPlannable(Operation *op) const;
  /// An op's placements in the PyTorch plan: of each result, and each
  /// operand as read (null for a non-tensor).
  struct PyTorchStrategy {
    llvm::SmallVector<const Placements *, 2> results;
    llvm::SmallVector<const Placements *, 4> reads;
    /// The placements each operand has.
    llvm::SmallVector<const Placements *, 4> operands;
  };
  PyTorchStrategy getPyTorchStrategy(Operation *op) const;
  /// True if `c` is the strategy `s` of its op in the PyTorch plan.
  static bool isPyTorchStrategy(const PyTorchStrategy &s,
                                const ShardingCandidate &c);
  /// Adds the op's strategy in the PyTorch plan to `candidates` if they
  /// lack it, so that the PyTorch plan is in the search space; true if it
  /// was looked for (a strategy of this op alone).
  bool addPyTorchStrategy(Operation *op, const PyTorchStrategy &s,
                          CandidateList &candidates);
  /// With `conserveWork`: if `op` reduces, drops its candidates that split
  /// its work fewer ways than its strategy in the PyTorch plan.
  void keepSplitWork(Operation *op, const PyTorchStrategy &s,
                     CandidateList &candidates) const;
  /// Fills `candidates` with the strategies of `op` from its rule's `all`:
  /// with its PyTorch strategy, without those its pins (`specs`) or
  /// `conserveWork` rule out. Returns false if the list is the op's own
  /// (`addPyTorchStrategy` added to it), true if it may be shared.
  bool buildCandidateList(Operation *op,
                          const std::vector<ShardingCandidate> &all,
                          const PyTorchStrategy &strategy, ArrayAttr specs,
                          CandidateList &candidates);
  void collect();
  /// The caller's rule classes, or the planner's own.
  const RuleClasses &getRuleClasses();
  std::optional<RuleClasses> ownRuleClasses;
  /// Collects the plannable ops of `block` and of the followed region ops
  /// in it, in program order.
  void collectOps(Block &block);
  void addPlannedOp(Operation *op);
  /// The strategies the rule of `op` offers for operand placements
  /// `current` (null for a non-tensor), computed once per distinct op; null
  /// if it has no rule or its rule fails.
  const std::vector<ShardingCandidate> *
  getAllCandidates(Operation *op, llvm::ArrayRef<const Placements *> current);
  struct RuleResult {
    Operation *op;
    /// Its rule class.
    int cls;
    llvm::SmallVector<Placements, 4> current;
    std::vector<ShardingCandidate> candidates;
    bool ok;
  };
  /// Every candidate a planned op may take. The plans returned point into
  /// it (`ForcedStrategies::keepAlive`), so it outlives the planner.
  struct CandidateStore {
    /// Rule results by the hash of their op's rule class and operand
    /// placements; planned ops point to their candidates.
    llvm::DenseMap<llvm::hash_code,
                   llvm::SmallVector<std::unique_ptr<RuleResult>, 1>>
        ruleResults;
    /// Strategies added to a rule's (PyTorch's where the rule lacks it).
    std::deque<ShardingCandidate> extraCandidates;
  };
  std::shared_ptr<CandidateStore> store = std::make_shared<CandidateStore>();
  /// What a shared candidate list depends on: the rule's candidates, the
  /// pins and the codes of the PyTorch strategy's placements (-1 for a
  /// value without placements, else their number and codes).
  struct CandidateListKey {
    const void *all;
    ArrayAttr specs;
    llvm::SmallVector<int64_t, 16> codes;
    bool operator==(const CandidateListKey &o) const {
      return all == o.all && specs == o.specs && codes == o.codes;
    }
  };
  llvm::DenseMap<
      llvm::hash_code,
      llvm::SmallVector<std::pair<CandidateListKey, const CandidateList *>, 1>>
      candidateLists;
  /// The lists planned ops point to, shared or not.
  std::deque<CandidateList> candidateListStorage;
  /// True for a region op whose bodies are planned with the rest: a loop
  /// with one body or a branch, not made opaque.
  bool isTransparent(Operation *op) const;
  /// Gives every successor input of the followed region ops its source
  /// (`aliasOf`) and the other edges' reads of it; false (after making the
  /// region ops involved opaque) if some input has none.
  bool resolveRegions();
  /// The value whose placements `v` takes (itself if it is no successor
  /// input), null on a cycle.
  Value followInput(Value v, llvm::DenseSet<Value> &visiting);
  /// True if a planned op makes `v` (or the source of input `v`).
  bool isPlannedValue(Value v) const;
  void addNeed(Value v, Placements ps, int64_t position);
  void collectNeeds();
  /// The cut values and segments of the coordinate descent (`solveAll`).
  void findCutValues();
  double cost(Value v, llvm::ArrayRef<Placement> from,
              llvm::ArrayRef<Placement> to) const;
  /// Leaf entries of a value read by a segment but produced outside it.
  Entries leaf(Value v) const;
  /// Solves segment `root` for the current cut placements; fills `table`
  /// for the values it produces and returns its cost.
  double solve(int64_t root, llvm::DenseMap<Value, Entries> &table) const;
  double solveAll();
  void descend();
  /// Needs of the fixed ops and the return on a value.
  llvm::ArrayRef<Placements> sinkNeeds(Value v) const;
  void extract(ForcedStrategies &forced) const;
  /// Cost of the PyTorch plan of the planned ops, counted like segments.
  double pytorchTotal() const;
  /// The exact planner's view of one tensor value read or made by planned
  /// ops.
  struct ModelValue {
    Value value;
    int64_t bytes = 0, rank = 0;
    /// The planned op that makes it and the result number, or -1.
    int64_t producer = -1;
    unsigned result = 0;
    /// Placement id of a value made outside the planned ops, or -1.
    int fixed = -1;
    /// Moving it costs nothing (created, replicated or unknown).
    bool free = false;
    /// Times its moves run per call: the trip counts of the loops around
    /// its block.
    double weight = 1;
    /// Placement ids fixed ops and the return need.
    llvm::SmallVector<int, 2> sinks;
    /// First and last planned op (position) that read it or whose position
    /// a sink has.
    int64_t firstUse = std::numeric_limits<int64_t>::max();
    int64_t lastUse = -1;
  };
  /// Per candidate of an op, the placement ids of its tensor operands and
  /// results (-1 for a non-tensor result).
  struct CandidateIdTable {
    std::vector<llvm::SmallVector<int, 4>> operandIds, resultIds;
    bool operator==(const CandidateIdTable &o) const {
      return operandIds == o.operandIds && resultIds == o.resultIds;
    }
  };
  /// A planned op in placement ids.
  struct ModelOp {
    /// Its candidates' ids: one table per distinct content, shared.
    const CandidateIdTable *ids = nullptr;
    /// The model value and operand of each tensor operand, then of each
    /// edge operand of a region op redistributed to a successor input this
    /// op's result is the source of (`syntheticReads`).
    llvm::SmallVector<int, 4> operandValues;
    llvm::SmallVector<OpOperand *, 4> operands;
    /// The model value of each result (-1 for a non-tensor).
    llvm::SmallVector<int, 2> resultValues;
    /// Successor inputs with a result as source: (result, model value).
    llvm::SmallVector<std::pair<unsigned, int>, 1> aliases;
  };
  /// A value a segment pays the moves of.
  struct SegmentValue {
    enum Kind { Made, Boundary, Fixed } kind = Fixed;
    int value = -1;
    /// Made: the op (in the segment) and result number. Boundary: the
    /// position in the incoming state.
    int op = 0;
    unsigned result = 0;
    /// Reading (op in the segment, tensor operand index).
    llvm::SmallVector<std::pair<int, int>, 2> reads;
    /// Its sinks are paid here.
    bool sunk = false;
  };
  /// States of a cut: the placement ids of the results crossing it.
  using StateList = std::vector<llvm::SmallVector<int, 2>>;
  /// The ops [first, last] between two cuts.
  struct Segment {
    int64_t first = 0, last = 0;
    std::vector<SegmentValue> values;
    StateList inStates, outStates;
    /// The outgoing state of each candidate of the last op.
    std::vector<int> stateOfCandidate;
    /// Equal for segments with the same program.
    std::string key;
  };
  /// The cheapest plan of a segment from one incoming state to one
  /// outgoing state: cost (infinite: none found), a lower bound and the
  /// candidate of each op.
  struct PairSolution {
    double cost = kInfiniteCost;
    double bound = kInfiniteCost;
    bool proven = false;
    llvm::SmallVector<int, 8> choice;
  };

  int intern(llvm::ArrayRef<Placement> ps) const;
  /// The placement ids of a candidate's operands and results, interned
  /// when first asked for (so in the order of the first asks: the ids do
  /// not depend on the cache).
  struct CandidateIds {
    llvm::SmallVector<int, 4> operands, results;
    int operand(const Planner &p, const ShardingCandidate &c, unsigned k) {
      return get(p, operands, c.operands, k);
    }
    int result(const Planner &p, const ShardingCandidate &c, unsigned k) {
      return get(p, results, c.results, k);
    }
    static int get(const Planner &p, llvm::SmallVectorImpl<int> &ids,
                   llvm::ArrayRef<Placements> of, unsigned k) {
      if (ids.empty())
        ids.assign(of.size(), -1);
      if (ids[k] < 0)
        ids[k] = p.intern(of[k]);
      return ids[k];
    }
  };
  llvm::DenseMap<const ShardingCandidate *, CandidateIds> candidateIds;
  /// The id table of `p`'s candidates as `mo` reads them (its own tensor
  /// operands, the first `numOwn`, then the edges of `synthetic`).
  const CandidateIdTable *
  buildIdTable(const PlannedOp &p, const ModelOp &mo, size_t numOwn,
               llvm::ArrayRef<std::pair<OpOperand *, unsigned>> synthetic);
  /// The id table of each candidate list read without edges.
  llvm::DenseMap<const CandidateList *, const CandidateIdTable *> idTableOf;
  /// Every table once, by the hash of its content.
  llvm::DenseMap<llvm::hash_code,
                 llvm::SmallVector<const CandidateIdTable *, 1>>
      idTablesByHash;
  std::deque<CandidateIdTable> idTables;
  /// Cost of moving a value of `bytes` and `rank` between placement ids as
  /// the analysis will plan it (`minRedistributeCost`), memoised.
  double moveCost(int64_t bytes, int64_t rank, int from, int to) const;
  double moveCost(const ModelValue &m, int from, int to) const {
    return moveCost(m.bytes, m.rank, from, to) * m.weight;
  }
  void buildModel();
  /// Splits the planned ops at the cuts (`segmentRanges`).
  void findSegments();
  /// Drops the cuts with too many states between segments solved as 0-1
  /// programs.
  void mergeSegments();
  /// Results of `op` used after it (directly or as a successor input).
  llvm::SmallVector<unsigned, 2> crossingResults(int64_t op) const;
  /// The model values an op makes: its tensor results and the successor
  /// inputs they are the source of.
  llvm::SmallVector<int, 2> madeValues(const ModelOp &mo) const;
  /// Fills `s` (its `first` and `last` set) for incoming states `in`,
  /// reusing the capacity of what it held.
  void buildSegment(Segment &s, const StateList &in);
  /// Writes the key of `s` to `key` (cleared first).
  void writeSegmentKey(const Segment &s, std::string &key) const;
  int sourceOf(const Segment &s, const SegmentValue &sv, int in,
               llvm::ArrayRef<int> choice) const;
  /// The moves of one value of a segment for incoming state `in` and a
  /// candidate per op (only those of its producer and readers are read).
  double valueCost(const Segment &s, const SegmentValue &sv, int in,
                   llvm::ArrayRef<int> choice) const;
  /// The cost of moving value `m` from placement `from` to each distinct
  /// placement of `targets` (and its sinks if `sunk`), once each: the
  /// readers of a placement share one redistribution.
  double sharedMoves(const ModelValue &m, int from,
                     llvm::SmallVectorImpl<int> &targets, bool sunk) const;
  /// The segment's cost for incoming state `in` and a candidate per op.
  double evaluate(const Segment &s, int in, llvm::ArrayRef<int> choice);
  void enumerateSegment(const Segment &s, std::vector<PairSolution> &table);
  /// Solves the segment by variable elimination for every pair of states;
  /// false (table untouched) if its tables would be too large.
  bool eliminateSegment(const Segment &s, std::vector<PairSolution> &table);
  /// Adds the moves of `sv` to `problem` (variables 0 .. n-1: the ops,
  /// valued by their `distinct` candidates; n: the incoming state); false
  /// if too large.
  bool addValueFactor(MinSumElimination &problem, const Segment &s,
                      const SegmentValue &sv,
                      llvm::ArrayRef<llvm::SmallVector<int, 8>> distinct) const;
  void addValueMoves(MixedIntegerProgram &mip, const Segment &s,
                     const SegmentValue &sv, int in,
                     llvm::ArrayRef<llvm::SmallVector<int, 8>> x);
  /// Rows added to a segment's 0-1 program, given the variables of each
  /// op's candidates.
  using ExtraRows = llvm::function_ref<void(
      MixedIntegerProgram &, llvm::ArrayRef<llvm::SmallVector<int, 8>>)>;
  /// The segment as a 0-1 program from state `in` to state `out`.
  PairSolution solveProgram(const Segment &s, int in, int out,
                            ExtraRows extraRows = {});
  /// With `maxBytesPerRank`: the whole function as one 0-1 program whose
  /// rows also bound the bytes live at every program point; false (nothing
  /// set) where the function is outside the model or no plan is found.
  bool solveUnderBudget(ForcedStrategies &forced, PlannerStats &stats);
  /// Adds the memory rows of `solveUnderBudget`.
  void addMemoryRows(MixedIntegerProgram &mip,
                     llvm::ArrayRef<llvm::SmallVector<int, 8>> x);
  struct MemoryPoints;
  /// The buffers of the model values: each in the placements it is made
  /// and read in, its copies and their temporaries.
  void addValueBuffers(MixedIntegerProgram &mip,
                       llvm::ArrayRef<llvm::SmallVector<int, 8>> x,
                       const MemoryPoints &points,
                       std::vector<Buffer> &buffers);
  /// The temporaries of moving `v` to `q` from where it is made (`made`,
  /// or the fixed placement `fixed`), when the reads of `wanted` (or, with
  /// `always`, a fixed op or the return) want it in q.
  void addTemporaries(MixedIntegerProgram &mip, Value v, int q,
                      const PlacementTerms &made, int fixed,
                      const IndicatorRows &wanted, bool always, Buffer &b);
  /// The largest local bytes over the ranks of `v` in placement `id`.
  int64_t localBytes(Value v, int id) const;
  /// The largest bytes over the ranks of the temporaries of moving `v`
  /// from placement `from` to `to` beyond its result
  /// (`computeRedistributionBuffers`), memoised.
  int64_t copyTemporaries(Value v, int from, int to);
  std::map<std::tuple<void *, int, int>, int64_t> temporaries;
  /// The table of a segment, solved once per distinct segment.
  const std::vector<PairSolution> &solveSegment(const Segment &s);
  /// Dynamic programming over the chain of segments: fills `forced` with
  /// the optimum (returns its cost, infinite if none) and `lowerBound`.
  double solveChain(ForcedStrategies &forced, double &lowerBound);
  /// Cost of the PyTorch plan in the exact planner's model.
  double pytorchModelCost();
  /// The most regions of branches around one planned op (the product over
  /// nested branches; 1 without branches). The objective, summing over a
  /// branch's regions, is at most this times the dearest-region cost.
  int64_t branchFactor();

  FunctionOpInterface func;
  Block &body;
  const FunctionPlan &pytorch;
  llvm::ArrayRef<int64_t> mesh;

  std::vector<PlannedOp> ops;
  llvm::DenseMap<Operation *, int64_t> index;
  /// Cut values and their current placements.
  llvm::MapVector<Value, Placements> cut;
  /// Candidate placements of each cut value.
  llvm::DenseMap<Value, llvm::SmallVector<Placements, 4>> domain;
  /// Ops of each segment (program order), by root.
  llvm::MapVector<int64_t, llvm::SmallVector<int64_t, 8>> segments;
  /// Segments reading each cut value.
  llvm::DenseMap<Value, llvm::SmallSetVector<int64_t, 4>> readers;
  llvm::DenseMap<int64_t, double> segmentCost;
  /// What fixed ops and the return need of values produced by planned ops
  /// (an empty list: any placement will do).
  llvm::MapVector<Value, llvm::SmallVector<Placements, 2>> needs;
  const GlobalPlannerOptions &options;

  // Control flow.
  /// Region ops planned through, in program order, and those whose bodies
  /// keep PyTorch's plan.
  llvm::SmallVector<Operation *, 4> transparent;
  llvm::DenseSet<Operation *> opaque;
  /// The edges reaching each successor input of the transparent ops (and
  /// their op).
  llvm::MapVector<Value, std::pair<Operation *, llvm::SmallVector<OpOperand *, 2>>>
      inputEdges;
  /// The value whose placements each successor input takes.
  llvm::DenseMap<Value, Value> aliasOf;
  /// Per planned op: edge operands redistributed to one of its results.
  llvm::DenseMap<int64_t, llvm::SmallVector<std::pair<OpOperand *, unsigned>, 1>>
      syntheticReads;
  /// Edge operands redistributed to an input whose source is not planned.
  llvm::SmallVector<std::pair<OpOperand *, Placements>, 2> fixedTargets;

  // The exact planner.
  std::vector<ModelValue> model;
  std::vector<ModelOp> modelOps;
  /// Position of the last fixed op (or return) needing each value.
  llvm::DenseMap<Value, int64_t> sinkPosition;
  std::vector<std::pair<int64_t, int64_t>> segmentRanges;
  mutable std::vector<Placements> placementTable;
  mutable llvm::StringMap<int> placementIds;
  mutable std::map<std::tuple<int64_t, int64_t, int, int>, double> moveCosts;
  llvm::StringMap<std::vector<PairSolution>> memo;
  int64_t distinctSegments = 0;
  /// Wall time spent in 0-1 programs so far.
  double solverSeconds = 0;
};

} // namespace

bool Planner::isPlannable(Operation *op) const {
  if (op->hasTrait<OpTrait::ReturnLike>() || isa<CallOpInterface>(op) ||
      isa<RegionBranchOpInterface>(op) || isa<DTensorDialect>(op->getDialect()))
    return false;
  // Created values (constants, empty tensors, fills of them) cost nothing
  // to have anywhere: R -> anything is free, and they are built in the
  // placements their users need. Leave them out of the search.
  if (op->getNumResults() == 1 && isCreatedValue(op->getResult(0)))
    return false;
  return llvm::any_of(op->getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

namespace {
/// True if the operands of `c` read as inputs (not inits) are partial on
/// mesh axis `axis`.
bool hasPartialInput(const ShardingCandidate &c, size_t axis) {
  for (auto [i, ps] : llvm::enumerate(c.operands))
    if (!c.excludedFromCost[i] && axis < ps.size() && ps[axis].isPartial())
      return true;
  return false;
}

/// The first tensor result's placements of a candidate (empty if none).
llvm::ArrayRef<Placement> firstTensorResult(Operation *op,
                                            const ShardingCandidate &c) {
  for (auto [r, ps] : llvm::zip(op->getResults(), c.results))
    if (isa<RankedTensorType>(r.getType()))
      return ps;
  return {};
}

/// How many ways a strategy splits an op's work: the product of the sizes
/// of the mesh axes on which its first tensor result is sharded, or partial
/// from inputs that are not (a sharded reduction loop: each rank reduces a
/// part). Passing partial inputs through does not split the work: every
/// rank computes the whole op on its part of the sum.
int64_t splitWays(Operation *op, const ShardingCandidate &c,
                  llvm::ArrayRef<int64_t> mesh) {
  int64_t ways = 1;
  for (auto [axis, p] : llvm::enumerate(firstTensorResult(op, c)))
    if (p.isShardLike() || (p.isPartial() && !hasPartialInput(c, axis)))
      ways *= mesh[axis];
  return ways;
}

/// True if some strategy reduces over a sharded loop (a partial result from
/// inputs that are not partial): the op is a contraction or a reduction,
/// whose work exceeds its result's size.
bool hasReductionStrategy(
    Operation *op, llvm::ArrayRef<const ShardingCandidate *> candidates) {
  for (const ShardingCandidate *c : candidates)
    for (auto [axis, p] : llvm::enumerate(firstTensorResult(op, *c)))
      if (p.isPartial() && !hasPartialInput(*c, axis))
        return true;
  return false;
}
} // namespace

Planner::PyTorchStrategy Planner::getPyTorchStrategy(Operation *op) const {
  PyTorchStrategy s;
  for (Value r : op->getResults()) {
    const FakeTensor *t = pytorch.lookup(r);
    s.results.push_back(t ? &t->placements : nullptr);
  }
  for (OpOperand &o : op->getOpOperands()) {
    const FakeTensor *t = pytorch.lookup(o.get());
    const Placements *req = t ? pytorch.getRequiredPlacements(o) : nullptr;
    s.operands.push_back(t ? &t->placements : nullptr);
    s.reads.push_back(req ? req : s.operands.back());
  }
  return s;
}

bool Planner::isPyTorchStrategy(const PyTorchStrategy &s,
                                const ShardingCandidate &c) {
  for (auto [ps, want] : llvm::zip(c.results, s.results))
    if (want && !llvm::equal(*want, ps))
      return false;
  for (auto [i, read] : llvm::enumerate(s.reads))
    if (read && !c.excludedFromCost[i] && !llvm::equal(*read, c.operands[i]))
      return false;
  return true;
}

bool Planner::addPyTorchStrategy(Operation *op, const PyTorchStrategy &s,
                                 CandidateList &candidates) {
  if (llvm::any_of(candidates, [&](const ShardingCandidate *c) {
        return isPyTorchStrategy(s, *c);
      }))
    return false;
  // A strategy the exhaustive list lacks (a P(avg) passed through, one
  // offered only for the placements the operands have): without it the
  // planner's optimum could be above PyTorch's plan.
  FailureOr<StrategyChoice> choice = pytorch.getStrategyChoice(op);
  if (succeeded(choice) && choice->chosen >= 0)
    candidates.push_back(&store->extraCandidates.emplace_back(
        std::move(choice->candidates[choice->chosen].candidate)));
  return true;
}

void Planner::keepSplitWork(Operation *op, const PyTorchStrategy &s,
                            CandidateList &candidates) const {
  if (!hasReductionStrategy(op, candidates))
    return;
  // The ways of PyTorch's strategy (`addPyTorchStrategy` made sure the
  // list has it).
  int64_t ways = 0;
  for (const ShardingCandidate *c : candidates)
    if (isPyTorchStrategy(s, *c))
      ways = std::max(ways, splitWays(op, *c, mesh));
  // A rule that does not list PyTorch's strategy constrains nothing.
  if (ways == 0)
    return;
  llvm::erase_if(candidates, [&](const ShardingCandidate *c) {
    return splitWays(op, *c, mesh) < ways;
  });
}

double Planner::cost(Value v, llvm::ArrayRef<Placement> from,
                     llvm::ArrayRef<Placement> to) const {
  if (from == to)
    return 0;
  auto type = cast<RankedTensorType>(v.getType());
  return moveCost(getTensorByteSize(type), type.getRank(), intern(from),
                  intern(to));
}

void Planner::collect() {
  // At most one planned op per op of the body.
  index.reserve(body.getOperations().size());
  // A region op whose loop-carried values cannot be followed keeps
  // PyTorch's plan inside: collect again with its body left out.
  do {
    ops.clear();
    index.clear();
    transparent.clear();
    aliasOf.clear();
    syntheticReads.clear();
    fixedTargets.clear();
    collectOps(body);
  } while (!resolveRegions());
  collectNeeds();
}

const RuleClasses &Planner::getRuleClasses() {
  if (options.ruleClasses)
    return *options.ruleClasses;
  if (!ownRuleClasses)
    ownRuleClasses.emplace(func.getFunctionBody());
  return *ownRuleClasses;
}

void Planner::addPlannedOp(Operation *op) {
  PyTorchStrategy strategy = getPyTorchStrategy(op);
  const std::vector<ShardingCandidate> *all =
      getAllCandidates(op, strategy.operands);
  if (!all || all->empty())
    return;
  auto specs = op->getAttrOfType<ArrayAttr>(DTensorDialect::kSpecsAttrName);
  // The list depends on the op only through `all` (equivalent ops), its
  // PyTorch strategy and its pins: a long program repeats a few.
  CandidateListKey key{all, specs, {}};
  auto encode = [&](llvm::ArrayRef<const Placements *> list) {
    for (const Placements *ps : list) {
      key.codes.push_back(ps ? static_cast<int64_t>(ps->size()) : -1);
      if (ps)
        for (const Placement &p : *ps)
          key.codes.push_back(placementCode(p));
    }
  };
  encode(strategy.results);
  encode(strategy.reads);
  llvm::hash_code hash = llvm::hash_combine(
      all, specs.getAsOpaquePointer(),
      llvm::hash_combine_range(key.codes.begin(), key.codes.end()));
  auto &bucket = candidateLists[hash];
  auto known = llvm::find_if(
      bucket, [&](const auto &entry) { return entry.first == key; });
  const CandidateList *list;
  if (known != bucket.end()) {
    list = known->second;
  } else {
    CandidateList &built = candidateListStorage.emplace_back();
    // An op whose rule lacks its PyTorch strategy gets its own copy of it:
    // its list is not shared.
    if (buildCandidateList(op, *all, strategy, specs, built))
      bucket.push_back({std::move(key), &built});
    list = &built;
  }
  if (list->empty())
    return;
  index[op] = ops.size();
  ops.push_back({op, list, -1});
}

bool Planner::buildCandidateList(Operation *op,
                                 const std::vector<ShardingCandidate> &all,
                                 const PyTorchStrategy &strategy,
                                 ArrayAttr specs, CandidateList &candidates) {
  candidates.reserve(all.size() + 1);
  for (const ShardingCandidate &c : all)
    candidates.push_back(&c);
  bool shared = !addPyTorchStrategy(op, strategy, candidates);
  // An op pinned by `dtensor.specs` keeps its result placements.
  if (specs) {
    llvm::erase_if(candidates, [&](const ShardingCandidate *c) {
      for (auto [attr, ps] : llvm::zip(specs, c->results))
        if (auto spec = dyn_cast<SpecAttr>(attr))
          if (!llvm::equal(spec.getPlacements(), ps))
            return true;
      return false;
    });
    if (candidates.empty())
      return shared;
  }
  if (options.conserveWork)
    keepSplitWork(op, strategy, candidates);
  return shared;
}

const std::vector<ShardingCandidate> *
Planner::getAllCandidates(Operation *op,
                          llvm::ArrayRef<const Placements *> current) {
  // A long program repeats a few ops (its layers): their rules run once.
  // An op without a rule has no class (planned ops have a tensor result).
  int cls = getRuleClasses().lookup(op);
  if (cls < 0)
    return nullptr;
  llvm::hash_code hash = llvm::hash_value(cls);
  for (const Placements *ps : current) {
    llvm::ArrayRef<Placement> list;
    if (ps)
      list = *ps;
    hash = llvm::hash_combine(
        hash, llvm::hash_combine_range(list.begin(), list.end()));
  }
  auto sameCurrent = [&](llvm::ArrayRef<Placements> known) {
    return llvm::equal(known, current,
                       [](const Placements &k, const Placements *ps) {
                         return ps ? k == *ps : k.empty();
                       });
  };
  auto &bucket = store->ruleResults[hash];
  for (const std::unique_ptr<RuleResult> &r : bucket)
    if (r->cls == cls && sameCurrent(r->current))
      return r->ok ? &r->candidates : nullptr;
  RuleResult &r = *bucket.emplace_back(std::make_unique<RuleResult>());
  r.op = op;
  r.cls = cls;
  for (const Placements *ps : current)
    r.current.push_back(ps ? *ps : Placements());
  llvm::SmallVector<ShardingCandidate, 4> all;
  auto rule = dyn_cast<ShardingRuleOpInterface>(op);
  r.ok = rule && succeeded(rule.getAllShardingCandidates(mesh, r.current, all));
  r.candidates.assign(std::make_move_iterator(all.begin()),
                      std::make_move_iterator(all.end()));
  return r.ok ? &r.candidates : nullptr;
}

bool Planner::isTransparent(Operation *op) const {
  auto branch = dyn_cast<RegionBranchOpInterface>(op);
  if (!branch || isa<ShardingRuleOpInterface>(op) || opaque.contains(op))
    return false;
  // Loops with one body (scf.for) and branches (scf.if, scf.index_switch):
  // the shapes whose successor inputs `resolveRegions` follows.
  ScopeKind kind = getScopeKind(op);
  if (kind == ScopeKind::Plain ||
      (kind == ScopeKind::Loop && op->getNumRegions() != 1))
    return false;
  for (Region &region : op->getRegions())
    if (!region.empty() && !region.hasOneBlock())
      return false;
  FailureOr<llvm::SmallVector<RegionEdge>> edges = getRegionEdges(branch);
  if (failed(edges))
    return false;
  // A branch forwards nothing into its regions.
  return kind == ScopeKind::Loop || llvm::none_of(*edges, [](auto &e) {
           return !e.from && !e.operands.empty();
         });
}

void Planner::collectOps(Block &block) {
  for (Operation &op : block) {
    if (isTransparent(&op)) {
      transparent.push_back(&op);
      for (Region &region : op.getRegions())
        for (Block &b : region)
          collectOps(b);
      continue;
    }
    if (isPlannable(&op))
      addPlannedOp(&op);
  }
}

Value Planner::followInput(Value v, llvm::DenseSet<Value> &visiting) {
  auto edgesIt = inputEdges.find(v);
  if (edgesIt == inputEdges.end())
    return v; // not a successor input: the value itself
  Operation *owner = edgesIt->second.first;
  llvm::ArrayRef<OpOperand *> edges = edgesIt->second.second;
  if (auto it = aliasOf.find(v); it != aliasOf.end())
    return it->second;
  if (!visiting.insert(v).second)
    return Value(); // a cycle of inputs (swapped loop-carried values)
  // The analysis gives an input the placements of the first terminator that
  // forwards something else to it (a loop's yield, the first branch), else
  // those of the entry operand; every other edge is redistributed to it.
  OpOperand *defining = nullptr;
  for (bool fromTerminator : {true, false})
    for (OpOperand *o : edges)
      if (!defining && o->get() != v &&
          (o->getOwner() != owner) == fromTerminator)
        defining = o;
  Value source = defining ? followInput(defining->get(), visiting) : Value();
  if (!source)
    return Value();
  aliasOf[v] = source;
  Operation *def = source.getDefiningOp();
  auto producer = def ? index.find(def) : index.end();
  for (OpOperand *o : edges) {
    if (o == defining || o->get() == v)
      continue;
    if (producer != index.end())
      syntheticReads[producer->second].push_back(
          {o, cast<OpResult>(source).getResultNumber()});
    else if (const FakeTensor *t = pytorch.lookup(source))
      fixedTargets.push_back({o, t->placements});
  }
  return source;
}

bool Planner::resolveRegions() {
  inputEdges.clear();
  for (Operation *op : transparent) {
    FailureOr<llvm::SmallVector<RegionEdge>> edges =
        getRegionEdges(cast<RegionBranchOpInterface>(op));
    for (const RegionEdge &e : *edges)
      for (auto [o, in] : llvm::zip_equal(e.operands, e.inputs))
        if (isa<RankedTensorType>(in.getType())) {
          auto &list = inputEdges[in];
          list.first = op;
          list.second.push_back(o);
        }
  }
  bool resolved = true;
  for (auto &[in, edges] : inputEdges) {
    llvm::DenseSet<Value> visiting;
    if (!followInput(in, visiting)) {
      opaque.insert(edges.first);
      resolved = false;
    }
  }
  return resolved;
}

bool Planner::isPlannedValue(Value v) const {
  // Scalars first: most operands of the ops left out are.
  if (!isa<RankedTensorType>(v.getType()))
    return false;
  if (auto it = aliasOf.find(v); it != aliasOf.end())
    v = it->second;
  Operation *def = v.getDefiningOp();
  return def && index.count(def) && isa<RankedTensorType>(v.getType());
}

void Planner::addNeed(Value v, Placements ps, int64_t position) {
  needs[v].push_back(std::move(ps));
  sinkPosition[v] = std::max(sinkPosition.lookup(v), position);
}

void Planner::collectNeeds() {
  // What fixed ops (and everything nested in them) and the return need,
  // and where they are: after the last planned op before them. The
  // terminators of followed region ops need nothing: their operands are
  // the successor inputs' sources or reads of them.
  llvm::DenseMap<OpOperand *, Placements> edgeTargets(fixedTargets.begin(),
                                                      fixedTargets.end());
  // This walk meets the planned ops in the order `collectOps` listed them.
  int64_t position = -1;
  int64_t numOps = ops.size();
  std::function<void(Block &)> visit = [&](Block &block) {
    for (Operation &op : block) {
      if (position + 1 < numOps && ops[position + 1].op == &op) {
        ++position;
        continue;
      }
      if (llvm::is_contained(transparent, &op)) {
        for (Region &region : op.getRegions())
          for (Block &b : region)
            visit(b);
        // Edges (the op's operands, its terminators') whose input has a
        // fixed source: moved to its placements.
        auto addEdgeNeeds = [&](Operation *owner) {
          for (OpOperand &o : owner->getOpOperands())
            if (auto it = edgeTargets.find(&o);
                it != edgeTargets.end() && isPlannedValue(o.get()))
              addNeed(o.get(), it->second, position);
        };
        addEdgeNeeds(&op);
        for (Region &region : op.getRegions())
          for (Block &b : region)
            addEdgeNeeds(b.getTerminator());
        continue;
      }
      if (isa<RegionBranchTerminatorOpInterface>(op) &&
          llvm::is_contained(transparent, op.getParentOp()))
        continue;
      op.walk([&](Operation *inner) {
        for (OpOperand &o : inner->getOpOperands()) {
          Value v = o.get();
          if (!isPlannedValue(v))
            continue;
          if (inner->hasTrait<OpTrait::ReturnLike>() &&
              inner->getParentOp() == func.getOperation()) {
            auto spec = func.getResultAttrOfType<SpecAttr>(
                o.getOperandNumber(), DTensorDialect::kSpecAttrName);
            auto &n = needs[v];
            if (spec)
              n.push_back(Placements(spec.getPlacements().begin(),
                                     spec.getPlacements().end()));
            sinkPosition[v] = std::max(sinkPosition.lookup(v), position);
            continue;
          }
          const Placements *req = pytorch.getRequiredPlacements(o);
          addNeed(v, req ? *req : pytorch.lookup(v)->placements, position);
        }
      });
    }
  };
  visit(body);
}

void Planner::findCutValues() {
  // Cut values: produced by a planned op and read by several planned ops
  // (created values are free everywhere and never cut).
  for (int64_t i = static_cast<int64_t>(ops.size()) - 1; i >= 0; --i) {
    Operation *op = ops[i].op;
    Value r = op->getResult(0);
    int64_t plannedUsers = 0;
    int64_t user = -1;
    for (Operation *u : r.getUsers()) {
      auto it = index.find(u);
      if (it == index.end())
        continue;
      if (user != it->second)
        ++plannedUsers;
      user = it->second;
    }
    bool isCut =
        op->getNumResults() == 1 && plannedUsers > 1 && !isCreatedValue(r);
    if (isCut) {
      cut[r] = pytorch.lookup(r)->placements;
      auto &dom = domain[r];
      for (const ShardingCandidate *c : *ops[i].candidates)
        if (!llvm::is_contained(dom, c->results[0]))
          dom.push_back(c->results[0]);
    }
    // A segment ends at a cut value, at a value that fixed ops read, at an
    // op with several results, or where the single reader is not planned.
    bool root = isCut || plannedUsers != 1 || op->getNumResults() != 1 ||
                needs.count(r) || isCreatedValue(r);
    ops[i].root = root ? i : ops[user].root;
  }
  for (auto [i, p] : llvm::enumerate(ops))
    segments[p.root].push_back(i);
  for (auto &[root, members] : segments)
    for (int64_t i : members)
      for (Value v : ops[i].op->getOperands())
        if (cut.count(v) && ops[index[v.getDefiningOp()]].root != root)
          readers[v].insert(root);
}

Entries Planner::leaf(Value v) const {
  auto it = cut.find(v);
  if (it != cut.end())
    return {{it->second, 0.0, -1}};
  if (const FakeTensor *t = pytorch.lookup(v))
    return {{t->placements, 0.0, -1}};
  return {};
}

llvm::ArrayRef<Placements> Planner::sinkNeeds(Value v) const {
  auto it = needs.find(v);
  if (it == needs.end())
    return {};
  return it->second;
}

double Planner::solve(int64_t root,
                      llvm::DenseMap<Value, Entries> &table) const {
  for (int64_t i : segments.find(root)->second) {
    const PlannedOp &p = ops[i];
    // Entries and sizes of the operands, fetched once for all candidates.
    llvm::SmallVector<Entries, 4> operandEntries;
    llvm::SmallVector<int64_t, 4> operandBytes, operandRanks;
    for (Value v : p.op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type) {
        operandEntries.emplace_back();
        operandBytes.push_back(0);
        operandRanks.push_back(0);
        continue;
      }
      auto it = table.find(v);
      operandEntries.push_back(it != table.end() ? it->second : leaf(v));
      operandBytes.push_back(getTensorByteSize(type));
      operandRanks.push_back(type.getRank());
    }
    for (auto [ci, candidate] : llvm::enumerate(*p.candidates)) {
      const ShardingCandidate &c = *candidate;
      double total = 0;
      for (auto [oi, v] : llvm::enumerate(p.op->getOperands())) {
        if (!operandBytes[oi])
          continue;
        double best = kInfiniteCost;
        for (const Entry &e : operandEntries[oi]) {
          double move = e.placements == c.operands[oi]
                            ? 0.0
                            : moveCost(operandBytes[oi], operandRanks[oi],
                                       intern(e.placements),
                                       intern(c.operands[oi]));
          best = std::min(best, e.cost + move);
        }
        total += best;
      }
      for (auto [r, ps] : llvm::zip_equal(p.op->getResults(), c.results)) {
        if (!isa<RankedTensorType>(r.getType()))
          continue;
        Entries &es = table[r];
        auto e = llvm::find_if(
            es, [&](const Entry &x) { return x.placements == ps; });
        if (e == es.end())
          es.push_back({ps, total, static_cast<int64_t>(ci)});
        else if (total < e->cost)
          *e = {ps, total, static_cast<int64_t>(ci)};
      }
    }
  }
  // The root's value goes to its cut placement, or to what its readers need.
  double best = kInfiniteCost;
  for (Value r : ops[root].op->getResults()) {
    if (!isa<RankedTensorType>(r.getType()))
      continue;
    auto c = cut.find(r);
    double rbest = kInfiniteCost;
    for (const Entry &e : table[r]) {
      double total = e.cost;
      if (c != cut.end())
        total += cost(r, e.placements, c->second);
      else
        for (const Placements &n : sinkNeeds(r))
          total += cost(r, e.placements, n);
      rbest = std::min(rbest, total);
    }
    // Several results share the op's cost: count it once.
    best = std::isinf(best) ? rbest : std::max(best, rbest);
  }
  return best;
}

double Planner::solveAll() {
  double total = 0;
  for (auto &[root, members] : segments) {
    llvm::DenseMap<Value, Entries> table;
    double c = solve(root, table);
    segmentCost[root] = c;
    total += c;
  }
  return total;
}

void Planner::descend() {
  constexpr int kMaxPasses = 4;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    bool improved = false;
    for (auto &[v, placement] : cut) {
      int64_t producer = ops[index[v.getDefiningOp()]].root;
      // The producing segment ends at v: solve it once and read the cost of
      // every placement of v off its table.
      llvm::DenseMap<Value, Entries> producerTable;
      solve(producer, producerTable);
      const Entries &made = producerTable[v];
      auto produce = [&](ArrayRef<Placement> p) {
        double best = kInfiniteCost;
        for (const Entry &e : made)
          best = std::min(best, e.cost + cost(v, e.placements, p));
        return best;
      };
      // Readers depend on v's placement: solve them for each candidate.
      auto read = [&]() {
        double total = 0;
        for (int64_t r : readers[v]) {
          llvm::DenseMap<Value, Entries> table;
          total += solve(r, table);
        }
        return total;
      };
      double before = segmentCost[producer];
      for (int64_t r : readers[v])
        before += segmentCost[r];
      Placements bestPlacement = placement;
      double best = before;
      for (const Placements &p : domain[v]) {
        if (p == bestPlacement)
          continue;
        double c = produce(p);
        if (c >= best - 1e-9)
          continue; // readers cost at least 0
        placement = p;
        c += read();
        if (c < best - 1e-9) {
          best = c;
          bestPlacement = p;
        }
      }
      placement = bestPlacement;
      if (best < before - 1e-9) {
        improved = true;
        segmentCost[producer] = produce(placement);
        for (int64_t r : readers[v]) {
          llvm::DenseMap<Value, Entries> table;
          segmentCost[r] = solve(r, table);
        }
      }
    }
    if (!improved)
      break;
  }
}

void Planner::extract(ForcedStrategies &forced) const {
  forced.keepAlive(store);
  for (const auto &[root, members] : segments) {
    llvm::DenseMap<Value, Entries> table;
    solve(root, table);
    // What each value of the segment must become, from the root down.
    llvm::DenseMap<Value, Placements> want;
    for (int64_t i : llvm::reverse(members)) {
      const PlannedOp &p = ops[i];
      Value r = p.op->getResult(0);
      const Entry *best = nullptr;
      double bestCost = kInfiniteCost;
      for (const Entry &e : table[r]) {
        double c = e.cost;
        if (i == root) {
          if (auto it = cut.find(r); it != cut.end())
            c += cost(r, e.placements, it->second);
          else
            for (const Placements &n : sinkNeeds(r))
              c += cost(r, e.placements, n);
        } else if (auto it = want.find(r); it != want.end()) {
          c += cost(r, e.placements, it->second);
        }
        if (!best || c < bestCost) {
          best = &e;
          bestCost = c;
        }
      }
      if (!best || best->candidate < 0)
        continue;
      const ShardingCandidate &c = *(*p.candidates)[best->candidate];
      forced.set(p.op, &c);
      for (auto [oi, v] : llvm::enumerate(p.op->getOperands()))
        if (isa<RankedTensorType>(v.getType()) && table.count(v))
          want[v] = c.operands[oi];
    }
  }
}

double Planner::pytorchTotal() const {
  double total = 0;
  for (const PlannedOp &p : ops)
    for (OpOperand &o : p.op->getOpOperands()) {
      const FakeTensor *t = pytorch.lookup(o.get());
      if (!t)
        continue;
      if (const Placements *req = pytorch.getRequiredPlacements(o))
        total += cost(o.get(), t->placements, *req);
    }
  // What fixed ops and the return need of planned values.
  for (const auto &[v, ns] : needs)
    for (const Placements &n : ns)
      total += cost(v, pytorch.lookup(v)->placements, n);
  return total;
}

//===----------------------------------------------------------------------===//
// The exact planner
//===----------------------------------------------------------------------===//
//
// The 0-1 program of a function (one binary per op and candidate; per value
// and placement q a reader needs, one redistribution to q shared by its
// readers) decomposes at "cuts": program points where every value made
// before the point and used after it is a result of the op just before it
// (an MLP layer's activation, a Block stack's residual stream), and no
// argument that must move is read on both sides. The state of a cut is the
// placements of those results. Each segment between two cuts is solved for
// every pair of states (by enumeration when small, else as a 0-1 program
// with COIN-OR CBC), identical segments (same candidates, sizes and wiring)
// once, and dynamic programming over the chain of segments gives the
// optimum of the whole program.

namespace {
/// Appends `x` to a memo key.
void appendKey(std::string &key, int64_t x) {
  key.append(reinterpret_cast<const char *>(&x), sizeof(x));
}
} // namespace

int Planner::intern(llvm::ArrayRef<Placement> ps) const {
  // Called for every operand and result of every candidate: no allocation.
  llvm::SmallString<64> key;
  for (const Placement &p : ps) {
    int64_t code = placementCode(p);
    key.append(reinterpret_cast<const char *>(&code),
               reinterpret_cast<const char *>(&code) + sizeof(code));
  }
  auto [it, inserted] = placementIds.try_emplace(key, placementTable.size());
  if (inserted)
    placementTable.emplace_back(ps.begin(), ps.end());
  return it->second;
}

double Planner::moveCost(int64_t bytes, int64_t rank, int from,
                         int to) const {
  if (from == to)
    return 0;
  auto [it, inserted] = moveCosts.try_emplace({bytes, rank, from, to}, 0.0);
  if (inserted)
    it->second = minRedistributeCost(placementTable[from], placementTable[to],
                                     mesh, bytes, rank);
  return it->second;
}

void Planner::buildModel() {
  // About one value made and two read per planned op.
  llvm::DenseMap<Value, int> valueIds(4 * ops.size());
  model.reserve(2 * ops.size());
  llvm::DenseMap<Block *, double> blockWeights;
  auto valueOf = [&](Value v) {
    auto [it, inserted] = valueIds.try_emplace(v, model.size());
    if (!inserted)
      return it->second;
    ModelValue &m = model.emplace_back();
    m.value = v;
    auto type = cast<RankedTensorType>(v.getType());
    m.bytes = getTensorByteSize(type);
    m.rank = type.getRank();
    auto [weight, fresh] = blockWeights.try_emplace(v.getParentBlock(), 1.0);
    if (fresh)
      weight->second = static_cast<double>(getExecutionCount(
          getExecutionScopes(v.getParentBlock(), func.getOperation())));
    m.weight = weight->second;
    // A successor input has the placements of its source.
    Value source = aliasOf.lookup(v);
    if (!source)
      source = v;
    Operation *def = source.getDefiningOp();
    auto producer = def ? index.find(def) : index.end();
    if (producer != index.end()) {
      m.producer = producer->second;
      m.result = cast<OpResult>(source).getResultNumber();
      if (source != v)
        modelOps[m.producer].aliases.push_back(
            {m.result, static_cast<int>(model.size() - 1)});
    } else if (const FakeTensor *t = pytorch.lookup(source);
               t && !isCreatedValue(source)) {
      m.fixed = intern(t->placements);
      m.free = llvm::all_of(t->placements,
                            [](Placement p) { return p.isReplicate(); });
    } else {
      m.free = true;
    }
    if (auto it = needs.find(v); it != needs.end()) {
      for (const Placements &n : it->second)
        m.sinks.push_back(intern(n));
      m.lastUse = sinkPosition.lookup(v);
    }
    return it->second;
  };
  modelOps.resize(ops.size());
  for (auto [i, p] : llvm::enumerate(ops)) {
    ModelOp &mo = modelOps[i];
    auto addRead = [&](OpOperand &o) {
      int v = valueOf(o.get());
      mo.operandValues.push_back(v);
      mo.operands.push_back(&o);
      model[v].firstUse = std::min<int64_t>(model[v].firstUse, i);
      model[v].lastUse = std::max<int64_t>(model[v].lastUse, i);
    };
    for (OpOperand &o : p.op->getOpOperands())
      if (isa<RankedTensorType>(o.get().getType()))
        addRead(o);
    size_t numOwn = mo.operands.size();
    auto syntheticIt = syntheticReads.find(i);
    llvm::ArrayRef<std::pair<OpOperand *, unsigned>> synthetic;
    if (syntheticIt != syntheticReads.end())
      synthetic = syntheticIt->second;
    for (auto [o, r] : synthetic)
      addRead(*o);
    for (OpResult r : p.op->getResults())
      mo.resultValues.push_back(
          isa<RankedTensorType>(r.getType()) ? valueOf(r) : -1);
    // Ops with the same list (equivalent ops) read the same operand
    // numbers: their table is built once, unless edges add reads.
    const CandidateIdTable *own = nullptr;
    const CandidateIdTable *&table =
        synthetic.empty() ? idTableOf[p.candidates] : own;
    if (!table)
      table = buildIdTable(p, mo, numOwn, synthetic);
    mo.ids = table;
  }
  // Successor inputs only fixed ops read (a loop's result returned).
  for (auto &[v, ns] : needs)
    if (aliasOf.count(v))
      (void)valueOf(v);
}

const Planner::CandidateIdTable *Planner::buildIdTable(
    const PlannedOp &p, const ModelOp &mo, size_t numOwn,
    llvm::ArrayRef<std::pair<OpOperand *, unsigned>> synthetic) {
  CandidateIdTable table;
  table.operandIds.reserve(p.candidates->size());
  table.resultIds.reserve(p.candidates->size());
  for (const ShardingCandidate *c : *p.candidates) {
    CandidateIds &ids = candidateIds[c];
    auto &operands = table.operandIds.emplace_back();
    for (OpOperand *o : llvm::ArrayRef(mo.operands).take_front(numOwn))
      operands.push_back(ids.operand(*this, *c, o->getOperandNumber()));
    // An edge operand is read in the placements of the result it reaches.
    for (auto [o, r] : synthetic)
      operands.push_back(ids.result(*this, *c, r));
    auto &results = table.resultIds.emplace_back();
    for (auto [r, v] : llvm::enumerate(mo.resultValues))
      results.push_back(v < 0 ? -1 : ids.result(*this, *c, r));
  }
  // One table per content: segment keys compare tables by address.
  llvm::hash_code hash = llvm::hash_value(table.operandIds.size());
  for (const auto &ids : llvm::concat<const llvm::SmallVector<int, 4>>(
           table.operandIds, table.resultIds))
    hash = llvm::hash_combine(hash, ids.size(),
                              llvm::hash_combine_range(ids.begin(), ids.end()));
  auto &bucket = idTablesByHash[hash];
  for (const CandidateIdTable *known : bucket)
    if (*known == table)
      return known;
  return bucket.emplace_back(&idTables.emplace_back(std::move(table)));
}

void Planner::findSegments() {
  // cover[i] > 0: some value crossing the point after op i is not a result
  // of op i, or an argument that must move is read on both sides.
  int64_t n = ops.size();
  std::vector<int64_t> cover(n + 1, 0);
  auto span = [&](int64_t from, int64_t to) {
    if (from < to) {
      ++cover[from];
      --cover[to];
    }
  };
  for (const ModelValue &m : model) {
    if (m.producer >= 0) {
      // A loop-carried value is read before the op that makes it (the
      // yield's producer): no cut between.
      if (m.firstUse < m.producer)
        span(m.firstUse, m.producer);
      span(m.producer + 1, m.lastUse);
    } else if (!m.free)
      span(m.firstUse, m.lastUse);
  }
  int64_t open = 0, start = 0;
  for (int64_t i = 0; i < n; ++i) {
    open += cover[i];
    if (open == 0 || i == n - 1) {
      segmentRanges.push_back({start, i});
      start = i + 1;
    }
  }
  mergeSegments();
}

void Planner::mergeSegments() {
  // A segment solved as 0-1 programs is solved once per pair of states:
  // a cut with many states between such segments is dropped (its two
  // segments become one program) unless both sides are enumerated.
  auto numStates = [&](int64_t op) {
    llvm::SmallVector<unsigned, 2> crossing = crossingResults(op);
    std::set<llvm::SmallVector<int, 2>> states;
    for (const auto &ids : modelOps[op].ids->resultIds) {
      llvm::SmallVector<int, 2> state;
      for (unsigned r : crossing)
        state.push_back(ids[r]);
      states.insert(state);
    }
    return static_cast<int64_t>(states.size());
  };
  auto enumerated = [&](std::pair<int64_t, int64_t> range) {
    double combinations = 1;
    for (int64_t i = range.first; i <= range.second; ++i)
      combinations *= modelOps[i].ids->operandIds.size();
    return combinations <= options.enumerationLimit;
  };
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (std::pair<int64_t, int64_t> range : segmentRanges) {
    if (!merged.empty()) {
      std::pair<int64_t, int64_t> &prev = merged.back();
      bool cheap = enumerated(prev) && enumerated(range);
      if (!cheap && numStates(prev.second) > options.maxCutStates) {
        prev.second = range.second;
        continue;
      }
    }
    merged.push_back(range);
  }
  segmentRanges = std::move(merged);
}

void Planner::buildSegment(Segment &s, const StateList &in) {
  s.inStates = in;
  s.values.clear();
  s.outStates.clear();
  s.stateOfCandidate.clear();
  // Most segments hold a few values: no allocation for those.
  llvm::SmallDenseMap<int, int, 16> local;
  auto entry = [&](int v) -> int {
    auto [it, inserted] = local.try_emplace(v, s.values.size());
    if (!inserted)
      return it->second;
    const ModelValue &m = model[v];
    SegmentValue &sv = s.values.emplace_back();
    sv.value = v;
    if (m.producer >= s.first) {
      sv.kind = SegmentValue::Made;
      sv.op = m.producer - s.first;
      sv.result = m.result;
    } else if (m.producer >= 0) {
      sv.kind = SegmentValue::Boundary;
      llvm::SmallVector<unsigned, 2> crossing = crossingResults(m.producer);
      sv.op = llvm::find(crossing, m.result) - crossing.begin();
    } else {
      sv.kind = SegmentValue::Fixed;
    }
    return it->second;
  };
  for (int64_t i = s.first; i <= s.last; ++i) {
    const ModelOp &mo = modelOps[i];
    for (auto [k, v] : llvm::enumerate(mo.operandValues))
      if (!model[v].free)
        s.values[entry(v)].reads.push_back({i - s.first, k});
    // Results used after the segment are paid for by the next one.
    for (int v : madeValues(mo))
      if (!model[v].sinks.empty() && model[v].lastUse <= s.last)
        s.values[entry(v)].sunk = true;
  }
  if (s.first > 0)
    for (int v : madeValues(modelOps[s.first - 1]))
      if (!model[v].sinks.empty() && model[v].lastUse >= s.first)
        s.values[entry(v)].sunk = true;
  // The states after the segment, and each candidate's of the last op.
  const ModelOp &last = modelOps[s.last];
  llvm::SmallVector<unsigned, 2> outs = crossingResults(s.last);
  for (const auto &ids : last.ids->resultIds) {
    llvm::SmallVector<int, 2> state;
    for (unsigned r : outs)
      state.push_back(ids[r]);
    auto it = llvm::find(s.outStates, state);
    s.stateOfCandidate.push_back(it - s.outStates.begin());
    if (it == s.outStates.end())
      s.outStates.push_back(state);
  }
  writeSegmentKey(s, s.key);
}

llvm::SmallVector<int, 2> Planner::madeValues(const ModelOp &mo) const {
  llvm::SmallVector<int, 2> values;
  for (int v : mo.resultValues)
    if (v >= 0)
      values.push_back(v);
  for (auto [r, v] : mo.aliases)
    values.push_back(v);
  return values;
}

llvm::SmallVector<unsigned, 2> Planner::crossingResults(int64_t op) const {
  llvm::SmallVector<unsigned, 2> results;
  for (int v : madeValues(modelOps[op]))
    if (model[v].lastUse > op && !llvm::is_contained(results, model[v].result))
      results.push_back(model[v].result);
  llvm::sort(results);
  return results;
}

void Planner::writeSegmentKey(const Segment &s, std::string &key) const {
  key.clear();
  appendKey(key, s.last - s.first);
  for (int64_t i = s.first; i <= s.last; ++i) {
    const ModelOp &mo = modelOps[i];
    // Tables are unique per content (`buildIdTable`): their address
    // stands for their ids.
    appendKey(key, reinterpret_cast<intptr_t>(mo.ids));
    appendKey(key, mo.operandValues.size());
    appendKey(key, mo.resultValues.size());
  }
  for (const SegmentValue &sv : s.values) {
    const ModelValue &m = model[sv.value];
    for (int64_t x : {int64_t(sv.kind), int64_t(sv.op), int64_t(sv.result),
                      m.bytes, int64_t(m.fixed), int64_t(sv.sunk),
                      int64_t(m.weight), int64_t(sv.reads.size())})
      appendKey(key, x);
    for (auto [op, k] : sv.reads) {
      appendKey(key, op);
      appendKey(key, k);
    }
    if (sv.sunk)
      for (int id : m.sinks)
        appendKey(key, id);
  }
  for (const StateList *states : {&s.inStates, &s.outStates}) {
    appendKey(key, states->size());
    for (const auto &state : *states)
      for (int id : state)
        appendKey(key, id);
  }
}

int Planner::sourceOf(const Segment &s, const SegmentValue &sv, int in,
                      llvm::ArrayRef<int> choice) const {
  switch (sv.kind) {
  case SegmentValue::Made:
    return modelOps[s.first + sv.op].ids->resultIds[choice[sv.op]][sv.result];
  case SegmentValue::Boundary:
    return s.inStates[in][sv.op];
  case SegmentValue::Fixed:
    return model[sv.value].fixed;
  }
  llvm_unreachable("unknown segment value kind");
}

double Planner::valueCost(const Segment &s, const SegmentValue &sv, int in,
                          llvm::ArrayRef<int> choice) const {
  const ModelValue &m = model[sv.value];
  int p = sourceOf(s, sv, in, choice);
  llvm::SmallVector<int, 4> targets;
  for (auto [op, k] : sv.reads)
    targets.push_back(modelOps[s.first + op].ids->operandIds[choice[op]][k]);
  return sharedMoves(m, p, targets, sv.sunk);
}

double Planner::sharedMoves(const ModelValue &m, int from,
                            llvm::SmallVectorImpl<int> &targets,
                            bool sunk) const {
  if (sunk)
    llvm::append_range(targets, m.sinks);
  llvm::sort(targets);
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  double total = 0;
  for (int q : targets)
    total += moveCost(m, from, q);
  return total;
}

double Planner::evaluate(const Segment &s, int in,
                         llvm::ArrayRef<int> choice) {
  double total = 0;
  for (const SegmentValue &sv : s.values) {
    total += valueCost(s, sv, in, choice);
    if (std::isinf(total))
      return total;
  }
  return total;
}

bool Planner::addValueFactor(
    MinSumElimination &problem, const Segment &s, const SegmentValue &sv,
    llvm::ArrayRef<llvm::SmallVector<int, 8>> distinct) const {
  // Variables 0 .. n-1 are the ops, n the incoming state.
  int n = static_cast<int>(distinct.size());
  bool made = sv.kind == SegmentValue::Made;
  bool boundary = sv.kind == SegmentValue::Boundary;
  llvm::SmallVector<int, 4> ops;
  if (made)
    ops.push_back(sv.op);
  for (auto [op, k] : sv.reads)
    if (!llvm::is_contained(ops, op))
      ops.push_back(op);
  if (ops.empty())
    return true;
  llvm::SmallVector<int, 8> choice(n, 0);
  if (ops.size() <= 2) {
    llvm::SmallVector<int, 4> scope(ops);
    if (boundary)
      scope.push_back(n);
    return problem.addFactor(scope, [&](llvm::ArrayRef<int> values) {
      for (auto [op, v] : llvm::zip(ops, values))
        choice[op] = distinct[op][v];
      return valueCost(s, sv, boundary ? values.back() : 0, choice);
    });
  }
  // Several ops: the cost depends on them only through the placement the
  // value is made in and those its reads want. One variable per such
  // placement, tied to its op's candidates, keeps the tables small.
  auto placementVariable = [&](int op, llvm::function_ref<int(int)> idOf,
                               llvm::SmallVectorImpl<int> &ids) {
    for (int c : distinct[op])
      if (!llvm::is_contained(ids, idOf(c)))
        ids.push_back(idOf(c));
    int var = problem.addVariable(ids.size());
    bool added = problem.addFactor({op, var}, [&](llvm::ArrayRef<int> v) {
      return idOf(distinct[op][v[0]]) == ids[v[1]] ? 0.0 : kInfiniteCost;
    });
    return added ? var : -1;
  };
  const ModelValue &m = model[sv.value];
  // The source placement's variable (made here, or the incoming state) or
  // the fixed source, then one variable per read.
  llvm::SmallVector<int, 4> scope;
  llvm::SmallVector<llvm::SmallVector<int, 8>, 4> domains;
  int fixed = -1;
  if (made) {
    const ModelOp &mo = modelOps[s.first + sv.op];
    scope.push_back(placementVariable(
        sv.op, [&](int c) { return mo.ids->resultIds[c][sv.result]; },
        domains.emplace_back()));
  } else if (boundary) {
    scope.push_back(n);
    auto &ids = domains.emplace_back();
    for (const auto &state : s.inStates)
      ids.push_back(state[sv.op]);
  } else {
    fixed = sourceOf(s, sv, 0, {});
  }
  for (auto [op, k] : sv.reads) {
    const ModelOp &mo = modelOps[s.first + op];
    scope.push_back(placementVariable(
        op, [&, k = k](int c) { return mo.ids->operandIds[c][k]; },
        domains.emplace_back()));
  }
  if (llvm::is_contained(scope, -1))
    return false;
  bool hasSource = fixed < 0;
  return problem.addFactor(scope, [&](llvm::ArrayRef<int> values) {
    int p = hasSource ? domains[0][values[0]] : fixed;
    llvm::SmallVector<int, 8> targets;
    for (size_t j = hasSource ? 1 : 0; j < values.size(); ++j)
      targets.push_back(domains[j][values[j]]);
    return sharedMoves(m, p, targets, sv.sunk);
  });
}

bool Planner::eliminateSegment(const Segment &s,
                               std::vector<PairSolution> &table) {
  int64_t n = s.last - s.first + 1;
  // Candidates with the same operand and result placements cost the same:
  // one variable value per distinct pair.
  std::vector<llvm::SmallVector<int, 8>> distinct(n);
  for (int64_t i = 0; i < n; ++i) {
    const ModelOp &mo = modelOps[s.first + i];
    for (size_t c = 0; c < mo.ids->operandIds.size(); ++c) {
      bool seen = llvm::any_of(distinct[i], [&](int d) {
        return mo.ids->operandIds[d] == mo.ids->operandIds[c] &&
               mo.ids->resultIds[d] == mo.ids->resultIds[c];
      });
      if (!seen)
        distinct[i].push_back(c);
    }
  }
  // One problem for all incoming states: variable n is the state, kept to
  // the end with the last op.
  MinSumElimination problem(options.eliminationTableLimit);
  for (int64_t i = 0; i < n; ++i)
    problem.addVariable(distinct[i].size());
  int inVar = problem.addVariable(s.inStates.size());
  for (const SegmentValue &sv : s.values)
    if (!addValueFactor(problem, s, sv, distinct))
      return false;
  if (!problem.solve({inVar, static_cast<int>(n - 1)}))
    return false;
  size_t numOut = s.outStates.size();
  std::vector<PairSolution> solved(table.size());
  for (size_t in = 0; in < s.inStates.size(); ++in)
    for (auto [v, c] : llvm::enumerate(distinct[n - 1])) {
      PairSolution &best = solved[in * numOut + s.stateOfCandidate[c]];
      int kept[] = {static_cast<int>(in), static_cast<int>(v)};
      double cost = problem.getCost(kept);
      if (cost >= best.cost)
        continue;
      best.cost = best.bound = cost;
      std::vector<int> values = problem.getAssignment(kept);
      best.choice.resize(n);
      for (int64_t i = 0; i < n; ++i)
        best.choice[i] = distinct[i][values[i]];
    }
  for (PairSolution &p : solved)
    p.proven = true;
  table = std::move(solved);
  return true;
}

void Planner::enumerateSegment(const Segment &s,
                               std::vector<PairSolution> &table) {
  int64_t n = s.last - s.first + 1;
  size_t numOut = s.outStates.size();
  llvm::SmallVector<int, 8> choice(n, 0);
  while (true) {
    size_t out = s.stateOfCandidate[choice[n - 1]];
    for (size_t in = 0; in < s.inStates.size(); ++in) {
      PairSolution &best = table[in * numOut + out];
      double c = evaluate(s, in, choice);
      if (c < best.cost) {
        best.cost = best.bound = c;
        best.choice.assign(choice.begin(), choice.end());
      }
    }
    int64_t k = 0;
    while (k < n &&
           ++choice[k] ==
               static_cast<int>(modelOps[s.first + k].ids->operandIds.size()))
      choice[k++] = 0;
    if (k == n)
      break;
  }
  for (PairSolution &p : table)
    p.proven = true;
}

namespace {
void addTerm(PlacementTerms &terms, int id, int var) {
  auto it = llvm::find_if(terms, [&](const auto &t) { return t.first == id; });
  if (it == terms.end())
    terms.push_back({id, {var}});
  else
    it->second.push_back(var);
}

const llvm::SmallVector<int, 4> *findTerms(const PlacementTerms &terms,
                                           int id) {
  auto it = llvm::find_if(terms, [&](const auto &t) { return t.first == id; });
  return it == terms.end() ? nullptr : &it->second;
}

/// The terms `coef * sum(vars)` of a row.
void appendTerms(llvm::SmallVectorImpl<std::pair<int, double>> &row,
                 llvm::ArrayRef<int> vars, double coef) {
  for (int var : vars)
    row.push_back({var, coef});
}
} // namespace

void Planner::addValueMoves(MixedIntegerProgram &mip, const Segment &s,
                            const SegmentValue &sv, int in,
                            llvm::ArrayRef<llvm::SmallVector<int, 8>> x) {
  const ModelValue &m = model[sv.value];
  // Where the value is made (one fixed placement unless made here), and
  // where each read may want it.
  PlacementTerms made;
  if (sv.kind == SegmentValue::Made)
    for (auto [c, ids] :
         llvm::enumerate(modelOps[s.first + sv.op].ids->resultIds))
      addTerm(made, ids[sv.result], x[sv.op][c]);
  int fixed = sv.kind == SegmentValue::Made ? -1 : sourceOf(s, sv, in, {});
  llvm::SmallVector<PlacementTerms, 2> reads;
  for (auto [op, k] : sv.reads) {
    PlacementTerms &read = reads.emplace_back();
    for (auto [c, ids] :
         llvm::enumerate(modelOps[s.first + op].ids->operandIds))
      addTerm(read, ids[k], x[op][c]);
  }
  llvm::SmallVector<int, 2> sinks;
  if (sv.sunk)
    sinks.assign(m.sinks.begin(), m.sinks.end());
  llvm::SmallVector<int, 4> targets(sinks.begin(), sinks.end());
  for (const PlacementTerms &read : reads)
    for (const auto &[q, vars] : read)
      if (!llvm::is_contained(targets, q))
        targets.push_back(q);
  // With one read, every made placement goes somewhere: sum_q z_pq = x_p.
  bool single = reads.size() == 1 && sinks.empty();
  std::vector<llvm::SmallVector<std::pair<int, double>, 8>> outflow(
      made.size());
  for (int q : targets) {
    // u: the value is moved to q (once, shared by the readers of q).
    bool sink = llvm::is_contained(sinks, q);
    double c = fixed < 0 ? 0.0 : moveCost(m, fixed, q);
    int u = std::isinf(c) ? mip.addVariable(0, 0, 0, false)
                          : mip.addVariable(sink ? 1 : 0, 1, c, false);
    for (const PlacementTerms &read : reads) {
      llvm::SmallVector<std::pair<int, double>, 8> row{{u, 1.0}};
      if (const llvm::SmallVector<int, 4> *vars = findTerms(read, q))
        appendTerms(row, *vars, -1.0);
      mip.addRow(row, 0, single ? 0 : MixedIntegerProgram::kInfinity);
    }
    if (made.empty())
      continue;
    // z_pq: the part of u made in p, at most x_p (Alpa's edge variables,
    // with sharing).
    llvm::SmallVector<std::pair<int, double>, 8> sum{{u, -1.0}};
    for (auto [pi, entry] : llvm::enumerate(made)) {
      const auto &[p, vars] = entry;
      double move = moveCost(m, p, q);
      if (std::isinf(move))
        continue;
      int z = mip.addVariable(0, 1, move, /*integer=*/false);
      sum.push_back({z, 1.0});
      outflow[pi].push_back({z, 1.0});
      llvm::SmallVector<std::pair<int, double>, 8> bound{{z, 1.0}};
      appendTerms(bound, vars, -1.0);
      mip.addRow(bound, -MixedIntegerProgram::kInfinity, 0);
    }
    mip.addRow(sum, 0, 0);
  }
  if (single)
    for (auto [pi, entry] : llvm::enumerate(made)) {
      appendTerms(outflow[pi], entry.second, -1.0);
      mip.addRow(outflow[pi], 0, 0);
    }
}

Planner::PairSolution Planner::solveProgram(const Segment &s, int in, int out,
                                            ExtraRows extraRows) {
  MixedIntegerProgram mip;
  int64_t n = s.last - s.first + 1;
  std::vector<llvm::SmallVector<int, 8>> x(n);
  for (int64_t i = 0; i < n; ++i) {
    llvm::SmallVector<std::pair<int, double>, 8> one;
    for (size_t c = 0; c < modelOps[s.first + i].ids->operandIds.size(); ++c) {
      // The last op makes the state `out`.
      bool allowed = i < n - 1 || s.stateOfCandidate[c] == out;
      int var = mip.addVariable(0, allowed ? 1 : 0, 0, /*integer=*/true);
      x[i].push_back(var);
      one.push_back({var, 1.0});
    }
    mip.addRow(one, 1, 1);
  }
  PairSolution solution;
  // The function's solver time is spent: no plan, a lower bound of 0.
  double secondsLeft = options.timeLimitSeconds - solverSeconds;
  if (secondsLeft <= 0) {
    solution.bound = 0;
    return solution;
  }
  for (const SegmentValue &sv : s.values)
    addValueMoves(mip, s, sv, in, x);
  if (extraRows)
    extraRows(mip, x);
  auto start = std::chrono::steady_clock::now();
  MixedIntegerProgram::Result result =
      mip.solve(options.nodeLimit, secondsLeft);
  solverSeconds += std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  solution.proven = result.status == MixedIntegerProgram::Status::Optimal ||
                    result.status == MixedIntegerProgram::Status::Infeasible;
  if (result.status == MixedIntegerProgram::Status::Infeasible)
    return solution;
  solution.bound = result.bound;
  if (result.status != MixedIntegerProgram::Status::Optimal &&
      result.status != MixedIntegerProgram::Status::Feasible)
    return solution;
  solution.choice.assign(n, 0);
  for (int64_t i = 0; i < n; ++i)
    for (auto [c, var] : llvm::enumerate(x[i]))
      if (result.values[var] > 0.5)
        solution.choice[i] = c;
  // The program's objective, recomputed as the enumeration counts it.
  solution.cost = evaluate(s, in, solution.choice);
  return solution;
}

const std::vector<Planner::PairSolution> &
Planner::solveSegment(const Segment &s) {
  auto [it, inserted] = memo.try_emplace(s.key);
  std::vector<PairSolution> &table = it->second;
  if (!inserted)
    return table;
  size_t numOut = s.outStates.size();
  table.resize(s.inStates.size() * numOut);
  int64_t n = s.last - s.first + 1;
  if (n > options.segmentOpLimit) {
    // Too large to solve: a lower bound of 0, and no plan.
    for (PairSolution &p : table)
      p.bound = 0;
    return table;
  }
  ++distinctSegments;
  double combinations = 1;
  for (int64_t i = s.first; i <= s.last; ++i)
    combinations *= modelOps[i].ids->operandIds.size();
  if (combinations <= options.enumerationLimit) {
    enumerateSegment(s, table);
    return table;
  }
  if (eliminateSegment(s, table))
    return table;
  for (size_t in = 0; in < s.inStates.size(); ++in)
    for (size_t out = 0; out < numOut; ++out)
      table[in * numOut + out] = solveProgram(s, in, out);
  return table;
}

double Planner::solveChain(ForcedStrategies &forced, double &lowerBound) {
  /// The solved chain: each segment's first op, table, number of states
  /// and where its back pointers start in `back`.
  struct Solved {
    int64_t first, last;
    const std::vector<PairSolution> *table;
    size_t numOut;
    size_t back;
  };
  std::vector<Solved> chain;
  chain.reserve(segmentRanges.size());
  std::vector<int> back;
  forced.reserve(ops.size());
  forced.keepAlive(store);
  // One segment and one set of state vectors, reused: a long program has
  // a segment per op or two.
  Segment s;
  StateList states = {{}};
  std::vector<double> best = {0}, bound = {0}, nextBest, nextBound;
  for (auto [first, last] : segmentRanges) {
    s.first = first;
    s.last = last;
    buildSegment(s, states);
    const std::vector<PairSolution> &table = solveSegment(s);
    size_t numOut = s.outStates.size();
    nextBest.assign(numOut, kInfiniteCost);
    nextBound.assign(numOut, kInfiniteCost);
    size_t backStart = back.size();
    back.resize(backStart + numOut, -1);
    for (size_t in = 0; in < states.size(); ++in)
      for (size_t out = 0; out < numOut; ++out) {
        const PairSolution &p = table[in * numOut + out];
        if (best[in] + p.cost < nextBest[out]) {
          nextBest[out] = best[in] + p.cost;
          back[backStart + out] = in;
        }
        nextBound[out] = std::min(nextBound[out], bound[in] + p.bound);
      }
    chain.push_back({first, last, &table, numOut, backStart});
    std::swap(states, s.outStates);
    std::swap(best, nextBest);
    std::swap(bound, nextBound);
  }
  lowerBound = *llvm::min_element(bound);
  auto end = llvm::min_element(best);
  if (std::isinf(*end))
    return kInfiniteCost;
  // Read the choices back from the last segment to the first.
  int out = end - best.begin();
  for (const Solved &c : llvm::reverse(chain)) {
    int in = back[c.back + out];
    const PairSolution &p = (*c.table)[in * c.numOut + out];
    for (int64_t i = c.first; i <= c.last; ++i)
      forced.set(ops[i].op, (*ops[i].candidates)[p.choice[i - c.first]]);
    out = in;
  }
  return *end;
}

double Planner::pytorchModelCost() {
  // PyTorch's placements of every value, and where each one is read.
  std::vector<int> placement(model.size(), -1);
  std::vector<llvm::SmallVector<int, 4>> targets(model.size());
  for (auto [v, m] : llvm::enumerate(model)) {
    if (m.free)
      continue;
    const FakeTensor *t = pytorch.lookup(m.value);
    if (!t)
      return kInfiniteCost;
    placement[v] = intern(t->placements);
    targets[v].assign(m.sinks.begin(), m.sinks.end());
  }
  for (const ModelOp &mo : modelOps)
    for (auto [v, operand] : llvm::zip(mo.operandValues, mo.operands)) {
      if (placement[v] < 0)
        continue;
      const Placements *req = pytorch.getRequiredPlacements(*operand);
      targets[v].push_back(req ? intern(*req) : placement[v]);
    }
  double total = 0;
  for (auto [v, m] : llvm::enumerate(model)) {
    llvm::sort(targets[v]);
    targets[v].erase(std::unique(targets[v].begin(), targets[v].end()),
                     targets[v].end());
    for (int q : targets[v])
      total += moveCost(m, placement[v], q);
  }
  return total;
}

//===----------------------------------------------------------------------===//
// The exact planner under a memory budget
//===----------------------------------------------------------------------===//
//
// One 0-1 program for the whole function: the moves as in `solveProgram`,
// and per program point (`MemoryPoints`) a row bounding the bytes live
// there. Buffers follow `MemoryLiveness`: a value is live at its definition
// in the placement it is made in; at its moves also each copy and the
// temporaries of its collectives; after them, in each placement q, until
// the last read that wants q (the value itself if it is in q, else its
// copy); fixed ops and the return read at the value's last use. Created
// values (empties, fills) are built in each placement the planned ops
// reading them want, live to their last use. Sizes are the largest shard
// over the ranks, so a row bounds every rank's bytes (an upper bound where
// shards are uneven or several copies' temporaries are summed). The caller
// checks the real peak of the plan.

int64_t Planner::localBytes(Value v, int id) const {
  auto type = cast<RankedTensorType>(v.getType());
  llvm::SmallVector<int64_t> bytes = computeAllLocalBytes(
      type.getShape(), getElementByteSize(type.getElementType()), mesh,
      placementTable[id]);
  return *llvm::max_element(bytes);
}

int64_t Planner::copyTemporaries(Value v, int from, int to) {
  auto [it, inserted] =
      temporaries.try_emplace({v.getAsOpaquePointer(), from, to}, 0);
  if (!inserted)
    return it->second;
  auto type = cast<RankedTensorType>(v.getType());
  int64_t element = getElementByteSize(type.getElementType());
  // The steps the analysis will plan for the move.
  llvm::SmallVector<RedistributeStep> steps;
  std::string error;
  if (!planRequiredRedistribution(placementTable[from], placementTable[to],
                                  mesh, getTensorByteSize(type),
                                  type.getRank(), steps, error))
    return 0;
  llvm::SmallVector<int64_t> temps =
      computeRedistributionBuffers(type.getShape(), element, mesh, steps);
  llvm::SmallVector<int64_t> result = computeAllLocalBytes(
      type.getShape(), element, mesh, placementTable[to]);
  int64_t largest = 0;
  for (auto [t, r] : llvm::zip_equal(temps, result))
    largest = std::max(largest, t - r);
  it->second = largest;
  return largest;
}

namespace {
/// A new u in [0, 1] with u >= sum(vars) + offset - sum(minus) for each
/// row: 1 when one of them is (the solver keeps it as low as the rows let
/// it; the memory rows push it down).
int addIndicator(MixedIntegerProgram &mip, const IndicatorRows &rows,
                 llvm::ArrayRef<int> minus = {}) {
  int u = mip.addVariable(0, 1, 0, /*integer=*/false);
  for (const auto &[vars, offset] : rows) {
    llvm::SmallVector<std::pair<int, double>, 8> row{{u, 1.0}};
    for (int var : vars)
      row.push_back({var, -1.0});
    for (int var : minus)
      row.push_back({var, 1.0});
    mip.addRow(row, offset, MixedIntegerProgram::kInfinity);
  }
  return u;
}
} // namespace

/// Points of the memory rows (as the positions of `MemoryLiveness`): 0 the
/// start of the body (the arguments live), 1 + i the moves of the i-th
/// argument moved (one after the other), then for top-level op t: 1+A+2t
/// the op running (its operands and results live), 2+A+2t right after it
/// (the moves of its results), A the number of arguments.
struct Planner::MemoryPoints {
  llvm::DenseMap<Operation *, int64_t> op;
  Block *body;
  int64_t numArgs = 0;
  /// The point of each argument's moves: in the order the analysis lists
  /// them (program order of the first operand reading the argument).
  llvm::SmallVector<int64_t> argPoint;
  int64_t at(Operation *o) const { return 1 + numArgs + 2 * op.lookup(o); }
  /// Where `v` is made (the arguments: live from the start), and where
  /// its moves run.
  int64_t made(Value v) const {
    Operation *def = v.getDefiningOp();
    return def ? at(def) : 0;
  }
  int64_t moved(Value v) const {
    if (Operation *def = v.getDefiningOp())
      return at(def) + 1;
    return 1 + argPoint[cast<BlockArgument>(v).getArgNumber()];
  }
  int64_t lastUse(Value v) const {
    int64_t last = made(v);
    for (Operation *user : v.getUsers())
      if (Operation *top = body->findAncestorOpInBlock(*user))
        last = std::max(last, at(top));
    return last;
  }
  int64_t size() const {
    return 1 + numArgs + 2 * static_cast<int64_t>(op.size());
  }
};

void Planner::addValueBuffers(MixedIntegerProgram &mip,
                              llvm::ArrayRef<llvm::SmallVector<int, 8>> x,
                              const MemoryPoints &points,
                              std::vector<Buffer> &buffers) {
  // The reads of each model value: where, and per placement the reader's
  // candidates wanting it; fixed ops and the return read at the last use.
  struct Read {
    int64_t at;
    PlacementTerms wants;
    int fixedWant = -1;
  };
  std::vector<llvm::SmallVector<Read, 2>> reads(model.size());
  for (auto [i, mo] : llvm::enumerate(modelOps))
    for (auto [k, v] : llvm::enumerate(mo.operandValues)) {
      Read &r = reads[v].emplace_back();
      r.at = points.at(ops[i].op);
      for (auto [c, ids] : llvm::enumerate(mo.ids->operandIds))
        addTerm(r.wants, ids[k], x[i][c]);
    }
  for (auto [id, m] : llvm::enumerate(model))
    for (int q : m.sinks)
      reads[id].push_back({points.lastUse(m.value), {}, q});
  for (auto [id, m] : llvm::enumerate(model)) {
    Value v = m.value;
    if (m.producer < 0 && isCreatedValue(v))
      continue; // built where it is read (`addMemoryRows`)
    PlacementTerms made;
    if (m.producer >= 0)
      for (auto [c, ids] : llvm::enumerate(modelOps[m.producer].ids->resultIds))
        addTerm(made, ids[m.result], x[m.producer][c]);
    int fixed = m.producer >= 0 ? -1 : intern(pytorch.lookup(v)->placements);
    // The reads at or after `from` wanting q: a row per planned reader,
    // `always` where a fixed op or the return does.
    auto readsWanting = [&](int q, int64_t from, IndicatorRows &rows,
                            bool &always) {
      for (const Read &r : reads[id]) {
        if (r.at < from)
          continue;
        if (r.fixedWant == q)
          always = true;
        else if (const llvm::SmallVector<int, 4> *w = findTerms(r.wants, q))
          rows.push_back({*w, 0.0});
      }
    };
    // In q (the value, or its copy) while a read at or after `from` wants
    // q; `copy`: not counting the value itself.
    auto wanted = [&](int q, int64_t from, bool copy, Buffer &b) {
      IndicatorRows rows;
      bool always = false;
      const llvm::SmallVector<int, 4> *makes = findTerms(made, q);
      readsWanting(q, from, rows, always);
      if (always)
        rows = {{{}, 1.0}};
      if (rows.empty() || (copy && q == fixed))
        return;
      double bytes = double(localBytes(v, q));
      // A fixed value wanted in q by a fixed op: there for sure.
      if (always && fixed >= 0) {
        b.constant += bytes;
        return;
      }
      // u >= want (the value or its copy), or u >= want - made in q (the
      // copy alone).
      llvm::ArrayRef<int> minus;
      if (copy && makes)
        minus = *makes;
      b.terms.push_back({addIndicator(mip, rows, minus), bytes});
    };
    llvm::SmallVector<int, 4> placements;
    for (const auto &[q, vars] : made)
      placements.push_back(q);
    if (fixed >= 0)
      placements.push_back(fixed);
    for (const Read &r : reads[id]) {
      for (const auto &[q, vars] : r.wants)
        if (!llvm::is_contained(placements, q))
          placements.push_back(q);
      if (r.fixedWant >= 0 && !llvm::is_contained(placements, r.fixedWant))
        placements.push_back(r.fixedWant);
    }
    // Made: the value in the placement its op makes it in; moved: also
    // every copy and the temporaries of their collectives (the moves run
    // one after the other: an upper bound).
    int64_t moved = points.moved(v);
    auto original = [&](Buffer &b) {
      if (fixed >= 0)
        b.constant += double(localBytes(v, fixed));
      for (const auto &[q, vars] : made)
        for (int var : vars)
          b.terms.push_back({var, double(localBytes(v, q))});
    };
    // Before its moves: an argument from the start, a result at its op.
    if (int64_t from = points.made(v); from < moved) {
      Buffer &b = buffers.emplace_back();
      b.from = from;
      b.to = moved - 1;
      original(b);
    }
    {
      Buffer b;
      b.from = b.to = moved;
      original(b);
      for (int q : placements) {
        wanted(q, moved, /*copy=*/true, b);
        IndicatorRows rows;
        bool always = false;
        readsWanting(q, moved, rows, always);
        addTemporaries(mip, v, q, made, fixed, rows, always, b);
      }
      buffers.push_back(std::move(b));
    }
    // After the moves: in q until the last read wanting q.
    llvm::SmallVector<int64_t, 4> ends;
    for (const Read &r : reads[id])
      if (r.at > moved)
        ends.push_back(r.at);
    llvm::sort(ends);
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    int64_t from = moved + 1;
    for (int64_t end : ends) {
      Buffer b;
      b.from = from;
      b.to = end;
      for (int q : placements)
        wanted(q, end, /*copy=*/false, b);
      buffers.push_back(std::move(b));
      from = end + 1;
    }
  }
}

void Planner::addTemporaries(MixedIntegerProgram &mip, Value v, int q,
                             const PlacementTerms &made, int fixed,
                             const IndicatorRows &wanted, bool always,
                             Buffer &b) {
  if (!always && wanted.empty())
    return;
  auto add = [&](int p, llvm::ArrayRef<int> makesP) {
    double temps = p == q ? 0.0 : double(copyTemporaries(v, p, q));
    if (temps <= 0)
      return;
    if (makesP.empty() && always) {
      b.constant += temps;
      return;
    }
    // Made in p (unless fixed) and wanted in q.
    IndicatorRows rows;
    if (always)
      rows.push_back({llvm::SmallVector<int, 4>(makesP), 0.0});
    for (const auto &[w, offset] : wanted) {
      llvm::SmallVector<int, 4> both(w);
      llvm::append_range(both, makesP);
      rows.push_back({both, makesP.empty() ? 0.0 : -1.0});
    }
    b.terms.push_back({addIndicator(mip, rows), temps});
  };
  if (fixed >= 0)
    add(fixed, {});
  for (const auto &[p, vars] : made)
    add(p, vars);
}

void Planner::addMemoryRows(MixedIntegerProgram &mip,
                            llvm::ArrayRef<llvm::SmallVector<int, 8>> x) {
  MemoryPoints points;
  points.body = &body;
  points.numArgs = body.getNumArguments();
  for (Operation &op : body)
    points.op[&op] = static_cast<int64_t>(points.op.size());
  // Arguments by their first reader (op, then operand), unread ones last.
  llvm::SmallVector<std::pair<std::pair<int64_t, unsigned>, unsigned>> order;
  for (BlockArgument arg : body.getArguments()) {
    std::pair<int64_t, unsigned> first = {points.op.size(), 0};
    for (OpOperand &use : arg.getUses())
      if (Operation *top = body.findAncestorOpInBlock(*use.getOwner()))
        first = std::min(first, std::make_pair(points.op.lookup(top),
                                               use.getOperandNumber()));
    order.push_back({first, arg.getArgNumber()});
  }
  llvm::sort(order);
  points.argPoint.resize(order.size());
  for (auto [i, entry] : llvm::enumerate(order))
    points.argPoint[entry.second] = static_cast<int64_t>(i);
  std::vector<Buffer> buffers;
  addValueBuffers(mip, x, points, buffers);
  // Created values (empties, fills, constants) are built in each placement
  // the planned ops reading them (through other created values of the same
  // shape: a fill of an empty) want. Through a created value of another
  // shape (a constant broadcast by a created op) the placements are of that
  // shape, not of `v`'s: not followed (was an out-of-range placement dim,
  // an assertion, on examples/where_layer.mlir under a budget).
  std::function<void(Value, PlacementTerms &)> wantsOf =
      [&](Value v, PlacementTerms &wants) {
        for (OpOperand &use : v.getUses()) {
          Operation *owner = use.getOwner();
          if (auto it = index.find(owner); it != index.end()) {
            const ModelOp &mo = modelOps[it->second];
            for (auto [k, o] : llvm::enumerate(mo.operands))
              if (o == &use)
                for (auto [c, ids] : llvm::enumerate(mo.ids->operandIds))
                  addTerm(wants, ids[k], x[it->second][c]);
            continue;
          }
          if (owner->getNumResults() == 1 &&
              owner->getResult(0).getType() == v.getType() &&
              isCreatedValue(owner->getResult(0)))
            wantsOf(owner->getResult(0), wants);
        }
      };
  llvm::DenseSet<Value> modelled;
  for (const ModelValue &m : model)
    if (m.producer >= 0 || !isCreatedValue(m.value))
      modelled.insert(m.value);
  auto addOther = [&](Value v) {
    if (!isa<RankedTensorType>(v.getType()) || modelled.contains(v))
      return;
    Buffer b;
    b.from = points.made(v);
    b.to = points.lastUse(v);
    PlacementTerms wants;
    if (isCreatedValue(v))
      wantsOf(v, wants);
    for (const auto &[q, vars] : wants) {
      IndicatorRows rows;
      for (int var : vars)
        rows.push_back({{var}, 0.0});
      b.terms.push_back({addIndicator(mip, rows), double(localBytes(v, q))});
    }
    if (wants.empty() && pytorch.lookup(v))
      b.constant = double(*llvm::max_element(pytorch.getLocalBytes(v)));
    buffers.push_back(std::move(b));
  };
  for (BlockArgument arg : body.getArguments())
    addOther(arg);
  for (Operation &op : body)
    for (Value r : op.getResults())
      addOther(r);
  // One row per point.
  double budget = static_cast<double>(options.maxBytesPerRank);
  for (int64_t t = 0, e = points.size(); t < e; ++t) {
    double constant = 0;
    llvm::SmallVector<std::pair<int, double>, 16> row;
    for (const Buffer &b : buffers)
      if (b.from <= t && t <= b.to) {
        constant += b.constant;
        llvm::append_range(row, b.terms);
      }
    if (!row.empty() || constant > budget)
      mip.addRow(row, -MixedIntegerProgram::kInfinity, budget - constant);
  }
}

bool Planner::solveUnderBudget(ForcedStrategies &forced,
                               PlannerStats &stats) {
  if (!transparent.empty() || ops.empty() ||
      static_cast<int64_t>(ops.size()) > options.budgetOpLimit)
    return false;
  // Region ops the planner does not follow hold buffers it cannot see.
  for (Operation &op : body)
    if (op.getNumRegions() != 0 && !isa<ShardingRuleOpInterface>(op))
      return false;
  Segment s;
  s.first = 0;
  s.last = static_cast<int64_t>(ops.size()) - 1;
  buildSegment(s, {{}});
  PairSolution best;
  for (size_t out = 0; out < s.outStates.size(); ++out) {
    PairSolution p = solveProgram(
        s, 0, out, [&](MixedIntegerProgram &mip, auto x) {
          addMemoryRows(mip, x);
        });
    if (p.cost < best.cost)
      best = std::move(p);
  }
  if (std::isinf(best.cost))
    return false;
  forced.keepAlive(store);
  for (auto [i, p] : llvm::enumerate(ops))
    forced.set(p.op, (*p.candidates)[best.choice[i]]);
  stats.exact = true;
  stats.provenOptimal = best.proven;
  stats.lowerBound = best.proven ? best.cost : 0;
  return true;
}

int64_t Planner::branchFactor() {
  int64_t factor = 1;
  for (const PlannedOp &p : ops) {
    int64_t regions = 1;
    for (Operation *op = p.op->getParentOp(); op != func.getOperation();
         op = op->getParentOp())
      if (getScopeKind(op) == ScopeKind::Branch)
        regions *= op->getNumRegions();
    factor = std::max(factor, regions);
  }
  return factor;
}

llvm::SmallVector<ForcedStrategies, 2> Planner::run(PlannerStats &stats) {
  collect();
  llvm::SmallVector<ForcedStrategies, 2> plans;
  stats.plannedOps = static_cast<int64_t>(ops.size());
  stats.exactRequested = options.exact;
  // Nothing to choose: PyTorch's plan is the only one.
  if (ops.empty()) {
    stats.exact = stats.provenOptimal = options.exact;
    return plans;
  }
  if (options.exact) {
    buildModel();
    findSegments();
    ForcedStrategies exact;
    double bound = 0;
    double optimum = solveChain(exact, bound);
    // The objective counts every region of a branch, the report the
    // dearest: with branches, a bound on the objective divided by
    // `branchFactor` bounds the report's cost, and optimality is not
    // proven.
    int64_t branches = branchFactor();
    stats.lowerBound = bound / static_cast<double>(branches);
    if (!std::isinf(optimum)) {
      stats.exact = true;
      stats.provenOptimal = branches == 1 && optimum <= bound + 1e-6;
      // PyTorch's plan is optimal: the caller keeps it.
      if (stats.provenOptimal && optimum >= pytorchModelCost() - 1e-9)
        return plans;
      plans.push_back(std::move(exact));
      if (stats.provenOptimal)
        return plans;
    }
  }
  // Start from the PyTorch placements of the cut values (only the
  // coordinate descent reads them).
  findCutValues();
  solveAll();
  descend();
  double total = 0;
  for (const auto &[root, c] : segmentCost)
    total += c;
  // Nothing to gain: the caller keeps the PyTorch plan without re-running.
  if (total >= pytorchTotal() - 1e-9)
    return plans;
  extract(plans.emplace_back());
  return plans;
}

std::optional<ForcedStrategies> Planner::runUnderBudget(PlannerStats &stats) {
  collect();
  stats.plannedOps = static_cast<int64_t>(ops.size());
  stats.exactRequested = true;
  if (ops.empty() || options.maxBytesPerRank <= 0)
    return std::nullopt;
  buildModel();
  ForcedStrategies forced;
  if (!solveUnderBudget(forced, stats))
    return std::nullopt;
  return forced;
}

void ForcedStrategies::set(Operation *op, const ShardingCandidate &c) {
  auto owned = std::make_shared<const ShardingCandidate>(c);
  choices[op] = owned.get();
  owners.push_back(std::move(owned));
}

void ForcedStrategies::keepAlive(std::shared_ptr<const void> owner) {
  if (!llvm::is_contained(owners, owner))
    owners.push_back(std::move(owner));
}

void ForcedStrategies::override(const ForcedStrategies &other) {
  for (const auto &[op, c] : other.choices)
    choices[op] = c;
  for (const std::shared_ptr<const void> &owner : other.owners)
    keepAlive(owner);
}

namespace {
/// Runs `fn` on a planner of `func` with `*stats` (or a local) reset;
/// `Result()` for a function of several blocks.
template <typename Result, typename Fn>
Result withPlanner(FunctionOpInterface func, const FunctionPlan &plan,
                   const GlobalPlannerOptions &options, PlannerStats *stats,
                   Fn fn) {
  PlannerStats local;
  PlannerStats &out = stats ? *stats : local;
  out = PlannerStats();
  if (!func.getFunctionBody().hasOneBlock())
    return Result();
  Planner planner(func, plan, options);
  return fn(planner, out);
}
} // namespace

std::optional<ForcedStrategies>
mlir::dtensor::planFunctionUnderBudget(FunctionOpInterface func,
                                       const FunctionPlan &plan,
                                       const GlobalPlannerOptions &options,
                                       PlannerStats *stats) {
  return withPlanner<std::optional<ForcedStrategies>>(
      func, plan, options, stats,
      [](Planner &p, PlannerStats &out) { return p.runUnderBudget(out); });
}

llvm::SmallVector<ForcedStrategies, 2>
mlir::dtensor::planFunctionGlobally(FunctionOpInterface func,
                                    const FunctionPlan &pytorch,
                                    const GlobalPlannerOptions &options,
                                    PlannerStats *stats) {
  return withPlanner<llvm::SmallVector<ForcedStrategies, 2>>(
      func, pytorch, options, stats,
      [](Planner &p, PlannerStats &out) { return p.run(out); });
}
