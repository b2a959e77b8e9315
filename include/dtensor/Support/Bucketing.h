//===- Bucketing.h - DDPOptimizer gradient bucketing ------------*- C++ -*-===//
//
// The bucketing of Dynamo's DDPOptimizer (`torch/_dynamo/backends/
// distributed.py`) on an abstract graph: nodes in program order, each with the
// trainable parameters it uses directly and the nodes that use its results.
// No MLIR IR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_BUCKETING_H
#define DTENSOR_SUPPORT_BUCKETING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstdint>

namespace mlir {
namespace dtensor {

/// One trainable parameter counted by a node.
struct BucketParam {
  /// The caller's identifier of the parameter (e.g. its argument number).
  unsigned id = 0;
  /// Its global byte size.
  int64_t bytes = 0;
};

/// One node of the graph (an op), in program order.
struct BucketNode {
  /// The parameters the node uses directly. Each entry is counted, so a
  /// parameter used by two nodes counts twice.
  llvm::SmallVector<BucketParam, 2> params;
  /// Program-order indices of the nodes that use a result of this node. Every
  /// user comes after the node.
  llvm::SmallVector<size_t, 4> users;
  /// True if the graph output (the return) uses a result of this node.
  bool usedByOutput = false;
};

/// One bucket: a contiguous range of nodes in program order.
struct Bucket {
  /// First node of the bucket.
  size_t begin = 0;
  /// One past its last node.
  size_t end = 0;
  /// Total bytes of the parameters it counts.
  int64_t bytes = 0;
  /// The parameters it counts, in program order (a parameter counted twice
  /// is listed twice).
  llvm::SmallVector<BucketParam, 4> params;

  size_t size() const { return end - begin; }
};

/// `int(capMb * 2^20)`: a cap in bytes from a size in MiB, as DDPOptimizer
/// computes it.
int64_t bucketCapBytes(double capMb);

/// Buckets `nodes` the way DDPOptimizer does and returns the buckets in
/// forward order (the first one nearest the graph input):
///
/// - walk the nodes in reverse program order;
/// - before adding a node, if the front bucket is full (its bytes reach
///   `capBytes`, or `firstCapBytes` while it is the only bucket) and one of
///   its nodes has a user outside it (a later bucket or the output), start a
///   new front bucket; a full bucket without such a user keeps growing;
/// - add the node and the bytes of the parameters it uses;
/// - at the end, a front bucket with no bytes is merged into the next one.
///
/// Every node lands in exactly one bucket; an empty graph gives one empty
/// bucket. Runs in time linear in the number of nodes and user edges.
llvm::SmallVector<Bucket> computeDDPBuckets(llvm::ArrayRef<BucketNode> nodes,
                                            int64_t capBytes,
                                            int64_t firstCapBytes);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_BUCKETING_H
