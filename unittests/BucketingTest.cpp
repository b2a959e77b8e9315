//===- BucketingTest.cpp - DDPOptimizer bucketing -------------------------===//
//
// The examples of docs/semantics.md section 6 and the corner cases of the
// DDPOptimizer rules, on abstract graphs.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Support/Bucketing.h"

#include "gtest/gtest.h"

#include <map>
#include <string>
#include <vector>

using namespace mlir::dtensor;

namespace {

constexpr int64_t kMiB = 1024 * 1024;

/// Builds a graph from named nodes: `add("m2", {"w2"}, {"out"})` appends a
/// node using parameter w2 whose result feeds node "out" (or "output", the
/// graph output). Users may be named before they are added.
class GraphBuilder {
public:
  void param(const std::string &name, int64_t bytes) {
    paramIds[name] = paramNames.size();
    paramNames.push_back(name);
    paramBytes.push_back(bytes);
  }

  void add(const std::string &name, std::vector<std::string> params,
           std::vector<std::string> users) {
    nodeIds[name] = names.size();
    names.push_back(name);
    BucketNode node;
    for (const std::string &p : params)
      node.params.push_back({paramIds.at(p), paramBytes[paramIds.at(p)]});
    nodes.push_back(node);
    pendingUsers.push_back(std::move(users));
  }

  /// Resolves user names and runs the bucketing.
  llvm::SmallVector<Bucket> run(int64_t cap, int64_t firstCap) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      nodes[i].users.clear();
      nodes[i].usedByOutput = false;
      for (const std::string &u : pendingUsers[i]) {
        if (u == "output") {
          nodes[i].usedByOutput = true;
          continue;
        }
        size_t user = nodeIds.at(u);
        EXPECT_GT(user, i) << "user " << u << " of " << names[i];
        nodes[i].users.push_back(user);
      }
    }
    return computeDDPBuckets(nodes, cap, firstCap);
  }

  /// Parameter names of a bucket, in the order it lists them.
  std::vector<std::string> params(const Bucket &b) const {
    std::vector<std::string> out;
    for (const BucketParam &p : b.params)
      out.push_back(paramNames[p.id]);
    return out;
  }

  /// Name of the first node of a bucket.
  const std::string &first(const Bucket &b) const { return names[b.begin]; }

  size_t size() const { return nodes.size(); }

private:
  std::map<std::string, unsigned> paramIds;
  std::vector<std::string> paramNames;
  std::vector<int64_t> paramBytes;
  std::map<std::string, size_t> nodeIds;
  std::vector<std::string> names;
  std::vector<BucketNode> nodes;
  std::vector<std::vector<std::string>> pendingUsers;
};

/// Checks that the buckets cover [0, n) in order, without gaps.
void expectPartition(llvm::ArrayRef<Bucket> buckets, size_t n) {
  ASSERT_FALSE(buckets.empty());
  EXPECT_EQ(buckets.front().begin, 0u);
  EXPECT_EQ(buckets.back().end, n);
  for (size_t i = 1; i < buckets.size(); ++i)
    EXPECT_EQ(buckets[i - 1].end, buckets[i].begin);
}

/// A chain of Linear(a, b) layers with bias, each as the ops a frontend
/// emits: empty + fill (no parameters), matmul (weight), broadcast (bias),
/// add. Layer i feeds layer i + 1; the last feeds the output.
GraphBuilder linearChain(int layers, int64_t a, int64_t b) {
  GraphBuilder g;
  for (int i = 0; i < layers; ++i) {
    std::string s = std::to_string(i);
    std::string next = i + 1 < layers ? "mm" + std::to_string(i + 1) : "output";
    g.param("w" + s, 4 * a * b);
    g.param("b" + s, 4 * b);
    g.add("empty" + s, {}, {"fill" + s, "bcast" + s, "add" + s});
    g.add("fill" + s, {}, {"mm" + s});
    g.add("mm" + s, {"w" + s}, {"add" + s});
    g.add("bcast" + s, {"b" + s}, {"add" + s});
    g.add("add" + s, {}, {next});
  }
  return g;
}

TEST(Bucketing, CapBytesTruncate) {
  EXPECT_EQ(bucketCapBytes(25), 25 * kMiB);
  EXPECT_EQ(bucketCapBytes(1), kMiB);
  EXPECT_EQ(bucketCapBytes(3.5), 3670016);
  EXPECT_EQ(bucketCapBytes(0.001), 1048); // 1048.576 truncated
  EXPECT_EQ(bucketCapBytes(0), 0);
}

// 4 x Linear(1000, 1000) with bias: 4,004,000 bytes per layer; at 3.5 MB
// (3,670,016 bytes) every layer fills a bucket.
TEST(Bucketing, FourLinear1000At3_5MB) {
  GraphBuilder g = linearChain(4, 1000, 1000);
  auto buckets = g.run(bucketCapBytes(3.5), bucketCapBytes(1));
  ASSERT_EQ(buckets.size(), 4u);
  expectPartition(buckets, g.size());
  for (int i = 0; i < 4; ++i) {
    std::string s = std::to_string(i);
    EXPECT_EQ(buckets[i].bytes, 4004000);
    EXPECT_EQ(g.params(buckets[i]),
              (std::vector<std::string>{"w" + s, "b" + s}));
  }
  // A layer's empty and fill come before its matmul: they land in the
  // previous bucket (the first bucket keeps the ones of layer 0).
  EXPECT_EQ(g.first(buckets[0]), "empty0");
  EXPECT_EQ(g.first(buckets[1]), "mm1");
  EXPECT_EQ(g.first(buckets[3]), "mm3");
}

// 2 x Linear(1024, 1024): 4,198,400 bytes per layer >= 4 MiB.
TEST(Bucketing, TwoLinear1024At4MB) {
  GraphBuilder g = linearChain(2, 1024, 1024);
  auto buckets = g.run(bucketCapBytes(4), bucketCapBytes(1));
  ASSERT_EQ(buckets.size(), 2u);
  expectPartition(buckets, g.size());
  EXPECT_EQ(buckets[0].bytes, 4198400);
  EXPECT_EQ(buckets[1].bytes, 4198400);
}

// Linear(22, 5) + Linear(5, 5): 460 + 120 = 580 bytes, far below 250 MB and
// below the first cap: one bucket, no split.
TEST(Bucketing, SmallModelAt250MBIsOneBucket) {
  GraphBuilder g;
  g.param("w0", 4 * 22 * 5);
  g.param("b0", 4 * 5);
  g.param("w1", 4 * 5 * 5);
  g.param("b1", 4 * 5);
  g.add("mm0", {"w0"}, {"add0"});
  g.add("bcast0", {"b0"}, {"add0"});
  g.add("add0", {}, {"relu"});
  g.add("relu", {}, {"mm1"});
  g.add("mm1", {"w1"}, {"add1"});
  g.add("bcast1", {"b1"}, {"add1"});
  g.add("add1", {}, {"output"});
  auto buckets = g.run(bucketCapBytes(250), bucketCapBytes(1));
  ASSERT_EQ(buckets.size(), 1u);
  expectPartition(buckets, g.size());
  EXPECT_EQ(buckets[0].bytes, 580);
  EXPECT_EQ(g.params(buckets[0]),
            (std::vector<std::string>{"w0", "b0", "w1", "b1"}));
}

/// The ops of examples/block.mlir in program order, with their users.
GraphBuilder rfcBlock() {
  GraphBuilder g;
  for (const char *w : {"wq", "wk", "wv", "wo"})
    g.param(w, kMiB);
  g.param("w1", 4 * kMiB);
  g.param("w2", 4 * kMiB);
  g.add("zero", {}, {"z512", "zs", "zo", "z2048", "relu"});
  g.add("scale", {}, {"ss"});
  g.add("xf", {}, {"q", "k", "v", "h"});
  g.add("e512", {}, {"z512", "h", "out"});
  g.add("z512", {}, {"q", "k", "v", "attn", "m2"});
  g.add("q", {"wq"}, {"q4"});
  g.add("k", {"wk"}, {"k4"});
  g.add("v", {"wv"}, {"v4"});
  g.add("q4", {}, {"s"});
  g.add("k4", {}, {"s"});
  g.add("v4", {}, {"o"});
  g.add("es", {}, {"zs", "ss", "p"});
  g.add("zs", {}, {"s"});
  g.add("s", {}, {"ss"});
  g.add("ss", {}, {"p"});
  g.add("p", {}, {"o"});
  g.add("eo", {}, {"zo"});
  g.add("zo", {}, {"o"});
  g.add("o", {}, {"of"});
  g.add("of", {}, {"attn"});
  g.add("attn", {"wo"}, {"h"});
  g.add("h", {}, {"m1", "out"});
  g.add("e2048", {}, {"z2048", "relu"});
  g.add("z2048", {}, {"m1"});
  g.add("m1", {"w1"}, {"relu"});
  g.add("relu", {}, {"m2"});
  g.add("m2", {"w2"}, {"out"});
  g.add("out", {}, {"y"});
  g.add("y", {}, {"output"});
  return g;
}

using Names = std::vector<std::string>;

TEST(Bucketing, RfcBlockAt25MB) {
  GraphBuilder g = rfcBlock();
  auto buckets = g.run(bucketCapBytes(25), bucketCapBytes(1));
  ASSERT_EQ(buckets.size(), 2u);
  expectPartition(buckets, g.size());
  EXPECT_EQ(g.params(buckets[0]), (Names{"wq", "wk", "wv", "wo", "w1"}));
  EXPECT_EQ(g.params(buckets[1]), (Names{"w2"}));
  EXPECT_EQ(buckets[0].bytes, 8 * kMiB);
  EXPECT_EQ(buckets[1].bytes, 4 * kMiB);
  EXPECT_EQ(g.first(buckets[1]), "m2");
}

TEST(Bucketing, RfcBlockAt4MB) {
  GraphBuilder g = rfcBlock();
  auto buckets = g.run(bucketCapBytes(4), bucketCapBytes(1));
  ASSERT_EQ(buckets.size(), 3u);
  expectPartition(buckets, g.size());
  EXPECT_EQ(g.params(buckets[0]), (Names{"wq", "wk", "wv", "wo"}));
  EXPECT_EQ(g.params(buckets[1]), (Names{"w1"}));
  EXPECT_EQ(g.params(buckets[2]), (Names{"w2"}));
  // The ops before wq hold no parameter: that leading bucket was merged.
  EXPECT_EQ(g.first(buckets[0]), "zero");
  EXPECT_EQ(g.first(buckets[1]), "m1");
}

TEST(Bucketing, RfcBlockAt1MB) {
  GraphBuilder g = rfcBlock();
  auto buckets = g.run(bucketCapBytes(1), bucketCapBytes(1));
  ASSERT_EQ(buckets.size(), 6u);
  expectPartition(buckets, g.size());
  Names expected = {"wq", "wk", "wv", "wo", "w1", "w2"};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(g.params(buckets[i]), (Names{expected[i]})) << "bucket " << i;
  EXPECT_EQ(g.first(buckets[0]), "zero");
  EXPECT_EQ(g.first(buckets[1]), "k");
  EXPECT_EQ(g.first(buckets[2]), "v");
  EXPECT_EQ(g.first(buckets[3]), "attn");
}

// The first bucket (nearest the output) closes at the first cap even when
// the bucket cap is larger.
TEST(Bucketing, FirstBucketClosesAtFirstCap) {
  GraphBuilder g;
  g.param("a", 2 * kMiB);
  g.param("b", 2 * kMiB);
  g.param("c", 2 * kMiB);
  g.add("n0", {"a"}, {"n1"});
  g.add("n1", {"b"}, {"n2"});
  g.add("n2", {"c"}, {"output"});
  auto buckets = g.run(bucketCapBytes(25), bucketCapBytes(1));
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(g.params(buckets[0]), (Names{"a", "b"}));
  EXPECT_EQ(g.params(buckets[1]), (Names{"c"}));
  // With a first cap above the total there is one bucket.
  EXPECT_EQ(g.run(bucketCapBytes(25), bucketCapBytes(10)).size(), 1u);
}

// A bucket exactly at the cap is full (>=).
TEST(Bucketing, ExactlyAtCapIsFull) {
  GraphBuilder g;
  g.param("a", 100);
  g.param("b", 100);
  g.add("n0", {"a"}, {"n1"});
  g.add("n1", {"b"}, {"output"});
  EXPECT_EQ(g.run(100, 100).size(), 2u);
  EXPECT_EQ(g.run(101, 101).size(), 1u);
}

// A parameter used by two ops counts twice (and is listed twice).
TEST(Bucketing, SharedParameterCountsTwice) {
  GraphBuilder g;
  g.param("tied", 600);
  g.add("embed", {"tied"}, {"proj"});
  g.add("proj", {"tied"}, {"output"});
  auto one = g.run(2000, 2000);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].bytes, 1200);
  EXPECT_EQ(g.params(one[0]), (Names{"tied", "tied"}));
  // At 1000 bytes the first use alone does not fill the first bucket; with
  // both it still is one bucket. At 500 each use fills one.
  EXPECT_EQ(g.run(1000, 1000).size(), 1u);
  auto two = g.run(500, 500);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].bytes, 600);
  EXPECT_EQ(two[1].bytes, 600);
}

// A full bucket whose ops have no user outside it keeps growing: here the
// bucket holding n1 and the dead n2 is full, but nothing in it feeds a later
// bucket, so n0 joins it instead of opening a new bucket.
TEST(Bucketing, FullBucketWithoutOutsideUserKeepsGrowing) {
  GraphBuilder g;
  g.param("p0", 10);
  g.param("p1", 10);
  g.param("p3", 10);
  g.add("n0", {"p0"}, {"n3"});
  g.add("n1", {"p1"}, {"n2"});
  g.add("n2", {}, {});
  g.add("n3", {"p3"}, {"output"});
  auto buckets = g.run(10, 10);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets[0].begin, 0u);
  EXPECT_EQ(buckets[0].end, 3u);
  EXPECT_EQ(buckets[0].bytes, 20);
  EXPECT_EQ(g.params(buckets[0]), (Names{"p0", "p1"}));
  EXPECT_EQ(g.params(buckets[1]), (Names{"p3"}));
}

// Only the leading (input-side) bucket is merged when empty; an empty bucket
// elsewhere stays.
TEST(Bucketing, OnlyLeadingEmptyBucketMerges) {
  GraphBuilder g;
  g.add("n0", {}, {"n1"});
  g.add("n1", {}, {"n2"});
  g.add("n2", {}, {"output"});
  // Cap 0: every bucket is full at once; each node with an outside user
  // starts a new one. Three buckets, the leading one merged: two remain.
  auto buckets = g.run(0, 0);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets[0].begin, 0u);
  EXPECT_EQ(buckets[0].end, 2u);
  EXPECT_EQ(buckets[1].begin, 2u);
  EXPECT_EQ(buckets[1].bytes, 0);
}

// A node feeding the output is an outside user of every bucket.
TEST(Bucketing, OutputCountsAsOutsideUser) {
  GraphBuilder g;
  g.param("a", 10);
  g.param("b", 10);
  g.add("n0", {"a"}, {"output"});
  g.add("n1", {"b"}, {});
  // n1 is dead: the first bucket {n1} is full but has no outside user, so n0
  // joins it.
  EXPECT_EQ(g.run(10, 10).size(), 1u);
  GraphBuilder h;
  h.param("a", 10);
  h.param("b", 10);
  h.add("n0", {"a"}, {"n1"});
  h.add("n1", {"b"}, {"output"});
  EXPECT_EQ(h.run(10, 10).size(), 2u);
}

TEST(Bucketing, EmptyGraph) {
  auto buckets = computeDDPBuckets({}, 10, 10);
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(buckets[0].size(), 0u);
  EXPECT_EQ(buckets[0].bytes, 0);
}

// Many small layers: buckets of ceil(cap / layer) layers each, found in
// linear time.
TEST(Bucketing, LongChain) {
  constexpr size_t n = 200000;
  std::vector<BucketNode> nodes(n);
  for (size_t i = 0; i < n; ++i) {
    nodes[i].params.push_back({static_cast<unsigned>(i), 100});
    if (i + 1 < n)
      nodes[i].users.push_back(i + 1);
    else
      nodes[i].usedByOutput = true;
  }
  auto buckets = computeDDPBuckets(nodes, 1000, 1000);
  EXPECT_EQ(buckets.size(), n / 10);
  for (const Bucket &b : buckets)
    EXPECT_EQ(b.bytes, 1000);
}

} // namespace
