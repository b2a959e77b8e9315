//===- InitAll.cpp - register everything dtensor-mlir provides ------------===//

#include "dtensor/InitAll.h"

#include "dtensor/Conversion/Passes.h"
#include "dtensor/Dialect/DTensor/Extensions/GradientExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleExternalModels.h"
#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "dtensor/Dialect/DTensor/Pipelines/Passes.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void mlir::dtensor::registerAllDialects(DialectRegistry &registry) {
  registry.insert<DTensorDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect, tosa::TosaDialect>();
}

void mlir::dtensor::registerAllExtensions(DialectRegistry &registry) {
  // Sharding rules of upstream ops (ShardingRuleOpInterface).
  registerAllShardingRuleExternalModels(registry);
  // Reverse-mode rules of upstream ops (GradientOpInterface).
  registerAllGradientExternalModels(registry);
  // One-shot bufferization of the ops the CPU pipeline sees.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // dtensor-gpu-pipeline: serializing gpu.modules to cubins (the NVVM
  // target) and translating them and the embedded binaries to LLVM IR.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void mlir::dtensor::registerAllPasses() {
  registerDTensorPasses();
  registerDTensorConversionPasses();
  registerDTensorPipelines();
  registerDTensorGPUPipeline();
}
