//===- TensorGradientModels.cpp - reverse rules of tensor ops -------------===//
//
// Reshapes: the adjoint of the source is the inverse reshape of the
// result's adjoint (expand_shape <-> collapse_shape, same reassociation).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/GradientExternalModels.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// The adjoint of the source (operand 0) from `build`, no other operand.
LogicalResult reshapeAdjoints(Operation *op, llvm::ArrayRef<Value> adjoints,
                              llvm::ArrayRef<bool> needed,
                              llvm::SmallVectorImpl<Value> &out,
                              llvm::function_ref<Value()> build) {
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    out.push_back(Value());
  if (needed[0] && adjoints[0])
    out[0] = build();
  return success();
}

struct ExpandShapeGradientModel
    : public GradientOpInterface::ExternalModel<ExpandShapeGradientModel,
                                                tensor::ExpandShapeOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    return reshapeAdjoints(op, resultAdjoints, needed, operandAdjoints, [&] {
      return tensor::CollapseShapeOp::create(
                 b, op->getLoc(), expand.getSrcType(), resultAdjoints[0],
                 expand.getReassociationIndices())
          .getResult();
    });
  }
};

struct CollapseShapeGradientModel
    : public GradientOpInterface::ExternalModel<CollapseShapeGradientModel,
                                                tensor::CollapseShapeOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto collapse = cast<tensor::CollapseShapeOp>(op);
    return reshapeAdjoints(op, resultAdjoints, needed, operandAdjoints, [&] {
      return tensor::ExpandShapeOp::create(
                 b, op->getLoc(), collapse.getSrcType(), resultAdjoints[0],
                 collapse.getReassociationIndices(),
                 tensor::getMixedSizes(b, op->getLoc(), collapse.getSrc()))
          .getResult();
    });
  }
};

} // namespace

void mlir::dtensor::registerTensorGradientExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::ExpandShapeOp::attachInterface<ExpandShapeGradientModel>(*ctx);
    tensor::CollapseShapeOp::attachInterface<CollapseShapeGradientModel>(*ctx);
  });
}
