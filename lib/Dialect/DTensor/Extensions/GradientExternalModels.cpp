//===- GradientExternalModels.cpp - register every reverse rule -----------===//

#include "dtensor/Dialect/DTensor/Extensions/GradientExternalModels.h"

void mlir::dtensor::registerAllGradientExternalModels(
    DialectRegistry &registry) {
  registerArithMathGradientExternalModels(registry);
  registerDTensorGradientExternalModels(registry);
  registerLinalgGradientExternalModels(registry);
  registerTensorGradientExternalModels(registry);
}
