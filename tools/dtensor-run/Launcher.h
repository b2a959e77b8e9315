//===- Launcher.h - checking a run and launching its ranks ------*- C++ -*-===//
//
// Everything dtensor-run does before and around mpirun: validates the
// options, the program, the .npy inputs and the memory the run needs, starts
// the ranks, ends the job on --timeout, and prints the ranks' first error
// once.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_LAUNCHER_H
#define DTENSOR_TOOLS_DTENSOR_RUN_LAUNCHER_H

#include "Options.h"

#include "mlir/IR/MLIRContext.h"

namespace dtensor_run {

/// Checks everything that can be checked before the ranks start, runs them
/// and returns the exit status of dtensor-run.
int runLauncher(mlir::MLIRContext &ctx, const Options &options, int argc,
                char **argv);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_LAUNCHER_H
