//===- GradCheck.h - --grad-check -------------------------------*- C++ -*-===//
//
// `dtensor-run FILE --grad-check` checks a loss function's gradient
// function on one process: @f_grad's gradients (in the program's own
// precision) against central finite differences of @f computed in f64 on a
// random subset of each parameter's elements (FiniteDiff.h has the step
// and the error measure). A file without @f_grad gets one from
// `dtensor-autodiff`; a file that has one is checked as it is.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_GRADCHECK_H
#define DTENSOR_TOOLS_DTENSOR_RUN_GRADCHECK_H

#include "Options.h"

#include "mlir/IR/MLIRContext.h"

namespace dtensor_run {

/// Runs the check; prints a line per parameter and
/// "grad-check: PASS max_rel_err=<e>" (or FAIL and the worst element).
/// Returns the exit status: 0 on PASS, 1 on FAIL.
int runGradCheck(mlir::MLIRContext &ctx, const Options &options);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_GRADCHECK_H
