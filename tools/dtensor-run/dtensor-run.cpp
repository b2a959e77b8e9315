//===- dtensor-run.cpp - compile and run a program on N ranks -------------===//
//
// `dtensor-run FILE --np N` compiles a global-view program for the CPU,
// launches N ranks through mpirun (each rank runs this tool with --worker),
// feeds every rank its shard of the inputs, gathers the outputs and, with
// --check, compares them with the unpartitioned program run on one rank.
// The launcher is in Launcher.cpp, a rank's work in Worker.cpp.
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"
#include "Program.h"
#include "Worker.h"

#include "dtensor/InitAll.h"

#include "mlir/InitAllPasses.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"

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
static cl::opt<double> relTol("rtol", cl::desc("relative tolerance of --check"),
                              cl::init(1e-4), cl::cat(runCategory));
static cl::opt<double> absTol("atol", cl::desc("absolute tolerance of --check"),
                              cl::init(1e-5), cl::cat(runCategory));
static cl::opt<std::string> outDir("out", cl::desc("write outputs as .npy"),
                                   cl::cat(runCategory));
static cl::opt<std::string> traceFile("trace",
                                      cl::desc("write a Chrome/Perfetto trace"),
                                      cl::cat(runCategory));
static cl::opt<std::string> backend("backend", cl::desc("cpu or cuda"),
                                    cl::init("cpu"), cl::cat(runCategory));
static cl::opt<std::string> strategy("strategy", cl::desc("pytorch, global or exact"),
                                     cl::init("global"), cl::cat(runCategory));
static cl::opt<int> iterations("iters", cl::desc("timed runs per rank"),
                               cl::init(1), cl::cat(runCategory));
static cl::opt<std::string> mpirun("mpirun", cl::desc("mpirun to launch with"),
                                   cl::init("mpirun"), cl::cat(runCategory));
static cl::opt<unsigned>
    timeout("timeout",
            cl::desc("end the job after this many seconds, naming the ranks "
                     "that did not finish (default: no limit)"),
            cl::init(0), cl::cat(runCategory));
static cl::opt<bool> worker("worker", cl::Hidden, cl::cat(runCategory));
static cl::opt<std::string> workerDir("worker-dir", cl::Hidden,
                                      cl::cat(runCategory));

[[noreturn]] void dtensor_run::fail(const llvm::Twine &msg) {
  llvm::errs() << "dtensor-run: error: " << msg << "\n";
  llvm::errs().flush();
  std::exit(1);
}

static Options collectOptions() {
  Options o;
  o.inputFile = inputFile;
  o.numRanks = numRanks;
  o.entry = entryName;
  o.inputs = inputsOpt;
  o.seed = seed;
  o.check = check;
  o.rtol = relTol;
  o.atol = absTol;
  o.outDir = outDir;
  o.traceFile = traceFile;
  o.backend = backend;
  o.strategy = strategy;
  o.iters = iterations;
  o.mpirun = mpirun;
  o.timeoutSeconds = timeout;
  o.workerDir = workerDir;
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
  cl::ParseCommandLineOptions(argc, argv,
                              "dtensor-run: run a program on N ranks\n");
  mlir::DialectRegistry registry;
  registerEverything(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  Options options = collectOptions();
  if (worker)
    return runWorker(ctx, options);
  return runLauncher(ctx, options, argc, argv);
}
