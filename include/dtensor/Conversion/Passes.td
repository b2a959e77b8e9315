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
    An asynchronous `_start` becomes the `dtrt_*_start` call (the request in
    a one-element buffer) and its `dtensor.wait` becomes `dtrt_wait`, after
    which the output buffer is read, so compute between them overlaps the
    transfer. Ops tagged `dtensor.segment` are bracketed with
    `dtrt_span_begin`/`dtrt_span_end` compute spans named after their
    segment. Every call's status is checked: a failure calls
    `dtrt_abort` with the runtime's message. The meshes and the placement
    attributes are removed at the end.

    Every op with `CollectiveOpInterface` is lowered by one pattern (a
    `ConversionTarget` marks them, `dtensor.process_index` and `dtensor.wait`
    illegal); `populateDTensorToRuntimeConversionPatterns` exposes it. An
    element type the runtime has no dtype for, `avg` on integers, and a
    request used by anything but `dtensor.wait` or waited on other than once
    are errors that name the op and the type.

    `backend=nccl` emits the `dtrt_nccl_*` calls of dtrt_nccl.h instead
    (`populateDTensorToNcclConversionPatterns`), for programs whose buffers
    are device buffers (`dtensor-gpu-pipeline`): all_reduce, all_gather and
    reduce_scatter run in place as a `_start` call whose `dtrt_nccl_wait`
    stands where the result is first needed (the synchronous forms wait at
    once), so the host never blocks and the buffer lives until the wait;
    all_to_all is one grouped send/receive
    (`dtrt_nccl_all_to_all_start`) from the input with its split dim at
    the front, unpacked along the concat dim after the wait; broadcast is
    `dtrt_nccl_broadcast_start` in place on a copy of its input, waited
    like the others.
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

def DTensorLinalgToBLAS : Pass<"dtensor-linalg-to-blas", "::mlir::ModuleOp"> {
  let summary = "call the distribution's CBLAS for every contraction on buffers";
  let description = [{
    Rewrites every linalg op on f32/f64 memrefs that is a (batched) GEMM up
    to a permutation of its loops and of its operands' dims -- matched
    structurally (`linalg::isaContractionOpInterface`,
    `linalg::inferContractionDims`, a body that is exactly `acc + a * b`):
    `linalg.matmul` (also with transposed `indexing_maps`),
    `linalg.batch_matmul`, `linalg.contract`, `linalg.generic` -- into calls
    of `cblas_sgemm`/`cblas_dgemm`, after bufferization. One m, one n and
    the k loop form the GEMM; the other loops (batch dims, further m or n
    dims) become a `scf.for` nest of calls on pointers into the operands
    (OpenBLAS 0.3.21 has no strided batched GEMM). An operand whose
    contiguous dim is not the one the layout expects is passed with
    `CblasTrans` and its other stride as leading dimension, never copied;
    an output contiguous along m uses the column-major layout. Each
    operand needs a static unit stride on one of its two GEMM dims. Leading
    dims or sizes that cannot be proven valid at compile time are checked
    at run time, with the linalg op (lowered to loops later) as fallback.

    With `fold-zero-fill`, a GEMM whose output provably holds zeros -- a
    `linalg.fill` of 0 of that buffer, or a `memref.copy` into it of a
    buffer filled so (what bufferization makes of one zero fill shared by
    several contractions), with no possible write in between -- is called
    with beta = 0, and the fill or copy is erased when nothing reads the
    buffer in between; otherwise beta = 1 (a real accumulator, or a
    non-zero fill). Only fresh allocations are followed, within a block.

    A contraction that is a GEMM but for its layouts (an operand with no
    unit stride on its GEMM dims, e.g. a batch dim innermost, or a C whose
    contiguous dim is a batch dim) has each operand that is not already
    indexed as `[batch, m, k]` (A), `[batch, k, n]` (B) or `[batch, m, n]`
    (C) with a unit innermost stride copied by a `linalg.transpose` into a
    fresh buffer of that layout (`dtensor/Conversion/Utils/PackContraction.h`,
    shared with `dtensor-linalg-to-cublaslt`), the GEMM run on the copies
    and a packed C transposed back (a C holding zeros is not copied in).

    Contractions of 16-bit floats (A and B of one f16/bf16 type, C of that
    type with a plain multiply-add, or f32 with the inputs extended in the
    body) run as f32 GEMMs: every 16-bit operand is packed into an f32 copy
    (`arith.extf`), a 16-bit C truncated back once after the call, so the
    products accumulate in f32 as on GPUs (OpenBLAS has no bf16/f16 GEMM).
    Other ops (integers, other mixed types, a body other than
    multiply-add, several k loops) are left to the loop lowering.

    f32 GEMMs whose m, n and k are static with m * n * k at most
    `small-gemm-macs` (default 2^22, e.g. attention's 128 x 128 x 64
    products per batch and head) call the runtime's `dtrt_sgemm_small`
    (`dtrt/dtrt_cpu.h`: the arguments of `cblas_sgemm`, a register-blocked
    kernel for AVX-512, AVX2 or 128-bit vectors chosen at run time) instead:
    OpenBLAS packs both operands and sets up its blocking on every call,
    which costs it up to 1.4x on such products. The program then needs
    libdtrt, as it does for its collectives.
  }];
  let options = [
    Option<"foldZeroFill", "fold-zero-fill", "bool", /*default=*/"true",
           "call with beta = 0 (and erase the fill) when the output holds "
           "zeros">,
    Option<"smallGemmMacs", "small-gemm-macs", "int64_t",
           /*default=*/"4194304",
           "f32 GEMMs of static sizes with at most this many multiply-adds "
           "per call call dtrt_sgemm_small instead of BLAS (0: never)">
  ];
  let statistics = [
    Statistic<"numGemms", "gemms", "contractions rewritten into CBLAS calls">,
    Statistic<"numBatched", "batched", "of those, batched over a loop nest">,
    Statistic<"numBetaZero", "beta-zero", "of those, called with beta = 0">,
    Statistic<"numErasedFills", "erased-fills",
              "zero fills and copies of zeros erased">,
    Statistic<"numPacked", "packed",
              "contractions whose operands were packed for one GEMM">,
    Statistic<"numSmall", "small",
              "contractions calling the runtime's small-GEMM kernel">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def DTensorFoldTransposeIntoContraction
    : Pass<"dtensor-fold-transpose-into-contraction"> {
  let summary = "read transposed contraction operands through the indexing maps";
  let description = [{
    On tensors, before bufferization, so that `dtensor-linalg-to-blas` sees
    strided views instead of transposed copies. A contraction
    (`linalg::isaContractionOpInterface`) that reads a `linalg.transpose`,
    directly or through a `tensor.collapse_shape` (how torch-mlir writes
    attention: transpose, heads collapsed into the batch,
    `linalg.batch_matmul`), becomes a `linalg.generic` reading the
    transpose's input: the collapsed dims are expanded into its loops
    (upstream's reshape fusion by expansion, only for collapses of
    transposes) and the permutation is composed into the operand's
    indexing map. A `linalg.transpose` of a contraction's result, when the
    contraction's init is a `linalg.fill`, is folded into the output map
    (the fill then fills the transpose's init). Other ops are unchanged.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
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
    (`trans_a = 1`); pointers travel as i64. Matched: m, n and k dims
    (several of one kind are one GEMM dim when they are consecutive, in
    loop order, in every operand that has them and one contiguous run of
    its buffer, with static strides: a 3-D activation times a weight, a
    projection to heads), any number of batch dims, operands whose indexing maps are
    projected permutations, A and B of f32, f16 or bf16 (the same type), C
    of that type or f32, a unit stride on the k or m dim of A, the n or k
    dim of B and the n dim of C (the innermost dim of a group; or the m dim of C: then the inputs swap
    roles, C^T = B^T A^T). The innermost batch dims that every
    operand strides through as one run (each dim's static stride the next
    one's times its size: `[batch, heads, seq, dim]` attention) are the
    GEMM's batch (the innermost one's strides are the stride_* arguments);
    outer batch dims become an `scf.for` nest of calls. alpha = 1; beta = 1 (the linalg op
    accumulates into its init) unless the output holds zeros. The returned
    status is checked: non-zero calls `dtrt_abort(dtrt_last_error())`.

    A contraction that is a GEMM but for the layout of some of its buffers
    (a group of m, n or k dims that is not one contiguous run in loop order,
    no unit stride where the GEMM needs one, a batch dim innermost) has
    those operands packed first: each copied by a `linalg.transpose` into a
    fresh buffer `[batch, m, k]` (A), `[batch, k, n]` (B) or `[batch, m, n]`
    (C, zero-filled instead when it holds zeros, else copied in), the same
    body run on the copies (then one GEMM), a packed C transposed back, the
    copies freed. On GPUs those transposes are coalesced kernels
    (`dtensor-gpu-tiled-transpose`). Not packed: groups of several dims
    with a dynamic size (the copy's strides would not be static).
    Contractions of other element types, bodies or maps are left to the
    kernel path.

    With `fold-zero-fill`, a GEMM whose output provably holds zeros (a zero
    `linalg.fill` of it, or a `memref.copy` of a buffer filled so, with no
    possible write in between: the analysis of `dtensor-linalg-to-blas`,
    `dtensor/Conversion/Utils/BufferZeros.h`) gets beta = 0, and the fill or
    copy is erased when nothing reads the buffer in between (no fill kernel,
    no device copy).

    With `fuse-epilogues`, an unbatched GEMM whose output C (a fresh
    allocation, rows the GEMM's m) is next accessed by an elementwise
    `linalg.generic` that rewrites C in place as `C + bias`, `max(C, 0)` or
    `max(C + bias, 0)` (`bias` a contiguous vector over C's columns, of C's
    element type; `maximumf` or `maxnumf` with +0.0) gets the cuBLASLt
    epilogue `DTRT_EPILOGUE_BIAS`, `RELU` or `BIAS_RELU` (the bias pointer in
    the call), and the elementwise op is erased: its kernel disappears.

    `emulate=true` (for testing on machines without a GPU) builds, instead
    of each call, a `linalg.generic` over `memref.reinterpret_cast` views
    made from exactly the offsets, leading dims, strides and transpose
    flags the call would pass, so that running the program on the CPU
    checks the arguments against the ABI above; beta = 0 is a zero fill of
    the output view first, an epilogue a `linalg.generic` after it computing
    what the epilogue flag says (not a copy of the erased op).
  }];
  let options = [
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "build an in-IR reference of each call instead of calling the "
           "runtime (testing)">,
    Option<"foldZeroFill", "fold-zero-fill", "bool", /*default=*/"true",
           "call with beta = 0 (and erase the fill) when the output holds "
           "zeros">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "fuse a following in-place bias add and/or relu into the call's "
           "cuBLASLt epilogue">
  ];
  let statistics = [
    Statistic<"numGemms", "gemms", "contractions rewritten into cuBLASLt "
              "calls">,
    Statistic<"numBetaZero", "beta-zero", "of those, called with beta = 0">,
    Statistic<"numEpilogues", "epilogues",
              "of those, with a fused bias and/or relu epilogue">,
    Statistic<"numErasedFills", "erased-fills",
              "zero fills and copies of zeros erased">,
    Statistic<"numPacked", "packed",
              "contractions whose operands were packed for one GEMM">
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

def DTensorGPUBlockReductions
    : Pass<"dtensor-gpu-block-reductions", "::mlir::func::FuncOp"> {
  let summary = "reductions along the innermost loop as one thread block "
                "per output element";
  let description = [{
    Rewrites every `linalg.generic` (or `linalg.reduce`, generalized first)
    on buffers whose innermost loop is a reduction, with one init indexed by exactly the parallel loops and a
    body `out = combine(g(inputs), out)` with one associative combiner that
    has a neutral element (`matchReduction`, `arith::getNeutralElement`:
    addf, mulf, maxnumf, minimumf, addi, ...; 32-bit, f16 or bf16 element
    types), into a
    `gpu.launch` with one block per output element (the parallel loops
    delinearized from `block.x`) and `block-size` threads (at most the
    reduction size rounded up to a warp). Thread `t` accumulates the
    elements `t, t + B, t + 2B, ...` of the linearized reduction loops from
    the neutral element, so consecutive threads read consecutive elements
    of the innermost (contiguous) dim; a `gpu.all_reduce` (warp shuffles
    and shared memory after `convert-gpu-to-nvvm`) combines the partials,
    and thread 0 combines the result into the init (the value of a
    `linalg.fill` of the output right before the op, with no op with memory
    effects in between: the fill is then erased). The body is cloned as
    is (`linalg.index` becomes the loop index), so softmax's max and sum of
    exp, and a norm's sums, are one kernel each. With f16/bf16 elements
    the partials, their `gpu.all_reduce` and the final combine are f32 (the
    body's value extended, the combiner recreated on f32, the result
    truncated once when stored): nothing accumulates in 16 bits. Other ops are unchanged
    (the loop path: one thread per output, coalesced across outputs).

    With `fuse-rows`, consecutive such reductions over the same rows (each
    after its fill, one reduction loop, static ranges; a later one may read
    an earlier one's output at its row) and the elementwise `linalg.generic`
    right after them (all loops parallel, identity output map, reading the
    reductions' outputs at its row) are one kernel: per row, each
    reduction's all-reduced value is stored by thread 0 and kept as a value
    for the later bodies, then every thread computes the elementwise op on
    its elements `t, t + B, ...`. Softmax (max, sum of exp, divide) is then
    one kernel of one block per row. The input row is read from global
    memory in each phase (not staged in shared memory).

    `emulate=true` (testing on the CPU) builds the same decomposition as
    host loops: an `scf.parallel` over the outputs, and per output a loop
    over the `B` threads' strided partials combined in thread order, so
    that running it checks the neutral element, the index arithmetic and
    the final combine.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "threads per block (the most; a multiple of 32)">,
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "build host loops with the same per-thread partials instead of "
           "kernels (testing)">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "one kernel per row for consecutive reductions over the same "
           "rows and the elementwise op after them (softmax)">
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def DTensorGPUTiledTranspose
    : Pass<"dtensor-gpu-tiled-transpose", "::mlir::func::FuncOp"> {
  let summary = "ops that read an input across the output's rows as "
                "kernels staging square tiles in shared memory";
  let description = [{
    The loop path maps consecutive threads to consecutive elements of the
    output's innermost dim; an input whose own innermost dim follows another
    loop (a `[1, 0]` `linalg.transpose`, a permuted copy) is then read a
    whole row apart by neighbouring threads. This pass rewrites every
    structured op on buffers with all loops parallel, one init indexed by
    the identity, and inputs indexed by projected permutations of which at
    least one (the staged inputs, all with the same innermost loop `a`)
    reads along a loop other than the innermost loop `n` while depending on
    `n`, both the staged inputs and the output with a unit innermost
    stride, into a `gpu.launch` of one block per `T` x `T` square of the
    loops (`a`, `n`) and per index of the other loops (`tile-size` `T`),
    with `T` x `block-rows` threads and one workgroup buffer of `T` rows
    per staged input (each row of an even `T` padded to an odd number of
    4-byte words: 33 f32, 34 f16/bf16, 36 i8, so that the threads reading
    a column touch distinct banks). Phase 1: thread (x, y) reads the
    elements `a = a0 + x`, `n = n0 + y + k * block-rows` (consecutive
    threads, consecutive addresses of the staged inputs) into the tile; a
    `gpu.barrier`; phase 2: thread (x, y) computes the body at
    `n = n0 + x`, `a = a0 + y + k * block-rows`, the staged inputs read
    from the tile, the others from memory, and stores the output along
    `n`. Edge tiles are masked; a launch whose block count is not a
    positive constant is guarded by an `scf.if`. Other ops are unchanged.

    `emulate=true` (testing on the CPU) builds the same tiles as host
    loops: an `scf.parallel` over the blocks, a `memref.alloca` per tile,
    and the two phases as loops over the threads one after the other (the
    order the barrier gives), so that running it checks the tile indexing
    and the masks.
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"32",
           "edge of the square tile (threads along x)">,
    Option<"blockRows", "block-rows", "int64_t", /*default=*/"8",
           "threads along y; each covers tile-size / block-rows rows">,
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "build host loops with the same tiles instead of kernels "
           "(testing)">
  ];
  let statistics = [
    Statistic<"numTiled", "num-tiled", "ops staged through shared-memory tiles">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def DTensorGPUParallelLoopsFirst
    : Pass<"dtensor-gpu-parallel-loops-first", "::mlir::func::FuncOp"> {
  let summary = "move the parallel loops of linalg ops on buffers outside "
                "their reduction loops";
  let description = [{
    `convert-linalg-to-parallel-loops` keeps the loop order of an op: a
    reduction loop before a parallel one (a bias gradient summing the rows
    of a batch: iterators `[reduction, parallel]`) becomes an `scf.for`
    around an `scf.parallel`, which the GPU mapping turns into one kernel
    launch per row, from a host loop. This pass interchanges the loops of
    every linalg op on buffers outside a `gpu.launch` that has a parallel
    loop after a reduction loop (`linalg::interchangeGenericOp`, named ops
    generalized first) so that the parallel loops come first, each kind in
    its original order: the op becomes one kernel whose threads each run the
    reduction loops, consecutive threads on consecutive elements of the
    output's innermost parallel dim. Ops whose parallel loops already come
    first are unchanged.
  }];
  let statistics = [
    Statistic<"numInterchanged", "num-interchanged",
              "ops whose loops were interchanged">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def DTensorGPUSerialKernels
    : Pass<"dtensor-gpu-serial-kernels", "::mlir::func::FuncOp"> {
  let summary = "linalg ops on buffers with no parallel loop as one-thread "
                "kernels";
  let description = [{
    An op with no parallel loop (a 0-d elementwise op such as a loss divided
    by its count, a reduction to a scalar that
    `dtensor-gpu-block-reductions` does not take) lowers to sequential
    loops or to none: the GPU mapping would leave its loads and stores in
    host code, on device buffers. This pass moves every linalg op on
    buffers with no parallel loop, outside a `gpu.launch`, into a
    `gpu.launch` of one block of one thread, where it is lowered to loops
    like the ops of the other kernels. Such kernels are correct but serial:
    a full reduction over many elements is slow in them.
  }];
  let statistics = [
    Statistic<"numSerial", "num-serial", "ops moved into one-thread kernels">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect"];
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
