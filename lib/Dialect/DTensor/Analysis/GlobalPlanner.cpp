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
  Planner(FunctionOpInterface func, const FunctionPlan &pytorch)
      : func(func), body(func.getFunctionBody().front()), pytorch(pytorch),
        mesh(pytorch.getMeshShape()) {}

  ForcedStrategies run();

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

ForcedStrategies Planner::run() {
  collect();
  ForcedStrategies forced;
  if (ops.empty())
    return forced;
  // Start from the PyTorch placements of the cut values.
  solveAll();
  descend();
  double total = 0;
  for (const auto &[root, c] : segmentCost)
    total += c;
  // Nothing to gain: the caller keeps the PyTorch plan without re-running.
  if (total >= pytorchTotal() - 1e-9)
    return forced;
  extract(forced);
  return forced;
}

ForcedStrategies
mlir::dtensor::planFunctionGlobally(FunctionOpInterface func,
                                    const FunctionPlan &pytorch) {
  if (!func.getFunctionBody().hasOneBlock())
    return {};
  return Planner(func, pytorch).run();
}
