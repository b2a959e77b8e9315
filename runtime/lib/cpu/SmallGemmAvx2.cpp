//===- SmallGemmAvx2.cpp - The small GEMM for one instruction set -------===//
//
// Compiled with the flags of its instruction set (runtime/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "SmallGemm.h"

#define DTRT_GEMM_ENTRY smallSgemmAvx2
#define DTRT_GEMM_VEC_FLOATS 8
#define DTRT_GEMM_MR 6
#define DTRT_GEMM_NV 2
#include "SmallGemmKernel.inc"
