//===- SmallGemmGeneric.cpp - The small GEMM for one instruction set -------===//
//
// Compiled with the flags of its instruction set (runtime/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "SmallGemm.h"

#define DTRT_GEMM_ENTRY smallSgemmGeneric
#define DTRT_GEMM_VEC_FLOATS 4
#define DTRT_GEMM_MR 4
#define DTRT_GEMM_NV 2
#include "SmallGemmKernel.inc"
