//===- dtensor-run.cpp - compile and run a program on N ranks -------------===//
//
// `dtensor-run FILE --np N` compiles a global-view program for the CPU,
// launches N ranks through mpirun (each rank runs this tool with --worker),
// feeds every rank its shard of the inputs, gathers the outputs and, with
// --check, compares them with the unpartitioned program run on one rank.
// The launcher is in Launcher.cpp, a rank's work in Worker.cpp.
//
//===----------------------------------------------------------------------===//

#include "GradCheck.h"
#include "Launcher.h"
#include "Program.h"
#include "Worker.h"

#include "dtensor/InitAll.h"

#include "mlir/InitAllPasses.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"

#include <optional>
#include <vector>

using namespace dtensor_run;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("dtensor-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required, cl::cat(runCategory));
static cl::opt<int> numRanks("np",
                             cl::desc("number of ranks (the devices of the "
                                      "entry's mesh)"),
                             cl::init(0), cl::cat(runCategory));
static cl::opt<std::string> entryName("entry",
                                      cl::desc("function to run (default: "
                                               "the only public function)"),
                                      cl::cat(runCategory));
static cl::opt<std::string>
    inputsOpt("inputs", cl::desc("'random' or a comma-separated list of .npy"),
              cl::init("random"), cl::cat(runCategory));
static cl::opt<uint64_t> seed("seed", cl::desc("seed of random inputs"),
                              cl::init(0), cl::cat(runCategory));
static cl::opt<bool> check("check",
                           cl::desc("compare with the program run on one "
                                    "rank without partitioning"),
                           cl::cat(runCategory));
static cl::opt<double>
    relTol("rtol",
           cl::desc("relative tolerance of --check (default by dtype: 1e-4 "
                    "for f32/f64, 1e-2 for f16, 5e-2 for bf16)"),
           cl::init(1e-4), cl::cat(runCategory));
static cl::opt<double>
    absTol("atol",
           cl::desc("absolute tolerance of --check (default by dtype: 1e-5 "
                    "for f32/f64, 1e-3 for f16, 1e-2 for bf16)"),
           cl::init(1e-5), cl::cat(runCategory));
static cl::opt<std::string> outDir("out", cl::desc("write outputs as .npy"),
                                   cl::cat(runCategory));
static cl::opt<std::string> traceFile("trace",
                                      cl::desc("write a Chrome/Perfetto trace"),
                                      cl::cat(runCategory));
static cl::opt<std::string> backend("backend", cl::desc("cpu or cuda"),
                                    cl::init("cpu"), cl::cat(runCategory));
static cl::opt<std::string> strategy("strategy",
                                     cl::desc("pytorch, global or exact"),
                                     cl::init("global"), cl::cat(runCategory));
static cl::opt<std::string> maxBytesPerRank(
    "max-bytes-per-rank",
    cl::desc("memory budget of every rank (bytes, K/M/G suffixes): the plan "
             "keeps every rank's peak within it or the run stops"),
    cl::cat(runCategory));
static cl::opt<bool> syncCollectives(
    "sync-collectives",
    cl::desc("partition without async collectives (nothing overlaps "
             "communication; for comparisons)"),
    cl::cat(runCategory));
static cl::opt<int> iterations("iters", cl::desc("timed runs per rank"),
                               cl::init(1), cl::cat(runCategory));
// `--threads` is parsed by hand (takeThreadsOption): LLVM's libraries
// already register a command-line option named "threads" in this process.
static cl::extrahelp threadsHelp(
    "  --threads=<int>  compute threads per rank: the BLAS threads of the "
    "GEMM calls and the OpenMP threads of the generated loops (default 1)\n");
static cl::opt<bool>
    vectorize("vectorize",
              cl::desc("fuse and vectorize the generated loops (the CPU "
                       "pipeline's vectorize option; --vectorize=false "
                       "gives scalar loops, for debugging)"),
              cl::init(true), cl::cat(runCategory));
static cl::opt<std::string> mpirun("mpirun", cl::desc("mpirun to launch with"),
                                   cl::init("mpirun"), cl::cat(runCategory));
static cl::opt<unsigned>
    timeout("timeout",
            cl::desc("end the job after this many seconds, naming the ranks "
                     "that did not finish (default: no limit)"),
            cl::init(0), cl::cat(runCategory));
static cl::opt<bool>
    gradCheck("grad-check",
              cl::desc("compare the gradients of @f_grad (generated by "
                       "dtensor-autodiff when absent) with f64 central finite "
                       "differences of the loss @f, on one process"),
              cl::cat(runCategory));
static cl::opt<int>
    gradSamples("grad-samples",
                cl::desc("elements checked per parameter by --grad-check"),
                cl::init(8), cl::cat(runCategory));
static cl::opt<double> gradTol(
    "grad-tol",
    cl::desc("largest |g - fd| / max(|fd|, scale) --grad-check accepts"),
    cl::init(1e-3), cl::cat(runCategory));
static cl::opt<int>
    steps("steps",
          cl::desc("train: run the training step @f_train_step (generated by "
                   "dtensor-autodiff when absent) this many times, feeding "
                   "the updated parameters back; prints each step's loss"),
          cl::init(0), cl::cat(runCategory));
static cl::opt<double>
    learningRate("lr",
                 cl::desc("learning rate of the generated @f_train_step "
                          "(--steps)"),
                 cl::init(0.01), cl::cat(runCategory));
static cl::opt<std::string> lowering(
    "lowering",
    cl::desc("testing: the pipeline lowering the ranks' partitioned program, "
             "e.g. \"dtensor-gpu-pipeline{partition=false cpu-oracle=true}\""),
    cl::init("dtensor-cpu-pipeline{partition=false}"), cl::Hidden,
    cl::cat(runCategory));
static cl::opt<std::string>
    optimizerName("optimizer",
                  cl::desc("optimizer of the generated @f_train_step "
                           "(--steps): sgd or adamw (PyTorch's defaults "
                           "besides --lr; the AdamW state starts at zero)"),
                  cl::init("sgd"), cl::cat(runCategory));
static cl::opt<bool> worker("worker", cl::Hidden, cl::cat(runCategory));
static cl::opt<std::string> workerDir("worker-dir", cl::Hidden,
                                      cl::cat(runCategory));

[[noreturn]] void dtensor_run::fail(const llvm::Twine &msg) {
  llvm::errs() << "dtensor-run: error: " << msg << "\n";
  llvm::errs().flush();
  std::exit(1);
}

/// Removes `--threads T` / `--threads=T` from `argv` and returns T (1 when
/// absent).
static int takeThreadsOption(std::vector<char *> &argv) {
  std::optional<llvm::StringRef> value;
  std::vector<char *> kept;
  for (size_t i = 0; i < argv.size(); ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--threads" || arg == "-threads") {
      if (i + 1 == argv.size())
        fail("--threads needs a value");
      value = argv[++i];
      continue;
    }
    if (arg.consume_front("--threads=") || arg.consume_front("-threads=")) {
      value = arg;
      continue;
    }
    kept.push_back(argv[i]);
  }
  argv = std::move(kept);
  int threads = 1;
  if (value && (value->getAsInteger(10, threads) || threads < 1))
    fail("--threads must be a positive integer, got '" + *value + "'");
  return threads;
}

static Options collectOptions(int threads) {
  Options o;
  o.inputFile = inputFile;
  o.numRanks = numRanks;
  o.entry = entryName;
  o.inputs = inputsOpt;
  o.seed = seed;
  o.check = check;
  if (relTol.getNumOccurrences())
    o.rtol = relTol;
  if (absTol.getNumOccurrences())
    o.atol = absTol;
  o.outDir = outDir;
  o.traceFile = traceFile;
  o.backend = backend;
  o.strategy = strategy;
  o.maxBytesPerRank = maxBytesPerRank;
  o.lowering = lowering;
  o.syncCollectives = syncCollectives;
  o.iters = iterations;
  o.threads = threads;
  o.vectorize = vectorize;
  o.mpirun = mpirun;
  o.timeoutSeconds = timeout;
  o.gradCheck = gradCheck;
  o.gradSamples = gradSamples;
  o.gradTol = gradTol;
  o.workerDir = workerDir;
  if (steps.getNumOccurrences() && steps <= 0)
    fail("--steps must be positive, got " + llvm::Twine(steps));
  o.steps = steps;
  o.lr = learningRate;
  o.optimizer = optimizerName;
  return o;
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerAllPasses();
  mlir::dtensor::registerAllPasses();
  // --help lists dtensor-run's options only, not LLVM's and MLIR's.
  cl::HideUnrelatedOptions(runCategory);
  std::vector<char *> args(argv, argv + argc);
  int threads = takeThreadsOption(args);
  cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                              "dtensor-run: run a program on N ranks\n");
  mlir::DialectRegistry registry;
  registerEverything(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  Options options = collectOptions(threads);
  if (worker)
    return runWorker(ctx, options);
  if (options.gradCheck && !options.steps)
    return runGradCheck(ctx, options);
  return runLauncher(ctx, options, argc, argv);
}
