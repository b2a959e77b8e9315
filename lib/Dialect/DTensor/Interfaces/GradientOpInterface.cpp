//===- GradientOpInterface.cpp - per-op reverse-mode rules ----------------===//

#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

using namespace mlir;
using namespace mlir::dtensor;

#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.cpp.inc"
