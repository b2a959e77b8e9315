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
  }];
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
    Other ops (integers, mixed types, no unit stride, a body other than
    multiply-add, several k loops) are left to the loop lowering.
  }];
  let options = [
    Option<"foldZeroFill", "fold-zero-fill", "bool", /*default=*/"true",
           "call with beta = 0 (and erase the fill) when the output holds "
           "zeros">
  ];
  let statistics = [
    Statistic<"numGemms", "gemms", "contractions rewritten into CBLAS calls">,
    Statistic<"numBatched", "batched", "of those, batched over a loop nest">,
    Statistic<"numBetaZero", "beta-zero", "of those, called with beta = 0">,
    Statistic<"numErasedFills", "erased-fills",
              "zero fills and copies of zeros erased">
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

#endif // DTENSOR_CONVERSION_PASSES_TD
