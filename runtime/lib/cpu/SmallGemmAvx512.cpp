//===- SmallGemmAvx512.cpp - The small GEMM for one instruction set -------===//
//
// Compiled with the flags of its instruction set (runtime/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "SmallGemm.h"

#define DTRT_GEMM_ENTRY smallSgemmAvx512
#define DTRT_GEMM_VEC_FLOATS 16
#define DTRT_GEMM_MR 4
#define DTRT_GEMM_NV 4
#include "SmallGemmKernel.inc"
