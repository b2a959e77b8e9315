//===- Passes.h - dtensor conversion passes ---------------------*- C++ -*-===//

#ifndef DTENSOR_CONVERSION_PASSES_H
#define DTENSOR_CONVERSION_PASSES_H

#include "dtensor/Conversion/DTensorToRuntime/DTensorToRuntime.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace dtensor {

#define GEN_PASS_DECL
#include "dtensor/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dtensor/Conversion/Passes.h.inc"

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_PASSES_H
