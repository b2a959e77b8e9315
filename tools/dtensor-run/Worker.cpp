//===- Worker.cpp - one rank of a run -------------------------------------===//

#include "Worker.h"

#include "Compare.h"
#include "DeviceCall.h"
#include "Jit.h"
#include "Npy.h"
#include "Program.h"
#include "Train.h"

#include "dtensor/Support/ShardingMath.h"
#include "dtrt/dtrt.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

using namespace mlir;
using namespace dtensor_run;

std::string dtensor_run::workerFile(const std::string &dir, int rank,
                                    const char *kind) {
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "rank" + std::to_string(rank) + "." + kind);
  return path.str().str();
}

namespace {
/// This rank's world rank from the launcher's environment (Open MPI, PMIx,
/// MPICH), or -1.
int rankFromEnvironment() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char *value = std::getenv(name))
      return std::atoi(value);
  return -1;
}

void writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec)
    os << text;
}

/// Sends this rank's stderr to its error file and records its pid, so that
/// the launcher prints one rank's error (not N copies, nor mpirun's banner)
/// and can name and end the ranks that do not finish.
void redirectErrors(const Options &options, int rank) {
  if (options.workerDir.empty() || rank < 0)
    return;
  std::string err = workerFile(options.workerDir, rank, "err");
  int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ::dup2(fd, STDERR_FILENO);
    ::close(fd);
  }
  writeFile(workerFile(options.workerDir, rank, "pid"),
            std::to_string(::getpid()) + "\n");
}

/// Test hooks that make one rank fail the ways real programs do:
/// DTENSOR_RUN_CRASH_RANK=r aborts rank r, DTENSOR_RUN_STOP_RANK=r stops it
/// (SIGSTOP), DTENSOR_RUN_FAIL_RANK=r|all makes it report an error.
void runTestHooks(int rank) {
  auto is = [rank](const char *name) {
    const char *v = std::getenv(name);
    return v && (std::string(v) == "all" || std::atoi(v) == rank);
  };
  if (is("DTENSOR_RUN_CRASH_RANK"))
    std::abort();
  if (is("DTENSOR_RUN_STOP_RANK"))
    std::raise(SIGSTOP);
  if (is("DTENSOR_RUN_FAIL_RANK"))
    fail("a rank failed on purpose (DTENSOR_RUN_FAIL_RANK)");
}

std::vector<std::string> inputFiles(const Options &options) {
  llvm::SmallVector<llvm::StringRef> files;
  llvm::StringRef(options.inputs).split(files, ',');
  return {files.begin(), files.end()};
}

/// This rank's shard of argument `i`, built without the global tensor.
HostArray localInput(const Options &options, const ProgramInfo &info, size_t i,
                     int rank) {
  const TensorLayout &layout = info.args[i].layout;
  if (options.inputs == "random")
    return randomShard(layout, info.mesh, rank, options.seed, i);
  std::string path = inputFiles(options)[i], err;
  auto coords = dtensor::rankToCoords(info.mesh, rank);
  dtensor::LocalShard shard = dtensor::computeLocalShard(
      layout.shape, info.mesh, layout.placements, coords);
  NpyHeader header;
  HostArray a;
  if (!readNpyHeader(path, header, err) ||
      !readNpyBlock(path, header, shard.shape, shard.offsets, a, err,
                    shard.strided))
    fail(err);
  splitPartial(a, layout, info.mesh, coords, shard.offsets, options.seed, i,
               shard.strided);
  return a;
}

} // namespace

std::vector<HostArray> dtensor_run::globalInputs(const Options &options,
                                                 const ProgramInfo &info) {
  std::vector<HostArray> globals;
  for (size_t i = 0; i < info.args.size(); ++i) {
    if (options.inputs == "random") {
      globals.push_back(randomGlobal(info.args[i].layout, options.seed, i));
      continue;
    }
    HostArray a;
    std::string err;
    if (!readNpy(inputFiles(options)[i], a, err))
      fail(err);
    globals.push_back(std::move(a));
  }
  return globals;
}

std::vector<std::vector<HostArray>>
dtensor_run::gatherToRoot(const std::vector<HostArray> &mine, int rank,
                          int size) {
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

void dtensor_run::writeOutputs(const Options &options,
                               const std::vector<HostArray> &results) {
  for (auto [i, a] : llvm::enumerate(results)) {
    std::string err;
    llvm::SmallString<128> path(options.outDir);
    llvm::sys::path::append(path, "result" + std::to_string(i) + ".npy");
    if (!writeNpy(path.str().str(), a, err))
      fail(err);
  }
}

namespace {
/// Ends a training run like any other: the trace, rank 0's status to every
/// rank, the "done" mark.
int finishTraining(const Options &options, int rank, int status) {
  if (!options.traceFile.empty() &&
      dtrt_trace_write(options.traceFile.c_str()) != 0)
    fail(dtrt_last_error());
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (options.backend == "cuda")
    finalizeCudaRank();
  dtrt_finalize();
  if (!options.workerDir.empty())
    writeFile(workerFile(options.workerDir, rank, "done"), "");
  return status;
}

/// Runs the unpartitioned program on rank 0 and compares; returns whether
/// every output matches.
bool checkAgainstOneRank(ModuleOp module, const Options &options,
                         const ProgramInfo &info,
                         const std::vector<HostArray> &results) {
  OwningOpRef<ModuleOp> single = module.clone();
  stripToOneDevice(*single);
  StringRef entry = info.entryName;
  // The reference is always the CPU pipeline's, also under --lowering (the
  // GPU pipeline's CPU oracle): a lowering checked against itself would
  // pass whatever its tiling or fusion computes.
  std::unique_ptr<ExecutionEngine> ref = compileModule(
      *single, entry, /*partition=*/false, options, cpuLowering(options));
  std::vector<HostArray> globals = globalInputs(options, info);
  double seconds;
  std::vector<HostArray> expected =
      callEntry(*ref, entry, globals, info.resultLayouts(), 1, seconds,
                /*ownsResults=*/true);
  CompareResult cmp =
      compareOutputs(results, expected, options.rtol, options.atol);
  llvm::outs() << formatCheckReport(cmp);
  llvm::outs().flush();
  return cmp.ok;
}

/// Rank 0's part after the call: the report, the assembled outputs, --out
/// and --check. Returns the job's status.
int finishOnRoot(ModuleOp module, const Options &options,
                 const ProgramInfo &info,
                 const std::vector<std::vector<HostArray>> &all,
                 const std::vector<double> &times) {
  int size = static_cast<int>(all.size());
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
    results.push_back(assemble(t.layout, info.mesh, parts));
  }
  if (!options.outDir.empty())
    writeOutputs(options, results);
  if (options.check && !checkAgainstOneRank(module, options, info, results))
    return 1;
  return 0;
}
} // namespace

int dtensor_run::runWorker(MLIRContext &ctx, const Options &given) {
  redirectErrors(given, rankFromEnvironment());
  OwningOpRef<ModuleOp> module = parseProgram(ctx, given);
  const Options options = given.steps ? prepareTraining(*module, given) : given;
  ProgramInfo info = analyzeProgram(*module, options);
  if (dtrt_init(static_cast<int32_t>(info.mesh.size()), info.mesh.data()) != 0)
    fail(dtrt_last_error());
  if (!info.axisNames.empty()) {
    std::vector<const char *> names;
    for (const std::string &name : info.axisNames)
      names.push_back(name.c_str());
    if (dtrt_set_axis_names(static_cast<int32_t>(names.size()),
                            names.data()) != 0)
      fail(dtrt_last_error());
  }
  dtrt_set_abort_on_error(1);
  if (!options.traceFile.empty())
    dtrt_trace_enable(1);
  int rank = dtrt_rank(), size = dtrt_world_size();
  if (rankFromEnvironment() < 0)
    redirectErrors(options, rank);
  runTestHooks(rank);
  bool onDevice = options.backend == "cuda";
  if (onDevice)
    initCudaRank();

  std::vector<HostArray> locals;
  for (size_t i = 0; i < info.args.size(); ++i)
    locals.push_back(localInput(options, info, i, rank));
  OwningOpRef<ModuleOp> local = module->clone();
  StringRef entry = info.entryName;
  std::unique_ptr<ExecutionEngine> engine =
      compileModule(*local, entry, /*partition=*/true, options,
                    onDevice ? StringRef(kGpuPipeline) : StringRef());
  MPI_Barrier(MPI_COMM_WORLD);
  if (options.steps)
    return finishTraining(options, rank,
                          runTrainingSteps(*module, *engine, options, info,
                                           std::move(locals), rank, size));
  double seconds = 0;
  std::vector<HostArray> outs =
      onDevice ? callEntryOnDevice(*engine, entry, locals, info.resultLayouts(),
                                   options.iters, seconds)
               : callEntry(*engine, entry, locals, info.resultLayouts(),
                           options.iters, seconds, ownsResults(options));

  std::vector<double> times(size);
  MPI_Gather(&seconds, 1, MPI_DOUBLE, times.data(), 1, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  auto all = gatherToRoot(outs, rank, size);
  if (!options.traceFile.empty() &&
      dtrt_trace_write(options.traceFile.c_str()) != 0)
    fail(dtrt_last_error());
  int status = rank == 0 ? finishOnRoot(*module, options, info, all, times) : 0;
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (options.backend == "cuda")
    finalizeCudaRank();
  dtrt_finalize();
  if (!options.workerDir.empty())
    writeFile(workerFile(options.workerDir, rank, "done"), "");
  return status;
}
