/*===- dtrt_cuda.h - dtensor runtime CUDA part ------------------*- C -*-===*\
|*                                                                            *|
|* What GPU programs lowered by dtensor-gpu-pipeline call: the `mgpu*` entry  *|
|* points of MLIR's `gpu-to-llvm` lowering (the signatures of upstream's      *|
|* CudaRuntimeWrappers.cpp), the runtime-owned compute stream, GEMMs through  *|
|* cuBLASLt, and device buffers for the runner. Present only when the runtime *|
|* is built with DTENSOR_ENABLE_CUDA (DTRT_HAS_CUDA is then defined for users *|
|* of the dtrt CMake target).                                                 *|
|*                                                                            *|
|* The CUDA driver is reached at run time (dlopen of libcuda.so.1): nothing   *|
|* that links libdtrt needs a driver to start. cuBLASLt is loaded the same    *|
|* way on the first GEMM.                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTRT_DTRT_CUDA_H
#define DTRT_DTRT_CUDA_H

#include "dtrt/dtrt.h"

#include <stddef.h>
#include <stdint.h>

#if !defined(__cplusplus)
#include <stdbool.h>
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/*===-- Conventions
 * --------------------------------------------------------===*/
/* - One process per GPU. `dtrt_cuda_init` chooses the device (node-local     */
/*   rank modulo the device count) and creates the compute stream; every      */
/*   generated launch, copy, allocation and GEMM runs on that stream.         */
/* - The `dtrt_cuda_*` and `dtrt_cublaslt_*` functions return a dtrt_status;  */
/*   a failure is DTRT_ERR_CUDA and `dtrt_last_error()` names the call and    */
/*   the driver's or cuBLASLt's message.                                      */
/* - The `mgpu*` functions cannot return a status: on a failure they record   */
/*   the message (dtrt_last_error) and abort every rank through `dtrt_abort`, */
/*   with "<mgpu function>: <CUDA call>: <CUDA error name>: <message>".      */

/*===-- Initialisation and the compute stream
 * ------------------------------===*/

/// Chooses this process's device (the node-local rank from
/// OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID or SLURM_LOCALID, else the
/// rank in an MPI shared-memory split of the world when MPI is initialised,
/// else 0; modulo the device count), makes its primary context current,
/// creates the compute stream and, when the NCCL backend is built, sets it as
/// the NCCL compute stream. Idempotent. Without a driver it fails with
/// DTRT_ERR_CUDA and "no CUDA driver (libcuda.so.1 not found)"; without a
/// device with "no CUDA device".
DTRT_EXPORT int32_t dtrt_cuda_init(void);

/// Stores the number of CUDA devices in `*count` without creating a context
/// (a launcher's check before it starts one process per GPU). Fails as
/// dtrt_cuda_init without a driver or device.
DTRT_EXPORT int32_t dtrt_cuda_device_count(int32_t *count);

/// Synchronises and destroys the compute stream, the cuBLASLt handle and the
/// loaded modules. dtrt_cuda_init may be called again afterwards.
DTRT_EXPORT int32_t dtrt_cuda_finalize(void);

/// Stores this process's CUDA device ordinal in `*device` (after
/// dtrt_cuda_init).
DTRT_EXPORT int32_t dtrt_cuda_device(int32_t *device);

/// Stores the compute stream (a CUstream, the same handle as cudaStream_t)
/// in `*stream`, initialising as dtrt_cuda_init when needed.
DTRT_EXPORT int32_t dtrt_cuda_compute_stream(void **stream);

/// Blocks the host until the work enqueued on the compute stream finished.
DTRT_EXPORT int32_t dtrt_cuda_synchronize(void);

/*===-- Device buffers (used by the runner; ordered on the compute stream)
 * -===*/

/// Allocates `bytes` of device memory from the stream-ordered pool.
DTRT_EXPORT int32_t dtrt_cuda_alloc(void **ptr, int64_t bytes);

/// Returns `ptr` (from dtrt_cuda_alloc or mgpuMemAlloc) to the pool. A
/// pointer that is not device memory (host memory, the 0xdeadbeef that MLIR
/// puts in descriptors of constant globals) is left alone.
DTRT_EXPORT int32_t dtrt_cuda_free(void *ptr);

/// Copies `bytes` from host `src` to device `dst` and waits for the copy.
DTRT_EXPORT int32_t dtrt_cuda_copy_to_device(void *dst, const void *src,
                                             int64_t bytes);

/// Waits for the compute stream, then copies `bytes` from device `src` to
/// host `dst`.
DTRT_EXPORT int32_t dtrt_cuda_copy_to_host(void *dst, const void *src,
                                           int64_t bytes);

/*===-- Timing (trace spans on the GPU timeline)
 * ---------------------------===*/

/// Records an event on the compute stream and stores in `*event` a handle
/// for dtrt_cuda_elapsed_us.
DTRT_EXPORT int32_t dtrt_cuda_record(int64_t *event);

/// Waits for events `start` and `end` (from dtrt_cuda_record), stores the
/// microseconds between them in `*us` and releases both handles.
DTRT_EXPORT int32_t dtrt_cuda_elapsed_us(int64_t start, int64_t end,
                                         double *us);

/*===-- GEMMs through cuBLASLt
 * ---------------------------------------------===*/

/// Epilogues fused into dtrt_cublaslt_matmul.
typedef enum dtrt_epilogue {
  DTRT_EPILOGUE_NONE = 0,
  DTRT_EPILOGUE_RELU = 1,
  /// Adds bias[j] (a vector of n elements of the output dtype) to column j.
  DTRT_EPILOGUE_BIAS = 2,
  DTRT_EPILOGUE_BIAS_RELU = 3,
} dtrt_epilogue;

/// Row-major batched GEMM on the compute stream:
///   C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b]  (+ epilogue)
/// for b in [0, batch), where op(A[b]) is m x k and op(B[b]) is k x n.
/// A[b] starts at a + b * stride_a elements and is stored row-major with
/// leading dimension `lda` (elements between rows): m x k, or k x m when
/// `trans_a` is non-zero (then op(A) is its transpose); B likewise (k x n, or
/// n x k with `trans_b`); C[b] is m x n with leading dimension `ldc`.
/// `in_dtype` is the dtype of A and B: DTRT_F32, DTRT_F16 or DTRT_BF16;
/// `out_dtype` that of C (and of the bias): DTRT_F32 or `in_dtype`.
/// Accumulation is in f32; f32 inputs use TF32 tensor cores when the
/// environment has DTRT_ALLOW_TF32=1. The algorithm is chosen by cuBLASLt's
/// heuristic once per shape and cached; the workspace comes from the pool.
DTRT_EXPORT int32_t dtrt_cublaslt_matmul(
    int32_t in_dtype, int32_t out_dtype, int32_t trans_a, int32_t trans_b,
    int64_t batch, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
    int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, void *c,
    int64_t ldc, int64_t stride_c, float alpha, float beta, const void *bias,
    int32_t epilogue);

/*===-- The mgpu* ABI of MLIR's gpu-to-llvm lowering
 * -----------------------===*/
/* Handles are the driver's: CUmodule, CUfunction, CUstream, CUevent; device */
/* pointers are CUdeviceptr values.                                          */

/// Records a kernel image (cubin or fatbin) embedded by gpu-module-to-binary.
/// Runs from a global constructor, before any device is chosen, so the module
/// is loaded on the first mgpuModuleGetFunction, in the chosen device's
/// context.
DTRT_EXPORT void *mgpuModuleLoad(void *data, size_t gpuBlobSize);

/// As mgpuModuleLoad for a PTX image, JIT-compiled at `optLevel` on first
/// use.
DTRT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel,
                                    size_t assemblySize);

/// Unloads a module of mgpuModuleLoad (from a global destructor).
DTRT_EXPORT void mgpuModuleUnload(void *module);

/// Returns the kernel `name` of `module`, loading the module on first use
/// (initialising as dtrt_cuda_init when needed).
DTRT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);

/// Launches `function` on `stream`; `smem` above 48 KiB is opted in.
DTRT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                  intptr_t gridY, intptr_t gridZ,
                                  intptr_t blockX, intptr_t blockY,
                                  intptr_t blockZ, int32_t smem, void *stream,
                                  void **params, void **extra,
                                  size_t paramsCount);

/// Returns the runtime-owned compute stream (one per process, created on
/// first use after the device is chosen), not a new stream.
DTRT_EXPORT void *mgpuStreamCreate(void);

/// A no-op on the compute stream; destroys any other stream.
DTRT_EXPORT void mgpuStreamDestroy(void *stream);

/// Blocks the host until `stream` is idle.
DTRT_EXPORT void mgpuStreamSynchronize(void *stream);

/// Makes `stream` wait for `event`.
DTRT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);

/// Creates an event without timing (from a pool).
DTRT_EXPORT void *mgpuEventCreate(void);

/// Returns `event` to the pool.
DTRT_EXPORT void mgpuEventDestroy(void *event);

/// Blocks the host until `event` completed.
DTRT_EXPORT void mgpuEventSynchronize(void *event);

/// Records `event` on `stream`.
DTRT_EXPORT void mgpuEventRecord(void *event, void *stream);

/// Allocates `sizeBytes` from the stream-ordered pool on `stream` (managed
/// memory when `isHostShared`). Returns null for 0 bytes.
DTRT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                               bool isHostShared);

/// Frees `ptr` on `stream` (stream ordered); null is ignored.
DTRT_EXPORT void mgpuMemFree(void *ptr, void *stream);

/// Copies `sizeBytes` on `stream` (any direction: unified addressing).
DTRT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                            void *stream);

/// Sets `count` 32-bit words at `dst` to `value` on `stream`.
DTRT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                              void *stream);

/// Sets `count` 16-bit words at `dst` to `value` on `stream`.
DTRT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                              void *stream);

/// Overrides the device dtrt_cuda_init chooses (before it runs).
DTRT_EXPORT void mgpuSetDefaultDevice(int32_t device);

#if defined(__cplusplus)
} /* extern "C" */
#endif

#endif /* DTRT_DTRT_CUDA_H */
