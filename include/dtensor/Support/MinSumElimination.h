//===- MinSumElimination.h - exact min-sum by variable elimination -*- C++ -*-===//
//
// Minimises a sum of cost terms ("factors"), each over a few discrete
// variables, exactly, by variable elimination (nonserial dynamic
// programming, Bertelè and Brioschi 1972): a variable is eliminated by
// tabulating, for every assignment of the variables it shares a factor
// with, its cheapest value; the tables stay small when the program's
// dependence graph is narrow (an op's strategy interacts with its operands'
// producers and its results' readers). Some variables are kept to the end, so
// the minimum comes per value of them. IR-free: the global planner states a
// segment's strategy choice in these terms.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_MINSUMELIMINATION_H
#define DTENSOR_SUPPORT_MINSUMELIMINATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace mlir {
namespace dtensor {

class MinSumElimination {
public:
  /// `maxEntries` bounds every table (a factor's, or one elimination
  /// makes); past it `addFactor` or `solve` fails.
  explicit MinSumElimination(int64_t maxEntries) : maxEntries(maxEntries) {}

  /// Adds a variable with values 0 .. domain-1 (domain >= 1); returns its
  /// index.
  int addVariable(int64_t domain);

  /// Adds the term `cost` over `scope` (distinct variables): `cost(values)`
  /// is its cost when scope[i] has values[i] (infinite: not allowed).
  /// Returns false if its table would have more than `maxEntries` entries.
  bool addFactor(llvm::ArrayRef<int> scope,
                 llvm::function_ref<double(llvm::ArrayRef<int>)> cost);

  /// Eliminates every variable but those of `kept` (distinct). Returns
  /// false if some table would exceed `maxEntries` (nothing is solved then).
  bool solve(llvm::ArrayRef<int> kept);

  /// After `solve`: the least total cost with kept[i] at values[i]
  /// (infinite if nothing is allowed), and the value of every variable
  /// reaching it.
  double getCost(llvm::ArrayRef<int> values) const;
  std::vector<int> getAssignment(llvm::ArrayRef<int> values) const;

  /// The largest table built, in entries.
  int64_t getLargestTable() const { return largestTable; }

private:
  struct Factor {
    /// Sorted variables, and the table in mixed radix (last variable
    /// fastest).
    llvm::SmallVector<int, 4> scope;
    std::vector<double> table;
    bool alive = true;
  };
  /// One elimination: the variable, the others of its factors, and its
  /// best value for each assignment of them.
  struct Step {
    int variable;
    llvm::SmallVector<int, 4> scope;
    std::vector<uint16_t> best;
  };

  int64_t tableSize(llvm::ArrayRef<int> scope) const;
  void eliminate(int variable, llvm::ArrayRef<int> factorIds,
                 llvm::ArrayRef<int> scope);

  int64_t maxEntries;
  int64_t largestTable = 0;
  std::vector<int64_t> domains;
  std::vector<Factor> factors;
  /// Factors (alive or not) that mention each variable.
  std::vector<llvm::SmallVector<int, 4>> factorsOf;
  std::vector<Step> steps;
  llvm::SmallVector<int, 2> keptVariables;
  /// The cost of each assignment of the kept variables (mixed radix, the
  /// last one fastest).
  std::vector<double> keptCosts;
};

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_MINSUMELIMINATION_H
