//===- FakeReport.cpp - report fake-tensor metadata and collectives -------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/ShardingMath.h"
#include "dtensor/Support/TextTable.h"
#include "mlir/IR/AsmState.h"
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
  llvm::SmallVector<std::array<std::string, 5>> rows;
  llvm::SmallVector<int64_t> commBytes, peakBytes;
  double commCostUs = 0;
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

/// Builds the report of one function from its plan, section by section.
class ReportBuilder {
public:
  ReportBuilder(FunctionOpInterface func, const FunctionPlan &plan)
      : func(func), plan(plan), mesh(plan.getMeshShape()),
        numRanks(plan.getNumRanks()), asmState(func) {}

  FunctionReport build(bool comparePytorch);

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
  /// The `values` section, the table rows and the peak estimate.
  void addValues();
  /// Adds the bytes of `v` to `deltas` over its live range in `order`.
  void addLiveRange(Value v, const llvm::DenseMap<Operation *, int64_t> &order,
                    llvm::SmallVectorImpl<llvm::SmallVector<int64_t>> &deltas);
  /// The text table's "local shapes" cell: one shape, or one per rank when
  /// they differ.
  static std::string localShapesCell(llvm::ArrayRef<Shape> shapes);
  json::Array returnsJson();
  /// The `collectives` and `redistributions` sections and the comm bytes.
  void addCollectives();
  /// Adds the collectives of `steps` redistributing `r` to the report.
  void addSteps(const Redistribution &r, llvm::ArrayRef<RedistributeStep> steps,
                json::Array &collectives);

  FunctionOpInterface func;
  const FunctionPlan &plan;
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

void ReportBuilder::addLiveRange(
    Value v, const llvm::DenseMap<Operation *, int64_t> &order,
    llvm::SmallVectorImpl<llvm::SmallVector<int64_t>> &deltas) {
  Operation *def = v.getDefiningOp();
  int64_t start = def ? order.lookup(def) : 0;
  int64_t end = start;
  for (Operation *user : v.getUsers()) {
    Operation *u = user;
    while (u && !order.count(u))
      u = u->getParentOp();
    if (u)
      end = std::max(end, order.lookup(u));
  }
  auto bytes = plan.getLocalBytes(v);
  for (int64_t at : {start, end + 1})
    if (deltas[at].empty())
      deltas[at].assign(numRanks, 0);
  for (int64_t r = 0; r < numRanks; ++r) {
    deltas[start][r] += bytes[r];
    deltas[end + 1][r] -= bytes[r];
  }
}

void ReportBuilder::addValues() {
  // Live ranges in program order for the peak estimate.
  llvm::DenseMap<Operation *, int64_t> order;
  int64_t counter = 0;
  func.getFunctionBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { order[op] = ++counter; });
  llvm::SmallVector<llvm::SmallVector<int64_t>> deltas(counter + 2);
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
    addLiveRange(v, order, deltas);
  }
  rep.object["values"] = std::move(values);
  rep.peakBytes.assign(numRanks, 0);
  llvm::SmallVector<int64_t> live(numRanks, 0);
  for (const auto &d : deltas) {
    if (d.empty())
      continue;
    for (int64_t r = 0; r < numRanks; ++r) {
      live[r] += d[r];
      rep.peakBytes[r] = std::max(rep.peakBytes[r], live[r]);
    }
  }
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

void ReportBuilder::addSteps(const Redistribution &r,
                             llvm::ArrayRef<RedistributeStep> steps,
                             json::Array &collectives) {
  const FakeTensor *t = plan.lookup(r.value);
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
                 user ? locationString(user->getLoc()) : ""};
    for (int64_t i = 0; i < numRanks; ++i)
      rep.commBytes[i] += c.bytes[i];
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
                      json::Object{{"op", c.neededBy}, {"loc", c.location}}}});
    rep.collectives.push_back(std::move(c));
  }
}

void ReportBuilder::addCollectives() {
  rep.commBytes.assign(numRanks, 0);
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

FunctionReport ReportBuilder::build(bool comparePytorch) {
  rep.object["name"] = func.getName().str();
  rep.object["mesh"] = meshJson();
  addValues();
  rep.object["returns"] = returnsJson();
  addCollectives();
  rep.commCostUs = plan.computeCommCost();
  rep.object["totals"] = json::Object{
      {"comm_bytes", toJson(rep.commBytes)},
      {"peak_bytes", toJson(rep.peakBytes)},
      {"comm_cost_us", jsonNumber(rep.commCostUs)},
      {"num_collectives", static_cast<int64_t>(rep.collectives.size())}};
  if (const PlannerStats &stats = plan.plannerStats; stats.exactRequested)
    rep.object["planner"] = json::Object{
        {"exact", stats.exact},
        {"proven_optimal", stats.provenOptimal},
        {"planned_ops", stats.plannedOps},
        {"lower_bound_us", jsonNumber(stats.lowerBound)},
        {"segments", stats.segments},
        {"solved_segments", stats.solvedSegments},
        {"compute_us", jsonNumber(stats.computeUs)},
        {"pytorch_compute_us", jsonNumber(stats.pytorchComputeUs)}};
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
  if (comparePytorch) {
    rep.pytorchCostUs = plan.getPytorchCommCost();
    rep.object["totals"].getAsObject()->insert(
        {"pytorch_comm_cost_us", jsonNumber(*rep.pytorchCostUs)});
  }
  return std::move(rep);
}

FunctionReport buildReport(FunctionOpInterface func, const FunctionPlan &plan,
                           bool comparePytorch) {
  return ReportBuilder(func, plan).build(comparePytorch);
}

/// How strategy=global planned the function, when its plan is not proven
/// optimal (`costUs`: the plan's objective, communication plus compute).
void printPlanner(llvm::raw_ostream &os, const PlannerStats &stats,
                  double costUs) {
  if (stats.provenOptimal)
    return;
  if (stats.exact)
    os << "planner: exact over " << stats.plannedOps << " ops, ";
  else
    os << "planner: heuristic over " << stats.plannedOps
       << " ops (a segment past the exact planner's limits, or no solution "
          "within the solver's), ";
  os << "not proven optimal: the optimum is at least "
     << llvm::formatv("{0:F1}", stats.lowerBound) << " us (this plan "
     << llvm::formatv("{0:F1}", costUs - stats.lowerBound)
     << " us above it at most)\n";
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
    TextTable collectives({"kind", "axis", "value", "placements",
                           "bytes/rank", "cost_us", "for"});
    for (const Collective &c : rep.collectives)
      collectives.addRow(
          {stringifyStepKind(c.kind).str(), c.axisName, c.value,
           c.from + " -> " + c.to, joinIntegers(c.bytes),
           llvm::formatv("{0:F1}", c.costUs).str(),
           c.location.empty() ? c.neededBy
                              : c.neededBy + " (" + c.location + ")"});
    os << "collectives:\n";
    collectives.print(os);
  }
  os << "\ntotals: collectives=" << rep.collectives.size()
     << " comm_cost_us=" << llvm::formatv("{0:F1}", rep.commCostUs);
  if (rep.pytorchCostUs)
    os << " pytorch_comm_cost_us="
       << llvm::formatv("{0:F1}", *rep.pytorchCostUs);
  os << " comm_bytes/rank=[" << joinIntegers(rep.commBytes)
     << "] peak_bytes/rank=[" << joinIntegers(rep.peakBytes) << "]\n";
  if (const PlannerStats &stats = plan.plannerStats; stats.exactRequested)
    printPlanner(os, stats, rep.commCostUs + stats.computeUs);
  for (const std::string &note : rep.notes)
    os << "note: " << note << "\n";
  os << "\n";
}

struct FakeReportPass
    : public dtensor::impl::DTensorFakeReportBase<FakeReportPass> {
  using Base::Base;

  void runOnOperation() override {
    if (format != "json" && format != "text") {
      getOperation().emitError()
          << "dtensor-fake-report: format must be json or text, got '" << format
          << "'";
      return signalPassFailure();
    }
    const FakeTensorAnalysis &analysis =
        getAnalysis<FakeTensorAnalysisCache>().get(
            makeFakeTensorOptions(unknownOps, strategy));
    if (!analysis.succeeded())
      return signalPassFailure();

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "dtensor-fake-report: " << error;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = file->os();
    json::Array functions;
    for (FunctionOpInterface func : analysis.getFunctions()) {
      const FunctionPlan &plan = *analysis.getPlan(func);
      FunctionReport rep = buildReport(func, plan, comparePytorch);
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
