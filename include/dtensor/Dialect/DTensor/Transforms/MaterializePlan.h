//===- MaterializePlan.h - write a fake-tensor plan into the IR -*- C++ -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_MATERIALIZEPLAN_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_MATERIALIZEPLAN_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"

namespace mlir {
namespace dtensor {

/// What `materializePlan` changed.
struct MaterializeStats {
  unsigned redistributions = 0;
  unsigned recreated = 0;
  unsigned annotated = 0;
};

/// Writes the plan of `func` into the IR: an explicit `dtensor.redistribute`
/// (right after the value's definition, shared by the users needing the same
/// placements) for every redistribution the plan requires, a copy built in
/// place for created values, and `dtensor.specs` on every op with tensor
/// results. Afterwards the analysis finds no pending redistribution.
MaterializeStats materializePlan(FunctionOpInterface func,
                                 const FunctionPlan &plan);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_MATERIALIZEPLAN_H
