//===- Passes.h - dtensor pass pipelines ------------------------*- C++ -*-===//
//
// The registered pipelines that take a global-view program down to the LLVM
// dialect: `dtensor-cpu-pipeline` (collectives on the dtrt runtime, MPI).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_PIPELINES_PASSES_H
#define DTENSOR_DIALECT_DTENSOR_PIPELINES_PASSES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace dtensor {

/// Options of `dtensor-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> partition{
      *this, "partition",
      llvm::cl::desc("partition the program (off: run the global view on "
                     "one device)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("call cblas_?gemm for matmuls (the program must then be "
                     "linked with a CBLAS, e.g. OpenBLAS)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("fuse elementwise chains and vectorize the linalg ops "
                     "that are not contractions (off: scalar loops, for "
                     "debugging)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> vectorSize{
      *this, "vector-size",
      llvm::cl::desc("elements per vector along the innermost loop"),
      llvm::cl::init(32)};
};

/// Adds the CPU pipeline to `pm`: partition (optional), a check that names
/// the ops no later step lowers (`dtensor-check-cpu-lowering`), collectives
/// to dtrt calls, tosa to linalg (on the local shapes), aggregate
/// decomposition, elementwise fusion, bufferization with deallocation, BLAS
/// calls, tiling and vectorization of the other linalg ops (loops for what
/// is left), math through polynomials, LLVM intrinsics, libm and outlined
/// integer powers, and the LLVM dialect.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers `dtensor-cpu-pipeline`.
void registerDTensorPipelines();

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_PIPELINES_PASSES_H
