//===- dtensor-opt.cpp - dtensor optimizer driver -------------------------===//
//
// An mlir-opt style driver with the dtensor dialect and passes plus the
// upstream dialects and passes a global-view program uses.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"
#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::dtensor::DTensorDialect, mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect, mlir::tosa::TosaDialect>();
  // The upstream dialects, interfaces and passes, so that dtensor-opt runs
  // whole pipelines (bufferization, lowering to LLVM) like mlir-opt.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  mlir::dtensor::registerDTensorPasses();
  mlir::dtensor::registerDTensorConversionPasses();
  mlir::dtensor::registerDTensorPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dtensor-opt driver\n", registry));
}
