//===- Passes.h - dtensor pass pipelines ------------------------*- C++ -*-===//
//
// The registered pipelines that take a global-view program down to the LLVM
// dialect: `dtensor-cpu-pipeline` (collectives on the dtrt runtime, MPI)
// and `dtensor-gpu-pipeline` (kernels, cuBLASLt and NCCL).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_PIPELINES_PASSES_H
#define DTENSOR_DIALECT_DTENSOR_PIPELINES_PASSES_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
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
  PassOptions::Option<int64_t> smallGemmMacs{
      *this, "small-gemm-macs",
      llvm::cl::desc("with blas, f32 GEMMs of static sizes with at most this "
                     "many multiply-adds per call call the runtime's "
                     "dtrt_sgemm_small instead (0: never)"),
      llvm::cl::init(4194304)};
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
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("threads for the generated loops (above 1: the row and "
                     "elementwise loops marked parallel run as OpenMP "
                     "threads; the program must then be linked with an "
                     "OpenMP runtime, e.g. libomp)"),
      llvm::cl::init(1)};
};

/// Adds the CPU pipeline to `pm`: partition (optional), a check that names
/// the ops no later step lowers (`dtensor-check-cpu-lowering`), collectives
/// to dtrt calls, tosa to linalg (on the local shapes), aggregate
/// decomposition, elementwise fusion, bufferization with deallocation, BLAS
/// calls, tiling and vectorization of the other linalg ops (loops for what
/// is left), math through polynomials, LLVM intrinsics, libm and outlined
/// integer powers, and the LLVM dialect.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// The kernel format `dtensor-gpu-pipeline` embeds (`gpu-module-to-binary`'s
/// compilation targets).
enum class GPUBinaryFormat { Bin, Fatbin, Isa };

/// Options of `dtensor-gpu-pipeline`.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<bool> partition{
      *this, "partition",
      llvm::cl::desc("partition the program (off: run the global view on "
                     "one device)"),
      llvm::cl::init(true)};
  PassOptions::Option<StrategyMode> strategy{
      *this, "strategy", llvm::cl::desc("strategy of dtensor-partition"),
      llvm::cl::init(StrategyMode::Global),
      llvm::cl::values(clEnumValN(StrategyMode::PyTorch, "pytorch", ""),
                       clEnumValN(StrategyMode::Global, "global", ""),
                       clEnumValN(StrategyMode::Exact, "exact", ""))};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("the GPU architecture of the kernels"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (empty: the chip's minimum PTX ISA)"),
      llvm::cl::init("")};
  PassOptions::Option<GPUBinaryFormat> format{
      *this, "format",
      llvm::cl::desc("embedded kernel format: bin (cubin), fatbin (cubin and "
                     "PTX) or isa (PTX, JIT-compiled by the driver)"),
      llvm::cl::init(GPUBinaryFormat::Bin),
      llvm::cl::values(clEnumValN(GPUBinaryFormat::Bin, "bin", ""),
                       clEnumValN(GPUBinaryFormat::Fatbin, "fatbin", ""),
                       clEnumValN(GPUBinaryFormat::Isa, "isa", ""))};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose ptxas, fatbinary and libdevice are "
                     "used (empty: the one CMake found)"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("threads per block of the generated kernels"),
      llvm::cl::init(256)};
  PassOptions::Option<bool> cublaslt{
      *this, "cublaslt",
      llvm::cl::desc("call cuBLASLt (dtrt_cublaslt_matmul) for "
                     "contractions (off: generated kernels)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> cpuOracle{
      *this, "cpu-oracle",
      llvm::cl::desc("testing: stop before the GPU mapping, with the same "
                     "fusion and tiling, host buffers, MPI collectives and "
                     "the cuBLASLt calls emulated, and lower to the LLVM "
                     "dialect for the CPU"),
      llvm::cl::init(false)};
};

/// Adds the GPU pipeline to `pm`: partition (optional), collectives to
/// NCCL calls, tosa to linalg, elementwise fusion, bufferization with
/// deallocation, contractions to cuBLASLt calls, buffers and copies to the
/// device, the other linalg ops to 1-D tiled kernels, every GPU op on the
/// runtime's compute stream, and the NVVM lowering with the kernels
/// embedded as `format`. See docs/design.md.
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// Registers `dtensor-gpu-pipeline`.
void registerDTensorGPUPipeline();

/// Registers `dtensor-cpu-pipeline`.
void registerDTensorPipelines();

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_PIPELINES_PASSES_H
