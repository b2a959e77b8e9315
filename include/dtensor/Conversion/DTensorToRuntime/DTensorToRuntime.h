//===- DTensorToRuntime.h - collectives to dtrt calls -----------*- C++ -*-===//

#ifndef DTENSOR_CONVERSION_DTENSORTORUNTIME_DTENSORTORUNTIME_H
#define DTENSOR_CONVERSION_DTENSORTORUNTIME_DTENSORTORUNTIME_H

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
namespace dtensor {

/// Patterns lowering every CollectiveOpInterface op (their `_start` forms
/// with the `dtensor.wait`s of their requests) and `dtensor.process_index`
/// to calls of the dtrt runtime.
void populateDTensorToRuntimeConversionPatterns(RewritePatternSet &patterns);

/// Patterns lowering every CollectiveOpInterface op to the `dtrt_nccl_*`
/// calls of dtrt_nccl.h on device buffers (`_start` + `dtrt_nccl_wait`, in
/// place), for `convert-dtensor-to-runtime{backend=nccl}`.
void populateDTensorToNcclConversionPatterns(RewritePatternSet &patterns);

/// Marks what those patterns lower illegal: the collectives,
/// `dtensor.process_index` and `dtensor.wait`; every other op stays legal.
void configureDTensorToRuntimeConversionTarget(ConversionTarget &target);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_DTENSORTORUNTIME_DTENSORTORUNTIME_H
