//===- Passes.td - dtensor conversion passes ---------------*- tablegen -*-===//

#ifndef DTENSOR_CONVERSION_PASSES_TD
#define DTENSOR_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertDTensorToRuntime
    : Pass<"convert-dtensor-to-runtime", "::mlir::ModuleOp"> {
  let summary = "lower local-view collectives to calls of the dtrt runtime";
  let description = [{
    Rewrites the collectives of a partitioned program (and
    `dtensor.process_index`) into calls of the C runtime library (`dtrt_*`,
    MPI backend) on contiguous buffers, at the tensor level, before
    bufferization: the input is materialised into a fresh buffer, the result
    is a fresh buffer the runtime writes, wrapped back as a tensor.
    Collectives along a dim other than the first move that dim to the front
    with a transpose, since the runtime exchanges equal contiguous blocks.
    Asynchronous `_start`/`wait` pairs are lowered to the synchronous call at
    the `_start`. Every call's status is checked: a failure calls
    `dtrt_abort` with the runtime's message. The meshes and the placement
    attributes are removed at the end.

    Every op with `CollectiveOpInterface` is lowered by one pattern (a
    `ConversionTarget` marks them, `dtensor.process_index` and `dtensor.wait`
    illegal); `populateDTensorToRuntimeConversionPatterns` exposes it. An
    element type the runtime has no dtype for, `avg` on integers, and a
    request used by anything but `dtensor.wait` are errors that name the op
    and the type.

    `backend=nccl` emits the `dtrt_nccl_*` calls of dtrt_nccl.h instead
    (`populateDTensorToNcclConversionPatterns`), for programs whose buffers
    are device buffers (`dtensor-gpu-pipeline`): all_reduce, all_gather and
    reduce_scatter run in place as a `_start` call whose `dtrt_nccl_wait`
    stands where the result is first needed (the synchronous forms wait at
    once), so the host never blocks and the buffer lives until the wait;
    all_to_all is the all-gather of its concat dim and a slice; broadcast
    is the synchronous `dtrt_nccl_broadcast` (the runtime has no
    `_start` form of it).
  }];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"mpi\"",
           "the runtime calls to emit: mpi (dtrt.h, host buffers) or nccl "
           "(dtrt_nccl.h, device buffers)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def DTensorMatmulToBlas : Pass<"dtensor-matmul-to-blas", "::mlir::ModuleOp"> {
  let summary = "call the distribution's BLAS for matmuls on buffers";
  let description = [{
    Rewrites `linalg.matmul` on f32/f64 memrefs whose rows are contiguous
    (unit inner stride) into a call of `cblas_sgemm`/`cblas_dgemm`
    (row-major, C += A B), after bufferization. Other matmuls are left to
    the loop lowering.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def DTensorLinalgToCuBLASLt
    : Pass<"dtensor-linalg-to-cublaslt", "::mlir::ModuleOp"> {
  let summary = "call cuBLASLt (dtrt_cublaslt_matmul) for contractions on "
                "buffers";
  let description = [{
    Rewrites every linalg op on memrefs that is a contraction (a
    `linalg::LinalgOp` whose body is a multiply-accumulate, recognised by
    `linalg::isaContractionOpInterface` and split into batch, m, n and k
    dims by `linalg::inferContractionDims`, never by op name) into a call of
    the runtime's row-major, batched, strided GEMM:

    ```
    i32 dtrt_cublaslt_matmul(i32 in_dtype, i32 out_dtype, i32 trans_a,
        i32 trans_b, i64 batch, i64 m, i64 n, i64 k, ptr a, i64 lda,
        i64 stride_a, ptr b, i64 ldb, i64 stride_b, ptr c, i64 ldc,
        i64 stride_c, f32 alpha, f32 beta, ptr bias, i32 epilogue)
    ```

    computing `C[i] = alpha op(A[i]) op(B[i]) + beta C[i]` for `i <
    batch`, with `op(A)` the m x k matrix stored row-major with leading
    dimension `lda` (`trans_a = 0`) or its transpose stored k x m
    (`trans_a = 1`); pointers travel as i64. Matched: exactly one m, n and
    k dim, any number of batch dims, operands whose indexing maps are
    projected permutations, A and B of f32, f16 or bf16 (the same type), C
    of that type or f32, a unit stride on the k or m dim of A, the n or k
    dim of B and the n dim of C (or the m dim of C: then the inputs swap
    roles, C^T = B^T A^T). The innermost batch dim is the GEMM's
    batch (its strides are the stride_* arguments); outer batch dims become
    an `scf.for` nest of calls. alpha = beta = 1: the linalg op accumulates
    into its init. The returned status is checked: non-zero calls
    `dtrt_abort(dtrt_last_error())`. Contractions that do not match are
    left to the kernel path.

    `emulate=true` (for testing on machines without a GPU) builds, instead
    of each call, a `linalg.generic` over `memref.reinterpret_cast` views
    made from exactly the offsets, leading dims, strides and transpose
    flags the call would pass, so that running the program on the CPU
    checks the arguments against the ABI above.
  }];
  let options = [
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "build an in-IR reference of each call instead of calling the "
           "runtime (testing)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def DTensorGPUFlattenParallelLoops
    : Pass<"dtensor-gpu-flatten-parallel-loops",
           "::mlir::func::FuncOp"> {
  let summary = "collapse each outermost scf.parallel into one dimension";
  let description = [{
    Collapses all the dims of every outermost `scf.parallel` into one
    (upstream `collapseParallelLoops`), the last dim varying fastest. Tiled
    by `scf-parallel-loop-tiling` and mapped with the tile loop on
    `block.x` and the intra-tile loop on `thread.x`, consecutive threads
    then touch consecutive elements of the innermost dim (coalesced loads
    and stores for row-major buffers), and a nest of any rank becomes a
    1-D launch (`gpu-map-parallel-loops` maps at most three dims).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def DTensorGPUHostBuffers
    : Pass<"dtensor-gpu-host-buffers", "::mlir::ModuleOp"> {
  let summary = "move the buffers of host code to the GPU";
  let description = [{
    In host code (outside `gpu.launch` and `gpu.module`), after
    bufferization: `memref.alloc` becomes `gpu.alloc`, `memref.dealloc`
    becomes `gpu.dealloc`, `memref.copy` between buffers of identity layout
    becomes `gpu.memcpy`, any other `memref.copy` a `linalg.copy` (a
    kernel, run before the kernel generation), and `memref.get_global` (a
    bufferized constant) a fresh `gpu.alloc` filled by `gpu.memcpy` from
    the global. `index` and `i1` buffers that host code only reads, writes,
    casts, frees and passes to calls (the ownership arrays of the
    deallocation lowering's helper) stay on the host, as do
    `memref.alloca`s (the out-parameters of runtime calls). Function
    arguments and results are device buffers: the
    caller (dtensor-run --backend cuda) copies them. The pass runs before
    the kernel generation; ops it cannot move (a host `memref.load` or
    `memref.store` on a buffer, a `memref.alloca` of more than one element)
    are errors that name the op.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def DTensorGPUStream : Pass<"dtensor-gpu-stream", "::mlir::ModuleOp"> {
  let summary = "order every GPU op of a host function on the runtime's "
                "compute stream";
  let description = [{
    After kernel outlining, at the entry of every host function with GPU
    ops, calls
    `dtrt_cuda_compute_stream(ptr *stream)` (status checked, a failure
    aborts with `dtrt_last_error()`) and casts the stream to a
    `!gpu.async.token`; every `gpu.launch_func`,
    `gpu.alloc`, `gpu.dealloc`, `gpu.memcpy` and `gpu.memset` then becomes
    `async [%stream]`. `gpu-to-llvm` lowers such ops onto that stream, with
    no stream creation and no host synchronisation (unlike a token-less op,
    which gets its own stream and a synchronize, and unlike
    `gpu-async-region`, which blocks the host before every call). The
    runtime's stream is in order, so one dependency orders all of them; the
    caller synchronises once, after the function returns.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // DTENSOR_CONVERSION_PASSES_TD
