//===- MemoryPeak.h - byte sizes, live intervals, redistribution buffers --===//
//
// The IR-free part of the per-rank memory analysis: parsing and printing byte
// counts (`max-bytes-per-rank=512M`), the peak of a set of live intervals on
// every rank, and the temporary buffers one redistribution needs on every rank
// as `dtensor-partition` materialises it (collective outputs, the padding of
// uneven shards to equal blocks, the slices taken back).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_MEMORYPEAK_H
#define DTENSOR_SUPPORT_MEMORYPEAK_H

#include "dtensor/Support/RedistributePlan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
namespace dtensor {

/// Parses a byte count: a positive integer with an optional suffix `K`, `M`
/// or `G` (powers of 1024; `KiB`, `MiB`, `GiB` and lower case are accepted
/// too). Returns false with `error` set (e.g. `expected a positive byte count
/// such as 512M, got '12X'`) on anything else or on overflow.
bool parseByteSize(llvm::StringRef text, int64_t &bytes, std::string &error);

/// Prints a byte count in human units: `512 B`, `1.5 KiB`, `24.0 MiB`,
/// `2.00 GiB` (one decimal below GiB, two from GiB on).
std::string formatByteSize(int64_t bytes);

/// One buffer of the program: live on every rank from position `start` to
/// position `end` (both included), holding `bytes[r]` bytes on rank r.
struct LiveInterval {
  int64_t start = 0;
  int64_t end = 0;
  llvm::SmallVector<int64_t> bytes;
};

/// The peak of one rank.
struct RankPeak {
  /// The largest sum of the bytes of the intervals live at one position.
  int64_t bytes = 0;
  /// The first position where it is reached.
  int64_t position = 0;
  /// The largest interval live there (its index), or -1 when nothing is.
  int64_t largest = -1;
};

/// The peak of `intervals` on each of `numRanks` ranks.
llvm::SmallVector<RankPeak> computeLivePeaks(llvm::ArrayRef<LiveInterval> intervals,
                                             int64_t numRanks);

/// Bytes on each rank of the temporaries a redistribution of a tensor of
/// `globalShape` (elements of `elementBytes`) through `steps` needs while it
/// runs, beyond its source, and including the buffer of its result: the
/// largest sum over the ops `dtensor-partition` emits for the steps, each
/// tensor a buffer of its own from its op to its last reader (casts are not
/// buffers). An uneven all_gather pads its shard to ceil(n/k) (`tensor.pad`),
/// gathers k blocks and slices n back; an uneven reduce_scatter pads to k
/// blocks, scatters one and slices its chunk; an uneven all_to_all gathers
/// (as all_gather) and slices its chunk of the other dim.
llvm::SmallVector<int64_t>
computeRedistributionBuffers(llvm::ArrayRef<int64_t> globalShape,
                             int64_t elementBytes,
                             llvm::ArrayRef<int64_t> meshShape,
                             llvm::ArrayRef<RedistributeStep> steps);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_MEMORYPEAK_H
