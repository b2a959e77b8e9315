//===- CheckCPULowering.cpp - ops the CPU pipeline cannot lower -----------===//
//
// Finds the ops of a partitioned program that no step of
// `dtensor-cpu-pipeline` lowers, before any of them runs. The tosa and math
// ops the pipeline lowers are the roots of the upstream patterns its
// conversions apply, so the check follows upstream when a conversion grows.
// Keep the pattern sets here in step with CPUPipeline.cpp.
//
//===----------------------------------------------------------------------===//

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORCHECKCPULOWERING
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// Adds the root op of every pattern in `patterns` to `roots`.
void addRoots(RewritePatternSet &patterns,
              llvm::DenseSet<OperationName> &roots) {
  for (const std::unique_ptr<RewritePattern> &p : patterns.getNativePatterns())
    if (std::optional<OperationName> root = p->getRootKind())
      roots.insert(*root);
}

/// The tosa ops that the pipeline's tosa conversions rewrite.
llvm::DenseSet<OperationName> getLoweredTosaOps(MLIRContext *ctx) {
  llvm::DenseSet<OperationName> roots;
  TypeConverter converter;
  tosa::populateTosaTypeConversion(converter);
  RewritePatternSet patterns(ctx);
  tosa::populateTosaDecomposeTransposeConv(ctx, patterns);
  tosa::populateTosaDecomposeDepthwise(ctx, patterns);
  tosa::populateTosaToLinalgNamedConversionPatterns(converter, &patterns,
                                                    TosaToLinalgNamedOptions());
  tosa::populateTosaToLinalgConversionPatterns(converter, &patterns);
  tosa::populateTosaToArithConversionPatterns(&patterns);
  tosa::populateTosaRescaleToArithConversionPatterns(&patterns);
  tosa::populateTosaToTensorConversionPatterns(converter, &patterns);
  tosa::populateTosaToSCFConversionPatterns(&patterns);
  addRoots(patterns, roots);
  return roots;
}

/// The math ops that convert-math-to-llvm and convert-math-to-libm rewrite.
llvm::DenseSet<OperationName> getLoweredMathOps(MLIRContext *ctx) {
  llvm::DenseSet<OperationName> roots;
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateMathToLLVMConversionPatterns(converter, patterns);
  populateMathToLibmConversionPatterns(patterns);
  addRoots(patterns, roots);
  // convert-math-to-funcs has no pattern API: the ops it outlines.
  roots.insert(OperationName(math::IPowIOp::getOperationName(), ctx));
  roots.insert(OperationName(math::FPowIOp::getOperationName(), ctx));
  return roots;
}

bool hasTensorSemantics(Operation *op) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// Scalar (and memref) ops of these dialects are lowered to LLVM by the
/// pipeline's conversions.
bool isLoweredDialect(Dialect *dialect) {
  return isa<arith::ArithDialect, index::IndexDialect, scf::SCFDialect,
             cf::ControlFlowDialect, func::FuncDialect, memref::MemRefDialect,
             affine::AffineDialect, linalg::LinalgDialect,
             tensor::TensorDialect, bufferization::BufferizationDialect,
             LLVM::LLVMDialect, BuiltinDialect, dtensor::DTensorDialect>(
      dialect);
}

struct CheckCPULoweringPass
    : public dtensor::impl::DTensorCheckCPULoweringBase<CheckCPULoweringPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    loweredTosaOps = getLoweredTosaOps(ctx);
    loweredMathOps = getLoweredMathOps(ctx);
    return success();
  }

  /// Why the pipeline cannot lower `op`; empty when it can.
  std::string whyNotLowered(Operation *op) const;

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      std::string why = whyNotLowered(op);
      if (why.empty())
        return;
      op->emitOpError() << "cannot be lowered by dtensor-cpu-pipeline: " << why;
      ++numUnlowerable;
    });
    if (numUnlowerable)
      signalPassFailure();
  }

  llvm::DenseSet<OperationName> loweredTosaOps, loweredMathOps;
};

} // namespace

std::string CheckCPULoweringPass::whyNotLowered(Operation *op) const {
  Dialect *dialect = op->getDialect();
  if (isa_and_nonnull<tosa::TosaDialect>(dialect)) {
    // Shape values are read by the conversions of their users; terminators
    // are rewritten with their parents.
    if (llvm::all_of(op->getResultTypes(), llvm::IsaPred<tosa::shapeType>) &&
        op->getNumResults() > 0)
      return "";
    if (op->hasTrait<OpTrait::IsTerminator>() ||
        loweredTosaOps.contains(op->getName()))
      return "";
    return "no tosa-to-linalg, tosa-to-arith, tosa-to-tensor or tosa-to-scf "
           "pattern converts it";
  }
  // Elementwise ops on tensors become linalg.generic bodies of their scalar
  // form, checked below like any scalar op.
  if (hasTensorSemantics(op) && !OpTrait::hasElementwiseMappableTraits(op)) {
    if (isa_and_nonnull<dtensor::DTensorDialect>(dialect) ||
        isa<linalg::AggregatedOpInterface,
            bufferization::BufferizableOpInterface>(op))
      return "";
    return "it is not bufferizable (no BufferizableOpInterface) and not "
           "elementwise";
  }
  if (isa_and_nonnull<math::MathDialect>(dialect)) {
    if (loweredMathOps.contains(op->getName()))
      return "";
    return "no convert-math-to-funcs, convert-math-to-llvm or "
           "convert-math-to-libm pattern converts it";
  }
  if (!dialect || !isLoweredDialect(dialect))
    return "the pipeline converts no op of the '" +
           (dialect ? dialect->getNamespace()
                    : op->getName().getDialectNamespace())
               .str() +
           "' dialect to LLVM";
  return "";
}
