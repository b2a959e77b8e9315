//===- TestGradientModel.cpp - reverse rule of the test dialect -----------===//
//
// What a downstream compiler writes to give its own op a derivative: an
// external model of GradientOpInterface, attached when the dialect is
// loaded. For r = lhs + scale * rhs: adj(lhs) = adj(r) and adj(rhs) =
// scale * adj(r), built with the op itself (0 + scale * adj(r)).
//
//===----------------------------------------------------------------------===//

#include "TestDialect.h"

#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {
struct ScaledAddGradientModel
    : public GradientOpInterface::ExternalModel<ScaledAddGradientModel,
                                                test::ScaledAddOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       ArrayRef<Value> resultAdjoints, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &operandAdjoints) const {
    auto add = cast<test::ScaledAddOp>(op);
    Value adj = resultAdjoints[0];
    operandAdjoints.push_back(needed[0] ? adj : Value());
    if (!needed[1]) {
      operandAdjoints.push_back(Value());
      return success();
    }
    Value zeros = buildZerosLike(b, op->getLoc(), adj);
    operandAdjoints.push_back(test::ScaledAddOp::create(
        b, op->getLoc(), adj.getType(), zeros, adj, add.getScaleAttr()));
    return success();
  }
};
} // namespace

void mlir::dtensor::test::registerTestGradientModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, test::DTensorTestDialect *) {
    test::ScaledAddOp::attachInterface<ScaledAddGradientModel>(*ctx);
  });
}
