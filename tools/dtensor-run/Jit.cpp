//===- Jit.cpp - compiling and calling the entry function -----------------===//

#include "Jit.h"
#include "Options.h"

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtrt/dtrt.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <dlfcn.h>
#include <malloc.h>

using namespace mlir;
using namespace mlir::dtensor;
using namespace dtensor_run;

void dtensor_run::stripToOneDevice(ModuleOp module) {
  module.walk([](Operation *op) {
    if (isa<RedistributeOp, FromLocalOp, ToLocalOp>(op)) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    }
  });
}

namespace {
/// Sets the BLAS's thread count to `threads` when the process has a BLAS
/// with a known setter (OpenBLAS: `openblas_set_num_threads`), looked up at
/// run time so that no BLAS is linked by name.
void setBlasThreads(int threads) {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(
          dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    set(threads);
}

/// Keeps the buffers the compiled code frees in the process's heap for its
/// next allocations: glibc returns blocks of more than 128 KiB (or its
/// adaptive threshold, at most 32 MiB) to the kernel on free, so that every
/// call would fault in its activations page by page again; the Block's
/// buffers are 1-64 MiB. A caching allocator does the same in PyTorch.
void retainFreedBuffers() {
#ifdef M_MMAP_THRESHOLD
  constexpr int kRetain = 1 << 30;
  (void)mallopt(M_MMAP_THRESHOLD, kRetain);
  (void)mallopt(M_TRIM_THRESHOLD, kRetain);
#endif
}

/// A target machine for the host CPU, with all its features (AVX2,
/// AVX-512, ...), so that the vector ops of the CPU pipeline are compiled
/// for the host's vector registers and LLVM's optimizer sees its costs.
std::unique_ptr<llvm::TargetMachine> hostTargetMachine() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    fail("cannot detect the host CPU: " + llvm::toString(builder.takeError()));
  builder->setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.getKey(), feature.getValue());
  builder->getFeatures() = features;
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = builder->createTargetMachine();
  if (!tm)
    fail("cannot create a target machine for the host CPU: " +
         llvm::toString(tm.takeError()));
  return std::move(*tm);
}
} // namespace

int64_t dtensor_run::loopThreads(const Options &options) {
#ifdef DTENSOR_LIBOMP
  return options.threads;
#else
  return 1;
#endif
}

std::string dtensor_run::cpuLowering(const Options &options,
                                     int64_t threads) {
  return std::string("dtensor-cpu-pipeline{partition=false vectorize=") +
         (options.vectorize ? "true" : "false") +
         " threads=" + std::to_string(threads) + "}";
}

std::unique_ptr<ExecutionEngine>
dtensor_run::compileModule(ModuleOp module, StringRef entry, bool partition,
                           const Options &runOptions, StringRef lowering) {
  setBlasThreads(runOptions.threads);
  retainFreedBuffers();
  module.lookupSymbol<func::FuncOp>(entry)->setAttr(
      "llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  if (partition) {
    // The partitioner with the requested strategy, then the lowering.
    PassManager pre(module.getContext());
    std::string p =
        "dtensor-partition{strategy=" + runOptions.strategy +
        " async-collectives=" + (runOptions.syncCollectives ? "0" : "1") +
        (runOptions.maxBytesPerRank.empty()
             ? ""
             : " max-bytes-per-rank=" + runOptions.maxBytesPerRank) +
        "}";
    if (failed(parsePassPipeline(p, pre)) || failed(pre.run(module)))
      fail("partitioning failed (see the errors above)");
  }
  PassManager pm(module.getContext());
  // The CPU pipeline unless a lowering is given (the GPU pipeline) or
  // requested for testing (--lowering).
  std::string pipeline = !lowering.empty() ? lowering.str()
                         : runOptions.lowering != kCPULowering
                             ? runOptions.lowering
                             : cpuLowering(runOptions, loopThreads(runOptions));
  if (failed(parsePassPipeline(pipeline, pm)))
    fail("cannot build the lowering pipeline '" + pipeline + "'");
  if (failed(pm.run(module)))
    fail("lowering to LLVM failed (see the errors above)");
  std::unique_ptr<llvm::TargetMachine> tm = hostTargetMachine();
  ExecutionEngineOptions options;
  // `transformer` is a function_ref: the function must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(2, 0, tm.get());
  options.transformer = optimize;
  static std::string runnerUtils = DTENSOR_C_RUNNER_UTILS;
  llvm::SmallVector<StringRef> libs{runnerUtils};
#ifdef DTENSOR_LIBOMP
  // The OpenMP runtime of threaded loops (threads=T of the CPU pipeline, in
  // the default lowering or a --lowering); it starts no thread until a
  // parallel loop runs.
  static std::string libomp = DTENSOR_LIBOMP;
  libs.push_back(libomp);
#endif
  options.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(module, options, std::move(tm));
  if (!engine)
    fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
  return std::move(*engine);
}

namespace {
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

} // namespace

HostArray dtensor_run::copyStridedResult(const int64_t *words, int64_t rank,
                                         dtrt_dtype dtype) {
  const char *aligned = reinterpret_cast<const char *>(words[1]);
  int64_t offset = words[2];
  std::vector<int64_t> shape(words + 3, words + 3 + rank);
  const int64_t *strides = words + 3 + rank;
  HostArray a(dtype, shape);
  int64_t size = elementSize(dtype);
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
  return a;
}

namespace {
/// One walk over the result descriptors in `words` (one per result in
/// `results`): appends a copy of each result to `out` when it is given, and
/// frees the buffers (each allocated pointer once) when `free` is set.
void takeResults(llvm::ArrayRef<int64_t> words,
                 const std::vector<TensorLayout> &results,
                 std::vector<HostArray> *out, bool free) {
  // Results may alias one buffer (`return %r, %r`): copy every result before
  // freeing any buffer, and free each buffer once.
  llvm::SmallPtrSet<void *, 4> buffers;
  size_t w = 0;
  for (const TensorLayout &r : results) {
    int64_t rank = static_cast<int64_t>(r.shape.size());
    if (out)
      out->push_back(copyStridedResult(words.data() + w, rank, r.dtype));
    if (auto *allocated = reinterpret_cast<void *>(words[w]))
      buffers.insert(allocated);
    w += 3 + 2 * rank;
  }
  if (free)
    for (void *allocated : buffers)
      std::free(allocated);
}
} // namespace

std::vector<int64_t>
dtensor_run::invokeEntry(ExecutionEngine &engine, StringRef entry,
                         llvm::ArrayRef<void *> data,
                         const std::vector<HostArray> &inputs,
                         const std::vector<TensorLayout> &results) {
  // Results: a struct of descriptors, one per result.
  size_t words = 0;
  for (const TensorLayout &r : results)
    words += 3 + 2 * r.shape.size();
  std::vector<int64_t> resultBuf(words, 0);
  void *resultPtr = resultBuf.data();
  std::vector<std::vector<int64_t>> descs;
  std::vector<void *> descPtrs;
  for (auto [ptr, a] : llvm::zip(data, inputs))
    descs.push_back(descriptor(ptr, a.shape));
  for (auto &d : descs)
    descPtrs.push_back(d.data());
  std::vector<void *> args;
  if (!results.empty())
    args.push_back(&resultPtr);
  for (void *&p : descPtrs)
    args.push_back(&p);
  std::string name = ("_mlir_ciface_" + entry).str();
  if (llvm::Error err = engine.invokePacked(name, args))
    fail("calling @" + entry + " failed: " + llvm::toString(std::move(err)));
  return resultBuf;
}

std::vector<HostArray>
dtensor_run::callEntry(ExecutionEngine &engine, StringRef entry,
                       std::vector<HostArray> &inputs,
                       const std::vector<TensorLayout> &results, int iters,
                       double &seconds, bool ownsResults) {
  std::vector<void *> data;
  for (HostArray &a : inputs)
    data.push_back(a.data.data());
  // The compiled function may write into its argument buffers (bufferized
  // in place): every call after the first gets the inputs back first, out
  // of the timed part, so that each call computes on the same inputs. A
  // call that left its inputs as they were leaves them so every time (each
  // gets the same inputs): then they are not touched again, as an op
  // called in a loop. Touching them between calls (a copy, or only a
  // comparison) would evict the previous call's lines from the caches and
  // charge the next call for it: up to 1.8x the time of a memory-bound op.
  std::vector<HostArray> pristine;
  if (iters > 1)
    pristine = inputs;
  bool restore = true;
  seconds = 0;
  std::vector<int64_t> resultBuf;
  for (int it = 0; it < std::max(1, iters); ++it) {
    if (it == 1)
      restore = llvm::any_of(llvm::zip(inputs, pristine), [](auto pair) {
        auto &[a, p] = pair;
        return std::memcmp(a.data.data(), p.data.data(), a.data.size()) != 0;
      });
    if (it > 0) {
      if (ownsResults)
        takeResults(resultBuf, results, /*out=*/nullptr, /*free=*/true);
      if (restore)
        for (auto [a, p] : llvm::zip(inputs, pristine))
          std::memcpy(a.data.data(), p.data.data(), a.data.size());
    }
    auto t0 = std::chrono::steady_clock::now();
    dtrt_span_begin(entry.str().c_str(), DTRT_SPAN_COMPUTE);
    resultBuf = invokeEntry(engine, entry, data, inputs, results);
    dtrt_span_end();
    auto t1 = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(t1 - t0).count();
    seconds = it == 0 ? s : std::min(seconds, s);
  }
  std::vector<HostArray> out;
  takeResults(resultBuf, results, &out, ownsResults);
  return out;
}
