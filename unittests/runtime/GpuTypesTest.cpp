//===- GpuTypesTest.cpp - dtrt codes to NCCL, CUDA and cuBLASLt -----------===//

#include "gpu/GpuTypes.h"

#include "dtrt/dtrt_cuda.h"

#include <gtest/gtest.h>

using namespace dtrt;

namespace {

TEST(GpuTypes, NcclTypes) {
  EXPECT_EQ(ncclTypeOf(DTRT_F32), ncclFloat32);
  EXPECT_EQ(ncclTypeOf(DTRT_F64), ncclFloat64);
  // IREE's table once mapped bf16 to ncclFloat64: both 16-bit floats must
  // map to their own NCCL types.
  EXPECT_EQ(ncclTypeOf(DTRT_BF16), ncclBfloat16);
  EXPECT_EQ(ncclTypeOf(DTRT_F16), ncclHalf);
  EXPECT_EQ(ncclTypeOf(DTRT_I32), ncclInt32);
  EXPECT_EQ(ncclTypeOf(DTRT_I64), ncclInt64);
  EXPECT_EQ(ncclTypeOf(DTRT_I8), ncclInt8);
  EXPECT_EQ(ncclTypeOf(DTRT_I1), ncclUint8);
  EXPECT_EQ(ncclTypeOf(DTRT_I16), std::nullopt);
  EXPECT_EQ(ncclTypeOf(DTRT_NUM_DTYPES), std::nullopt);
}

TEST(GpuTypes, CudaDataTypes) {
  EXPECT_EQ(cudaTypeOf(DTRT_F32), CUDA_R_32F);
  EXPECT_EQ(cudaTypeOf(DTRT_F16), CUDA_R_16F);
  EXPECT_EQ(cudaTypeOf(DTRT_BF16), CUDA_R_16BF);
  EXPECT_EQ(cudaTypeOf(DTRT_F64), std::nullopt);
  EXPECT_EQ(cudaTypeOf(DTRT_I32), std::nullopt);
}

TEST(GpuTypes, CublasComputeTypes) {
  EXPECT_EQ(cublasComputeTypeOf(DTRT_F32, DTRT_F32, false), CUBLAS_COMPUTE_32F);
  EXPECT_EQ(cublasComputeTypeOf(DTRT_F32, DTRT_F32, true),
            CUBLAS_COMPUTE_32F_FAST_TF32);
  // 16-bit inputs accumulate in f32, whatever the TF32 setting.
  EXPECT_EQ(cublasComputeTypeOf(DTRT_BF16, DTRT_BF16, true),
            CUBLAS_COMPUTE_32F);
  EXPECT_EQ(cublasComputeTypeOf(DTRT_BF16, DTRT_F32, false),
            CUBLAS_COMPUTE_32F);
  EXPECT_EQ(cublasComputeTypeOf(DTRT_F16, DTRT_F16, false), CUBLAS_COMPUTE_32F);
  EXPECT_EQ(cublasComputeTypeOf(DTRT_F16, DTRT_BF16, false), std::nullopt);
  EXPECT_EQ(cublasComputeTypeOf(DTRT_F32, DTRT_BF16, false), std::nullopt);
  EXPECT_EQ(cublasComputeTypeOf(DTRT_I8, DTRT_I8, false), std::nullopt);
}

TEST(GpuTypes, Epilogues) {
  EXPECT_EQ(cublasLtEpilogueOf(DTRT_EPILOGUE_NONE), CUBLASLT_EPILOGUE_DEFAULT);
  EXPECT_EQ(cublasLtEpilogueOf(DTRT_EPILOGUE_RELU), CUBLASLT_EPILOGUE_RELU);
  EXPECT_EQ(cublasLtEpilogueOf(DTRT_EPILOGUE_BIAS), CUBLASLT_EPILOGUE_BIAS);
  EXPECT_EQ(cublasLtEpilogueOf(DTRT_EPILOGUE_BIAS_RELU),
            CUBLASLT_EPILOGUE_RELU_BIAS);
  EXPECT_EQ(cublasLtEpilogueOf(4), std::nullopt);
  EXPECT_FALSE(epilogueHasBias(DTRT_EPILOGUE_RELU));
  EXPECT_TRUE(epilogueHasBias(DTRT_EPILOGUE_BIAS));
  EXPECT_TRUE(epilogueHasBias(DTRT_EPILOGUE_BIAS_RELU));
}

} // namespace
