//===- BufferZeros.h - buffers provably holding zeros -----------*- C++ -*-===//
//
// The analysis behind beta = 0 in the GEMM lowerings (CBLAS and cuBLASLt):
// on buffers, after bufferization, a contraction's output may be known to
// hold zeros because a zero fill of it (or a copy of a zero-filled buffer)
// precedes it with nothing writing it in between. Only fresh allocations
// are followed, within one block, so no alias can write them unseen.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_CONVERSION_UTILS_BUFFERZEROS_H
#define DTENSOR_CONVERSION_UTILS_BUFFERZEROS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace dtensor {

/// The buffer `v` is a view of, through view-like ops.
Value getRootBuffer(Value v);

/// True if `v` is a fresh allocation: only its own views can alias it.
bool isFreshAllocation(Value v);

/// True if `op` (or an op nested in it) may write (or, unless `writesOnly`,
/// read) the fresh allocation `root`.
bool mayAccessBuffer(Operation *op, Value root, bool writesOnly);

/// True if all of `buffer` holds zeros right before `before`: a zero
/// `linalg.fill` of it (or of the buffer it is a whole reshape of), or a
/// copy into it of a buffer filled so, with
/// nothing writing it in between. When nothing reads it either, the fill or
/// copy is added to `erasable` (it can go once the consumer overwrites the
/// buffer). The ops in `erased` (about to be erased) are ignored.
bool holdsZeros(Operation *before, Value buffer,
                const llvm::SetVector<Operation *> &erased,
                llvm::SetVector<Operation *> &erasable);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_UTILS_BUFFERZEROS_H
