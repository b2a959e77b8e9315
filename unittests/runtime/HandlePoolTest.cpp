//===- HandlePoolTest.cpp - event reuse and request bookkeeping -----------===//

#include "gpu/HandlePool.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

using namespace dtrt;

namespace {

TEST(HandlePool, ReusesReleasedHandles) {
  HandlePool<int> pool;
  int created = 0;
  auto create = [&created](int &handle) {
    handle = ++created;
    return 0;
  };
  int a = 0, b = 0, c = 0;
  ASSERT_EQ(pool.acquire(a, create), 0);
  ASSERT_EQ(pool.acquire(b, create), 0);
  EXPECT_EQ(created, 2);
  EXPECT_EQ(pool.inUse(), 2);
  pool.release(a);
  ASSERT_EQ(pool.acquire(c, create), 0);
  EXPECT_EQ(c, a) << "a released handle is reused before creating one";
  EXPECT_EQ(created, 2);
  pool.release(b);
  pool.release(c);
  EXPECT_EQ(pool.inUse(), 0);
  std::vector<int> destroyed;
  EXPECT_EQ(pool.drain([&](int handle) {
    destroyed.push_back(handle);
    return handle == 2 ? 5 : 0;
  }),
            5);
  EXPECT_EQ(destroyed.size(), 2u) << "a failure does not stop the drain";
  EXPECT_EQ(pool.available(), 0u);
}

TEST(HandlePool, CreationFailureIsReturned) {
  HandlePool<int> pool;
  int handle = 0;
  EXPECT_EQ(pool.acquire(handle, [](int &) { return 5; }), 5);
  EXPECT_EQ(pool.inUse(), 0);
}

TEST(RequestTable, HandlesArePositiveAndTakenOnce) {
  RequestTable<std::string> table;
  int64_t first = table.add("all_reduce");
  int64_t second = table.add("all_gather");
  EXPECT_GT(first, 0);
  EXPECT_NE(first, second);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.take(first), "all_reduce");
  EXPECT_EQ(table.take(first), std::nullopt) << "completed twice";
  EXPECT_EQ(table.take(0), std::nullopt);
  int64_t third = table.add("broadcast");
  EXPECT_NE(third, first) << "handles are never reused";
  std::vector<std::string> rest = table.takeAll();
  EXPECT_EQ(rest.size(), 2u);
  EXPECT_EQ(table.size(), 0u);
}

} // namespace

TEST(DeviceSpanLog, NestedSpansCloseInnermostFirst) {
  dtrt::DeviceSpanLog<int> log;
  log.open("step", 1);
  log.open("backward", 2);
  EXPECT_EQ(log.openCount(), 2u);
  EXPECT_TRUE(log.close(3));
  EXPECT_TRUE(log.close(4));
  EXPECT_FALSE(log.close(5));
  EXPECT_EQ(log.openCount(), 0u);
  std::vector<std::tuple<std::string, int, int>> seen;
  EXPECT_EQ(log.drain([&](const dtrt::DeviceSpanLog<int>::Span &s) {
    seen.emplace_back(s.name, s.start, s.done);
    return 0;
  }),
            0);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_tuple(std::string("backward"), 2, 3));
  EXPECT_EQ(seen[1], std::make_tuple(std::string("step"), 1, 4));
  EXPECT_EQ(log.finishedCount(), 0u);
}

TEST(DeviceSpanLog, DrainReturnsFirstFailureAndForgetsAll) {
  dtrt::DeviceSpanLog<int> log;
  for (int i = 0; i < 3; ++i) {
    log.open("s" + std::to_string(i), 10 * i);
    log.close(10 * i + 1);
  }
  int calls = 0;
  EXPECT_EQ(log.drain([&](const dtrt::DeviceSpanLog<int>::Span &s) {
    ++calls;
    return s.start == 0 ? 0 : 7 + s.start;
  }),
            17);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(log.drain([](const auto &) { return 1; }), 0);
}

TEST(DeviceSpanLog, AbandonedOpenSpansReleaseTheirEvents) {
  dtrt::DeviceSpanLog<int> log;
  log.open("a", 1);
  log.open("b", 2);
  log.close(3);
  std::vector<int> released;
  log.abandonOpen([&](int e) { released.push_back(e); });
  EXPECT_EQ(released, std::vector<int>{1});
  EXPECT_EQ(log.openCount(), 0u);
  EXPECT_EQ(log.finishedCount(), 1u);
}
