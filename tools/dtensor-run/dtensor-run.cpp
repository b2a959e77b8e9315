//===- dtensor-run.cpp - compile and run a program on N ranks -------------===//
//
// `dtensor-run FILE --np N` compiles a global-view program for the CPU,
// launches N ranks through mpirun (each rank runs this tool with --worker),
// feeds every rank its shard of the inputs, gathers the outputs and, with
// --check, compares them with the unpartitioned program run on one rank.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Conversion/Passes.h"
#include "dtensor/Dialect/DTensor/Pipelines/Passes.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "dtensor/InitAll.h"
#ifdef DTENSOR_INCLUDE_TESTS
#include "TestDialect.h"
#endif
#include "dtensor/Support/ShardingMath.h"
#include "dtrt/dtrt.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::dtensor;
using namespace dtensor_run;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required);
static cl::opt<int> numRanks("np", cl::desc("number of ranks"), cl::init(0));
static cl::opt<std::string> entryName("entry",
                                      cl::desc("function to run (default: "
                                               "the only public function)"));
static cl::opt<std::string>
    inputsOpt("inputs", cl::desc("'random' or a comma-separated list of .npy"),
              cl::init("random"));
static cl::opt<uint64_t> seed("seed", cl::desc("seed of random inputs"),
                              cl::init(0));
static cl::opt<bool> check("check",
                           cl::desc("compare with the program run on one "
                                    "rank without partitioning"));
static cl::opt<double> relTol("rtol", cl::desc("relative tolerance of --check"),
                              cl::init(1e-4));
static cl::opt<double> absTol("atol", cl::desc("absolute tolerance of --check"),
                              cl::init(1e-5));
static cl::opt<std::string> outDir("out", cl::desc("write outputs as .npy"));
static cl::opt<std::string>
    traceFile("trace", cl::desc("write a Chrome/Perfetto trace"));
static cl::opt<std::string> backend("backend", cl::desc("cpu or cuda"),
                                    cl::init("cpu"));
static cl::opt<std::string> strategy("strategy", cl::desc("pytorch or global"),
                                     cl::init("global"));
static cl::opt<int> iterations("iters", cl::desc("timed runs per rank"),
                               cl::init(1));
static cl::opt<std::string> mpirun("mpirun", cl::desc("mpirun to launch with"),
                                   cl::init("mpirun"));
static cl::opt<bool> worker("worker", cl::Hidden);

namespace {

[[noreturn]] void fail(const llvm::Twine &msg) {
  llvm::errs() << "dtensor-run: error: " << msg << "\n";
  std::exit(1);
}

/// Metadata of one argument or result of the entry function.
struct TensorInfo {
  RankedTensorType type;
  Placements placements;
};

/// Everything the runner needs to know about the program.
struct ProgramInfo {
  func::FuncOp entry;
  llvm::SmallVector<int64_t, 4> meshShape;
  std::vector<TensorInfo> args, results;
  double commCostUs = 0;
  size_t numCollectives = 0;
};

void registerEverything(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  // dtensor's dialect and external models (sharding rules), and the test
  // dialect with its model when the tests are built in.
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllExtensions(registry);
#ifdef DTENSOR_INCLUDE_TESTS
  mlir::dtensor::test::registerTestDialect(registry);
#endif
}

std::string npyDtype(Type t) {
  if (t.isF32())
    return "<f4";
  if (t.isF64())
    return "<f8";
  if (t.isInteger(32))
    return "<i4";
  if (t.isInteger(64))
    return "<i8";
  if (t.isInteger(1))
    return "|b1";
  if (t.isInteger(8))
    return "|i1";
  return "";
}

OwningOpRef<ModuleOp> parse(MLIRContext &ctx) {
  llvm::SourceMgr sm;
  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file)
    fail(err);
  sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!module)
    fail("cannot parse " + inputFile);
  return module;
}

func::FuncOp findEntry(ModuleOp module) {
  if (!entryName.empty()) {
    auto f = module.lookupSymbol<func::FuncOp>(entryName);
    if (!f || f.isExternal())
      fail("no function @" + entryName + " with a body in " + inputFile);
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
    fail("no public function with a body in " + inputFile);
  return found;
}

ProgramInfo analyze(ModuleOp module) {
  ProgramInfo info;
  info.entry = findEntry(module);
  FakeTensorOptions options;
  options.strategy =
      strategy == "pytorch" ? StrategyMode::PyTorch : StrategyMode::Global;
  FakeTensorAnalysis analysis(module, options);
  if (!analysis.succeeded())
    fail("the fake-tensor analysis failed (see the errors above)");
  const FunctionPlan *plan = analysis.getPlan(info.entry);
  info.meshShape.assign(plan->getMeshShape().begin(),
                        plan->getMeshShape().end());
  for (BlockArgument arg : info.entry.getArguments()) {
    const FakeTensor *t = plan->lookup(arg);
    if (!t)
      fail("argument #" + llvm::Twine(arg.getArgNumber()) +
           " is not a ranked tensor");
    if (npyDtype(t->type.getElementType()).empty())
      fail("argument #" + llvm::Twine(arg.getArgNumber()) +
           " has an unsupported element type");
    info.args.push_back({t->type, t->placements});
  }
  Operation *ret = info.entry.getBody().front().getTerminator();
  for (OpOperand &o : ret->getOpOperands()) {
    const FakeTensor *t = plan->lookup(o.get());
    if (!t)
      fail("result #" + llvm::Twine(o.getOperandNumber()) +
           " is not a ranked tensor");
    const Placements *req = plan->getRequiredPlacements(o);
    info.results.push_back({t->type, req ? *req : t->placements});
  }
  info.commCostUs = plan->computeCommCost();
  for (const Redistribution &r : plan->getRedistributions()) {
    llvm::SmallVector<RedistributeStep> steps;
    std::string err;
    if (plan->planSteps(r, steps, err))
      for (const RedistributeStep &s : steps)
        info.numCollectives += isCollective(s.kind);
  }
  return info;
}

//===----------------------------------------------------------------------===//
// Host data
//===----------------------------------------------------------------------===//

int64_t elementSize(Type t) { return getElementByteSize(t); }

/// Writes `v` as one element of type `elt` at `p` (the inverse of valueAt).
void storeValue(Type elt, char *p, double v) {
  if (elt.isF32()) {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else if (elt.isF64()) {
    std::memcpy(p, &v, 8);
  } else if (elt.isInteger(32)) {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(p, &x, 4);
  } else if (elt.isInteger(64)) {
    int64_t x = static_cast<int64_t>(v);
    std::memcpy(p, &x, 8);
  } else if (elt.isInteger(1)) {
    *p = static_cast<char>(v != 0);
  } else {
    *p = static_cast<char>(static_cast<int8_t>(v));
  }
}

HostArray randomArray(const TensorInfo &t, uint64_t argIndex) {
  HostArray a;
  Type elt = t.type.getElementType();
  a.dtype = npyDtype(elt);
  a.shape.assign(t.type.getShape().begin(), t.type.getShape().end());
  int64_t n = a.numElements();
  a.data.resize(n * elementSize(elt));
  std::mt19937_64 gen(seed * 1000003ull + argIndex * 7919ull + 17);
  // Like nn.Linear's initialisation: uniform in +-1/sqrt(fan_in) (the last
  // dim), so that activations of deep programs stay O(1) and the one-rank
  // check compares well-conditioned values.
  double bound = 1.0;
  if (t.type.getRank() >= 2)
    bound = 1.0 / std::sqrt(static_cast<double>(t.type.getShape().back()));
  std::uniform_real_distribution<double> real(-bound, bound);
  std::uniform_int_distribution<int64_t> integer(-8, 8);
  for (int64_t i = 0; i < n; ++i) {
    double v = isa<FloatType>(elt) ? real(gen)
               : elt.isInteger(1)  ? double(integer(gen) > 0)
                                   : double(integer(gen));
    storeValue(elt, a.data.data() + i * elementSize(elt), v);
  }
  return a;
}

double valueAt(const HostArray &a, int64_t i) {
  const char *p = a.data.data();
  if (a.dtype == "<f4") {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  if (a.dtype == "<f8") {
    double v;
    std::memcpy(&v, p + 8 * i, 8);
    return v;
  }
  if (a.dtype == "<i4") {
    int32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  if (a.dtype == "<i8") {
    int64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    return static_cast<double>(v);
  }
  return static_cast<double>(static_cast<signed char>(p[i]));
}

/// Row-major strides of `shape` in elements.
std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// Calls `fn(globalIndex, localIndex)` for every element of a block of
/// `shape` at `offsets` in a global array of `globalShape`.
void forEachInBlock(llvm::ArrayRef<int64_t> globalShape,
                    llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<int64_t> offsets,
                    llvm::function_ref<void(int64_t, int64_t)> fn) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  if (n == 0)
    return;
  std::vector<int64_t> gs = stridesOf(globalShape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t local = 0; local < n; ++local) {
    int64_t g = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      g += (idx[d] + offsets[d]) * gs[d];
    fn(g, local);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

HostArray shardOf(const HostArray &global, const TensorInfo &t,
                  llvm::ArrayRef<int64_t> mesh, int64_t rank) {
  auto coords = rankToCoords(mesh, rank);
  LocalShard shard =
      computeLocalShard(global.shape, mesh, t.placements, coords);
  // A partial sum input: the whole value on coordinate 0 of its partial
  // axes, zeros elsewhere (other reductions take the value everywhere).
  bool zero = false;
  for (auto [axis, p] : llvm::enumerate(t.placements))
    if (p.isPartial() && p.getReduceOp() == ReduceOp::Sum && coords[axis] != 0)
      zero = true;
  HostArray local;
  local.dtype = global.dtype;
  local.shape.assign(shard.shape.begin(), shard.shape.end());
  int64_t size = elementSize(t.type.getElementType());
  local.data.resize(local.numElements() * size);
  if (zero)
    return local; // zero-initialised
  forEachInBlock(global.shape, shard.shape, shard.offsets,
                 [&](int64_t g, int64_t l) {
                   std::memcpy(local.data.data() + l * size,
                               global.data.data() + g * size, size);
                 });
  return local;
}

//===----------------------------------------------------------------------===//
// Compilation and calls
//===----------------------------------------------------------------------===//

/// Strips the global-view dtensor ops that are identities on one device.
void stripToOneDevice(ModuleOp module) {
  module.walk([](Operation *op) {
    if (isa<RedistributeOp, FromLocalOp, ToLocalOp>(op)) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    }
  });
}

std::unique_ptr<ExecutionEngine> compile(ModuleOp module, StringRef entry,
                                         bool partition) {
  module.lookupSymbol<func::FuncOp>(entry)->setAttr(
      "llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  PassManager pm(module.getContext());
  std::string pipeline = "dtensor-cpu-pipeline{partition=" +
                         std::string(partition ? "true" : "false") + "}";
  if (failed(parsePassPipeline(pipeline, pm)))
    fail("cannot build the CPU pipeline");
  if (partition) {
    // Run the partitioner with the requested strategy first.
    PassManager pre(module.getContext());
    std::string p = "dtensor-partition{strategy=" + strategy + "}";
    if (failed(parsePassPipeline(p, pre)) || failed(pre.run(module)))
      fail("partitioning failed (see the errors above)");
    pm.clear();
    if (failed(parsePassPipeline("dtensor-cpu-pipeline{partition=false}", pm)))
      fail("cannot build the CPU pipeline");
  }
  if (failed(pm.run(module)))
    fail("lowering to LLVM failed (see the errors above)");
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(2, 0, nullptr);
  static std::string runnerUtils = DTENSOR_C_RUNNER_UTILS;
  static llvm::SmallVector<StringRef> libs{runnerUtils};
  options.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine)
    fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
  return std::move(*engine);
}

/// A memref descriptor in memory: allocated and aligned pointers, offset,
/// sizes and strides, as 8-byte words.
std::vector<int64_t> descriptor(void *data, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> d;
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(reinterpret_cast<int64_t>(data));
  d.push_back(0);
  for (int64_t s : shape)
    d.push_back(s);
  for (int64_t s : stridesOf(shape))
    d.push_back(s);
  return d;
}

/// Calls the entry with local inputs; returns local outputs and the time of
/// one call in seconds.
std::vector<HostArray> call(ExecutionEngine &engine, StringRef entry,
                            std::vector<HostArray> &inputs,
                            const std::vector<TensorInfo> &results, int iters,
                            double &seconds) {
  // Results: a struct of descriptors, one per result.
  size_t words = 0;
  for (const TensorInfo &r : results)
    words += 3 + 2 * r.type.getRank();
  std::vector<int64_t> resultBuf(words, 0);
  void *resultPtr = resultBuf.data();
  std::vector<std::vector<int64_t>> descs;
  std::vector<void *> descPtrs;
  for (HostArray &a : inputs)
    descs.push_back(descriptor(a.data.data(), a.shape));
  for (auto &d : descs)
    descPtrs.push_back(d.data());
  std::vector<void *> args;
  if (!results.empty())
    args.push_back(&resultPtr);
  for (void *&p : descPtrs)
    args.push_back(&p);
  std::string name = ("_mlir_ciface_" + entry).str();
  seconds = 0;
  for (int it = 0; it < std::max(1, iters); ++it) {
    auto t0 = std::chrono::steady_clock::now();
    dtrt_span_begin(entry.str().c_str(), DTRT_SPAN_COMPUTE);
    if (llvm::Error err = engine.invokePacked(name, args))
      fail("calling @" + entry + " failed: " + llvm::toString(std::move(err)));
    dtrt_span_end();
    auto t1 = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    seconds = it == 0 ? s : std::min(seconds, s);
  }
  std::vector<HostArray> out;
  size_t w = 0;
  for (const TensorInfo &r : results) {
    HostArray a;
    a.dtype = npyDtype(r.type.getElementType());
    int64_t rank = r.type.getRank();
    const char *aligned = reinterpret_cast<const char *>(resultBuf[w + 1]);
    int64_t offset = resultBuf[w + 2];
    for (int64_t d = 0; d < rank; ++d)
      a.shape.push_back(resultBuf[w + 3 + d]);
    std::vector<int64_t> strides(resultBuf.begin() + w + 3 + rank,
                                 resultBuf.begin() + w + 3 + 2 * rank);
    int64_t size = elementSize(r.type.getElementType());
    a.data.resize(a.numElements() * size);
    // Copy honouring strides (the result may be a strided view).
    std::vector<int64_t> zeros(rank, 0);
    std::vector<int64_t> idx(rank, 0);
    for (int64_t l = 0, n = a.numElements(); l < n; ++l) {
      int64_t src = offset;
      for (int64_t d = 0; d < rank; ++d)
        src += idx[d] * strides[d];
      std::memcpy(a.data.data() + l * size, aligned + src * size, size);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < a.shape[d])
          break;
        idx[d] = 0;
      }
    }
    out.push_back(std::move(a));
    w += 3 + 2 * rank;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Output assembly
//===----------------------------------------------------------------------===//

/// Assembles the global value of a result from every rank's local part:
/// shards are placed at their offsets, replicas taken once, partials summed.
HostArray assemble(const TensorInfo &t, llvm::ArrayRef<int64_t> mesh,
                   const std::vector<HostArray> &locals) {
  HostArray g;
  Type elt = t.type.getElementType();
  g.dtype = npyDtype(elt);
  g.shape.assign(t.type.getShape().begin(), t.type.getShape().end());
  int64_t n = g.numElements();
  std::vector<double> acc(n, 0.0);
  std::vector<double> mx(n, -INFINITY), mn(n, INFINITY);
  for (size_t r = 0; r < locals.size(); ++r) {
    auto coords = rankToCoords(mesh, r);
    bool take = true;
    for (auto [axis, p] : llvm::enumerate(t.placements))
      if (p.isReplicate() && coords[axis] != 0)
        take = false;
    if (!take)
      continue;
    LocalShard s = computeLocalShard(g.shape, mesh, t.placements, coords);
    forEachInBlock(g.shape, s.shape, s.offsets, [&](int64_t gi, int64_t li) {
      double v = valueAt(locals[r], li);
      acc[gi] += v;
      mx[gi] = std::max(mx[gi], v);
      mn[gi] = std::min(mn[gi], v);
    });
  }
  // Partial placements resolve with their reduction.
  int64_t partialRanks = 1;
  std::optional<ReduceOp> reduce;
  for (auto [axis, p] : llvm::enumerate(t.placements))
    if (p.isPartial()) {
      partialRanks *= mesh[axis];
      reduce = p.getReduceOp();
    }
  int64_t size = elementSize(elt);
  g.data.resize(n * size);
  for (int64_t i = 0; i < n; ++i) {
    double v = acc[i];
    if (reduce == ReduceOp::Avg)
      v /= partialRanks;
    else if (reduce == ReduceOp::Max)
      v = mx[i];
    else if (reduce == ReduceOp::Min)
      v = mn[i];
    storeValue(elt, g.data.data() + i * size, v);
  }
  return g;
}

/// Sends every rank's arrays to rank 0; returns them there, indexed by rank.
std::vector<std::vector<HostArray>>
gatherToRoot(const std::vector<HostArray> &mine, int rank, int size) {
  std::vector<std::vector<HostArray>> all(size);
  for (size_t i = 0; i < mine.size(); ++i) {
    int64_t bytes = mine[i].data.size();
    int64_t nd = mine[i].shape.size();
    std::vector<int64_t> meta{bytes};
    meta.insert(meta.end(), mine[i].shape.begin(), mine[i].shape.end());
    if (rank != 0) {
      MPI_Send(meta.data(), 1 + nd, MPI_INT64_T, 0, 2 * i, MPI_COMM_WORLD);
      MPI_Send(mine[i].data.data(), bytes, MPI_BYTE, 0, 2 * i + 1,
               MPI_COMM_WORLD);
      continue;
    }
    all[0].push_back(mine[i]);
    for (int r = 1; r < size; ++r) {
      std::vector<int64_t> m(1 + nd);
      MPI_Recv(m.data(), 1 + nd, MPI_INT64_T, r, 2 * i, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      HostArray a;
      a.dtype = mine[i].dtype;
      a.shape.assign(m.begin() + 1, m.end());
      a.data.resize(m[0]);
      MPI_Recv(a.data.data(), m[0], MPI_BYTE, r, 2 * i + 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      all[r].push_back(std::move(a));
    }
  }
  return all;
}

//===----------------------------------------------------------------------===//
// Modes
//===----------------------------------------------------------------------===//

int runWorker(MLIRContext &ctx) {
  OwningOpRef<ModuleOp> module = parse(ctx);
  ProgramInfo info = analyze(*module);
  llvm::SmallVector<int64_t, 4> mesh = info.meshShape;
  if (mesh.empty())
    mesh.push_back(1);
  if (dtrt_init(static_cast<int32_t>(mesh.size()), mesh.data()) != 0)
    fail(dtrt_last_error());
  dtrt_set_abort_on_error(1);
  if (!traceFile.empty())
    dtrt_trace_enable(1);
  int rank = dtrt_rank(), size = dtrt_world_size();
  StringRef entry = info.entry.getName();
  // Test hook: make one rank die as a crashed program would.
  if (const char *crash = std::getenv("DTENSOR_RUN_CRASH_RANK"))
    if (std::atoi(crash) == rank)
      std::abort();

  // Global inputs: the same on every rank.
  std::vector<HostArray> globals;
  if (inputsOpt == "random") {
    for (auto [i, t] : llvm::enumerate(info.args))
      globals.push_back(randomArray(t, i));
  } else {
    llvm::SmallVector<StringRef> files;
    StringRef(inputsOpt).split(files, ',');
    if (files.size() != info.args.size())
      fail("@" + entry + " takes " + llvm::Twine(info.args.size()) +
           " arguments but --inputs lists " + llvm::Twine(files.size()) +
           " files");
    for (auto [i, f] : llvm::enumerate(files)) {
      HostArray a;
      std::string err;
      if (!readNpy(f.str(), a, err))
        fail(err);
      const TensorInfo &t = info.args[i];
      std::string want = npyDtype(t.type.getElementType());
      if (a.dtype != want || !llvm::equal(a.shape, t.type.getShape())) {
        std::string have;
        llvm::raw_string_ostream os(have);
        llvm::interleaveComma(a.shape, os);
        fail("input #" + llvm::Twine(i) + " (" + f + ") has dtype " + a.dtype +
             " and shape [" + have + "] but the argument is " +
             llvm::formatv("{0}", t.type).str());
      }
      globals.push_back(std::move(a));
    }
  }
  std::vector<HostArray> locals;
  for (auto [i, t] : llvm::enumerate(info.args))
    locals.push_back(shardOf(globals[i], t, mesh, rank));

  OwningOpRef<ModuleOp> local = module->clone();
  std::unique_ptr<ExecutionEngine> engine =
      compile(*local, entry, /*partition=*/true);
  MPI_Barrier(MPI_COMM_WORLD);
  double seconds = 0;
  std::vector<HostArray> outs =
      call(*engine, entry, locals, info.results, iterations, seconds);

  std::vector<double> times(size);
  MPI_Gather(&seconds, 1, MPI_DOUBLE, times.data(), 1, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  auto all = gatherToRoot(outs, rank, size);
  if (!traceFile.empty() && dtrt_trace_write(traceFile.c_str()) != 0)
    fail(dtrt_last_error());

  int status = 0;
  if (rank == 0) {
    llvm::outs() << "plan: " << info.numCollectives << " collectives, "
                 << llvm::formatv("comm_cost_us={0:F1}", info.commCostUs)
                 << " on " << size << " ranks\n";
    for (int r = 0; r < size; ++r)
      llvm::outs() << llvm::formatv("rank {0}: {1:F3} ms\n", r, times[r] * 1e3);
    std::vector<HostArray> results;
    for (auto [i, t] : llvm::enumerate(info.results)) {
      std::vector<HostArray> parts;
      for (int r = 0; r < size; ++r)
        parts.push_back(all[r][i]);
      results.push_back(assemble(t, mesh, parts));
    }
    if (!outDir.empty()) {
      llvm::sys::fs::create_directories(outDir);
      for (auto [i, a] : llvm::enumerate(results)) {
        std::string err;
        llvm::SmallString<128> path(outDir);
        llvm::sys::path::append(path, "result" + std::to_string(i) + ".npy");
        if (!writeNpy(path.str().str(), a, err))
          fail(err);
      }
    }
    if (check) {
      OwningOpRef<ModuleOp> single = module->clone();
      stripToOneDevice(*single);
      std::unique_ptr<ExecutionEngine> ref =
          compile(*single, entry, /*partition=*/false);
      double refSeconds;
      std::vector<HostArray> expected =
          call(*ref, entry, globals, info.results, 1, refSeconds);
      double maxAbs = 0, maxRel = 0;
      bool ok = true;
      for (auto [a, e] : llvm::zip_equal(results, expected)) {
        if (a.shape != e.shape) {
          ok = false;
          continue;
        }
        for (int64_t i = 0, n = a.numElements(); i < n; ++i) {
          double x = valueAt(a, i), y = valueAt(e, i);
          double diff = std::fabs(x - y);
          maxAbs = std::max(maxAbs, diff);
          maxRel = std::max(maxRel, diff / std::max(std::fabs(y), 1e-30));
          if (!(diff <= absTol + relTol * std::fabs(y)))
            ok = false;
        }
      }
      llvm::outs() << "check: " << (ok ? "PASS" : "FAIL")
                   << llvm::formatv(" max_abs_err={0:e} max_rel_err={1:e}",
                                    maxAbs, maxRel)
                   << "\n";
      llvm::outs().flush();
      status = ok ? 0 : 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dtrt_finalize();
  return status;
}

int runLauncher(MLIRContext &ctx, int argc, char **argv) {
  if (strategy != "pytorch" && strategy != "global")
    fail("--strategy must be pytorch or global, got '" + strategy + "'");
  if (backend != "cpu")
    fail("backend '" + backend +
         "' is not available: this build runs on CPUs (--backend cpu)");
  OwningOpRef<ModuleOp> module = parse(ctx);
  ProgramInfo info = analyze(*module);
  int64_t devices = meshNumDevices(info.meshShape);
  if (numRanks <= 0)
    fail("--np is required");
  if (check) {
    WalkResult local = module->walk([](Operation *op) {
      return isa<FromLocalOp, ToLocalOp>(op) ? WalkResult::interrupt()
                                             : WalkResult::advance();
    });
    if (local.wasInterrupted())
      fail("--check runs the program on one device, which is not defined "
           "for programs using dtensor.from_local/to_local (their local "
           "shapes depend on the ranks)");
  }
  if (devices != numRanks)
    fail("the mesh of @" + info.entry.getName() + " has " +
         llvm::Twine(devices) + " devices but --np is " +
         llvm::Twine(numRanks.getValue()));
  auto self = llvm::sys::fs::getMainExecutable(argv[0], (void *)&fail);
  auto launcher = llvm::sys::findProgramByName(mpirun);
  if (!launcher)
    fail("cannot find '" + mpirun + "' (install openmpi-bin)");
  std::vector<std::string> args{*launcher,
                                "--allow-run-as-root",
                                "--oversubscribe",
                                "--bind-to",
                                "none",
                                "-np",
                                std::to_string(numRanks),
                                self,
                                "--worker"};
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  // One BLAS thread per rank unless the user says otherwise: ranks already
  // share the cores, and oversubscribed BLAS threads only contend.
  setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
  llvm::SmallVector<StringRef> refs(args.begin(), args.end());
  std::string err;
  int rc =
      llvm::sys::ExecuteAndWait(*launcher, refs, std::nullopt, {}, 0, 0, &err);
  if (rc < 0)
    fail("launching " + *launcher + " failed: " + err);
  if (rc != 0)
    llvm::errs() << "dtensor-run: a rank failed or the check did not pass "
                    "(exit code "
                 << rc << ")\n";
  return rc == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerAllPasses();
  registerDTensorPasses();
  registerDTensorConversionPasses();
  registerDTensorPipelines();
  cl::ParseCommandLineOptions(argc, argv,
                              "dtensor-run: run a program on N ranks\n");
  DialectRegistry registry;
  registerEverything(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  if (worker)
    return runWorker(ctx);
  return runLauncher(ctx, argc, argv);
}
