//===- GlobalPlanner.cpp - whole-function strategy choice -----------------===//
//
// The planner works on the top-level ops of a function that have sharding
// rules ("planned" ops); everything else keeps its PyTorch placements.
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
#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/MixedIntegerProgram.h"
#include "dtensor/Support/RedistributePlan.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SetVector.h"

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

/// A planned op.
struct PlannedOp {
  Operation *op;
  std::vector<ShardingCandidate> candidates;
  /// The op whose segment this op belongs to (its root).
  int64_t root = -1;
};

class Planner {
public:
  Planner(FunctionOpInterface func, const FunctionPlan &pytorch,
          const GlobalPlannerOptions &options)
      : func(func), body(func.getFunctionBody().front()), pytorch(pytorch),
        mesh(pytorch.getMeshShape()), options(options) {}

  llvm::SmallVector<ForcedStrategies, 2> run(PlannerStats &stats);

private:
  bool isPlannable(Operation *op) const;
  void collect();
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
  /// Cost of moving `v` between placements as the analysis will plan it:
  /// directly, or through R where there is no direct transition.
  double transitionCost(Value v, const Placements &from,
                        const Placements &to) const;
  /// Chooses every planned op's strategy at once as the solution of a 0-1
  /// program. Fills `forced` and `stats`; fails when the solver found no
  /// plan within its limits.
  LogicalResult solveExactly(ForcedStrategies &forced, PlannerStats &stats);

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
  llvm::DenseMap<Value, llvm::SmallVector<Placements, 2>> needs;
  const GlobalPlannerOptions &options;
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

double Planner::cost(Value v, llvm::ArrayRef<Placement> from,
                     llvm::ArrayRef<Placement> to) const {
  if (from == to)
    return 0;
  auto type = cast<RankedTensorType>(v.getType());
  int64_t bytes = getTensorByteSize(type);
  return redistributeCost(bytes, mesh, from, to);
}

void Planner::collect() {
  for (Operation &op : body) {
    if (!isPlannable(&op))
      continue;
    llvm::SmallVector<Placements, 4> current;
    for (Value v : op.getOperands()) {
      const FakeTensor *t = pytorch.lookup(v);
      current.push_back(t ? t->placements : Placements());
    }
    PlannedOp p{&op, {}, -1};
    llvm::SmallVector<ShardingCandidate, 4> all;
    auto rule = dyn_cast<ShardingRuleOpInterface>(&op);
    if (!rule || failed(rule.getAllShardingCandidates(mesh, current, all)) ||
        all.empty())
      continue;
    p.candidates.assign(std::make_move_iterator(all.begin()),
                        std::make_move_iterator(all.end()));
    // An op pinned by `dtensor.specs` keeps its result placements.
    if (auto specs =
            op.getAttrOfType<ArrayAttr>(DTensorDialect::kSpecsAttrName)) {
      llvm::erase_if(p.candidates, [&](const ShardingCandidate &c) {
        for (auto [attr, ps] : llvm::zip(specs, c.results))
          if (auto spec = dyn_cast<SpecAttr>(attr))
            if (!llvm::equal(spec.getPlacements(), ps))
              return true;
        return false;
      });
      if (p.candidates.empty())
        continue;
    }
    index[&op] = ops.size();
    ops.push_back(std::move(p));
  }

  // What fixed ops (and everything nested in them) and the return need.
  for (Operation &op : body) {
    if (index.count(&op))
      continue;
    op.walk([&](Operation *inner) {
      for (OpOperand &o : inner->getOpOperands()) {
        Value v = o.get();
        Operation *def = v.getDefiningOp();
        if (!def || !index.count(def) || !isa<RankedTensorType>(v.getType()))
          continue;
        if (inner == &op && op.hasTrait<OpTrait::ReturnLike>()) {
          auto spec = func.getResultAttrOfType<SpecAttr>(
              o.getOperandNumber(), DTensorDialect::kSpecAttrName);
          auto &n = needs[v];
          if (spec)
            n.push_back(Placements(spec.getPlacements().begin(),
                                   spec.getPlacements().end()));
          continue;
        }
        const Placements *req = pytorch.getRequiredPlacements(o);
        needs[v].push_back(req ? *req : pytorch.lookup(v)->placements);
      }
    });
  }

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
      for (const ShardingCandidate &c : ops[i].candidates)
        if (!llvm::is_contained(dom, c.results[0]))
          dom.push_back(c.results[0]);
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
    llvm::SmallVector<int64_t, 4> operandBytes;
    for (Value v : p.op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type) {
        operandEntries.emplace_back();
        operandBytes.push_back(0);
        continue;
      }
      auto it = table.find(v);
      operandEntries.push_back(it != table.end() ? it->second : leaf(v));
      operandBytes.push_back(getTensorByteSize(type));
    }
    for (auto [ci, c] : llvm::enumerate(p.candidates)) {
      double total = 0;
      for (auto [oi, v] : llvm::enumerate(p.op->getOperands())) {
        if (!operandBytes[oi])
          continue;
        double best = kInfiniteCost;
        for (const Entry &e : operandEntries[oi]) {
          double move = e.placements == c.operands[oi]
                            ? 0.0
                            : redistributeCost(operandBytes[oi], mesh,
                                               e.placements, c.operands[oi]);
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
      const ShardingCandidate &c = p.candidates[best->candidate];
      forced[p.op] = c;
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

double Planner::transitionCost(Value v, const Placements &from,
                               const Placements &to) const {
  if (from == to)
    return 0;
  int64_t bytes = getTensorByteSize(cast<RankedTensorType>(v.getType()));
  double direct = redistributeCost(bytes, mesh, from, to);
  if (!std::isinf(direct))
    return direct;
  std::optional<Placements> mid = getReplicatedIntermediate(from, to);
  if (!mid)
    return kInfiniteCost;
  return redistributeCost(bytes, mesh, from, *mid) +
         redistributeCost(bytes, mesh, *mid, to);
}

namespace {
/// Choice variables grouped by the placement they give a value.
using PlacementTerms =
    llvm::SmallVector<std::pair<Placements, llvm::SmallVector<int, 4>>, 4>;

void addTerm(PlacementTerms &terms, const Placements &ps, int var) {
  auto it = llvm::find_if(terms, [&](const auto &t) { return t.first == ps; });
  if (it == terms.end())
    terms.push_back({ps, {var}});
  else
    it->second.push_back(var);
}

const llvm::SmallVector<int, 4> *findTerms(const PlacementTerms &terms,
                                           const Placements &ps) {
  auto it = llvm::find_if(terms, [&](const auto &t) { return t.first == ps; });
  return it == terms.end() ? nullptr : &it->second;
}

/// What the program knows of one tensor value.
struct ValueTerms {
  /// Where planned ops can make it; empty when it is made outside them.
  PlacementTerms made;
  /// Per reading operand of a planned op, where it can be read.
  llvm::SmallVector<PlacementTerms, 2> reads;
  /// What fixed ops and the return need.
  llvm::SmallVector<Placements, 2> sinks;
};

/// The terms `sum(vars)` of a row.
void appendTerms(llvm::SmallVectorImpl<std::pair<int, double>> &row,
                 llvm::ArrayRef<int> vars, double coef) {
  for (int var : vars)
    row.push_back({var, coef});
}

/// The moves of one value to placement `q`, needed where `u` is 1. `u` is at
/// least every read of q (readers share one redistribution of the value to
/// q), exactly the read when `single` (one read, no sink). For a value made by planned
/// ops, `z_pq` (cost p -> q) is the part of u made in p: `sum_p z_pq = u`
/// and `z_pq <= x_p`, so that a 0-1 solution pays the move it makes, and
/// the linear relaxation is as tight as the transportation problem between
/// the two placements (Alpa's edge variables, with sharing).
void addMoves(MixedIntegerProgram &mip, const ValueTerms &terms,
              const Placements &q, int u, bool single,
              llvm::SmallVectorImpl<int> &zOfMade,
              llvm::function_ref<double(const Placements &)> costFrom) {
  for (const PlacementTerms &read : terms.reads) {
    llvm::SmallVector<std::pair<int, double>, 8> row{{u, 1.0}};
    if (const llvm::SmallVector<int, 4> *vars = findTerms(read, q))
      appendTerms(row, *vars, -1.0);
    mip.addRow(row, 0, single ? 0 : MixedIntegerProgram::kInfinity);
  }
  if (terms.made.empty())
    return;
  llvm::SmallVector<std::pair<int, double>, 8> sum{{u, -1.0}};
  for (auto [pi, made] : llvm::enumerate(terms.made)) {
    const auto &[p, vars] = made;
    double c = p == q ? 0.0 : costFrom(p);
    if (std::isinf(c)) {
      zOfMade[pi] = -1;
      continue;
    }
    int z = mip.addVariable(0, 1, c, /*integer=*/false);
    zOfMade[pi] = z;
    sum.push_back({z, 1.0});
    llvm::SmallVector<std::pair<int, double>, 8> bound{{z, 1.0}};
    appendTerms(bound, vars, -1.0);
    mip.addRow(bound, -MixedIntegerProgram::kInfinity, 0);
  }
  mip.addRow(sum, 0, 0);
}
} // namespace

LogicalResult Planner::solveExactly(ForcedStrategies &forced,
                                    PlannerStats &stats) {
  // One binary per op and candidate, exactly one per op.
  MixedIntegerProgram mip;
  std::vector<llvm::SmallVector<int, 8>> choice(ops.size());
  llvm::MapVector<Value, ValueTerms> values;
  for (auto [i, p] : llvm::enumerate(ops)) {
    llvm::SmallVector<std::pair<int, double>, 8> one;
    for (auto [c, cand] : llvm::enumerate(p.candidates)) {
      int var = mip.addBinary(0);
      choice[i].push_back(var);
      one.push_back({var, 1.0});
      for (auto [r, ps] : llvm::zip_equal(p.op->getResults(), cand.results))
        if (isa<RankedTensorType>(r.getType()))
          addTerm(values[r].made, ps, var);
    }
    mip.addRow(one, 1, 1);
    for (OpOperand &o : p.op->getOpOperands()) {
      if (!isa<RankedTensorType>(o.get().getType()))
        continue;
      PlacementTerms &read = values[o.get()].reads.emplace_back();
      for (auto [c, cand] : llvm::enumerate(p.candidates))
        addTerm(read, cand.operands[o.getOperandNumber()], choice[i][c]);
    }
  }
  for (const auto &[v, ns] : needs)
    llvm::append_range(values[v].sinks, ns);
  // Per value and placement q a reader may need: u_q and the moves to q.
  // Values created from scalars are built where their readers need them.
  for (auto &[v, terms] : values) {
    Entries fixed = terms.made.empty() ? leaf(v) : Entries();
    if (terms.made.empty() && (fixed.empty() || isCreatedValue(v)))
      continue;
    llvm::SmallVector<Placements, 4> targets(terms.sinks.begin(),
                                             terms.sinks.end());
    for (const PlacementTerms &read : terms.reads)
      for (const auto &[q, vars] : read)
        if (!llvm::is_contained(targets, q))
          targets.push_back(q);
    // With one read, every made placement goes somewhere: sum_q z_pq = x_p.
    bool single = terms.reads.size() == 1 && terms.sinks.empty();
    std::vector<llvm::SmallVector<std::pair<int, double>, 8>> outflow(
        terms.made.size());
    llvm::SmallVector<int, 4> zOfMade(terms.made.size());
    for (const Placements &q : targets) {
      bool sink = llvm::is_contained(terms.sinks, q);
      double c = fixed.empty() ? 0.0
                               : transitionCost(v, fixed.front().placements, q);
      int u = std::isinf(c) ? mip.addVariable(0, 0, 0, false)
                            : mip.addVariable(sink ? 1 : 0, 1, c, false);
      addMoves(mip, terms, q, u, single, zOfMade, [&](const Placements &p) {
        return transitionCost(v, p, q);
      });
      for (auto [pi, z] : llvm::enumerate(zOfMade))
        if (z >= 0)
          outflow[pi].push_back({z, 1.0});
    }
    if (single)
      for (auto [pi, made] : llvm::enumerate(terms.made)) {
        appendTerms(outflow[pi], made.second, -1.0);
        mip.addRow(outflow[pi], 0, 0);
      }
  }
  MixedIntegerProgram::Result result =
      mip.solve(options.nodeLimit, options.timeLimitSeconds);
  if (result.status != MixedIntegerProgram::Status::Optimal &&
      result.status != MixedIntegerProgram::Status::Feasible)
    return failure();
  for (auto [i, p] : llvm::enumerate(ops))
    for (auto [c, var] : llvm::enumerate(choice[i]))
      if (result.values[var] > 0.5)
        forced[p.op] = p.candidates[c];
  stats.exact = true;
  stats.provenOptimal = result.status == MixedIntegerProgram::Status::Optimal;
  stats.lowerBound = result.bound;
  return success();
}

llvm::SmallVector<ForcedStrategies, 2> Planner::run(PlannerStats &stats) {
  collect();
  llvm::SmallVector<ForcedStrategies, 2> plans;
  stats.plannedOps = static_cast<int64_t>(ops.size());
  stats.exactRequested = options.exact;
  if (ops.empty())
    return plans;
  if (options.exact && stats.plannedOps <= options.exactOpLimit) {
    ForcedStrategies exact;
    if (succeeded(solveExactly(exact, stats))) {
      plans.push_back(std::move(exact));
      if (stats.provenOptimal)
        return plans;
    }
  }
  // Start from the PyTorch placements of the cut values.
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

llvm::SmallVector<ForcedStrategies, 2>
mlir::dtensor::planFunctionGlobally(FunctionOpInterface func,
                                    const FunctionPlan &pytorch,
                                    const GlobalPlannerOptions &options,
                                    PlannerStats *stats) {
  PlannerStats local;
  PlannerStats &out = stats ? *stats : local;
  out = PlannerStats();
  if (!func.getFunctionBody().hasOneBlock())
    return {};
  return Planner(func, pytorch, options).run(out);
}
