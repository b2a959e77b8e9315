//===- my-opt.cpp - a downstream driver with the dtensor dialect ----------===//
//
// What a downstream compiler does to use dtensor-mlir: register the dialects,
// the external models and the passes from dtensor/InitAll.h, then run
// MlirOptMain (or its own pass manager).
//
//===----------------------------------------------------------------------===//

#include "dtensor/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllExtensions(registry);
  mlir::dtensor::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "my-opt: a downstream driver\n", registry));
}
