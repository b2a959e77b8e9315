//===- Segment.h - The dtensor.segment attribute ----------------*- C++ -*-===//
//
// `dtensor.segment = "<name>"` (a string) on an op names the segment of a
// program it belongs to: an outlined DDP submodule, or one op group of a
// training step split by dtensor-ddp-split (a forward bucket, the backward
// of a bucket, the optimizer update). It is discardable metadata: the CPU
// lowering (convert-dtensor-to-runtime) brackets each run of ops of one
// segment with a compute span named after it, so that traces show
// communication against the segments it overlaps.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_SEGMENT_H
#define DTENSOR_DIALECT_DTENSOR_IR_SEGMENT_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace dtensor {

/// The name of the segment attribute (see the file comment).
inline constexpr llvm::StringLiteral kSegmentAttrName = "dtensor.segment";

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_IR_SEGMENT_H
