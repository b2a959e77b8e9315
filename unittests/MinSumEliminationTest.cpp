//===- MinSumEliminationTest.cpp - exact min-sum by elimination -----------===//
//
// Variable elimination against brute force on random factor graphs (chains,
// trees and graphs with cycles, infinite entries included), and its size
// limit.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Support/MinSumElimination.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace mlir::dtensor;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct RandomFactor {
  std::vector<int> scope;
  std::vector<double> table; // caller's order, first variable slowest
};

double evaluate(const RandomFactor &f, const std::vector<int> &values,
                const std::vector<int64_t> &domains) {
  int64_t index = 0;
  for (int v : f.scope)
    index = index * domains[v] + values[v];
  return f.table[index];
}

TEST(MinSumElimination, MatchesBruteForceOnRandomGraphs) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 2 + rng() % 6;
    std::vector<int64_t> domains;
    for (int v = 0; v < n; ++v)
      domains.push_back(1 + rng() % 4);
    std::vector<RandomFactor> fs;
    int numFactors = 1 + rng() % 8;
    for (int k = 0; k < numFactors; ++k) {
      RandomFactor f;
      int arity = 1 + rng() % 3;
      for (int a = 0; a < arity; ++a) {
        int v = rng() % n;
        if (std::find(f.scope.begin(), f.scope.end(), v) == f.scope.end())
          f.scope.push_back(v);
      }
      int64_t size = 1;
      for (int v : f.scope)
        size *= domains[v];
      for (int64_t i = 0; i < size; ++i)
        f.table.push_back(rng() % 11 == 0 ? kInf : (rng() % 1000) / 10.0);
      fs.push_back(f);
    }
    MinSumElimination problem(1 << 20);
    for (int64_t d : domains)
      problem.addVariable(d);
    for (const RandomFactor &f : fs)
      ASSERT_TRUE(problem.addFactor(f.scope, [&](llvm::ArrayRef<int> vals) {
        int64_t index = 0;
        for (auto [v, x] : llvm::zip(f.scope, vals))
          index = index * domains[v] + x;
        return f.table[index];
      }));
    int kept = rng() % n;
    // Sometimes a second kept variable, fixed at its value 0 below.
    int second = trial % 3 == 0 ? (kept + 1) % n : -1;
    if (second >= 0) {
      ASSERT_TRUE(problem.solve({kept, second}));
      fs.push_back({{second}, std::vector<double>(domains[second], kInf)});
      fs.back().table[0] = 0;
    } else {
      ASSERT_TRUE(problem.solve({kept}));
    }
    // Brute force: the minimum per value of `kept`.
    std::vector<double> best(domains[kept], kInf);
    std::vector<int> values(n, 0);
    while (true) {
      double total = 0;
      for (const RandomFactor &f : fs)
        total += evaluate(f, values, domains);
      best[values[kept]] = std::min(best[values[kept]], total);
      int j = n - 1;
      while (j >= 0 && ++values[j] == domains[j])
        values[j--] = 0;
      if (j < 0)
        break;
    }
    for (int64_t k = 0; k < domains[kept]; ++k) {
      llvm::SmallVector<int, 2> keptValues{static_cast<int>(k)};
      if (second >= 0)
        keptValues.push_back(0);
      double got = problem.getCost(keptValues);
      if (std::isinf(best[k])) {
        EXPECT_TRUE(std::isinf(got)) << "trial " << trial;
        continue;
      }
      EXPECT_NEAR(got, best[k], 1e-9) << "trial " << trial;
      // The assignment reaches the cost it reports.
      std::vector<int> a = problem.getAssignment(keptValues);
      EXPECT_EQ(a[kept], k);
      double total = 0;
      for (const RandomFactor &f : fs)
        total += evaluate(f, a, domains);
      EXPECT_NEAR(total, best[k], 1e-9) << "trial " << trial;
    }
  }
}

TEST(MinSumElimination, LongChainStaysSmall) {
  // A chain x0 - x1 - ... - x199 with 10 values each, x0 = 0, a change
  // to value k costing 1 + k: tables of 100.
  MinSumElimination problem(1000);
  for (int v = 0; v < 200; ++v)
    problem.addVariable(10);
  ASSERT_TRUE(problem.addFactor({0}, [](llvm::ArrayRef<int> x) {
    return x[0] == 0 ? 0.0 : kInf;
  }));
  for (int v = 0; v + 1 < 200; ++v)
    ASSERT_TRUE(problem.addFactor({v, v + 1}, [](llvm::ArrayRef<int> x) {
      return x[0] == x[1] ? 0.0 : 1.0 + x[1];
    }));
  ASSERT_TRUE(problem.solve({199}));
  EXPECT_EQ(problem.getCost({0}), 0.0);
  EXPECT_EQ(problem.getCost({3}), 4.0);
  EXPECT_LE(problem.getLargestTable(), 100);
}

TEST(MinSumElimination, RefusesTablesPastTheLimit) {
  MinSumElimination problem(50);
  for (int v = 0; v < 3; ++v)
    problem.addVariable(8);
  EXPECT_FALSE(problem.addFactor({0, 1}, [](llvm::ArrayRef<int>) {
    return 0.0;
  }));
  // A star around x0: eliminating x0 would tabulate x1 x x2 (64 > 50) and
  // eliminating a leaf first is fine, so it succeeds.
  ASSERT_TRUE(problem.addFactor({0}, [](llvm::ArrayRef<int> x) {
    return double(x[0]);
  }));
  ASSERT_TRUE(problem.solve({2}));
  EXPECT_EQ(problem.getCost({5}), 0.0);
}

} // namespace
