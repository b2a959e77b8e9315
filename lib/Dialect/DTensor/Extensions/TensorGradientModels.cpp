//===- TensorGradientModels.cpp - reverse rules of tensor ops -------------===//
//
// Reshapes: the adjoint of the source is the inverse reshape of the
// result's adjoint (expand_shape <-> collapse_shape, same reassociation).
// Slices: extract_slice's source gets the adjoint inserted into zeros at
// the slice; insert_slice's source gets the slice of the adjoint and its
// destination the adjoint with zeros at the slice. pad's source gets the
// slice of the adjoint at the low padding; each input of concat the slice
// of the adjoint at its offset along the concatenated dim; extract's tensor
// the scalar adjoint inserted into zeros.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/GradientExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// The adjoint of each needed operand `i` in `built` from `build(i)` (null
/// for operands `build` does not cover), given the one result's adjoint.
LogicalResult singleResultAdjoints(Operation *op,
                                   llvm::ArrayRef<Value> adjoints,
                                   llvm::ArrayRef<bool> needed,
                                   llvm::SmallVectorImpl<Value> &out,
                                   llvm::function_ref<Value(unsigned)> build) {
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    out.push_back(needed[i] && adjoints[0] ? build(i) : Value());
  return success();
}

/// The reshape models' form: only the source (operand 0) has an adjoint.
LogicalResult reshapeAdjoints(Operation *op, llvm::ArrayRef<Value> adjoints,
                              llvm::ArrayRef<bool> needed,
                              llvm::SmallVectorImpl<Value> &out,
                              llvm::function_ref<Value()> build) {
  return singleResultAdjoints(op, adjoints, needed, out, [&](unsigned i) {
    return i == 0 ? build() : Value();
  });
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

struct ExtractSliceGradientModel
    : public GradientOpInterface::ExternalModel<ExtractSliceGradientModel,
                                                tensor::ExtractSliceOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    return reshapeAdjoints(op, resultAdjoints, needed, operandAdjoints, [&] {
      Value zeros = buildZerosLike(b, op->getLoc(), slice.getSource());
      return tensor::InsertSliceOp::create(b, op->getLoc(), resultAdjoints[0],
                                           zeros, slice.getMixedOffsets(),
                                           slice.getMixedSizes(),
                                           slice.getMixedStrides())
          .getResult();
    });
  }
};

struct InsertSliceGradientModel
    : public GradientOpInterface::ExternalModel<InsertSliceGradientModel,
                                                tensor::InsertSliceOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    Location loc = op->getLoc();
    Value adj = resultAdjoints[0];
    return singleResultAdjoints(
        op, resultAdjoints, needed, operandAdjoints, [&](unsigned i) -> Value {
          if (i == 0)
            return tensor::ExtractSliceOp::create(
                b, loc, insert.getSourceType(), adj, insert.getMixedOffsets(),
                insert.getMixedSizes(), insert.getMixedStrides());
          if (i != 1)
            return Value();
          // The inserted part of the destination was overwritten.
          Value zeros = buildZerosLike(b, loc, insert.getSource());
          return tensor::InsertSliceOp::create(
              b, loc, zeros, adj, insert.getMixedOffsets(),
              insert.getMixedSizes(), insert.getMixedStrides());
        });
  }
};

struct PadGradientModel
    : public GradientOpInterface::ExternalModel<PadGradientModel,
                                                tensor::PadOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto pad = cast<tensor::PadOp>(op);
    return reshapeAdjoints(op, resultAdjoints, needed, operandAdjoints, [&] {
      Location loc = op->getLoc();
      llvm::SmallVector<OpFoldResult> ones(pad.getSourceType().getRank(),
                                           b.getIndexAttr(1));
      return tensor::ExtractSliceOp::create(
                 b, loc, pad.getSourceType(), resultAdjoints[0],
                 pad.getMixedLowPad(),
                 tensor::getMixedSizes(b, loc, pad.getSource()), ones)
          .getResult();
    });
  }
};

struct ConcatGradientModel
    : public GradientOpInterface::ExternalModel<ConcatGradientModel,
                                                tensor::ConcatOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto concat = cast<tensor::ConcatOp>(op);
    Location loc = op->getLoc();
    int64_t dim = concat.getDim();
    int64_t rank = concat.getResultType().getRank();
    // Offsets along `dim` of every input: the sizes before it, summed.
    llvm::SmallVector<OpFoldResult> offsets;
    OpFoldResult offset = b.getIndexAttr(0);
    for (Value in : concat.getInputs()) {
      offsets.push_back(offset);
      OpFoldResult size = tensor::getMixedSize(b, loc, in, dim);
      std::optional<int64_t> a = getConstantIntValue(offset),
                             s = getConstantIntValue(size);
      offset =
          a && s
              ? OpFoldResult(b.getIndexAttr(*a + *s))
              : OpFoldResult(
                    arith::AddIOp::create(
                        b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                        getValueOrCreateConstantIndexOp(b, loc, size))
                        .getResult());
    }
    return singleResultAdjoints(
        op, resultAdjoints, needed, operandAdjoints, [&](unsigned i) -> Value {
          Value in = concat.getInputs()[i];
          llvm::SmallVector<OpFoldResult> starts(rank, b.getIndexAttr(0)),
              ones(rank, b.getIndexAttr(1));
          starts[dim] = offsets[i];
          return tensor::ExtractSliceOp::create(
              b, loc, cast<RankedTensorType>(in.getType()), resultAdjoints[0],
              starts, tensor::getMixedSizes(b, loc, in), ones);
        });
  }
};

struct ExtractGradientModel
    : public GradientOpInterface::ExternalModel<ExtractGradientModel,
                                                tensor::ExtractOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto extract = cast<tensor::ExtractOp>(op);
    return reshapeAdjoints(op, resultAdjoints, needed, operandAdjoints, [&] {
      Value zeros = buildZerosLike(b, op->getLoc(), extract.getTensor());
      return tensor::InsertOp::create(b, op->getLoc(), resultAdjoints[0], zeros,
                                      extract.getIndices())
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
    tensor::ExtractSliceOp::attachInterface<ExtractSliceGradientModel>(*ctx);
    tensor::InsertSliceOp::attachInterface<InsertSliceGradientModel>(*ctx);
    tensor::PadOp::attachInterface<PadGradientModel>(*ctx);
    tensor::ConcatOp::attachInterface<ConcatGradientModel>(*ctx);
    tensor::ExtractOp::attachInterface<ExtractGradientModel>(*ctx);
  });
}
