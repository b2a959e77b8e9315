//===- Passes.h - dtensor passes --------------------------------*- C++ -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
#define DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace dtensor {

#define GEN_PASS_DECL
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
