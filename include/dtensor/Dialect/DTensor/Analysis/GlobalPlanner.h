//===- GlobalPlanner.h - whole-function strategy choice ---------*- C++ -*-===//
//
// PyTorch DTensor chooses each op's strategy greedily, in program order. The
// global planner chooses the strategies of all top-level ops of a function
// together to minimise the total communication cost under the same cost
// model. Values read by several ops ("cut" values) split the ops into trees
// that dynamic programming solves exactly for given placements of the cut
// values; coordinate descent over those placements, started from the
// PyTorch plan, finds the plan. The analysis keeps the PyTorch plan whenever
// the global one is not cheaper, so it is never worse.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"

namespace mlir {
namespace dtensor {

/// Strategies chosen per op.
using ForcedStrategies = llvm::DenseMap<Operation *, ShardingCandidate>;

/// Plans the top-level ops of `func`. `pytorch` is the function's greedy
/// plan: values the planner does not choose (arguments, results of control
/// flow and calls) keep their placements there, and those ops keep their
/// requirements.
ForcedStrategies planFunctionGlobally(FunctionOpInterface func,
                                      const FunctionPlan &pytorch);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_GLOBALPLANNER_H
