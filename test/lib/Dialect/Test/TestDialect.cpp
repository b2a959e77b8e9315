//===- TestDialect.cpp - dtensor test dialect -----------------------------===//

#include "TestDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::dtensor::test;

#include "TestOpsDialect.cpp.inc"

#define GET_OP_CLASSES
#include "TestOps.cpp.inc"

void DTensorTestDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TestOps.cpp.inc"
      >();
}

FailureOr<SmallVector<Value>> ScaledAddOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  auto type = cast<RankedTensorType>(getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, getLhs());
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  Value scale = arith::ConstantOp::create(
      b, loc, type.getElementType(),
      b.getFloatAttr(type.getElementType(), getScale().convertToDouble()));
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{getLhs(), getRhs()}, ValueRange{init},
      ArrayRef<AffineMap>{id, id, id}, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value scaled = arith::MulFOp::create(nb, nl, args[1], scale);
        Value sum = arith::AddFOp::create(nb, nl, args[0], scaled);
        linalg::YieldOp::create(nb, nl, sum);
      });
  return SmallVector<Value>{generic.getResult(0)};
}

void mlir::dtensor::test::registerTestDialect(DialectRegistry &registry) {
  registry.insert<DTensorTestDialect>();
  registerTestShardingModel(registry);
  registerTestGradientModel(registry);
}
