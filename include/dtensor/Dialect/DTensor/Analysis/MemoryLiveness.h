//===- MemoryLiveness.h - per-rank peak memory of a plan --------*- C++ -*-===//
//
// The bytes each rank holds at the worst point of a function under a plan of
// the fake-tensor analysis, from a liveness analysis of the program the plan
// partitions into:
//
// - every tensor value is a buffer of its local bytes on each rank, live from
//   its definition to its last use; a value used inside a loop that does not
//   define it is live to the end of the loop (all iterations read it), and a
//   value defined in a region is live at most to the end of its op;
// - a redistribution happens where `dtensor-fake-propagate` puts it (right
//   after the value's definition, or at the explicit `dtensor.redistribute`):
//   its result is a buffer live to the last of its readers, and while it runs
//   it needs the temporaries `dtensor-partition` emits for its steps
//   (`computeRedistributionBuffers`: collective outputs, padded uneven shards
//   and the slices taken back);
// - operands that read a redistributed copy do not extend the source's life.
//
// Every op result is its own buffer (as in the tensor
// program `dtensor-partition` produces; bufferization may reuse a buffer in
// place, so the bufferized peak can be lower, never higher except where a
// slice keeps a padded buffer alive).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_ANALYSIS_MEMORYLIVENESS_H
#define DTENSOR_DIALECT_DTENSOR_ANALYSIS_MEMORYLIVENESS_H

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"

#include <string>

namespace mlir {
namespace dtensor {

/// What a buffer of the peak is.
enum class BufferKind {
  /// A tensor value of the program.
  Value,
  /// The result of a redistribution the plan requires (not yet explicit).
  Redistributed,
  /// The temporaries of a redistribution while its collectives run.
  Temporaries,
};

/// The largest buffer live at a rank's peak.
struct PeakBuffer {
  /// The value, or the redistributed value (Redistributed, Temporaries).
  Value value;
  BufferKind kind = BufferKind::Value;
  /// The kinds of the collective steps (Temporaries), e.g. "all_gather".
  std::string steps;
  int64_t bytes = 0;
};

/// The peak of a function on every rank (row-major rank order).
struct MemoryPeak {
  llvm::SmallVector<int64_t> bytes;
  llvm::SmallVector<PeakBuffer> largest;
  /// The buffers live at the peak of the worst rank, largest first.
  llvm::SmallVector<PeakBuffer> liveAtWorst;

  /// The rank with the largest peak (the first of them).
  int64_t getWorstRank() const;
};

/// The per-rank peak of `func` under `plan`.
MemoryPeak computeMemoryPeak(FunctionOpInterface func,
                             const FunctionPlan &plan);

/// Parses the value of a `max-bytes-per-rank` option (empty: no budget, 0);
/// on a bad value emits `max-bytes-per-rank: <why>` on `op` and fails.
FailureOr<int64_t> parseMaxBytesPerRank(Operation *op, llvm::StringRef text);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_ANALYSIS_MEMORYLIVENESS_H
