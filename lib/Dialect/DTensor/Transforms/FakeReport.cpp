//===- FakeReport.cpp - report fake-tensor metadata and collectives -------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/ShardingMath.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORFAKEREPORT
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;
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
  int64_t elt = getElementByteSize(type.getElementType());
  llvm::SmallVector<int64_t> bytes;
  for (const Shape &s : computeAllLocalShapes(type.getShape(), mesh, ps)) {
    int64_t n = elt;
    for (int64_t d : s)
      n *= d;
    bytes.push_back(n);
  }
  return bytes;
}

/// One collective of the plan.
struct Collective {
  StepKind kind;
  int64_t axis;
  llvm::SmallVector<int64_t> bytes;
  double costUs;
  std::string value, from, to;
};

/// Everything the report says about one function.
struct FunctionReport {
  json::Object object;
  llvm::SmallVector<Collective> collectives;
  llvm::SmallVector<std::array<std::string, 5>> rows;
  llvm::SmallVector<int64_t> commBytes, peakBytes;
  double commCostUs = 0;
  std::optional<double> pytorchCostUs;
};

/// The data of one collective step on each rank: what is gathered for
/// all_gather, the buffer for all_reduce, the input otherwise.
llvm::SmallVector<int64_t> stepBytes(const RedistributeStep &step,
                                     RankedTensorType type,
                                     llvm::ArrayRef<int64_t> mesh) {
  Placements after = step.before;
  after[step.axis] = step.to;
  return localBytes(type, mesh,
                    step.kind == StepKind::AllGather ? after : step.before);
}

double stepCost(const RedistributeStep &step, RankedTensorType type,
                llvm::ArrayRef<int64_t> mesh) {
  Placements after = step.before;
  after[step.axis] = step.to;
  int64_t bytes = getTensorByteSize(type);
  return redistributeCost(bytes, mesh, step.before, after);
}

FunctionReport buildReport(FunctionOpInterface func, const FunctionPlan &plan,
                           bool comparePytorch) {
  FunctionReport rep;
  llvm::ArrayRef<int64_t> mesh = plan.getMeshShape();
  int64_t numRanks = plan.getNumRanks();
  AsmState asmState(func);
  auto valueName = [&](Value v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    v.printAsOperand(os, asmState);
    return s;
  };

  rep.object["name"] = func.getName().str();
  if (MeshOp m = plan.getMesh()) {
    json::Array names;
    for (Attribute a : m.getAxisNames())
      names.push_back(cast<StringAttr>(a).getValue().str());
    rep.object["mesh"] = json::Object{{"name", m.getSymName().str()},
                                      {"axis_names", std::move(names)},
                                      {"shape", toJson(mesh)}};
  } else {
    rep.object["mesh"] = nullptr;
  }

  // Values, and their live ranges in program order for the peak estimate.
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
    json::Object o{{"name", valueName(v)},
                   {"op", def ? def->getName().getStringRef().str()
                              : std::string("block_argument")},
                   {"global_shape", toJson(t->type.getShape())},
                   {"dtype", typeString(t->type.getElementType())},
                   {"placements", placementsJson(t->placements)},
                   {"local_shapes", shapesJson(shapes)},
                   {"bytes", toJson(plan.getLocalBytes(v))}};
    values.push_back(std::move(o));
    std::string local = shapeString(shapes.front());
    if (llvm::any_of(shapes,
                     [&](const Shape &s) { return s != shapes.front(); })) {
      local.clear();
      llvm::raw_string_ostream os(local);
      llvm::interleave(
          shapes, os, [&](const Shape &s) { os << shapeString(s); }, " ");
    }
    rep.rows.push_back({valueName(v),
                        def ? def->getName().getStringRef().str()
                            : std::string("block_argument"),
                        shapeString(t->type.getShape()) + "x" +
                            typeString(t->type.getElementType()),
                        placementsToString(t->placements), local});
    int64_t start = def ? order[def] : 0;
    int64_t end = start;
    for (Operation *user : v.getUsers()) {
      Operation *u = user;
      while (u && !order.count(u))
        u = u->getParentOp();
      if (u)
        end = std::max(end, order[u]);
    }
    auto bytes = plan.getLocalBytes(v);
    if (deltas[start].empty())
      deltas[start].assign(numRanks, 0);
    if (deltas[end + 1].empty())
      deltas[end + 1].assign(numRanks, 0);
    for (int64_t r = 0; r < numRanks; ++r) {
      deltas[start][r] += bytes[r];
      deltas[end + 1][r] -= bytes[r];
    }
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
  rep.object["returns"] = std::move(returns);

  // Collectives of every redistribution.
  rep.commBytes.assign(numRanks, 0);
  json::Array collectives;
  json::Array redistributions;
  for (const Redistribution &r : plan.getRedistributions()) {
    const FakeTensor *t = plan.lookup(r.value);
    Placements from = t->placements;
    llvm::SmallVector<RedistributeStep> steps;
    std::string err;
    if (!plan.planSteps(r, steps, err))
      continue;
    int64_t bytes = getTensorByteSize(t->type);
    double cost = redistributeCost(bytes, mesh, from, r.target);
    json::Array stepKinds;
    for (const RedistributeStep &step : steps) {
      stepKinds.push_back(stringifyStepKind(step.kind).str());
      if (!isCollective(step.kind))
        continue;
      Collective c{step.kind,
                   step.axis,
                   stepBytes(step, t->type, mesh),
                   stepCost(step, t->type, mesh),
                   valueName(r.value),
                   placementsToString(step.before),
                   ""};
      Placements after = step.before;
      after[step.axis] = step.to;
      c.to = placementsToString(after);
      for (int64_t i = 0; i < numRanks; ++i)
        rep.commBytes[i] += c.bytes[i];
      collectives.push_back(
          json::Object{{"kind", stringifyStepKind(c.kind).str()},
                       {"mesh_axes", json::Array{c.axis}},
                       {"bytes", toJson(c.bytes)},
                       {"cost_us", c.costUs},
                       {"value", c.value},
                       {"global_shape", toJson(t->type.getShape())},
                       {"from", c.from},
                       {"to", c.to}});
      rep.collectives.push_back(std::move(c));
    }
    redistributions.push_back(
        json::Object{{"value", valueName(r.value)},
                     {"from", placementsToString(from)},
                     {"to", placementsToString(r.target)},
                     {"explicit", static_cast<bool>(r.op)},
                     {"steps", std::move(stepKinds)},
                     {"cost_us", cost}});
  }
  rep.commCostUs = plan.computeCommCost();
  rep.object["collectives"] = std::move(collectives);
  rep.object["redistributions"] = std::move(redistributions);
  rep.object["totals"] = json::Object{
      {"comm_bytes", toJson(rep.commBytes)},
      {"peak_bytes", toJson(rep.peakBytes)},
      {"comm_cost_us", rep.commCostUs},
      {"num_collectives", static_cast<int64_t>(rep.collectives.size())}};
  if (comparePytorch) {
    rep.pytorchCostUs = plan.getPytorchCommCost();
    rep.object["totals"].getAsObject()->insert(
        {"pytorch_comm_cost_us", *rep.pytorchCostUs});
  }
  return rep;
}

/// Prints rows as columns padded to their widest cell.
template <size_t N>
void printTable(llvm::raw_ostream &os, const std::array<std::string, N> &head,
                llvm::ArrayRef<std::array<std::string, N>> rows) {
  std::array<size_t, N> width;
  for (size_t i = 0; i < N; ++i) {
    width[i] = head[i].size();
    for (const auto &r : rows)
      width[i] = std::max(width[i], r[i].size());
  }
  auto line = [&](const std::array<std::string, N> &r) {
    for (size_t i = 0; i < N; ++i) {
      os << r[i];
      if (i + 1 < N)
        os.indent(width[i] - r[i].size() + 2);
    }
    os << "\n";
  };
  line(head);
  for (const auto &r : rows)
    line(r);
}

void printText(llvm::raw_ostream &os, FunctionOpInterface func,
               const FunctionPlan &plan, const FunctionReport &rep) {
  os << "function @" << func.getName();
  if (MeshOp m = plan.getMesh())
    os << " on mesh @" << m.getSymName() << " " << shapeString(m.getShape())
       << " (" << plan.getNumRanks() << " ranks)";
  os << "\n\n";
  printTable<5>(os, {"value", "op", "global", "placements", "local shapes"},
                rep.rows);
  os << "\n";
  if (rep.collectives.empty()) {
    os << "collectives: none\n";
  } else {
    llvm::SmallVector<std::array<std::string, 6>> rows;
    for (const Collective &c : rep.collectives) {
      std::string bytes;
      llvm::raw_string_ostream bs(bytes);
      llvm::interleave(c.bytes, bs, " ");
      rows.push_back({stringifyStepKind(c.kind).str(), std::to_string(c.axis),
                      c.value, c.from + " -> " + c.to, bytes,
                      llvm::formatv("{0:F1}", c.costUs).str()});
    }
    os << "collectives:\n";
    printTable<6>(
        os, {"kind", "axis", "value", "placements", "bytes/rank", "cost_us"},
        rows);
  }
  std::string comm, peak;
  llvm::raw_string_ostream cs(comm), ps(peak);
  llvm::interleave(rep.commBytes, cs, " ");
  llvm::interleave(rep.peakBytes, ps, " ");
  os << "\ntotals: collectives=" << rep.collectives.size()
     << " comm_cost_us=" << llvm::formatv("{0:F1}", rep.commCostUs);
  if (rep.pytorchCostUs)
    os << " pytorch_comm_cost_us="
       << llvm::formatv("{0:F1}", *rep.pytorchCostUs);
  os << " comm_bytes/rank=[" << comm << "] peak_bytes/rank=[" << peak
     << "]\n\n";
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
