//===- GradientOpInterface.h - per-op reverse-mode rules --------*- C++ -*-===//
//
// The gradient op interface: the reverse rule of an op, which
// `dtensor-autodiff` calls in reverse program order.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_INTERFACES_GRADIENTOPINTERFACE_H
#define DTENSOR_DIALECT_DTENSOR_INTERFACES_GRADIENTOPINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"

#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h.inc"

#endif // DTENSOR_DIALECT_DTENSOR_INTERFACES_GRADIENTOPINTERFACE_H
