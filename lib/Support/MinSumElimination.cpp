//===- MinSumElimination.cpp - exact min-sum by variable elimination ------===//

#include "dtensor/Support/MinSumElimination.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace mlir::dtensor;

int MinSumElimination::addVariable(int64_t domain) {
  assert(domain >= 1 && domain <= std::numeric_limits<uint16_t>::max() &&
         "domain out of range");
  domains.push_back(domain);
  factorsOf.emplace_back();
  return static_cast<int>(domains.size()) - 1;
}

int64_t MinSumElimination::tableSize(llvm::ArrayRef<int> scope) const {
  int64_t size = 1;
  for (int v : scope) {
    size *= domains[v];
    if (size > maxEntries)
      return maxEntries + 1;
  }
  return size;
}

namespace {
/// Advances a mixed-radix counter (last digit fastest).
void advance(llvm::MutableArrayRef<int> digits, llvm::ArrayRef<int64_t> radix) {
  for (int64_t j = static_cast<int64_t>(digits.size()) - 1; j >= 0; --j) {
    if (++digits[j] < radix[j])
      return;
    digits[j] = 0;
  }
}

/// Strides of a mixed-radix table over `scope` (last variable fastest).
llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int> scope,
                                        llvm::ArrayRef<int64_t> domains) {
  llvm::SmallVector<int64_t, 4> strides(scope.size(), 1);
  for (int64_t j = static_cast<int64_t>(scope.size()) - 2; j >= 0; --j)
    strides[j] = strides[j + 1] * domains[scope[j + 1]];
  return strides;
}
} // namespace

bool MinSumElimination::addFactor(
    llvm::ArrayRef<int> scope,
    llvm::function_ref<double(llvm::ArrayRef<int>)> cost) {
  Factor f;
  f.scope.assign(scope.begin(), scope.end());
  llvm::sort(f.scope);
  int64_t size = tableSize(f.scope);
  if (size > maxEntries)
    return false;
  largestTable = std::max(largestTable, size);
  // The caller's order of the sorted scope.
  llvm::SmallVector<int, 4> position;
  for (int v : scope)
    position.push_back(llvm::find(f.scope, v) - f.scope.begin());
  llvm::SmallVector<int64_t, 4> radix;
  for (int v : f.scope)
    radix.push_back(domains[v]);
  llvm::SmallVector<int, 4> digits(f.scope.size(), 0), values(scope.size());
  f.table.resize(size);
  for (int64_t i = 0; i < size; ++i) {
    for (auto [k, p] : llvm::enumerate(position))
      values[k] = digits[p];
    f.table[i] = cost(values);
    advance(digits, radix);
  }
  int id = static_cast<int>(factors.size());
  for (int v : f.scope)
    factorsOf[v].push_back(id);
  factors.push_back(std::move(f));
  return true;
}

void MinSumElimination::eliminate(int variable, llvm::ArrayRef<int> factorIds,
                                  llvm::ArrayRef<int> scope) {
  int64_t size = tableSize(scope);
  largestTable = std::max(largestTable, size);
  // Where each factor's entry for the digits of `scope` and the variable is.
  struct View {
    const double *table;
    llvm::SmallVector<int64_t, 4> strides;
    int64_t variableStride;
  };
  llvm::SmallVector<View, 4> views;
  for (int id : factorIds) {
    const Factor &f = factors[id];
    llvm::SmallVector<int64_t, 4> own = stridesOf(f.scope, domains);
    View view{f.table.data(), llvm::SmallVector<int64_t, 4>(scope.size(), 0),
              0};
    for (auto [k, v] : llvm::enumerate(f.scope)) {
      if (v == variable) {
        view.variableStride = own[k];
        continue;
      }
      view.strides[llvm::find(scope, v) - scope.begin()] = own[k];
    }
    views.push_back(std::move(view));
  }
  llvm::SmallVector<int64_t, 4> radix;
  for (int v : scope)
    radix.push_back(domains[v]);
  Factor out;
  out.scope.assign(scope.begin(), scope.end());
  out.table.resize(size);
  Step step{variable, out.scope, std::vector<uint16_t>(size, 0)};
  llvm::SmallVector<int, 4> digits(scope.size(), 0);
  llvm::SmallVector<int64_t, 4> base(views.size());
  for (int64_t i = 0; i < size; ++i) {
    for (auto [f, view] : llvm::enumerate(views)) {
      base[f] = 0;
      for (auto [d, s] : llvm::zip(digits, view.strides))
        base[f] += d * s;
    }
    double best = std::numeric_limits<double>::infinity();
    int bestValue = 0;
    for (int64_t x = 0; x < domains[variable]; ++x) {
      double sum = 0;
      for (auto [f, view] : llvm::enumerate(views))
        sum += view.table[base[f] + x * view.variableStride];
      if (sum < best) {
        best = sum;
        bestValue = static_cast<int>(x);
      }
    }
    out.table[i] = best;
    step.best[i] = static_cast<uint16_t>(bestValue);
    advance(digits, radix);
  }
  for (int id : factorIds)
    factors[id].alive = false;
  int id = static_cast<int>(factors.size());
  for (int v : out.scope)
    factorsOf[v].push_back(id);
  factors.push_back(std::move(out));
  steps.push_back(std::move(step));
}

bool MinSumElimination::solve(llvm::ArrayRef<int> kept) {
  keptVariables.assign(kept.begin(), kept.end());
  int n = static_cast<int>(domains.size());
  std::vector<bool> done(n, false);
  for (int v : kept)
    done[v] = true;
  if (tableSize(kept) > maxEntries)
    return false;
  // The alive factors of a variable and the others they mention.
  auto neighbourhood = [&](int v, llvm::SmallVectorImpl<int> &ids,
                           llvm::SmallVectorImpl<int> &scope) {
    ids.clear();
    scope.clear();
    for (int id : factorsOf[v]) {
      if (!factors[id].alive)
        continue;
      ids.push_back(id);
      for (int u : factors[id].scope)
        if (u != v && !llvm::is_contained(scope, u))
          scope.push_back(u);
    }
    llvm::sort(scope);
  };
  llvm::SmallVector<int, 8> ids, scope;
  for (int remaining = n - static_cast<int>(kept.size()); remaining > 0;
       --remaining) {
    // Greedily, the variable whose elimination builds the smallest table.
    int best = -1;
    int64_t bestSize = 0;
    for (int v = 0; v < n; ++v) {
      if (done[v])
        continue;
      neighbourhood(v, ids, scope);
      int64_t size = tableSize(scope) * domains[v];
      if (best < 0 || size < bestSize) {
        best = v;
        bestSize = size;
      }
    }
    neighbourhood(best, ids, scope);
    if (tableSize(scope) > maxEntries ||
        bestSize > maxEntries * static_cast<int64_t>(domains[best]))
      return false;
    eliminate(best, ids, scope);
    done[best] = true;
  }
  // What is left are factors over kept variables only.
  llvm::SmallVector<int64_t, 2> radix;
  for (int v : kept)
    radix.push_back(domains[v]);
  int64_t size = tableSize(kept);
  keptCosts.assign(size, 0.0);
  llvm::SmallVector<int, 2> digits(kept.size(), 0);
  std::vector<int> values(n, 0);
  for (int64_t i = 0; i < size; ++i) {
    for (auto [v, d] : llvm::zip(kept, digits))
      values[v] = d;
    for (const Factor &f : factors) {
      if (!f.alive)
        continue;
      int64_t index = 0;
      for (int v : f.scope)
        index = index * domains[v] + values[v];
      keptCosts[i] += f.table[index];
    }
    advance(digits, radix);
  }
  return true;
}

double MinSumElimination::getCost(llvm::ArrayRef<int> keptValues) const {
  int64_t index = 0;
  for (auto [v, x] : llvm::zip_equal(keptVariables, keptValues))
    index = index * domains[v] + x;
  return keptCosts[index];
}

std::vector<int>
MinSumElimination::getAssignment(llvm::ArrayRef<int> keptValues) const {
  std::vector<int> values(domains.size(), 0);
  for (auto [v, x] : llvm::zip_equal(keptVariables, keptValues))
    values[v] = x;
  for (const Step &step : llvm::reverse(steps)) {
    int64_t index = 0;
    for (int v : step.scope)
      index = index * domains[v] + values[v];
    values[step.variable] = step.best[index];
  }
  return values;
}
