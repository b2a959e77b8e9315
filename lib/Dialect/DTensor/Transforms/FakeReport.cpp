//===- FakeReport.cpp - report fake-tensor metadata and collectives -------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Dialect/DTensor/Analysis/ExecutionCount.h"
#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Analysis/MemoryLiveness.h"
#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/MemoryPeak.h"
#include "dtensor/Support/ShardingMath.h"
#include "dtensor/Support/TextTable.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORFAKEREPORT
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

#include <cmath>

using namespace mlir;
using namespace mlir::dtensor;

/// A cost as a JSON number; `null` where it is not finite, so that the
/// report stays valid JSON (JSON has no infinity).
static llvm::json::Value jsonNumber(double v) {
  if (!std::isfinite(v))
    return nullptr;
  return v;
}
namespace json = llvm::json;

namespace {

using Shape = llvm::SmallVector<int64_t, 4>;

json::Array toJson(llvm::ArrayRef<int64_t> v) {
  json::Array a;
  for (int64_t x : v)
    a.push_back(x);
  return a;
}

json::Array shapesJson(llvm::ArrayRef<Shape> shapes) {
  json::Array a;
  for (const Shape &s : shapes)
    a.push_back(toJson(s));
  return a;
}

json::Array placementsJson(llvm::ArrayRef<Placement> ps) {
  json::Array a;
  for (const Placement &p : ps)
    a.push_back(p.str());
  return a;
}

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// Per-rank bytes of a tensor of `type` under `ps`.
llvm::SmallVector<int64_t> localBytes(RankedTensorType type,
                                      llvm::ArrayRef<int64_t> mesh,
                                      llvm::ArrayRef<Placement> ps) {
  return computeAllLocalBytes(
      type.getShape(), getElementByteSize(type.getElementType()), mesh, ps);
}

/// One collective of the plan.
struct Collective {
  StepKind kind;
  int64_t axis;
  llvm::SmallVector<int64_t> bytes;
  double costUs;
  std::string value, from, to;
  /// The mesh axis' name, and the op (with its location) that needs it.
  std::string axisName, neededBy, location;
  /// Runs per call of the function, and the loops and branches around it
  /// (`x2 in scf.for (f.mlir:3:8)`).
  int64_t executions = 1;
  std::string runs;
  /// No loop or branch around it.
  bool straightLine = true;
};

/// Collectives, bytes per rank and cost of some executions.
struct Tally {
  int64_t count = 0;
  llvm::SmallVector<int64_t> bytes;
  double costUs = 0;

  /// Adds `times` runs of `other`.
  void add(const Tally &other, int64_t times) {
    count += other.count * times;
    if (bytes.size() < other.bytes.size())
      bytes.resize(other.bytes.size(), 0);
    for (auto [i, b] : llvm::enumerate(other.bytes))
      bytes[i] += b * times;
    costUs += other.costUs * static_cast<double>(times);
  }
};

/// One call of a function with a plan.
struct CallSite {
  std::string callee, location, runs;
  int64_t executions;
  Tally perCall;
};

/// `file:line:col` of the first file location in `loc` (the file's base
/// name), or empty.
std::string locationString(Location loc) {
  std::string out;
  loc->walk([&](Location inner) {
    auto flc = dyn_cast<FileLineColLoc>(inner);
    if (!flc)
      return WalkResult::advance();
    out = (llvm::sys::path::filename(flc.getFilename().getValue()) + ":" +
           llvm::Twine(flc.getLine()) + ":" + llvm::Twine(flc.getColumn()))
              .str();
    return WalkResult::interrupt();
  });
  return out;
}

/// The op a redistribution is there for: the explicit op, or the first op
/// reading the redistributed value (`func.return` for a result request).
Operation *neededByOp(const Redistribution &r) {
  if (r.op)
    return r.op;
  return r.users.empty() ? nullptr : r.users.front()->getOwner();
}

/// Everything the report says about one function.
struct FunctionReport {
  json::Object object;
  std::vector<Collective> collectives;
  std::vector<CallSite> calls;
  llvm::SmallVector<std::array<std::string, 5>> rows;
  llvm::SmallVector<int64_t> peakBytes;
  /// Per rank, the largest buffer live at its peak (`describe`), and the
  /// JSON `peak_values` (value and bytes per rank).
  llvm::SmallVector<std::string> peakValues;
  llvm::SmallVector<int64_t> peakValueBytes;
  json::Array peakJson;
  /// Every execution per call of the function: loops times their trip
  /// count, the dearest region of a branch, callees once per call.
  Tally totals;
  /// The plan's cost as the planner counts it (its objective, comparable
  /// with PyTorch's plan): every execution of a loop, every region of a
  /// branch, the callees' collectives left to the callees.
  double planCostUs = 0;
  std::optional<double> pytorchCostUs;
  /// Lines the text report ends with.
  llvm::SmallVector<std::string> notes;
};

/// The placements after `step`.
Placements placementsAfter(const RedistributeStep &step) {
  Placements after = step.before;
  after[step.axis] = step.to;
  return after;
}

/// The data of one collective step on each rank: what is gathered for
/// all_gather, the buffer for all_reduce, the input otherwise.
llvm::SmallVector<int64_t> stepBytes(const RedistributeStep &step,
                                     RankedTensorType type,
                                     llvm::ArrayRef<int64_t> mesh) {
  return localBytes(type, mesh,
                    step.kind == StepKind::AllGather ? placementsAfter(step)
                                                     : step.before);
}

double stepCost(const RedistributeStep &step, RankedTensorType type,
                llvm::ArrayRef<int64_t> mesh) {
  return transitionCost(getTensorByteSize(type), mesh, step.before, step.axis,
                        step.to);
}

/// `x<count>`, then the loops and branches of `scopes`, innermost first:
/// `x2 in scf.for (f.mlir:3:8)`, `x1 in region 1 of scf.if (f.mlir:5:3)`.
std::string runsString(llvm::ArrayRef<ExecutionScope> scopes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "x" << getExecutionCount(scopes);
  if (!scopes.empty())
    os << " in ";
  llvm::interleave(
      scopes, os,
      [&](const ExecutionScope &sc) {
        if (sc.kind == ScopeKind::Branch)
          os << "region " << sc.regionIndex << " of ";
        os << sc.op->getName() << " (" << locationString(sc.op->getLoc());
        if (sc.kind == ScopeKind::Loop && !sc.tripCount)
          os << ", trip count unknown: counted " << kUnknownTripCount;
        os << ")";
      },
      ", ");
  return s;
}

/// The loops and branches of `scopes` as JSON, innermost first.
json::Array scopesJson(llvm::ArrayRef<ExecutionScope> scopes) {
  json::Array a;
  for (const ExecutionScope &sc : scopes) {
    json::Object o{{"op", sc.op->getName().getStringRef().str()},
                   {"loc", locationString(sc.op->getLoc())},
                   {"region", static_cast<int64_t>(sc.regionIndex)}};
    if (sc.kind == ScopeKind::Loop)
      o["trip_count"] = sc.tripCount ? json::Value(*sc.tripCount) : nullptr;
    a.push_back(std::move(o));
  }
  return a;
}

json::Object tallyJson(const Tally &t) {
  return json::Object{{"num_collectives", t.count},
                      {"comm_bytes", toJson(t.bytes)},
                      {"comm_cost_us", jsonNumber(t.costUs)}};
}

/// Totals of the functions reported so far (callees come first).
using CalleeTotals = llvm::DenseMap<Operation *, Tally>;

/// Builds the report of one function from its plan, section by section.
class ReportBuilder {
public:
  ReportBuilder(FunctionOpInterface func, const FunctionPlan &plan,
                const CalleeTotals &callees)
      : func(func), plan(plan), callees(callees), mesh(plan.getMeshShape()),
        numRanks(plan.getNumRanks()), asmState(func) {}

  /// The report; `pytorchCostUs`, if given, is the every-execution cost of
  /// the strategy=pytorch plan.
  FunctionReport build(std::optional<double> pytorchCostUs);

private:
  std::string valueName(Value v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    v.printAsOperand(os, asmState);
    return s;
  }
  json::Value meshJson();
  /// The name of mesh axis `axis` (its number without a mesh).
  std::string axisName(int64_t axis) const {
    if (MeshOp m = plan.getMesh())
      if (axis < static_cast<int64_t>(m.getAxisNames().size()))
        return cast<StringAttr>(m.getAxisNames()[axis]).getValue().str();
    return std::to_string(axis);
  }
  /// The `values` section and the table rows.
  void addValues();
  /// The per-rank peak (`computeMemoryPeak`) and its largest buffers.
  void addPeak();
  /// A buffer of the peak for the report: `%3`, `%3 redistributed`,
  /// `all_gather buffers of %3`.
  std::string describe(const PeakBuffer &b);
  /// The text table's "local shapes" cell: one shape, or one per rank when
  /// they differ.
  static std::string localShapesCell(llvm::ArrayRef<Shape> shapes);
  json::Array returnsJson();
  /// The `collectives` and `redistributions` sections and the comm bytes.
  void addCollectives();
  /// Adds the collectives of `steps` redistributing `r` to the report.
  void addSteps(const Redistribution &r, llvm::ArrayRef<RedistributeStep> steps,
                json::Array &collectives);
  /// Why redistribution `r` is there (the `why` of its collectives): the op
  /// and operand that read it, the placements it goes from and to, and for
  /// an op with a sharding rule the strategy the plan chose, its cost and
  /// the runner-up's (`FunctionPlan::getStrategyChoice`).
  json::Object whyJson(const Redistribution &r);
  /// The `calls` section: calls of functions with a plan, each counting
  /// the callee's totals once per run.
  void addCalls();
  /// Every execution of the collectives in `region` (or `op`'s regions):
  /// loops times their counted trip count, the dearest region of a branch.
  Tally tallyRegion(Region &region);
  Tally tallyOp(Operation &op);

  FunctionOpInterface func;
  const FunctionPlan &plan;
  const CalleeTotals &callees;
  /// The collectives (and calls) directly in each block, one run each.
  llvm::DenseMap<Block *, Tally> direct;
  llvm::ArrayRef<int64_t> mesh;
  int64_t numRanks;
  AsmState asmState;
  FunctionReport rep;
};

json::Value ReportBuilder::meshJson() {
  MeshOp m = plan.getMesh();
  if (!m)
    return nullptr;
  json::Array names;
  for (Attribute a : m.getAxisNames())
    names.push_back(cast<StringAttr>(a).getValue().str());
  return json::Object{{"name", m.getSymName().str()},
                      {"axis_names", std::move(names)},
                      {"shape", toJson(mesh)}};
}

std::string ReportBuilder::localShapesCell(llvm::ArrayRef<Shape> shapes) {
  if (llvm::all_of(shapes, [&](const Shape &s) { return s == shapes.front(); }))
    return shapeString(shapes.front());
  std::string local;
  llvm::raw_string_ostream os(local);
  llvm::interleave(
      shapes, os, [&](const Shape &s) { os << shapeString(s); }, " ");
  return local;
}

void ReportBuilder::addValues() {
  json::Array values;
  for (Value v : plan.getValues()) {
    const FakeTensor *t = plan.lookup(v);
    auto shapes = plan.getLocalShapes(v);
    Operation *def = v.getDefiningOp();
    std::string op = def ? def->getName().getStringRef().str()
                         : std::string("block_argument");
    // Where the value is defined: its op, or the function for an argument.
    Location loc = def ? def->getLoc() : v.getLoc();
    values.push_back(
        json::Object{{"name", valueName(v)},
                     {"op", op},
                     {"loc", locationString(loc)},
                     {"global_shape", toJson(t->type.getShape())},
                     {"dtype", typeString(t->type.getElementType())},
                     {"placements", placementsJson(t->placements)},
                     {"local_shapes", shapesJson(shapes)},
                     {"bytes", toJson(plan.getLocalBytes(v))}});
    rep.rows.push_back({valueName(v), op,
                        shapeString(t->type.getShape()) + "x" +
                            typeString(t->type.getElementType()),
                        placementsToString(t->placements),
                        localShapesCell(shapes)});
  }
  rep.object["values"] = std::move(values);
}

std::string ReportBuilder::describe(const PeakBuffer &b) {
  if (!b.value)
    return "nothing";
  switch (b.kind) {
  case BufferKind::Value:
    return valueName(b.value);
  case BufferKind::Redistributed:
    return valueName(b.value) + " redistributed";
  case BufferKind::Temporaries:
    return b.steps + " buffers of " + valueName(b.value);
  }
  return valueName(b.value);
}

void ReportBuilder::addPeak() {
  MemoryPeak peak = computeMemoryPeak(func, plan);
  rep.peakBytes = peak.bytes;
  json::Array values;
  for (const PeakBuffer &b : peak.largest) {
    rep.peakValues.push_back(describe(b));
    rep.peakValueBytes.push_back(b.bytes);
    values.push_back(json::Object{{"value", rep.peakValues.back()},
                                  {"bytes", b.bytes}});
  }
  rep.peakJson = std::move(values);
}

json::Array ReportBuilder::returnsJson() {
  // Returned values in the placements they leave with.
  json::Array returns;
  Operation *ret = func.getFunctionBody().front().getTerminator();
  for (OpOperand &o : ret->getOpOperands()) {
    const FakeTensor *t = plan.lookup(o.get());
    if (!t)
      continue;
    const Placements *req = plan.getRequiredPlacements(o);
    const Placements &ps = req ? *req : t->placements;
    returns.push_back(json::Object{
        {"placements", placementsJson(ps)},
        {"global_shape", toJson(t->type.getShape())},
        {"local_shapes",
         shapesJson(computeAllLocalShapes(t->type.getShape(), mesh, ps))}});
  }
  return returns;
}

/// A strategy as JSON: the placements it reads each operand in and gives
/// each result (null for a non-tensor), and its cost for the choice rule.
json::Object candidateJson(const ScoredCandidate &c) {
  auto list = [](llvm::ArrayRef<Placements> all) {
    json::Array a;
    for (const Placements &ps : all)
      a.push_back(ps.empty() ? json::Value(nullptr)
                             : json::Value(placementsToString(ps)));
    return a;
  };
  return json::Object{{"operands", list(c.candidate.operands)},
                      {"results", list(c.candidate.results)},
                      {"cost_us", jsonNumber(c.costUs)}};
}

json::Object ReportBuilder::whyJson(const Redistribution &r) {
  const FakeTensor *t = plan.lookup(r.value);
  Operation *user = neededByOp(r);
  json::Object why{{"from", placementsToString(t->placements)},
                   {"to", placementsToString(r.target)},
                   {"op", user ? user->getName().getStringRef().str() : ""},
                   {"loc", user ? locationString(user->getLoc()) : ""}};
  if (r.op) {
    why["reason"] = "explicit";
    return why;
  }
  if (!user)
    return why;
  why["operand"] = static_cast<int64_t>(r.users.front()->getOperandNumber());
  if (user->hasTrait<OpTrait::ReturnLike>() &&
      isa<FunctionOpInterface>(user->getParentOp())) {
    why["reason"] = "result_spec";
    return why;
  }
  // A value entering or leaving a loop or branch: the placements its
  // region arguments or results settled on.
  if (user->hasTrait<OpTrait::ReturnLike>() ||
      isa<RegionBranchOpInterface>(user)) {
    why["reason"] = "region_boundary";
    return why;
  }
  if (isa<CallOpInterface>(user)) {
    why["reason"] = "call_argument";
    return why;
  }
  why["reason"] = "operand";
  FailureOr<StrategyChoice> choice = plan.getStrategyChoice(user);
  if (failed(choice)) {
    why["strategy"] = nullptr;
    return why;
  }
  const ScoredCandidate &chosen = choice->candidates[choice->chosen];
  json::Object strategy{
      {"chosen", candidateJson(chosen)},
      {"runner_up", choice->runnerUp < 0
                        ? json::Value(nullptr)
                        : json::Value(candidateJson(
                              choice->candidates[choice->runnerUp]))},
      {"num_candidates", static_cast<int64_t>(choice->candidates.size())}};
  why["strategy"] = std::move(strategy);
  return why;
}

void ReportBuilder::addSteps(const Redistribution &r,
                             llvm::ArrayRef<RedistributeStep> steps,
                             json::Array &collectives) {
  const FakeTensor *t = plan.lookup(r.value);
  // Materialised right after the value's definition (or at its block's
  // start), or where the explicit op is.
  Block *block = r.op ? RedistributeOp(r.op)->getBlock()
                       : Value(r.value).getParentBlock();
  llvm::SmallVector<ExecutionScope> scopes =
      getExecutionScopes(block, func.getOperation());
  Tally &here = direct[block];
  here.bytes.resize(numRanks, 0);
  here.costUs += plan.getCost(r);
  json::Object why = whyJson(r);
  for (const RedistributeStep &step : steps) {
    if (!isCollective(step.kind))
      continue;
    Operation *user = neededByOp(r);
    Collective c{step.kind,
                 step.axis,
                 stepBytes(step, t->type, mesh),
                 stepCost(step, t->type, mesh),
                 valueName(r.value),
                 placementsToString(step.before),
                 placementsToString(placementsAfter(step)),
                 axisName(step.axis),
                 user ? user->getName().getStringRef().str() : "",
                 user ? locationString(user->getLoc()) : "",
                 getExecutionCount(scopes),
                 runsString(scopes),
                 scopes.empty()};
    ++here.count;
    for (int64_t i = 0; i < numRanks; ++i)
      here.bytes[i] += c.bytes[i];
    collectives.push_back(
        json::Object{{"kind", stringifyStepKind(c.kind).str()},
                     {"mesh_axes", json::Array{c.axis}},
                     {"bytes", toJson(c.bytes)},
                     {"cost_us", jsonNumber(c.costUs)},
                     {"value", c.value},
                     {"global_shape", toJson(t->type.getShape())},
                     {"from", c.from},
                     {"to", c.to},
                     {"mesh_axis_names", json::Array{c.axisName}},
                     {"needed_by",
                      json::Object{{"op", c.neededBy}, {"loc", c.location}}},
                     {"executions", c.executions},
                     {"runs", c.runs},
                     {"in", scopesJson(scopes)},
                     {"why", json::Object(why)}});
    rep.collectives.push_back(std::move(c));
  }
}

void ReportBuilder::addCollectives() {
  json::Array collectives;
  json::Array redistributions;
  for (const Redistribution &r : plan.getRedistributions()) {
    const FakeTensor *t = plan.lookup(r.value);
    llvm::SmallVector<RedistributeStep> steps;
    std::string err;
    if (!plan.planSteps(r, steps, err))
      continue;
    addSteps(r, steps, collectives);
    json::Array stepKinds;
    for (const RedistributeStep &step : steps)
      stepKinds.push_back(stringifyStepKind(step.kind).str());
    double cost = plan.getCost(r);
    json::Object entry{{"value", valueName(r.value)},
                       {"from", placementsToString(t->placements)},
                       {"to", placementsToString(r.target)},
                       {"explicit", static_cast<bool>(r.op)},
                       {"steps", std::move(stepKinds)},
                       {"cost_us", jsonNumber(cost)}};
    // Materialised as two explicit redistributions, through these.
    if (r.through)
      entry["through"] = placementsToString(*r.through);
    redistributions.push_back(std::move(entry));
  }
  rep.object["collectives"] = std::move(collectives);
  rep.object["redistributions"] = std::move(redistributions);
}

FunctionReport ReportBuilder::build(std::optional<double> pytorchCostUs) {
  rep.object["name"] = func.getName().str();
  rep.object["mesh"] = meshJson();
  addValues();
  addPeak();
  rep.object["returns"] = returnsJson();
  addCollectives();
  addCalls();
  rep.totals = tallyRegion(func.getFunctionBody());
  rep.totals.bytes.resize(numRanks, 0);
  rep.planCostUs = plan.computeCommCost();
  json::Object totals = tallyJson(rep.totals);
  totals["peak_bytes"] = toJson(rep.peakBytes);
  totals["peak_values"] = std::move(rep.peakJson);
  totals["plan_comm_cost_us"] = jsonNumber(rep.planCostUs);
  rep.object["totals"] = std::move(totals);
  if (const PlannerStats &stats = plan.plannerStats; stats.exactRequested)
    rep.object["planner"] = json::Object{
        {"exact", stats.exact},
        {"proven_optimal", stats.provenOptimal},
        {"planned_ops", stats.plannedOps},
        {"lower_bound_us", jsonNumber(stats.lowerBound)},
        {"under_budget", stats.underBudget}};
  // strategy=pytorch: the ops PyTorch DTensor would refuse.
  if (!plan.getPyTorchRefusals().empty()) {
    json::Array refusals;
    for (const auto &[op, why] : plan.getPyTorchRefusals()) {
      refusals.push_back(json::Object{{"op", op->getName().getStringRef()},
                                      {"loc", locationString(op->getLoc())},
                                      {"reason", why}});
      rep.notes.push_back("PyTorch DTensor refuses " +
                          op->getName().getStringRef().str() + " (" +
                          locationString(op->getLoc()) + "): " + why +
                          "; this plan redistributes instead");
    }
    rep.object["pytorch_refuses"] = std::move(refusals);
  }
  if (pytorchCostUs) {
    rep.pytorchCostUs = pytorchCostUs;
    rep.object["totals"].getAsObject()->insert(
        {"pytorch_comm_cost_us", jsonNumber(*rep.pytorchCostUs)});
  }
  return std::move(rep);
}

void ReportBuilder::addCalls() {
  json::Array calls;
  func.getFunctionBody().walk([&](CallOpInterface call) {
    auto it = callees.find(call.resolveCallable());
    if (it == callees.end())
      return;
    llvm::SmallVector<ExecutionScope> scopes =
        getExecutionScopes(call->getBlock(), func.getOperation());
    Tally &here = direct[call->getBlock()];
    here.add(it->second, 1);
    CallSite site{cast<FunctionOpInterface>(it->first).getName().str(),
                  locationString(call->getLoc()), runsString(scopes),
                  getExecutionCount(scopes), it->second};
    json::Object entry = tallyJson(site.perCall);
    entry["callee"] = site.callee;
    entry["loc"] = site.location;
    entry["executions"] = site.executions;
    entry["in"] = scopesJson(scopes);
    calls.push_back(std::move(entry));
    rep.calls.push_back(std::move(site));
  });
  rep.object["calls"] = std::move(calls);
}

Tally ReportBuilder::tallyOp(Operation &op) {
  ScopeKind kind = getScopeKind(&op);
  Tally total;
  for (Region &region : op.getRegions()) {
    Tally t = tallyRegion(region);
    if (kind != ScopeKind::Branch)
      total.add(t, 1);
    else if (t.costUs > total.costUs ||
             (t.costUs == total.costUs && t.count > total.count))
      total = std::move(t);
  }
  Tally counted;
  counted.add(total, kind == ScopeKind::Loop ? getCountedTripCount(&op) : 1);
  return counted;
}

Tally ReportBuilder::tallyRegion(Region &region) {
  Tally total;
  for (Block &block : region) {
    if (auto it = direct.find(&block); it != direct.end())
      total.add(it->second, 1);
    for (Operation &op : block)
      if (op.getNumRegions() != 0)
        total.add(tallyOp(op), 1);
  }
  return total;
}

FunctionReport buildReport(FunctionOpInterface func, const FunctionPlan &plan,
                           std::optional<double> pytorchCostUs,
                           const CalleeTotals &callees) {
  return ReportBuilder(func, plan, callees).build(pytorchCostUs);
}

/// How strategy=exact planned the function.
void printPlanner(llvm::raw_ostream &os, const PlannerStats &stats,
                  double costUs) {
  if (!stats.exact) {
    os << "planner: heuristic over " << stats.plannedOps
       << " ops (too many to solve exactly, or no solution within the "
          "solver's limits), not proven optimal\n";
    return;
  }
  os << "planner: exact over " << stats.plannedOps << " ops, ";
  if (stats.underBudget) {
    // Memory rows bound an upper estimate of the peak.
    os << "within max-bytes-per-rank"
       << (stats.provenOptimal ? ", optimal under its memory model\n"
                               : ", not proven optimal\n");
    return;
  }
  if (stats.provenOptimal) {
    os << "proven optimal\n";
    return;
  }
  os << "not proven optimal: the optimum is at least "
     << llvm::formatv("{0:F1}", stats.lowerBound) << " us (this plan "
     << llvm::formatv("{0:F1}", costUs - stats.lowerBound)
     << " us above it at most)\n";
}

/// The peak per rank in human units, and the largest buffer live at the
/// peak of the worst rank.
void printPeak(llvm::raw_ostream &os, const FunctionReport &rep) {
  if (rep.peakBytes.empty())
    return;
  os << "peak memory/rank: [";
  llvm::interleave(
      rep.peakBytes, os, [&](int64_t b) { os << formatByteSize(b); }, ", ");
  int64_t worst = 0;
  for (auto [r, b] : llvm::enumerate(rep.peakBytes))
    if (b > rep.peakBytes[worst])
      worst = static_cast<int64_t>(r);
  os << "]; largest live at the peak of rank " << worst << ": "
     << rep.peakValues[worst] << " ("
     << formatByteSize(rep.peakValueBytes[worst]) << ")\n";
}

void printText(llvm::raw_ostream &os, FunctionOpInterface func,
               const FunctionPlan &plan, const FunctionReport &rep) {
  os << "function @" << func.getName();
  if (MeshOp m = plan.getMesh())
    os << " on mesh @" << m.getSymName() << " " << shapeString(m.getShape())
       << " (" << plan.getNumRanks() << " ranks)";
  os << "\n\n";
  TextTable values({"value", "op", "global", "placements", "local shapes"});
  for (const auto &row : rep.rows)
    values.addRow(row);
  values.print(os);
  os << "\n";
  if (rep.collectives.empty()) {
    os << "collectives: none\n";
  } else {
    // The `runs` column only where some collective is inside a loop or a
    // branch (straight-line code runs each once).
    bool showRuns = llvm::any_of(
        rep.collectives, [](const Collective &c) { return !c.straightLine; });
    llvm::SmallVector<std::string, 8> header = {
        "kind", "axis", "value", "placements", "bytes/rank", "cost_us", "for"};
    if (showRuns)
      header.push_back("runs");
    TextTable collectives(header);
    for (const Collective &c : rep.collectives) {
      llvm::SmallVector<std::string, 8> row = {
          stringifyStepKind(c.kind).str(), c.axisName, c.value,
          c.from + " -> " + c.to, joinIntegers(c.bytes),
          llvm::formatv("{0:F1}", c.costUs).str(),
          c.location.empty() ? c.neededBy
                             : c.neededBy + " (" + c.location + ")"};
      if (showRuns)
        row.push_back(c.runs);
      collectives.addRow(row);
    }
    os << "collectives:\n";
    collectives.print(os);
  }
  if (!rep.calls.empty()) {
    TextTable calls({"callee", "at", "collectives/call", "bytes/rank/call",
                     "cost_us/call", "runs"});
    for (const CallSite &c : rep.calls)
      calls.addRow({"@" + c.callee, c.location,
                    std::to_string(c.perCall.count),
                    joinIntegers(c.perCall.bytes),
                    llvm::formatv("{0:F1}", c.perCall.costUs).str(), c.runs});
    os << "\ncalls:\n";
    calls.print(os);
  }
  os << "\ntotals: collectives=" << rep.totals.count
     << " comm_cost_us=" << llvm::formatv("{0:F1}", rep.totals.costUs);
  if (rep.pytorchCostUs)
    os << " pytorch_comm_cost_us="
       << llvm::formatv("{0:F1}", *rep.pytorchCostUs);
  os << " comm_bytes/rank=[" << joinIntegers(rep.totals.bytes)
     << "] peak_bytes/rank=[" << joinIntegers(rep.peakBytes) << "]\n";
  printPeak(os, rep);
  // Branches or calls: the planner's objective counts every region of a
  // branch and leaves the callees' collectives to them.
  if (std::abs(rep.planCostUs - rep.totals.costUs) > 1e-9)
    os << "plan: comm_cost_us=" << llvm::formatv("{0:F1}", rep.planCostUs)
       << " as the planner counts it (every region of a branch, callees "
          "apart)\n";
  if (const PlannerStats &stats = plan.plannerStats; stats.exactRequested)
    printPlanner(os, stats, rep.planCostUs);
  for (const std::string &note : rep.notes)
    os << "note: " << note << "\n";
  os << "\n";
}

/// Whether a collective of `module` may run other than once per call (an op
/// in a loop or a branch, or a call), so that a plan's every-execution cost
/// differs from its cost counting each redistribution once.
bool hasLoopsBranchesOrCalls(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<CallOpInterface>(op) ||
                       getScopeKind(op) != ScopeKind::Plain
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct FakeReportPass
    : public dtensor::impl::DTensorFakeReportBase<FakeReportPass> {
  using Base::Base;

  /// The every-execution cost of the strategy=pytorch plan of each function.
  llvm::DenseMap<Operation *, double> pytorchTotals() {
    ScopedDiagnosticHandler quiet(&getContext(),
                                  [](Diagnostic &) { return success(); });
    FakeTensorAnalysis pytorch(
        getOperation(),
        makeFakeTensorOptions(unknownOps, StrategyMode::PyTorch));
    llvm::DenseMap<Operation *, double> costs;
    CalleeTotals totals;
    if (!pytorch.succeeded())
      return costs;
    // In the prices the global plan is compared in (as without loops and
    // calls, where the plan's own PyTorch cost is reported).
    pytorch.priceStridedStepsAsCollectives();
    for (FunctionOpInterface func : pytorch.getFunctions()) {
      FunctionReport rep = buildReport(func, *pytorch.getPlan(func),
                                       std::nullopt, totals);
      totals[func.getOperation()] = rep.totals;
      costs[func.getOperation()] = rep.totals.costUs;
    }
    return costs;
  }

  void runOnOperation() override {
    if (format != "json" && format != "text") {
      getOperation().emitError()
          << "dtensor-fake-report: format must be json or text, got '" << format
          << "'";
      return signalPassFailure();
    }
    FailureOr<int64_t> budget =
        parseMaxBytesPerRank(getOperation(), maxBytesPerRank);
    if (failed(budget))
      return signalPassFailure();
    const FakeTensorAnalysis &analysis =
        getAnalysis<FakeTensorAnalysisCache>().get(
            makeFakeTensorOptions(unknownOps, strategy, *budget));
    if (!analysis.succeeded())
      return signalPassFailure();

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "dtensor-fake-report: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = file->os();
    // The PyTorch plan's every-execution cost needs a report of its own only
    // where executions are counted; otherwise it is the plan's cost.
    bool reportPytorch =
        comparePytorch && hasLoopsBranchesOrCalls(getOperation());
    llvm::DenseMap<Operation *, double> pytorchCosts;
    if (reportPytorch)
      pytorchCosts = pytorchTotals();
    json::Array functions;
    CalleeTotals totals;
    for (FunctionOpInterface func : analysis.getFunctions()) {
      const FunctionPlan &plan = *analysis.getPlan(func);
      std::optional<double> pytorchCost;
      if (comparePytorch)
        pytorchCost = reportPytorch ? pytorchCosts.lookup(func.getOperation())
                                    : plan.getPytorchCommCost();
      FunctionReport rep = buildReport(func, plan, pytorchCost, totals);
      totals[func.getOperation()] = rep.totals;
      if (format == "text")
        printText(os, func, plan, rep);
      else
        functions.push_back(std::move(rep.object));
    }
    if (format == "json")
      os << llvm::formatv("{0:2}", json::Value(json::Object{
                                       {"functions", std::move(functions)}}))
         << "\n";
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
