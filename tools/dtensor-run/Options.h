//===- Options.h - the options of dtensor-run -------------------*- C++ -*-===//
//
// The parsed command line, passed to the launcher and the workers (the
// cl::opt globals stay in dtensor-run.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_OPTIONS_H
#define DTENSOR_TOOLS_DTENSOR_RUN_OPTIONS_H

#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dtensor_run {

/// Everything dtensor-run was asked to do.
struct Options {
  std::string inputFile;
  int numRanks = 0;
  std::string entry;
  std::string inputs = "random";
  uint64_t seed = 0;
  bool check = false;
  /// --rtol/--atol; unset: the defaults of each output's dtype
  /// (defaultTolerance in Compare.h).
  std::optional<double> rtol, atol;
  std::string outDir, traceFile;
  std::string backend = "cpu", strategy = "global";
  /// --max-bytes-per-rank: the partitioner's memory budget per rank (bytes
  /// with an optional K/M/G suffix); empty for none.
  std::string maxBytesPerRank;
  /// --sync-collectives: no async collectives (no overlap of communication
  /// with compute), for comparisons.
  bool syncCollectives = false;
  int iters = 1;
  /// --threads: compute threads per rank (BLAS threads).
  int threads = 1;
  /// --vectorize: the CPU pipeline's `vectorize` option.
  bool vectorize = true;
  std::string mpirun = "mpirun";
  /// --grad-check: compare @f_grad with f64 finite differences of @f on
  /// `gradSamples` elements per parameter, passing below `gradTol`.
  bool gradCheck = false;
  int gradSamples = 8;
  double gradTol = 1e-3;
  /// --steps: train K steps of @f_train_step (`optimizer` sgd or adamw
  /// with learning rate `lr` when generated); 0 runs the entry once.
  int steps = 0;
  double lr = 0.01;
  std::string optimizer = "sgd";
  /// Seconds before the launcher ends the job; 0 waits forever.
  unsigned timeoutSeconds = 0;
  /// Testing: the pipeline that lowers the ranks' partitioned program
  /// (the one-rank reference of --check always uses the CPU pipeline).
  std::string lowering = "dtensor-cpu-pipeline{partition=false}";
  /// Set in the ranks: the directory where each rank leaves its pid, its
  /// errors and a mark that it finished.
  std::string workerDir;
};

/// Prints "dtensor-run: error: <msg>" to stderr and exits with status 1. In
/// a rank, stderr is that rank's error file, which the launcher reads.
[[noreturn]] void fail(const llvm::Twine &msg);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_OPTIONS_H
