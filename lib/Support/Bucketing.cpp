//===- Bucketing.cpp - DDPOptimizer gradient bucketing --------------------===//

#include "dtensor/Support/Bucketing.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir::dtensor;

int64_t mlir::dtensor::bucketCapBytes(double capMb) {
  // Python's int() truncates towards zero.
  return static_cast<int64_t>(std::trunc(capMb * 1024.0 * 1024.0));
}

namespace {
/// A bucket while the walk builds it: `begin` moves down as nodes are added.
struct OpenBucket {
  Bucket bucket;
  /// Largest program-order index of a user of any node in the bucket (users
  /// are always later, so one at or past `end` lies outside the bucket).
  size_t maxUser = 0;
  /// True if a node of the bucket feeds the graph output.
  bool feedsOutput = false;

  bool hasExternalUser() const {
    return feedsOutput || (bucket.size() != 0 && maxUser >= bucket.end);
  }
};
} // namespace

llvm::SmallVector<Bucket>
mlir::dtensor::computeDDPBuckets(llvm::ArrayRef<BucketNode> nodes,
                                 int64_t capBytes, int64_t firstCapBytes) {
  // Back of `open` is the front bucket (the one nearest the input).
  llvm::SmallVector<OpenBucket> open(1);
  open.back().bucket.begin = open.back().bucket.end = nodes.size();
  for (size_t i = nodes.size(); i-- > 0;) {
    OpenBucket *front = &open.back();
    int64_t bytes = front->bucket.bytes;
    bool full =
        bytes >= capBytes || (open.size() == 1 && bytes >= firstCapBytes);
    if (full && front->hasExternalUser()) {
      OpenBucket next;
      next.bucket.begin = next.bucket.end = i + 1;
      open.push_back(std::move(next));
      front = &open.back();
    }
    const BucketNode &node = nodes[i];
    front->bucket.begin = i;
    // Parameters are collected backwards and reversed at the end.
    for (const BucketParam &p : llvm::reverse(node.params)) {
      front->bucket.bytes += p.bytes;
      front->bucket.params.push_back(p);
    }
    for (size_t user : node.users)
      front->maxUser = std::max(front->maxUser, user);
    front->feedsOutput |= node.usedByOutput;
  }

  // A front bucket without bytes (ops before the first parameter) joins the
  // next one.
  if (open.size() > 1 && open.back().bucket.bytes == 0) {
    Bucket merged = std::move(open.back().bucket);
    open.pop_back();
    Bucket &next = open.back().bucket;
    next.begin = merged.begin;
    next.params.append(merged.params.begin(), merged.params.end());
  }

  llvm::SmallVector<Bucket> buckets;
  buckets.reserve(open.size());
  for (OpenBucket &b : llvm::reverse(open)) {
    // Parameters were collected walking backwards.
    std::reverse(b.bucket.params.begin(), b.bucket.params.end());
    buckets.push_back(std::move(b.bucket));
  }
  return buckets;
}
