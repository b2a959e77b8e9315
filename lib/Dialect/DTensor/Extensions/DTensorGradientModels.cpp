//===- DTensorGradientModels.cpp - reverse rules of dtensor ops -----------===//
//
// `dtensor.redistribute` is the identity in the global view: its source's
// adjoint is the result's, left for the analysis to place (it plans the
// backward like any program). The local-view ops (`to_local`,
// `from_local`) have no rule: their values depend on the ranks.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/GradientExternalModels.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {
struct RedistributeGradientModel
    : public GradientOpInterface::ExternalModel<RedistributeGradientModel,
                                                RedistributeOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      operandAdjoints.push_back(needed[i] ? resultAdjoints[0] : Value());
    return success();
  }
};
} // namespace

void mlir::dtensor::registerDTensorGradientExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DTensorDialect *) {
    RedistributeOp::attachInterface<RedistributeGradientModel>(*ctx);
  });
}
