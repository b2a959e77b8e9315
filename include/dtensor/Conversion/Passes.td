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

#endif // DTENSOR_CONVERSION_PASSES_TD
