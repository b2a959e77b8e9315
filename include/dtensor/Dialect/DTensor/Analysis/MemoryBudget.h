//===- MemoryBudget.h - fit a plan into max-bytes-per-rank ------*- C++ -*-===//
//
// A layer around the planners (strategy=pytorch, global, exact): when the
// plan of a function needs more than `max-bytes-per-rank` on some rank
// (`computeMemoryPeak`), ops are constrained and the function re-planned,
// greedily, until the peak fits:
//
// 1. take the buffers live at the peak of the worst rank, largest first:
//    the op defining each one, and the ops whose strategy asked for a
//    redistribution of it (whose buffers are live there), until a few ops
//    (6) are found (arguments, pinned ops and ops constrained already are
//    skipped);
// 2. for each such op not yet constrained, and each of its candidates
//    (`getAllShardingCandidates`) other than the one it has, re-plan the
//    function with that candidate forced on top of the constraints so far
//    (the other ops chosen by PyTorch's greedy rules given those);
// 3. if some re-plans fit, keep the one of least communication cost and
//    stop; else keep the one of smallest peak (then least cost) if it is
//    smaller than the current peak, and go to 1; else fail.
//
// It is a heuristic: the plan returned fits, but it is not proven to be the
// cheapest plan that fits, and a plan that fits may exist when it fails.
// Under strategy=global and exact the analysis also asks the exact planner
// for the cheapest plan under memory rows (`planFunctionUnderBudget`) and
// keeps the cheaper of the two plans that fit.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_MEMORYBUDGET_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_MEMORYBUDGET_H

#include "dtensor/Dialect/DTensor/Analysis/GlobalPlanner.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>

namespace mlir {
namespace dtensor {

/// Plans a function again with the strategies of some ops forced; null if
/// that plan fails.
using Replanner = llvm::function_ref<std::unique_ptr<FunctionPlan>(
    const ForcedStrategies &)>;

/// Returns `plan` if its peak fits `maxBytesPerRank` on every rank, else a
/// plan that fits found as described above; fails with `no plan fits
/// max-bytes-per-rank=...; the smallest peak reached is ... on rank ...`
/// emitted on `func` when none is found.
FailureOr<std::unique_ptr<FunctionPlan>>
fitMemoryBudget(FunctionOpInterface func, std::unique_ptr<FunctionPlan> plan,
                int64_t maxBytesPerRank, Replanner replan);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_MEMORYBUDGET_H
