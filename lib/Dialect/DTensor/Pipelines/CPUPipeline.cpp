//===- CPUPipeline.cpp - the dtensor CPU pipeline -------------------------===//

#include "dtensor/Dialect/DTensor/Pipelines/Passes.h"

#include "dtensor/Conversion/Passes.h"

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
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
  // Ops no step below lowers stop here, named, before any rewriting.
  pm.addPass(dtensor::createDTensorCheckCPULowering());
  // Elementwise ops on tensors become linalg.generic before any pass folds:
  // folders and canonicalization patterns of upstream (xori x, x -> 0;
  // (x - y) - x -> 0 - y) build constants of the result type, invalid for
  // local tensors with a dynamic dim (uneven shards).
  pm.addPass(dtensor::createDTensorElementwiseToLinalg());
  pm.addPass(dtensor::createConvertDTensorToRuntime());
  // After partitioning: the analysis and the partitioner work on tosa ops,
  // whose local shapes are only known now. No TOSA profile validation: the
  // verifier has checked the ops, and the CPU runs any type combination.
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                              TosaToLinalgNamedOptions(),
                              /*validationOptions=*/std::nullopt);
  TosaToArithPassOptions tosaToArith;
  tosaToArith.includeApplyRescale = true;
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass(tosaToArith));
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  pm.addNestedPass<func::FuncOp>(createTosaToSCFPass());
  pm.addPass(dtensor::createDTensorDecomposeAggregates());
  // The elementwise ops the TOSA lowering creates.
  pm.addPass(dtensor::createDTensorElementwiseToLinalg());
  // Replicated values read as shards: computed on the rank's slice only.
  pm.addNestedPass<func::FuncOp>(dtensor::createDTensorBubbleUpSlices());
  if (options.blas) {
    pm.addPass(dtensor::createDTensorFoldTransposeIntoContraction());
    // One m, n and k loop per contraction where the operands allow: the
    // GEMM of a contraction over several heads' dims.
    pm.addNestedPass<func::FuncOp>(
        dtensor::createDTensorCollapseContractionDims());
  }
  pm.addPass(createCanonicalizerPass());
  if (options.vectorize) {
    dtensor::DTensorFuseElementwiseOptions fuse;
    fuse.recomputeMath = false;
    pm.addPass(dtensor::createDTensorFuseElementwise(fuse));
    // Softmax and layer norm: one loop over the rows, each row read once.
    pm.addNestedPass<func::FuncOp>(dtensor::createDTensorFuseRows());
  }
  // Matrix-vector products as GEMMs with n or m = 1 (after fusion, so that
  // no reshape is folded back into the op).
  if (options.blas)
    pm.addNestedPass<func::FuncOp>(dtensor::createDTensorUnitGemmDims());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loop-carried tensors may be new buffers each iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  dtensor::DTensorParallelizeLoopsOptions parallelize;
  parallelize.threads = options.threads;
  if (options.threads > 1) {
    // The fused row loops, without loop-carried buffers, in chunks per thread.
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(
        dtensor::createDTensorParallelizeLoops(parallelize));
  }
  // The row-sized buffers of fused row chains: allocated once, not per row
  // (per chunk, so per thread, with threads).
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  // Free what the program allocates.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  if (options.blas) {
    dtensor::DTensorLinalgToBLASOptions blas;
    blas.smallGemmMacs = options.smallGemmMacs;
    pm.addPass(dtensor::createDTensorLinalgToBLAS(blas));
  }
  if (options.vectorize) {
    dtensor::DTensorVectorizeOptions vectorize;
    vectorize.vectorSize = options.vectorSize;
    pm.addNestedPass<func::FuncOp>(dtensor::createDTensorVectorize(vectorize));
    // Transfers of rank > 1 (the blocks of a transpose), as one 1-D
    // transfer per row.
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll();
    pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transfers));
    // The vectorized loops over a parallel outermost dim.
    if (options.threads > 1)
      pm.addNestedPass<func::FuncOp>(
          dtensor::createDTensorParallelizeLoops(parallelize));
  }
  // What is not vectorized (contractions off BLAS, i1 ops) becomes loops.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Integer powers as outlined loops (scf, lowered next).
  pm.addPass(createConvertMathToFuncs());
  bool threaded = options.threads > 1;
  if (threaded) {
    ConvertSCFToOpenMPPassOptions openmp;
    openmp.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(openmp));
  } else {
    pm.addPass(createSCFToControlFlowPass());
  }
  // f16/bf16 math through f32: libm has only f32 and f64 functions.
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  // LLVM intrinsics first (absi, ctlz, isnan, copysign, fpowi, ...), libm
  // for the rest; convert-math-to-libm rejects the ops it has no call for.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Reductions may be reassociated: a vector reduction is a tree.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  // The vectorizer's padding values (`ub.poison`).
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  if (threaded) {
    // The loops of each chunk after the memref lowering has inlined the
    // chunk's `memref.alloca_scope` (a single-block region).
    pm.addPass(createSCFToControlFlowPass());
    pm.addPass(createConvertOpenMPToLLVMPass());
  }
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
