//===- DDPTrainingStep.h - DDP buckets of a training step -------*- C++ -*-===//
//
// The training-step mode of dtensor-ddp-split (DDPSplit.cpp): buckets from
// the forward part of a function that returns (loss, one value per
// dtensor.param argument), one flattened gradient all-reduce per bucket in
// the backward, and `dtensor.segment` tags for the op groups.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_LIB_DIALECT_DTENSOR_TRANSFORMS_DDPTRAININGSTEP_H
#define DTENSOR_LIB_DIALECT_DTENSOR_TRANSFORMS_DDPTRAININGSTEP_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir {
namespace dtensor {

/// One bucket of a split training step, in forward order.
struct TrainingStepBucket {
  /// Segment names of its forward ops and of the backward ops that end with
  /// its last gradient.
  std::string forwardSegment;
  std::string backwardSegment;
  /// The counted parameters (argument numbers, program order, a parameter
  /// counted twice listed twice) and their total global bytes.
  llvm::SmallVector<unsigned> params;
  int64_t bytes = 0;
  /// Number of forward ops of the bucket.
  size_t ops = 0;
  /// Parameters whose gradients the bucket's flat all-reduce carries
  /// (argument numbers), and that buffer's global bytes.
  llvm::SmallVector<unsigned> reduced;
  int64_t reducedBytes = 0;
};

/// True if `func` has the signature of a training step or a gradient
/// function: a 0-d float first result (the loss), then one result per
/// `dtensor.param` argument.
bool isTrainingStep(func::FuncOp func);

/// Splits the training step `func` (see DDPSplit.cpp's documentation in
/// docs/ddp-split.md): buckets its forward ops (the ops the loss depends on)
/// with `computeDDPBuckets`; for each bucket, right after the op producing
/// the last of its gradients that the plan reduces from `P(sum)` to `R`,
/// flattens them into one 1-D buffer (`tensor.collapse_shape`,
/// `tensor.concat`), redistributes it once to `R`, and gives each reader its
/// gradient back (`tensor.extract_slice`, `tensor.expand_shape`) right
/// before its first use; tags every top-level op with its segment. Returns
/// the buckets in forward order.
llvm::SmallVector<TrainingStepBucket>
splitTrainingStep(func::FuncOp func, const FunctionPlan &plan, int64_t capBytes,
                  int64_t firstCapBytes);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_LIB_DIALECT_DTENSOR_TRANSFORMS_DDPTRAININGSTEP_H
