//===- HandlePoolTest.cpp - event reuse and request bookkeeping -----------===//

#include "gpu/HandlePool.h"

#include <gtest/gtest.h>

#include <string>

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
