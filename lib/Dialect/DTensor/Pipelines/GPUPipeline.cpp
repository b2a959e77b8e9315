//===- GPUPipeline.cpp - the dtensor GPU pipeline -------------------------===//
//
// Global view -> LLVM dialect for NVIDIA GPUs: contractions as cuBLASLt
// calls, the other linalg ops as generated kernels, collectives as NCCL
// calls, every GPU op on the runtime's compute stream, the kernels embedded
// as a cubin. The pitfalls it avoids (P1..P13) are in docs/design.md.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Pipelines/Passes.h"

#include "dtensor/Conversion/Passes.h"

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

#ifndef DTENSOR_CUDA_TOOLKIT
#define DTENSOR_CUDA_TOOLKIT ""
#endif

namespace {

/// Partition, collectives to runtime calls, tosa to linalg, fusion and
/// bufferization: the tensor half, as the CPU pipeline's with NCCL calls
/// and the elementwise chains fused.
void addTensorStages(OpPassManager &pm,
                     const dtensor::GPUPipelineOptions &options) {
  if (options.partition) {
    dtensor::DTensorPartitionOptions partition;
    partition.strategy = options.strategy;
    pm.addPass(dtensor::createDTensorPartition(partition));
  }
  pm.addPass(dtensor::createDTensorCheckCPULowering());
  pm.addPass(dtensor::createDTensorElementwiseToLinalg());
  dtensor::ConvertDTensorToRuntimeOptions runtime;
  runtime.backend = options.cpuOracle ? "mpi" : "nccl";
  pm.addPass(dtensor::createConvertDTensorToRuntime(runtime));
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                              TosaToLinalgNamedOptions(),
                              /*validationOptions=*/std::nullopt);
  TosaToArithPassOptions tosaToArith;
  tosaToArith.includeApplyRescale = true;
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass(tosaToArith));
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  pm.addNestedPass<func::FuncOp>(createTosaToSCFPass());
  pm.addPass(dtensor::createDTensorDecomposeAggregates());
  pm.addPass(dtensor::createDTensorElementwiseToLinalg());
  // Replicated values read as shards: computed on the rank's slice only.
  pm.addNestedPass<func::FuncOp>(dtensor::createDTensorBubbleUpSlices());
  // Transposes read by a contraction (torch-mlir's attention heads) or of
  // its result folded into its maps: the GEMM call reads the strided
  // buffer with a transpose flag and leading dimension, no copy kernel.
  if (options.cublaslt) {
    pm.addPass(dtensor::createDTensorFoldTransposeIntoContraction());
    pm.addNestedPass<func::FuncOp>(
        dtensor::createDTensorCollapseContractionDims());
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(dtensor::createDTensorFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  // Large reductions to a scalar in two stages: many blocks, then one.
  pm.addNestedPass<func::FuncOp>(dtensor::createDTensorSplitReductions());
  // Matrix-vector products as GEMMs with n or m = 1 (after fusion, so that
  // no reshape is folded back into the op).
  if (options.cublaslt)
    pm.addNestedPass<func::FuncOp>(dtensor::createDTensorUnitGemmDims());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// The buffer half up to the tiled parallel loops: GEMM calls, device
/// buffers, and every other linalg op as a 1-D loop nest tiled by the block
/// size (the intra-tile loop becomes threadIdx.x: consecutive threads touch
/// consecutive elements of the innermost dim).
void addLoopStages(OpPassManager &pm,
                   const dtensor::GPUPipelineOptions &options) {
  if (options.cublaslt) {
    dtensor::DTensorLinalgToCuBLASLtOptions gemm;
    gemm.emulate = options.cpuOracle;
    pm.addPass(dtensor::createDTensorLinalgToCuBLASLt(gemm));
  }
  // Reductions along the innermost dim: one block per output row.
  dtensor::DTensorGPUBlockReductionsOptions reductions;
  reductions.blockSize = options.blockSize;
  reductions.emulate = options.cpuOracle;
  pm.addNestedPass<func::FuncOp>(
      dtensor::createDTensorGPUBlockReductions(reductions));
  // Ops reading an input across the output's rows: shared-memory tiles.
  dtensor::DTensorGPUTiledTransposeOptions transposes;
  transposes.emulate = options.cpuOracle;
  pm.addNestedPass<func::FuncOp>(
      dtensor::createDTensorGPUTiledTranspose(transposes));
  // The other ops: parallel loops outside reduction loops (one kernel, not
  // a host loop of launches); ops with no parallel loop as one-thread
  // kernels (their loads and stores must not stay in host code).
  pm.addNestedPass<func::FuncOp>(
      dtensor::createDTensorGPUParallelLoopsFirst());
  if (!options.cpuOracle) {
    pm.addNestedPass<func::FuncOp>(dtensor::createDTensorGPUSerialKernels());
    pm.addPass(dtensor::createDTensorGPUHostBuffers());
  }
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createConvertLinalgToParallelLoopsPass());
  fpm.addPass(dtensor::createDTensorGPUFlattenParallelLoops());
  int64_t tile = options.blockSize;
  // No canonicalization before the mapping: it would merge the tile loop and
  // the intra-tile loop into one 2-D loop, mapped to blocks only.
  fpm.addPass(createParallelLoopTilingPass(tile, /*noMinMaxBounds=*/true));
}

/// The host CPU lowering of the oracle: the CPU pipeline's last stages.
void addCPUOracleStages(OpPassManager &pm) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createSCFToControlFlowPass());
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// Loops to kernels on the compute stream, then the NVVM lowering with the
/// kernels serialized (the order of upstream's gpu-lower-to-nvvm-pipeline,
/// spelled out for the toolkit option and the stream pass).
void addGPUStages(OpPassManager &pm,
                  const dtensor::GPUPipelineOptions &options) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  GpuMapParallelLoopsPassOptions mapping;
  mapping.mappingPolicyStr = "innermost-first";
  fpm.addPass(createGpuMapParallelLoopsPass(mapping));
  fpm.addPass(createConvertParallelLoopToGpuPass());
  // cse before canonicalize folds the self-copies of kernels (P8).
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(dtensor::createDTensorGPUStream());
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
  gpm.addPass(createStripDebugInfoPass());
  gpm.addPass(createConvertGpuOpsToNVVMOps());
  gpm.addPass(createCanonicalizerPass());
  gpm.addPass(createCSEPass());
  gpm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  if (binary.toolkitPath.empty())
    binary.toolkitPath = DTENSOR_CUDA_TOOLKIT;
  switch (options.format) {
  case dtensor::GPUBinaryFormat::Bin:
    binary.compilationTarget = "bin";
    break;
  case dtensor::GPUBinaryFormat::Fatbin:
    binary.compilationTarget = "fatbin";
    break;
  case dtensor::GPUBinaryFormat::Isa:
    binary.compilationTarget = "isa";
    break;
  }
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

} // namespace

void mlir::dtensor::buildGPUPipeline(OpPassManager &pm,
                                     const GPUPipelineOptions &options) {
  addTensorStages(pm, options);
  addLoopStages(pm, options);
  if (options.cpuOracle)
    return addCPUOracleStages(pm);
  addGPUStages(pm, options);
}

void mlir::dtensor::registerDTensorGPUPipeline() {
  PassPipelineRegistration<GPUPipelineOptions>(
      "dtensor-gpu-pipeline",
      "Partition a global-view program and lower it to the LLVM dialect for "
      "NVIDIA GPUs: cuBLASLt GEMMs, generated kernels embedded as a cubin, "
      "collectives as NCCL calls of the dtrt runtime",
      buildGPUPipeline);
}
