//===- CPUPipeline.cpp - the dtensor CPU pipeline -------------------------===//

#include "dtensor/Dialect/DTensor/Pipelines/Passes.h"

#include "dtensor/Conversion/Passes.h"

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// Global view (or already local view) -> LLVM dialect with dtrt calls.
void mlir::dtensor::buildCPUPipeline(OpPassManager &pm,
                                     const CPUPipelineOptions &options) {
  if (options.partition)
    pm.addPass(dtensor::createDTensorPartition());
  pm.addPass(dtensor::createConvertDTensorToRuntime());
  pm.addPass(dtensor::createDTensorDecomposeAggregates());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loop-carried tensors may be new buffers each iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Free what the program allocates.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  if (options.blas)
    pm.addPass(dtensor::createDTensorMatmulToBlas());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::dtensor::registerDTensorPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "dtensor-cpu-pipeline",
      "Partition a global-view program and lower it to the LLVM dialect for "
      "CPUs, with collectives as calls of the dtrt runtime (MPI)",
      buildCPUPipeline);
}
