//===- GlobalPlanner.h - whole-function strategy choice ---------*- C++ -*-===//
//
// PyTorch DTensor chooses each op's strategy greedily, in program order. The
// global planner chooses the strategies of all top-level ops of a function
// together to minimise the total communication cost under the same cost
// model. It is a dynamic program over the value graph: for every value and
// every placement it could have, the cheapest cost of producing it there
// (operands shared by several users are counted once per user, a tree
// relaxation), followed by a backward pass in which each value takes the
// placement that is cheapest for its producer plus all its users. The
// analysis keeps the PyTorch plan whenever the global one is not cheaper.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_ANALYSIS_GLOBALPLANNER_H
#define DTENSOR_ANALYSIS_GLOBALPLANNER_H

#include "dtensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Analysis/ShardingRules.h"

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

#endif // DTENSOR_ANALYSIS_GLOBALPLANNER_H
