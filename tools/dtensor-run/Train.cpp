//===- Train.cpp - dtensor-run --steps ------------------------------------===//

#include "Train.h"

#include "Compare.h"
#include "DeviceCall.h"
#include "Jit.h"
#include "Worker.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace dtensor_run;

namespace {

constexpr llvm::StringLiteral kParamAttr = "dtensor.param";
constexpr llvm::StringLiteral kStateAttr = "dtensor.state";
constexpr llvm::StringLiteral kSuffix = "_train_step";

bool isLoss(func::FuncOp f) {
  if (f.isExternal() || f.getNumResults() != 1)
    return false;
  auto t = dyn_cast<RankedTensorType>(f.getResultTypes()[0]);
  return t && t.getRank() == 0 && isa<FloatType>(t.getElementType());
}

/// The indices of the dtensor.param arguments of `f`.
std::vector<unsigned> paramArgs(func::FuncOp f) {
  std::vector<unsigned> params;
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (f.getArgAttr(i, kParamAttr))
      params.push_back(i);
  return params;
}

/// The indices of the optimizer state arguments of `f` (dtensor.state).
std::vector<unsigned> stateArgs(func::FuncOp f) {
  std::vector<unsigned> state;
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (f.getArgAttr(i, kStateAttr))
      state.push_back(i);
  return state;
}

/// The arguments a training step's results 1, 2, ... feed back: the
/// parameters, then the optimizer state, each in argument order.
std::vector<unsigned> fedBackArgs(func::FuncOp f) {
  std::vector<unsigned> fed = paramArgs(f), state = stateArgs(f);
  fed.insert(fed.end(), state.begin(), state.end());
  return fed;
}

/// Zeros the optimizer state among `args` when the inputs are random (the
/// state of a fresh run); .npy inputs give it (a resumed run).
void initState(const Options &options, func::FuncOp f,
               std::vector<HostArray> &args) {
  if (options.inputs != "random")
    return;
  for (unsigned i : stateArgs(f))
    std::fill(args[i].data.begin(), args[i].data.end(), 0);
}

const char *kLossWords = "a function whose only result is a 0-d float "
                         "tensor, with dtensor.param arguments";

/// --entry, else the only loss function of the module.
func::FuncOp findLoss(ModuleOp module, const Options &options) {
  if (!options.entry.empty()) {
    auto f = module.lookupSymbol<func::FuncOp>(options.entry);
    if (!f || !isLoss(f))
      fail("--steps: @" + options.entry + " is not a loss function (" +
           kLossWords + ")");
    return f;
  }
  func::FuncOp found;
  for (auto f : module.getOps<func::FuncOp>())
    if (isLoss(f)) {
      if (found)
        fail("--steps: several loss functions; choose one with --entry");
      found = f;
    }
  if (!found)
    fail("--steps: no loss function (" + llvm::Twine(kLossWords) + ") in " +
         options.inputFile);
  return found;
}

void validateTrainingOptions(const Options &options) {
  if (options.steps <= 0)
    fail("--steps must be positive, got " + llvm::Twine(options.steps));
  if (!std::isfinite(options.lr))
    fail("--lr must be finite");
  if (options.optimizer != "sgd" && options.optimizer != "adamw")
    fail("--optimizer must be sgd or adamw, got '" + options.optimizer + "'");
  if (options.gradCheck)
    fail("--steps and --grad-check cannot be combined");
  if (options.iters != 1)
    fail("--steps runs each step once; it does not take --iters");
}

/// Runs dtensor-autodiff{optimizer=<sgd|adamw>} on `loss` alone.
void addTrainingStep(ModuleOp module, func::FuncOp loss,
                     const Options &options) {
  PassManager pm(module.getContext());
  std::string pipeline =
      llvm::formatv("dtensor-autodiff{{functions={0} optimizer={1} lr={2}}",
                    loss.getName(), options.optimizer,
                    llvm::formatv("{0:e16}", options.lr).str())
          .str();
  if (failed(parsePassPipeline(pipeline, pm)) || failed(pm.run(module)))
    fail("--steps: dtensor-autodiff failed (see the errors above)");
}

} // namespace

void dtensor_run::checkTrainingStep(const ProgramInfo &info) {
  std::vector<unsigned> params = paramArgs(info.entry),
                        fed = fedBackArgs(info.entry);
  if (params.empty())
    fail("--steps: @" + info.entryName + " has no dtensor.param arguments");
  if (info.results.size() != 1 + fed.size())
    fail("--steps: @" + info.entryName +
         " must return the loss and one "
         "updated parameter per dtensor.param argument" +
         (fed.size() > params.size()
              ? ", then one value per dtensor.state argument"
              : "") +
         " (" + llvm::Twine(1 + fed.size()) + " results), not " +
         llvm::Twine(info.results.size()));
  for (auto [j, a] : llvm::enumerate(fed)) {
    const TensorLayout &in = info.args[a].layout,
                       &out = info.results[1 + j].layout;
    if (in.dtype != out.dtype || in.shape != out.shape ||
        in.placements != out.placements)
      fail("--steps: result #" + llvm::Twine(1 + j) + " of @" + info.entryName +
           " does not have the type and placements of "
           "argument #" +
           llvm::Twine(a) + ", the " +
           (j < params.size() ? "parameter" : "optimizer state") +
           " it updates");
  }
}

namespace {

/// The value of a 0-d float array.
double scalarOf(const HostArray &a) {
  switch (a.dtype) {
  case DTRT_F64:
    return a.get<double>(0);
  case DTRT_F32:
    return a.get<float>(0);
  default:
    return std::stod(formatElement(a, 0));
  }
}

/// "%.6g" of a loss.
std::string formatLoss(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

/// Runs `steps` calls (on the GPU when `onDevice`), each on a copy of `args`
/// whose parameters are the previous call's; returns the losses, leaves the
/// final parameters in `args`. `onLoss(i, loss)` sees step i's loss (local
/// on a rank). `ownsResults`: see callEntry.
std::vector<HostArray>
trainSteps(ExecutionEngine &engine, const ProgramInfo &info, int steps,
           std::vector<HostArray> &args, bool onDevice, bool ownsResults,
           llvm::function_ref<void(int, const HostArray &)> onLoss) {
  std::vector<unsigned> params = fedBackArgs(info.entry);
  std::vector<HostArray> losses;
  for (int i = 0; i < steps; ++i) {
    std::vector<HostArray> call = args; // the call may write into its inputs
    double seconds;
    std::vector<HostArray> outs =
        onDevice ? callEntryOnDevice(engine, info.entryName, call,
                                     info.resultLayouts(), 1, seconds)
                 : callEntry(engine, info.entryName, call, info.resultLayouts(),
                             1, seconds, ownsResults);
    for (auto [j, a] : llvm::enumerate(params))
      args[a] = std::move(outs[1 + j]);
    onLoss(i, outs[0]);
    losses.push_back(std::move(outs[0]));
  }
  return losses;
}

/// The same steps on one rank from the global inputs; returns the losses
/// followed by the final parameters.
std::vector<HostArray> trainOnOneRank(ModuleOp module, const Options &options,
                                      const ProgramInfo &info) {
  OwningOpRef<ModuleOp> single = module.clone();
  stripToOneDevice(*single);
  // The CPU pipeline's, whatever --lowering is (see checkAgainstOneRank).
  std::unique_ptr<ExecutionEngine> ref =
      compileModule(*single, info.entryName, /*partition=*/false, options,
                    cpuLowering(options));
  std::vector<HostArray> args = globalInputs(options, info);
  initState(options, info.entry, args);
  std::vector<HostArray> out =
      trainSteps(*ref, info, options.steps, args, /*onDevice=*/false,
                 /*ownsResults=*/true, [](int, const HostArray &) {});
  for (unsigned a : fedBackArgs(info.entry))
    out.push_back(args[a]);
  return out;
}

/// The global value of result `index` from every rank's part (on rank 0;
/// empty elsewhere).
HostArray gatherResult(const HostArray &mine, const ProgramInfo &info,
                       size_t index, int rank, int size) {
  auto all = gatherToRoot({mine}, rank, size);
  if (rank != 0)
    return {};
  std::vector<HostArray> parts;
  for (int r = 0; r < size; ++r)
    parts.push_back(all[r][0]);
  return assemble(info.results[index].layout, info.mesh, parts);
}

} // namespace

Options dtensor_run::prepareTraining(ModuleOp module, const Options &options) {
  validateTrainingOptions(options);
  Options trained = options;
  if (!options.entry.empty() &&
      llvm::StringRef(options.entry).ends_with(kSuffix) &&
      module.lookupSymbol<func::FuncOp>(options.entry))
    return trained;
  func::FuncOp loss = findLoss(module, options);
  if (paramArgs(loss).empty())
    fail("--steps: @" + loss.getName() +
         " has no dtensor.param arguments: nothing to train (mark the "
         "trainable arguments with dtensor.param = \"<name>\")");
  trained.entry = (loss.getName() + kSuffix).str();
  if (!module.lookupSymbol(trained.entry))
    addTrainingStep(module, loss, options);
  return trained;
}

int dtensor_run::runTrainingSteps(ModuleOp module, ExecutionEngine &engine,
                                  const Options &options,
                                  const ProgramInfo &info,
                                  std::vector<HostArray> locals, int rank,
                                  int size) {
  checkTrainingStep(info);
  if (rank == 0)
    llvm::outs() << "plan: " << info.numCollectives << " collectives, "
                 << llvm::formatv("comm_cost_us={0:F1}", info.commCostUs)
                 << " per step on " << size << " ranks\n";
  // Rank 0's view: the global losses, then the final parameters (and the
  // optimizer state).
  initState(options, info.entry, locals);
  std::vector<HostArray> globals;
  trainSteps(engine, info, options.steps, locals, options.backend == "cuda",
             ownsResults(options), [&](int i, const HostArray &loss) {
               globals.push_back(gatherResult(loss, info, 0, rank, size));
               if (rank == 0)
                 llvm::outs() << "step " << i << ": loss="
                              << formatLoss(scalarOf(globals.back())) << "\n";
             });
  for (auto [j, a] : llvm::enumerate(fedBackArgs(info.entry)))
    globals.push_back(gatherResult(locals[a], info, 1 + j, rank, size));
  if (rank != 0)
    return 0;
  llvm::outs().flush();
  if (!options.outDir.empty()) {
    std::vector<HostArray> last{globals[options.steps - 1]};
    last.insert(last.end(), globals.begin() + options.steps, globals.end());
    writeOutputs(options, last);
  }
  if (!options.check)
    return 0;
  CompareResult cmp =
      compareOutputs(globals, trainOnOneRank(module, options, info),
                     options.rtol, options.atol);
  llvm::outs() << formatCheckReport(cmp);
  llvm::outs().flush();
  return cmp.ok ? 0 : 1;
}
