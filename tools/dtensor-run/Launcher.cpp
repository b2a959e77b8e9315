//===- Launcher.cpp - checking a run and launching its ranks --------------===//

#include "Launcher.h"

#include "DeviceCall.h"

#include "Npy.h"
#include "Program.h"
#include "Train.h"
#include "Worker.h"

#include "dtensor/Support/MemoryPeak.h"
#include "dtensor/Support/ShardingMath.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace mlir;
using namespace dtensor_run;

namespace {
//===----------------------------------------------------------------------===//
// Checks before launch
//===----------------------------------------------------------------------===//

void validateOptions(const Options &options) {
  if (options.strategy != "pytorch" && options.strategy != "global" &&
      options.strategy != "exact")
    fail("--strategy must be pytorch, global or exact, got '" +
         options.strategy + "'");
  int64_t budget = 0;
  std::string budgetError;
  if (!options.maxBytesPerRank.empty() &&
      !mlir::dtensor::parseByteSize(options.maxBytesPerRank, budget,
                                    budgetError))
    fail("--max-bytes-per-rank: " + budgetError);
  if (options.backend != "cpu" && options.backend != "cuda")
    fail("--backend must be cpu or cuda, got '" + options.backend + "'");
  auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", v);
    return std::string(buf);
  };
  if (options.rtol && !(*options.rtol >= 0))
    fail("--rtol must be non-negative, got " + number(*options.rtol));
  if (options.atol && !(*options.atol >= 0))
    fail("--atol must be non-negative, got " + number(*options.atol));
  if (options.iters <= 0)
    fail("--iters must be positive, got " + llvm::Twine(options.iters));
}

/// Partitions a copy of the program and checks that the CPU pipeline can
/// lower every op, so that an op it cannot lower is named once, here,
/// before any rank starts (the ranks would each stop on it).
void checkLowerable(ModuleOp module, const Options &options) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  std::string p = "dtensor-partition{strategy=" + options.strategy +
                  (options.maxBytesPerRank.empty()
                       ? ""
                       : " max-bytes-per-rank=" + options.maxBytesPerRank) +
                  "},dtensor-check-cpu-lowering";
  if (failed(parsePassPipeline(p, pm)))
    fail("cannot build the partition pipeline");
  if (failed(pm.run(*copy)))
    fail("the program cannot be compiled for the CPU (see the errors above)");
}

void validateProgram(ModuleOp module, const Options &options,
                     const ProgramInfo &info) {
  if (options.numRanks <= 0)
    fail("--np is required");
  if (options.check && usesLocalViewOps(module))
    fail("--check runs the program on one device, which is not defined "
         "for programs using dtensor.from_local/to_local (their local "
         "shapes depend on the ranks)");
  int64_t devices = dtensor::meshNumDevices(info.mesh);
  // The runtime's limits (the verifier enforces the same on dtensor.mesh).
  if (info.mesh.size() > DTRT_MAX_MESH_AXES || devices > DTRT_MAX_MESH_DEVICES)
    fail("the mesh of @" + info.entryName + " has " +
         llvm::Twine(info.mesh.size()) + " axes and " + llvm::Twine(devices) +
         " devices; the runtime allows " + llvm::Twine(DTRT_MAX_MESH_AXES) +
         " and " + llvm::Twine(DTRT_MAX_MESH_DEVICES));
  if (devices != options.numRanks)
    fail("the mesh of @" + info.entryName + " has " + llvm::Twine(devices) +
         " devices but --np is " + llvm::Twine(options.numRanks));
}

/// Checks every .npy input against its argument before any rank reads it.
void validateInputs(const Options &options, const ProgramInfo &info) {
  if (options.inputs == "random")
    return;
  llvm::SmallVector<llvm::StringRef> files;
  llvm::StringRef(options.inputs).split(files, ',');
  if (files.size() != info.args.size())
    fail("@" + info.entryName + " takes " + llvm::Twine(info.args.size()) +
         " arguments but --inputs lists " + llvm::Twine(files.size()) +
         " files");
  for (auto [i, f] : llvm::enumerate(files)) {
    NpyHeader header;
    std::string err;
    if (!readNpyHeader(f.str(), header, err))
      fail("input #" + llvm::Twine(i) + ": " + err);
    const TensorInfo &t = info.args[i];
    if (header.dtype != t.layout.dtype || header.shape != t.layout.shape)
      fail("input #" + llvm::Twine(i) + " (" + f + ") has dtype " +
           infoOf(header.dtype).npyDescr + " and shape " +
           formatShape(header.shape) + " but the argument is " +
           llvm::formatv("{0}", t.type).str());
  }
}

/// Bytes of `shape` elements of `dtype`, saturating at UINT64_MAX.
uint64_t bytesOf(dtrt_dtype dtype, llvm::ArrayRef<int64_t> shape) {
  uint64_t bytes = elementSize(dtype);
  for (int64_t d : shape)
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes))
      return UINT64_MAX;
  return bytes;
}

uint64_t addSaturating(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// A lower bound of the host memory of the run on this machine: every
/// rank's shards of the inputs and outputs (the call's and the copy's), and
/// on rank 0 the gathered parts, the assembled outputs and, with --check,
/// the global inputs and the one-rank outputs.
uint64_t estimateBytes(const Options &options, const ProgramInfo &info) {
  uint64_t total = 0;
  for (int64_t r = 0, n = dtensor::meshNumDevices(info.mesh); r < n; ++r) {
    auto coords = dtensor::rankToCoords(info.mesh, r);
    auto local = [&](const TensorInfo &t) {
      return bytesOf(t.layout.dtype,
                     dtensor::computeLocalShard(t.layout.shape, info.mesh,
                                                t.layout.placements, coords)
                         .shape);
    };
    for (const TensorInfo &t : info.args)
      total = addSaturating(total, local(t));
    for (const TensorInfo &t : info.results)
      total = addSaturating(total, 3 * local(t)); // call, copy, gathered
  }
  for (const TensorInfo &t : info.results)
    total = addSaturating(total, (options.check ? 2 : 1) *
                                     bytesOf(t.layout.dtype, t.layout.shape));
  if (options.check)
    for (const TensorInfo &t : info.args)
      total = addSaturating(total, bytesOf(t.layout.dtype, t.layout.shape));
  return total;
}

/// MemAvailable from /proc/meminfo, else sysinfo's free memory.
uint64_t availableBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kb;
  while (meminfo >> key >> kb)
    if (key == "MemAvailable:")
      return kb * 1024;
    else
      meminfo.ignore(256, '\n');
  struct sysinfo si;
  if (sysinfo(&si) == 0)
    return static_cast<uint64_t>(si.freeram + si.bufferram) * si.mem_unit;
  return UINT64_MAX;
}

void checkMemory(const Options &options, const ProgramInfo &info) {
  uint64_t needed = estimateBytes(options, info), available = availableBytes();
  if (needed <= available)
    return;
  std::string need = needed == UINT64_MAX ? std::string("more than 2^64")
                                          : std::to_string(needed);
  fail("the inputs and outputs of @" + info.entryName + " need " + need +
       " bytes on " + llvm::Twine(options.numRanks) +
       " ranks but this machine has " + llvm::Twine(available) +
       " bytes of memory available");
}

/// Fails unless `path` can be opened for writing; leaves no new file.
void checkWritable(const std::string &path, const char *flag) {
  bool existed = llvm::sys::fs::exists(path);
  std::error_code ec;
  { llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Append); }
  if (ec)
    fail(llvm::Twine(flag) + ": cannot open '" + path +
         "' for writing: " + ec.message());
  if (!existed)
    llvm::sys::fs::remove(path);
}

void checkOutputs(const Options &options) {
  if (!options.traceFile.empty())
    checkWritable(options.traceFile, "--trace");
  if (options.outDir.empty())
    return;
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outDir))
    fail("--out: cannot create '" + options.outDir + "': " + ec.message());
  llvm::SmallString<128> probe(options.outDir);
  llvm::sys::path::append(probe, "result0.npy");
  checkWritable(probe.str().str(), "--out");
}

//===----------------------------------------------------------------------===//
// The job
//===----------------------------------------------------------------------===//

/// The contents of `path` ("" when unreadable); streams, because /proc
/// files report a size of 0.
std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A rank's process as recorded in its pid file; -1 when it has none.
pid_t rankPid(const std::string &dir, int rank) {
  std::string text = readText(workerFile(dir, rank, "pid"));
  return text.empty() ? -1 : static_cast<pid_t>(std::atol(text.c_str()));
}

/// Whether `pid` is stopped (by a signal or a debugger).
bool isStopped(pid_t pid) {
  std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size())
    return false;
  char state = stat[close + 2];
  return state == 'T' || state == 't';
}

std::string joinRanks(llvm::ArrayRef<int> ranks) {
  std::string s;
  for (int r : ranks)
    s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

/// The state of one job: mpirun's pid and the directory of the ranks' files.
struct Job {
  pid_t pid = -1;
  std::string dir;
  int numRanks = 0;
};

/// Starts mpirun with this executable as the ranks (--worker), its stderr
/// (the banner) into the job directory.
/// The OpenBLAS core type the ranks should use, or null to leave OpenBLAS's
/// own choice. OpenBLAS 0.3.21 (Debian 12) does not know Intel CPUs newer
/// than itself (Emerald Rapids, Intel family 6 model 0xCF, and later) and
/// runs them on its Prescott (SSE3) kernels, 3 to 4 times slower than the
/// AVX-512 ones the CPU can run. When the library reports that fallback on a
/// CPU with AVX2, the ranks get the newest kernels the CPU runs. A core the
/// user chose (OPENBLAS_CORETYPE) is kept.
const char *blasCoreOverride() {
  if (std::getenv("OPENBLAS_CORETYPE"))
    return nullptr;
  using CoreName = char *(*)();
  auto coreName = reinterpret_cast<CoreName>(
      dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (!coreName || llvm::StringRef(coreName()) != "Prescott")
    return nullptr;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // OpenBLAS's SkylakeX kernels use AVX-512 F, CD, BW, DQ and VL.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
#endif
  return nullptr;
}

Job startJob(const Options &options, int argc, char **argv) {
  Job job;
  job.numRanks = options.numRanks;
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("dtensor-run", dir))
    fail("cannot create a temporary directory");
  job.dir = dir.str().str();
  auto self = llvm::sys::fs::getMainExecutable(argv[0], (void *)&fail);
  auto launcher = llvm::sys::findProgramByName(options.mpirun);
  if (!launcher)
    fail("cannot find '" + options.mpirun + "' (install openmpi-bin)");
  std::vector<std::string> args{*launcher,
                                "--allow-run-as-root",
                                "--oversubscribe",
                                "--bind-to",
                                "none",
                                "-np",
                                std::to_string(options.numRanks),
                                self,
                                "--worker",
                                "--worker-dir=" + job.dir};
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  // One BLAS thread per rank unless the user says otherwise: ranks already
  // share the cores, and oversubscribed BLAS threads only contend.
  setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
  if (const char *core = blasCoreOverride())
    setenv("OPENBLAS_CORETYPE", core, /*overwrite=*/0);
  // Open MPI 4.1's op/avx saturates i8/i16 sums; the runtime reduces those
  // with its own operation, and this keeps any other MPI_SUM exact too.
  setenv("OMPI_MCA_op", "^avx", /*overwrite=*/0);
  // Open MPI's session directory inside the job's own directory: jobs
  // started at the same time (parallel tests) otherwise race to create the
  // same <tmp>/ompi.<host>.<uid> directory and one of them fails.
  setenv("OMPI_MCA_orte_tmpdir_base", job.dir.c_str(), /*overwrite=*/0);
  std::vector<char *> cargs;
  for (std::string &a : args)
    cargs.push_back(a.data());
  cargs.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  std::string banner = job.dir + "/mpirun.err";
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, banner.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc = posix_spawn(&job.pid, launcher->c_str(), &actions, nullptr,
                       cargs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    fail("launching " + *launcher + " failed: " + std::strerror(rc));
  return job;
}

/// Ends a job that ran past --timeout: names the ranks that did not finish,
/// kills them and mpirun, and exits with an error.
[[noreturn]] void endTimedOutJob(const Options &options, const Job &job) {
  std::vector<int> unfinished, stopped;
  std::vector<pid_t> pids;
  for (int r = 0; r < job.numRanks; ++r) {
    if (llvm::sys::fs::exists(workerFile(job.dir, r, "done")))
      continue;
    unfinished.push_back(r);
    pid_t pid = rankPid(job.dir, r);
    if (pid > 0 && isStopped(pid))
      stopped.push_back(r);
    if (pid > 0)
      pids.push_back(pid);
  }
  // Only after every state is read: mpirun ends the others as soon as one
  // dies.
  for (pid_t pid : pids)
    ::kill(pid, SIGKILL);
  ::kill(job.pid, SIGTERM);
  int status;
  for (int i = 0; i < 100 && ::waitpid(job.pid, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (::waitpid(job.pid, &status, WNOHANG) == 0) {
    ::kill(job.pid, SIGKILL);
    ::waitpid(job.pid, &status, 0);
  }
  llvm::sys::fs::remove_directories(job.dir);
  std::string msg = llvm::formatv("the job did not finish within --timeout {0} "
                                  "seconds: ",
                                  options.timeoutSeconds);
  if (!stopped.empty())
    msg += (stopped.size() == 1 ? "rank " : "ranks ") + joinRanks(stopped) +
           (stopped.size() == 1 ? " is" : " are") + " stopped; ";
  msg += "ranks that did not finish: " + joinRanks(unfinished);
  fail(msg);
}

/// Waits for mpirun, at most --timeout seconds; returns its exit status.
int waitForJob(const Options &options, const Job &job) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(options.timeoutSeconds);
  int status = 0;
  while (true) {
    pid_t done = ::waitpid(job.pid, &status, WNOHANG);
    if (done == job.pid)
      break;
    if (done < 0)
      fail("waiting for mpirun failed: " + llvm::Twine(std::strerror(errno)));
    if (options.timeoutSeconds && std::chrono::steady_clock::now() > deadline)
      endTimedOutJob(options, job);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/// Prints the first error a rank reported (the earliest error file), once;
/// returns false when no rank reported one.
bool printFirstRankError(const Job &job) {
  int first = -1;
  llvm::sys::TimePoint<> firstTime;
  std::vector<std::string> texts(job.numRanks);
  for (int r = 0; r < job.numRanks; ++r) {
    std::string path = workerFile(job.dir, r, "err");
    texts[r] = readText(path);
    llvm::sys::fs::file_status status;
    if (texts[r].empty() || llvm::sys::fs::status(path, status))
      continue;
    if (first < 0 || status.getLastModificationTime() < firstTime) {
      first = r;
      firstTime = status.getLastModificationTime();
    }
  }
  if (first < 0)
    return false;
  llvm::errs() << texts[first];
  if (texts[first].back() != '\n')
    llvm::errs() << "\n";
  std::vector<int> others;
  for (int r = 0; r < job.numRanks; ++r)
    if (r != first && !texts[r].empty() && texts[r] != texts[first])
      others.push_back(r);
  if (!others.empty())
    llvm::errs() << "dtensor-run: note: the first error came from rank "
                 << first << "; " << (others.size() == 1 ? "rank " : "ranks ")
                 << joinRanks(others) << " reported other errors after it\n";
  return true;
}

/// Explains a failed job in one message: the ranks' first error, else how a
/// rank died (from mpirun's report), else mpirun's own output.
void reportFailure(const Job &job, int rc) {
  bool allDone = true;
  for (int r = 0; r < job.numRanks; ++r)
    allDone &= llvm::sys::fs::exists(workerFile(job.dir, r, "done"));
  bool printed = printFirstRankError(job);
  if (!allDone) {
    std::string banner = readText(job.dir + "/mpirun.err");
    llvm::SmallVector<llvm::StringRef> m;
    llvm::Regex died("process rank ([0-9]+) with PID [0-9]+ on node [^ ]+ "
                     "exited on signal ([0-9]+) \\(([^)]*)\\)");
    if (died.match(banner, &m))
      llvm::errs() << "dtensor-run: error: rank " << m[1]
                   << " exited on signal " << m[2] << " (" << m[3] << ")\n";
    else if (!printed)
      llvm::errs() << banner;
  }
  llvm::errs() << "dtensor-run: a rank failed or the check did not pass "
                  "(exit code "
               << rc << ")\n";
}
} // namespace

int dtensor_run::runLauncher(MLIRContext &ctx, const Options &given, int argc,
                             char **argv) {
  validateOptions(given);
  // Before anything else: one message, within a second, when the GPUs are
  // missing.
  if (given.backend == "cuda")
    checkCudaBackend(given);
  OwningOpRef<ModuleOp> module = parseProgram(ctx, given);
  const Options options = given.steps ? prepareTraining(*module, given) : given;
  ProgramInfo info = analyzeProgram(*module, options);
  validateProgram(*module, options, info);
  if (options.steps)
    checkTrainingStep(info);
  checkLowerable(*module, options);
  validateInputs(options, info);
  checkMemory(options, info);
  checkOutputs(options);
  Job job = startJob(options, argc, argv);
  int rc = waitForJob(options, job);
  if (rc != 0)
    reportFailure(job, rc);
  else
    llvm::errs() << readText(workerFile(job.dir, 0, "err"));
  llvm::sys::fs::remove_directories(job.dir);
  return rc == 0 ? 0 : 1;
}
