//===- Program.cpp - the program a run executes ---------------------------===//

#include "Program.h"

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Support/MemoryPeak.h"
#include "dtensor/InitAll.h"

#ifdef DTENSOR_INCLUDE_TESTS
namespace mlir::dtensor::test {
void registerTestDialect(DialectRegistry &registry);
} // namespace mlir::dtensor::test
#endif

#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::dtensor;
using namespace dtensor_run;

namespace {
std::string typeName(Type t) {
  std::string name;
  llvm::raw_string_ostream os(name);
  t.print(os);
  return name;
}

/// The dtrt dtype of an MLIR element type, if the table has it.
std::optional<dtrt_dtype> dtypeOf(Type t) { return dtypeFromName(typeName(t)); }

func::FuncOp findEntry(ModuleOp module, const Options &options) {
  if (!options.entry.empty()) {
    auto f = module.lookupSymbol<func::FuncOp>(options.entry);
    if (!f || f.isExternal())
      fail("no function @" + options.entry + " with a body in " +
           options.inputFile);
    return f;
  }
  func::FuncOp found;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && f.isPublic()) {
      if (found)
        fail("several public functions; choose one with --entry");
      found = f;
    }
  if (!found)
    fail("no public function with a body in " + options.inputFile);
  return found;
}

/// The layout of a value of `type` with `placements`, or an error naming
/// `what` when its element type is not in the table.
TensorInfo describe(const FakeTensor &t, const Placements &placements,
                    const llvm::Twine &what) {
  std::optional<dtrt_dtype> dtype = dtypeOf(t.type.getElementType());
  if (!dtype) {
    std::string supported;
    for (const ElementTypeInfo &info : kElementTypes)
      supported += (supported.empty() ? "" : ", ") + std::string(info.name);
    fail(what + " has element type " + typeName(t.type.getElementType()) +
         ", which dtensor-run does not support (it supports " + supported +
         ")");
  }
  TensorLayout layout{
      *dtype, {t.type.getShape().begin(), t.type.getShape().end()}, placements};
  return {t.type, layout};
}

/// The number of collective steps of the plan.
size_t countCollectives(const FunctionPlan &plan) {
  size_t n = 0;
  for (const Redistribution &r : plan.getRedistributions()) {
    llvm::SmallVector<RedistributeStep> steps;
    std::string err;
    if (plan.planSteps(r, steps, err))
      for (const RedistributeStep &s : steps)
        n += isCollective(s.kind);
  }
  return n;
}
} // namespace

std::vector<TensorLayout> ProgramInfo::argLayouts() const {
  std::vector<TensorLayout> layouts;
  for (const TensorInfo &t : args)
    layouts.push_back(t.layout);
  return layouts;
}

std::vector<TensorLayout> ProgramInfo::resultLayouts() const {
  std::vector<TensorLayout> layouts;
  for (const TensorInfo &t : results)
    layouts.push_back(t.layout);
  return layouts;
}

void dtensor_run::registerEverything(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllExtensions(registry);
#ifdef DTENSOR_INCLUDE_TESTS
  // The test dialect with its sharding model (test/lib), for the tests.
  mlir::dtensor::test::registerTestDialect(registry);
#endif
}

OwningOpRef<ModuleOp> dtensor_run::parseProgram(MLIRContext &ctx,
                                                const Options &options) {
  llvm::SourceMgr sm;
  std::string err;
  auto file = openInputFile(options.inputFile, &err);
  if (!file)
    fail(err);
  sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!module)
    fail("cannot parse " + options.inputFile);
  return module;
}

ProgramInfo dtensor_run::analyzeProgram(ModuleOp module,
                                        const Options &options) {
  ProgramInfo info;
  info.entry = findEntry(module, options);
  info.entryName = info.entry.getName().str();
  FakeTensorOptions analysisOptions;
  // "exact" is an alias of "global".
  analysisOptions.strategy = options.strategy == "pytorch"
                                 ? StrategyMode::PyTorch
                                 : StrategyMode::Global;
  // The same budget as the partitioner's (validated before).
  std::string budgetError;
  if (!options.maxBytesPerRank.empty())
    parseByteSize(options.maxBytesPerRank, analysisOptions.maxBytesPerRank,
                  budgetError);
  FakeTensorAnalysis analysis(module, analysisOptions);
  if (!analysis.succeeded())
    fail("the fake-tensor analysis failed (see the errors above)");
  const FunctionPlan *plan = analysis.getPlan(info.entry);
  info.mesh.assign(plan->getMeshShape().begin(), plan->getMeshShape().end());
  if (info.mesh.empty())
    info.mesh.push_back(1);
  if (MeshOp mesh = plan->getMesh())
    for (Attribute name : mesh.getAxisNames())
      info.axisNames.push_back(cast<StringAttr>(name).getValue().str());
  for (BlockArgument arg : info.entry.getArguments()) {
    const FakeTensor *t = plan->lookup(arg);
    std::string what = "argument #" + std::to_string(arg.getArgNumber());
    if (!t)
      fail(what + " is not a ranked tensor");
    info.args.push_back(describe(*t, t->placements, what));
  }
  Operation *ret = info.entry.getBody().front().getTerminator();
  for (OpOperand &o : ret->getOpOperands()) {
    const FakeTensor *t = plan->lookup(o.get());
    std::string what = "result #" + std::to_string(o.getOperandNumber());
    if (!t)
      fail(what + " is not a ranked tensor");
    const Placements *req = plan->getRequiredPlacements(o);
    info.results.push_back(describe(*t, req ? *req : t->placements, what));
  }
  info.commCostUs = plan->computeCommCost();
  info.numCollectives = countCollectives(*plan);
  return info;
}

bool dtensor_run::usesLocalViewOps(ModuleOp module) {
  return module
      ->walk([](Operation *op) {
        return isa<FromLocalOp, ToLocalOp>(op) ? WalkResult::interrupt()
                                               : WalkResult::advance();
      })
      .wasInterrupted();
}
