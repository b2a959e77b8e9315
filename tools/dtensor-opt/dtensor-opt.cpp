//===- dtensor-opt.cpp - dtensor optimizer driver -------------------------===//
//
// An mlir-opt style driver with the dtensor dialect and passes plus the
// upstream dialects and passes a global-view program uses.
//
//===----------------------------------------------------------------------===//

#include "dtensor/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#ifdef DTENSOR_INCLUDE_TESTS
namespace mlir::dtensor::test {
void registerTestDialect(DialectRegistry &registry);
} // namespace mlir::dtensor::test
#endif

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::dtensor::registerAllDialects(registry);
  mlir::dtensor::registerAllExtensions(registry);
#ifdef DTENSOR_INCLUDE_TESTS
  mlir::dtensor::test::registerTestDialect(registry);
#endif
  // The upstream dialects, interfaces and passes, so that dtensor-opt runs
  // whole pipelines (bufferization, lowering to LLVM) like mlir-opt.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  mlir::dtensor::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dtensor-opt driver\n", registry));
}
