//===- Worker.h - one rank of a run -----------------------------*- C++ -*-===//
//
// What each rank started by the launcher does: build its shard of the
// inputs, partition, compile and call the program, send its outputs to rank
// 0, which assembles them, prints the report and runs --check.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_WORKER_H
#define DTENSOR_TOOLS_DTENSOR_RUN_WORKER_H

#include "HostArray.h"
#include "Options.h"
#include "Program.h"

#include "mlir/IR/MLIRContext.h"

namespace dtensor_run {

/// Runs this rank; returns its exit status.
int runWorker(mlir::MLIRContext &ctx, const Options &options);

/// The files a rank leaves in `Options::workerDir`: "rank<R>.<kind>" with
/// kind "err" (its stderr), "pid" and "done" (written when it finished).
std::string workerFile(const std::string &dir, int rank, const char *kind);

/// The global inputs (random or the --inputs files), for the one-rank runs.
std::vector<HostArray> globalInputs(const Options &options,
                                    const ProgramInfo &info);

/// Sends every rank's arrays to rank 0; returns them there, indexed by rank
/// (empty on the other ranks).
std::vector<std::vector<HostArray>>
gatherToRoot(const std::vector<HostArray> &mine, int rank, int size);

/// Writes `results` as <--out>/result<i>.npy.
void writeOutputs(const Options &options,
                  const std::vector<HostArray> &results);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_WORKER_H
