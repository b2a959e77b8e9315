//===- MemoryPeak.cpp - byte sizes, live intervals, redistribution buffers ===//

#include "dtensor/Support/MemoryPeak.h"

#include "dtensor/Support/ShardingMath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir::dtensor;

bool mlir::dtensor::parseByteSize(llvm::StringRef text, int64_t &bytes,
                                  std::string &error) {
  llvm::StringRef digits = text.take_while([](char c) { return llvm::isDigit(c); });
  llvm::StringRef suffix = text.drop_front(digits.size());
  int64_t scale = 1;
  if (suffix.empty() || suffix.equals_insensitive("b"))
    scale = 1;
  else if (suffix.equals_insensitive("k") || suffix.equals_insensitive("kib"))
    scale = int64_t(1) << 10;
  else if (suffix.equals_insensitive("m") || suffix.equals_insensitive("mib"))
    scale = int64_t(1) << 20;
  else if (suffix.equals_insensitive("g") || suffix.equals_insensitive("gib"))
    scale = int64_t(1) << 30;
  else
    scale = 0;
  uint64_t count = 0;
  if (digits.empty() || scale == 0 || digits.getAsInteger(10, count) ||
      count == 0) {
    error = "expected a positive byte count such as 512M (suffix K, M or G), "
            "got '" +
            text.str() + "'";
    return false;
  }
  if (count > static_cast<uint64_t>(INT64_MAX / scale)) {
    error = "byte count '" + text.str() + "' is too large";
    return false;
  }
  bytes = static_cast<int64_t>(count) * scale;
  return true;
}

std::string mlir::dtensor::formatByteSize(int64_t bytes) {
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB"};
  double v = static_cast<double>(bytes);
  int unit = -1;
  while (unit < 2 && v >= 1024) {
    v /= 1024;
    ++unit;
  }
  return llvm::formatv(unit == 2 ? "{0:F2} {1}" : "{0:F1} {1}", v,
                       units[unit])
      .str();
}

llvm::SmallVector<RankPeak>
mlir::dtensor::computeLivePeaks(llvm::ArrayRef<LiveInterval> intervals,
                                int64_t numRanks) {
  // (position, +index+1 for a start, -(index+1) past an end).
  llvm::SmallVector<std::pair<int64_t, int64_t>> events;
  for (auto [i, iv] : llvm::enumerate(intervals)) {
    events.push_back({iv.start, static_cast<int64_t>(i) + 1});
    events.push_back({iv.end + 1, -static_cast<int64_t>(i) - 1});
  }
  llvm::sort(events);
  llvm::SmallVector<RankPeak> peaks(numRanks);
  llvm::SmallVector<int64_t> live(numRanks, 0);
  for (size_t e = 0; e < events.size();) {
    int64_t pos = events[e].first;
    for (; e < events.size() && events[e].first == pos; ++e) {
      int64_t idx = events[e].second;
      const LiveInterval &iv = intervals[std::abs(idx) - 1];
      for (int64_t r = 0; r < numRanks; ++r)
        live[r] += idx > 0 ? iv.bytes[r] : -iv.bytes[r];
    }
    for (int64_t r = 0; r < numRanks; ++r)
      if (live[r] > peaks[r].bytes)
        peaks[r] = RankPeak{live[r], pos, -1};
  }
  for (int64_t r = 0; r < numRanks; ++r) {
    int64_t best = 0;
    for (auto [i, iv] : llvm::enumerate(intervals))
      if (iv.start <= peaks[r].position && peaks[r].position <= iv.end &&
          iv.bytes[r] > best) {
        best = iv.bytes[r];
        peaks[r].largest = static_cast<int64_t>(i);
      }
  }
  return peaks;
}

namespace {
/// Bytes of a local tensor of `shape`.
int64_t shapeBytes(llvm::ArrayRef<int64_t> shape, int64_t elementBytes) {
  int64_t n = elementBytes;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// `shape` with dim `d` set to `size`, in bytes.
int64_t withDim(llvm::ArrayRef<int64_t> shape, int64_t d, int64_t size,
                int64_t elementBytes) {
  llvm::SmallVector<int64_t, 4> s(shape);
  s[d] = size;
  return shapeBytes(s, elementBytes);
}

/// The live sums of the ops of one step on one rank: `a` is the step's input
/// when it is a temporary (0 for the redistribution's source).
llvm::SmallVector<int64_t, 4> stepLiveSums(const RedistributeStep &step,
                                           llvm::ArrayRef<int64_t> in,
                                           llvm::ArrayRef<int64_t> out,
                                           int64_t k, int64_t a, int64_t eb) {
  int64_t outB = shapeBytes(out, eb);
  auto ceilDiv = [](int64_t n, int64_t k) { return (n + k - 1) / k; };
  switch (step.kind) {
  case StepKind::AllGather: {
    int64_t d = step.from.getDim(), n = out[d];
    if (n % k == 0 && in[d] * k == n)
      return {a + outB};
    int64_t b = ceilDiv(n, k);
    int64_t pad = withDim(in, d, b, eb), gathered = withDim(in, d, k * b, eb);
    return {a + pad, pad + gathered, gathered + outB};
  }
  case StepKind::ReduceScatter: {
    int64_t d = step.to.getDim(), n = in[d];
    if (n % k == 0)
      return {a + outB};
    int64_t b = ceilDiv(n, k);
    int64_t pad = withDim(in, d, b * k, eb), scattered = withDim(in, d, b, eb);
    return {a + pad, pad + scattered, scattered + outB};
  }
  case StepKind::AllToAll: {
    int64_t i = step.from.getDim(), j = step.to.getDim();
    int64_t ni = out[i];
    if (in[j] % k == 0 && in[i] * k == ni)
      return {a + outB};
    int64_t b = ceilDiv(ni, k);
    int64_t gathered = withDim(in, i, k * b, eb);
    int64_t whole = withDim(in, i, ni, eb);
    if (ni % k == 0 && in[i] == b)
      return {a + gathered, gathered + outB};
    int64_t pad = withDim(in, i, b, eb);
    return {a + pad, pad + gathered, gathered + whole, whole + outB};
  }
  case StepKind::AllReduce:
  case StepKind::LocalChunk:
  case StepKind::LocalDivide:
    return {a + outB};
  case StepKind::LocalKeep:
    return {a};
  }
  return {a + outB};
}
} // namespace

llvm::SmallVector<int64_t> mlir::dtensor::computeRedistributionBuffers(
    llvm::ArrayRef<int64_t> globalShape, int64_t elementBytes,
    llvm::ArrayRef<int64_t> meshShape, llvm::ArrayRef<RedistributeStep> steps) {
  int64_t numRanks = meshNumDevices(meshShape);
  llvm::SmallVector<int64_t> result(numRanks, 0);
  for (int64_t r = 0; r < numRanks; ++r) {
    llvm::SmallVector<int64_t, 4> coords = rankToCoords(meshShape, r);
    int64_t temp = 0;
    for (const RedistributeStep &step : steps) {
      Placements after = step.before;
      after[step.axis] = step.to;
      auto in = computeLocalShard(globalShape, meshShape, step.before, coords);
      auto out = computeLocalShard(globalShape, meshShape, after, coords);
      for (int64_t sum : stepLiveSums(step, in.shape, out.shape,
                                      meshShape[step.axis], temp, elementBytes))
        result[r] = std::max(result[r], sum);
      if (step.kind != StepKind::LocalKeep)
        temp = shapeBytes(out.shape, elementBytes);
    }
  }
  return result;
}
