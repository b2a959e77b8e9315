//===- GpuTypes.cpp - dtrt codes to CUDA, cuBLASLt and NCCL enums ---------===//

#include "GpuTypes.h"

#include "dtrt/dtrt_cuda.h"

using namespace dtrt;

std::optional<ncclDataType_t> dtrt::ncclTypeOf(int32_t dtype) {
  switch (dtype) {
  case DTRT_F32:
    return ncclFloat32;
  case DTRT_F64:
    return ncclFloat64;
  case DTRT_F16:
    return ncclFloat16;
  case DTRT_BF16:
    return ncclBfloat16;
  case DTRT_I32:
    return ncclInt32;
  case DTRT_I64:
    return ncclInt64;
  case DTRT_I8:
    return ncclInt8;
  case DTRT_I1:
    return ncclUint8;
  default:
    return std::nullopt;
  }
}

std::optional<cudaDataType_t> dtrt::cudaTypeOf(int32_t dtype) {
  switch (dtype) {
  case DTRT_F32:
    return CUDA_R_32F;
  case DTRT_F16:
    return CUDA_R_16F;
  case DTRT_BF16:
    return CUDA_R_16BF;
  default:
    return std::nullopt;
  }
}

std::optional<cublasComputeType_t>
dtrt::cublasComputeTypeOf(int32_t inDtype, int32_t outDtype, bool allowTf32) {
  if (!cudaTypeOf(inDtype) || (outDtype != DTRT_F32 && outDtype != inDtype))
    return std::nullopt;
  if (inDtype == DTRT_F32 && allowTf32)
    return CUBLAS_COMPUTE_32F_FAST_TF32;
  return CUBLAS_COMPUTE_32F;
}

std::optional<cublasLtEpilogue_t> dtrt::cublasLtEpilogueOf(int32_t epilogue) {
  switch (epilogue) {
  case DTRT_EPILOGUE_NONE:
    return CUBLASLT_EPILOGUE_DEFAULT;
  case DTRT_EPILOGUE_RELU:
    return CUBLASLT_EPILOGUE_RELU;
  case DTRT_EPILOGUE_BIAS:
    return CUBLASLT_EPILOGUE_BIAS;
  case DTRT_EPILOGUE_BIAS_RELU:
    return CUBLASLT_EPILOGUE_RELU_BIAS;
  default:
    return std::nullopt;
  }
}

bool dtrt::epilogueHasBias(int32_t epilogue) {
  return epilogue == DTRT_EPILOGUE_BIAS || epilogue == DTRT_EPILOGUE_BIAS_RELU;
}
