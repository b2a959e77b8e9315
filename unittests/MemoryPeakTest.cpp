//===- MemoryPeakTest.cpp - byte sizes, live peaks, redistribution buffers ===//

#include "dtensor/Support/MemoryPeak.h"

#include "gtest/gtest.h"

using namespace mlir::dtensor;

namespace {

int64_t parse(llvm::StringRef text) {
  int64_t bytes = -1;
  std::string error;
  EXPECT_TRUE(parseByteSize(text, bytes, error)) << error;
  return bytes;
}

std::string parseError(llvm::StringRef text) {
  int64_t bytes = -1;
  std::string error;
  EXPECT_FALSE(parseByteSize(text, bytes, error)) << text.str();
  return error;
}

TEST(ByteSize, ParsesPowersOf1024) {
  EXPECT_EQ(parse("4096"), 4096);
  EXPECT_EQ(parse("3K"), 3 * 1024);
  EXPECT_EQ(parse("3k"), 3 * 1024);
  EXPECT_EQ(parse("2M"), 2 * 1024 * 1024);
  EXPECT_EQ(parse("2MiB"), 2 * 1024 * 1024);
  EXPECT_EQ(parse("5G"), int64_t(5) << 30);
}

TEST(ByteSize, RejectsOtherText) {
  EXPECT_EQ(parseError("12X"), "expected a positive byte count such as 512M "
                               "(suffix K, M or G), got '12X'");
  parseError("");
  parseError("M");
  parseError("0");
  parseError("-5K");
  parseError("1.5M");
  EXPECT_EQ(parseError("99999999999G"), "byte count '99999999999G' is too large");
}

TEST(ByteSize, PrintsHumanUnits) {
  EXPECT_EQ(formatByteSize(512), "512 B");
  EXPECT_EQ(formatByteSize(1536), "1.5 KiB");
  EXPECT_EQ(formatByteSize(24 << 20), "24.0 MiB");
  EXPECT_EQ(formatByteSize(int64_t(3) << 30), "3.00 GiB");
}

TEST(LivePeak, SumsOverlappingIntervalsPerRank) {
  // a [0,4] 10/20 bytes, b [2,3] 5/1, c [4,6] 7/7: both ranks peak at 4,
  // where b has ended and c begun (a + c), a the largest there.
  std::vector<LiveInterval> ivs = {
      {0, 4, {10, 20}}, {2, 3, {5, 1}}, {4, 6, {7, 7}}};
  auto peaks = computeLivePeaks(ivs, 2);
  EXPECT_EQ(peaks[0].bytes, 17);
  EXPECT_EQ(peaks[0].position, 4);
  EXPECT_EQ(peaks[0].largest, 0);
  EXPECT_EQ(peaks[1].bytes, 27);
  EXPECT_EQ(peaks[1].largest, 0);
}

TEST(LivePeak, AnIntervalEndsAfterItsLastPosition) {
  // [0,1] and [2,3] never overlap; [1,2] overlaps both.
  std::vector<LiveInterval> ivs = {{0, 1, {4}}, {2, 3, {4}}};
  EXPECT_EQ(computeLivePeaks(ivs, 1)[0].bytes, 4);
  ivs.push_back({1, 2, {1}});
  EXPECT_EQ(computeLivePeaks(ivs, 1)[0].bytes, 5);
}

RedistributeStep step(StepKind kind, Placement from, Placement to,
                      Placements before) {
  RedistributeStep s;
  s.axis = 0;
  s.kind = kind;
  s.from = from;
  s.to = to;
  s.before = std::move(before);
  return s;
}

TEST(RedistributionBuffers, EvenAllGatherNeedsItsOutput) {
  // 8x4 f32 S(0) -> R on 2 ranks: the 8x4 output, 128 bytes.
  auto b = computeRedistributionBuffers(
      {8, 4}, 4, {2},
      {step(StepKind::AllGather, Placement::shard(0), Placement::replicate(),
            {Placement::shard(0)})});
  EXPECT_EQ(b, (llvm::SmallVector<int64_t>{128, 128}));
}

TEST(RedistributionBuffers, UnevenAllGatherPadsToEqualBlocks) {
  // 10 rows over 4 ranks (3, 3, 3, 1), 1 column of f32: each rank pads to 3
  // rows (12 bytes), gathers 12 rows (48), slices 10 (40): the largest sum
  // is gathered + slice = 88.
  auto b = computeRedistributionBuffers(
      {10, 1}, 4, {4},
      {step(StepKind::AllGather, Placement::shard(0), Placement::replicate(),
            {Placement::shard(0)})});
  EXPECT_EQ(b, (llvm::SmallVector<int64_t>{88, 88, 88, 88}));
}

TEST(RedistributionBuffers, UnevenReduceScatterPadsItsInput) {
  // P(sum) 5x1 f32 -> S(0) on 4 ranks (2, 2, 1, 0 rows): pad to 8 rows (32),
  // scatter 2 (8), slice the chunk: max(32 + 8, 8 + chunk) = 40.
  auto b = computeRedistributionBuffers(
      {5, 1}, 4, {4},
      {step(StepKind::ReduceScatter, Placement::partial(ReduceOp::Sum),
            Placement::shard(0), {Placement::partial(ReduceOp::Sum)})});
  EXPECT_EQ(b, (llvm::SmallVector<int64_t>{40, 40, 40, 40}));
}

TEST(RedistributionBuffers, TwoStepsFreeTheMiddleBuffer) {
  // 4x4 f32 [S(0), S(1)] -> [R, R] on 2x2: undo the inner axis first
  // (S(1) -> R: 2x4 out, 32 bytes), then the outer (S(0) -> R: 4x4 = 64
  // while the 32-byte middle is still read): 96.
  RedistributeStep inner = step(StepKind::AllGather, Placement::shard(1),
                                Placement::replicate(),
                                {Placement::shard(0), Placement::shard(1)});
  inner.axis = 1;
  RedistributeStep outer =
      step(StepKind::AllGather, Placement::shard(0), Placement::replicate(),
           {Placement::shard(0), Placement::replicate()});
  auto b = computeRedistributionBuffers({4, 4}, 4, {2, 2}, {inner, outer});
  EXPECT_EQ(b, (llvm::SmallVector<int64_t>(4, 96)));
}

} // namespace
