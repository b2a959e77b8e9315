//===- CublasLt.cpp - GEMMs through cuBLASLt on the compute stream --------===//
//
// cuBLASLt is opened with dlopen on the first GEMM (libdtrt does not link
// it). One handle per process, a 32 MiB workspace from the pool, and per
// GemmShape the descriptors and the heuristic's algorithm, cached.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_cuda.h"

#include "CudaState.h"
#include "GemmShape.h"
#include "GpuTypes.h"

#include "../DType.h"
#include "../Error.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

using namespace dtrt;

namespace {

#define DTRT_FOR_EACH_CUBLASLT_FUNCTION(X)                                     \
  X(cublasLtCreate)                                                            \
  X(cublasLtGetStatusName)                                                     \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

struct CublasLtApi {
#define DTRT_CUBLASLT_FIELD(fn) decltype(&::fn) fn = nullptr;
  DTRT_FOR_EACH_CUBLASLT_FUNCTION(DTRT_CUBLASLT_FIELD)
#undef DTRT_CUBLASLT_FIELD
};

/// The descriptors and algorithm of one GemmShape.
struct GemmPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, result = nullptr;
  cublasLtMatmulAlgo_t algo;
};

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

struct CublasLtState {
  CublasLtApi api;
  int32_t loadStatus = DTRT_OK;
  std::string loadError;
  cublasLtHandle_t handle = nullptr;
  void *workspace = nullptr;
  std::unordered_map<GemmShape, GemmPlan, GemmShapeHash> plans;
};

CublasLtState &cublasLt() {
  static CublasLtState &state = *new CublasLtState;
  return state;
}

int32_t cublasFail(const char *call, cublasStatus_t status) {
  const CublasLtApi &api = cublasLt().api;
  std::string message = std::string(call) + ": ";
  message += api.cublasLtGetStatusName ? api.cublasLtGetStatusName(status)
                                       : std::to_string(int(status)).c_str();
  if (api.cublasLtGetStatusString)
    message += std::string(": ") + api.cublasLtGetStatusString(status);
  return fail(DTRT_ERR_CUDA, message);
}

#define DTRT_CUBLAS_CHECK(fn, ...)                                             \
  do {                                                                         \
    cublasStatus_t dtrtCublas_ = cublasLt().api.fn(__VA_ARGS__);               \
    if (dtrtCublas_ != CUBLAS_STATUS_SUCCESS)                                  \
      return cublasFail(#fn, dtrtCublas_);                                     \
  } while (false)

/// Opens libcublasLt (the soname, else the library CMake found).
void openLibrary(CublasLtState &state) {
  void *library =
      dlopen("libcublasLt.so." DTRT_CUBLASLT_SOVERSION, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    library = dlopen(DTRT_CUBLASLT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    state.loadStatus = DTRT_ERR_CUDA;
    state.loadError =
        "cuBLASLt not found (libcublasLt.so." DTRT_CUBLASLT_SOVERSION
        " or " DTRT_CUBLASLT_LIBRARY ")";
    return;
  }
#define DTRT_CUBLASLT_LOOKUP(fn)                                               \
  state.api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(library, #fn));       \
  if (!state.api.fn) {                                                         \
    state.loadStatus = DTRT_ERR_CUDA;                                          \
    state.loadError = "cuBLASLt has no entry point " #fn;                      \
    return;                                                                    \
  }
  DTRT_FOR_EACH_CUBLASLT_FUNCTION(DTRT_CUBLASLT_LOOKUP)
#undef DTRT_CUBLASLT_LOOKUP
}

/// Loads cuBLASLt and creates the handle and workspace once.
int32_t ensureCublasLt() {
  DTRT_RETURN_IF_ERROR(ensureCudaInit());
  CublasLtState &state = cublasLt();
  static std::once_flag opened;
  std::call_once(opened, [&state] { openLibrary(state); });
  if (state.loadStatus != DTRT_OK)
    return fail(state.loadStatus, state.loadError);
  if (state.handle)
    return DTRT_OK;
  DTRT_CUBLAS_CHECK(cublasLtCreate, &state.handle);
  return dtrt_cuda_alloc(&state.workspace, kWorkspaceBytes);
}

template <typename T>
int32_t setDesc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                const T &value) {
  DTRT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute, desc, attr, &value,
                    sizeof(value));
  return DTRT_OK;
}

int32_t createLayout(cublasLtMatrixLayout_t &layout, cudaDataType_t type,
                     const ColumnMajorOperand &operand, int64_t batch) {
  DTRT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate, &layout, type,
                    static_cast<uint64_t>(operand.rows),
                    static_cast<uint64_t>(operand.cols), operand.ld);
  if (batch == 1)
    return DTRT_OK;
  int32_t count = static_cast<int32_t>(batch);
  DTRT_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute, layout,
                    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count));
  DTRT_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute, layout,
                    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                    &operand.stride, sizeof(operand.stride));
  return DTRT_OK;
}

/// Creates the matmul descriptor of `shape` (compute type, transposes,
/// epilogue).
int32_t createDesc(const GemmShape &shape, GemmPlan &plan) {
  const char *tf32 = std::getenv("DTRT_ALLOW_TF32");
  bool allowTf32 = tf32 && std::strcmp(tf32, "1") == 0;
  cublasComputeType_t compute =
      *cublasComputeTypeOf(shape.inDtype, shape.outDtype, allowTf32);
  DTRT_CUBLAS_CHECK(cublasLtMatmulDescCreate, &plan.desc, compute, CUDA_R_32F);
  ColumnMajorGemm gemm = toColumnMajor(shape);
  cublasOperation_t opFirst = gemm.first.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opSecond =
      gemm.second.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  DTRT_RETURN_IF_ERROR(
      setDesc(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, opFirst));
  DTRT_RETURN_IF_ERROR(
      setDesc(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, opSecond));
  return setDesc(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                 *cublasLtEpilogueOf(shape.epilogue));
}

/// Asks the heuristic for the best algorithm of `plan`.
int32_t chooseAlgorithm(const GemmShape &shape, GemmPlan &plan) {
  CublasLtState &state = cublasLt();
  cublasLtMatmulPreference_t preference = nullptr;
  DTRT_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate, &preference);
  uint64_t workspace = kWorkspaceBytes;
  uint32_t alignment = static_cast<uint32_t>(shape.alignment);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cublasStatus_t status = state.api.cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
      sizeof(workspace));
  for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    if (status == CUBLAS_STATUS_SUCCESS)
      status = state.api.cublasLtMatmulPreferenceSetAttribute(
          preference, attr, &alignment, sizeof(alignment));
  const char *call = "cublasLtMatmulPreferenceSetAttribute";
  if (status == CUBLAS_STATUS_SUCCESS) {
    call = "cublasLtMatmulAlgoGetHeuristic";
    status = state.api.cublasLtMatmulAlgoGetHeuristic(
        state.handle, plan.desc, plan.first, plan.second, plan.result,
        plan.result, preference, 1, &result, &found);
  }
  state.api.cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS)
    return cublasFail(call, status);
  if (found == 0)
    return fail(DTRT_ERR_CUDA, "cublasLtMatmulAlgoGetHeuristic: no algorithm "
                               "for this GEMM");
  plan.algo = result.algo;
  return DTRT_OK;
}

/// The cached plan of `shape`, created on first use.
int32_t getPlan(const GemmShape &shape, const GemmPlan *&plan) {
  CublasLtState &state = cublasLt();
  auto it = state.plans.find(shape);
  if (it != state.plans.end()) {
    plan = &it->second;
    return DTRT_OK;
  }
  GemmPlan created;
  DTRT_RETURN_IF_ERROR(createDesc(shape, created));
  ColumnMajorGemm gemm = toColumnMajor(shape);
  cudaDataType_t in = *cudaTypeOf(shape.inDtype);
  cudaDataType_t out = *cudaTypeOf(shape.outDtype);
  DTRT_RETURN_IF_ERROR(
      createLayout(created.first, in, gemm.first, shape.batch));
  DTRT_RETURN_IF_ERROR(
      createLayout(created.second, in, gemm.second, shape.batch));
  DTRT_RETURN_IF_ERROR(
      createLayout(created.result, out, gemm.result, shape.batch));
  DTRT_RETURN_IF_ERROR(chooseAlgorithm(shape, created));
  plan = &(state.plans[shape] = created);
  return DTRT_OK;
}

/// Rejects what cuBLASLt cannot do, naming the argument.
int32_t checkMatmul(const GemmShape &shape, const void *a, const void *b,
                    void *c, const void *bias) {
  auto invalid = [](const std::string &why) {
    return fail(DTRT_ERR_INVALID_ARGUMENT, "dtrt_cublaslt_matmul: " + why);
  };
  if (!cudaTypeOf(shape.inDtype))
    return invalid(std::string("input dtype ") + dtypeName(shape.inDtype) +
                   " is not f32, f16 or bf16");
  if (!cublasComputeTypeOf(shape.inDtype, shape.outDtype, false))
    return invalid(std::string("output dtype ") + dtypeName(shape.outDtype) +
                   " is neither f32 nor the input dtype " +
                   dtypeName(shape.inDtype));
  if (!cublasLtEpilogueOf(shape.epilogue))
    return invalid("unknown epilogue " + std::to_string(shape.epilogue));
  std::string badShape = checkGemmShape(shape);
  if (!badShape.empty())
    return invalid(badShape);
  if (!a || !b || !c)
    return invalid("null matrix");
  if (epilogueHasBias(shape.epilogue) && !bias)
    return invalid("the bias epilogue needs a bias vector");
  return DTRT_OK;
}

} // namespace

extern "C" int32_t
dtrt_cublaslt_matmul(int32_t in_dtype, int32_t out_dtype, int32_t trans_a,
                     int32_t trans_b, int64_t batch, int64_t m, int64_t n,
                     int64_t k, const void *a, int64_t lda, int64_t stride_a,
                     const void *b, int64_t ldb, int64_t stride_b, void *c,
                     int64_t ldc, int64_t stride_c, float alpha, float beta,
                     const void *bias, int32_t epilogue) {
  GemmShape shape;
  shape.inDtype = in_dtype;
  shape.outDtype = out_dtype;
  shape.transA = trans_a != 0;
  shape.transB = trans_b != 0;
  shape.batch = batch;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  shape.lda = lda;
  shape.strideA = stride_a;
  shape.ldb = ldb;
  shape.strideB = stride_b;
  shape.ldc = ldc;
  shape.strideC = stride_c;
  shape.epilogue = epilogue;
  const void *pointers[] = {a, b, c, bias};
  shape.alignment = commonAlignment(pointers, 4);
  DTRT_RETURN_IF_ERROR(checkMatmul(shape, a, b, c, bias));
  DTRT_RETURN_IF_ERROR(ensureCublasLt());
  const GemmPlan *plan = nullptr;
  DTRT_RETURN_IF_ERROR(getPlan(shape, plan));
  CublasLtState &state = cublasLt();
  if (epilogueHasBias(epilogue))
    DTRT_RETURN_IF_ERROR(
        setDesc(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias));
  // Column-major D = op(B^T) * op(A^T): the B buffer is cuBLASLt's A.
  DTRT_CUBLAS_CHECK(cublasLtMatmul, state.handle, plan->desc, &alpha, b,
                    plan->first, a, plan->second, &beta, c, plan->result, c,
                    plan->result, &plan->algo, state.workspace, kWorkspaceBytes,
                    cudaState().computeStream);
  return DTRT_OK;
}
