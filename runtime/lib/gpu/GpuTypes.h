//===- GpuTypes.h - dtrt codes to CUDA, cuBLASLt and NCCL enums -*- C++ -*-===//
//
// Pure mappings (no library is called), unit-tested in unittests/runtime.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_GPU_GPUTYPES_H
#define DTRT_LIB_GPU_GPUTYPES_H

#include <cublasLt.h>
#include <library_types.h>
#include <nccl.h>

#include <cstdint>
#include <optional>

namespace dtrt {

/// The NCCL element type of `dtype` for reductions, if NCCL has one (it has
/// no 16-bit integer type; i1 reduces as uint8 under max/min).
std::optional<ncclDataType_t> ncclTypeOf(int32_t dtype);

/// The CUDA data type of a GEMM operand of `dtype` (f32, f16, bf16).
std::optional<cudaDataType_t> cudaTypeOf(int32_t dtype);

/// The cuBLASLt compute type of a GEMM with inputs `inDtype` and output
/// `outDtype`: f32 accumulation (TF32 tensor cores for f32 inputs when
/// `allowTf32`); none when the pair is not supported (the output must be f32
/// or the input type).
std::optional<cublasComputeType_t>
cublasComputeTypeOf(int32_t inDtype, int32_t outDtype, bool allowTf32);

/// The cuBLASLt epilogue of a dtrt_epilogue code.
std::optional<cublasLtEpilogue_t> cublasLtEpilogueOf(int32_t epilogue);

/// Whether `epilogue` adds a bias vector.
bool epilogueHasBias(int32_t epilogue);

} // namespace dtrt

#endif // DTRT_LIB_GPU_GPUTYPES_H
