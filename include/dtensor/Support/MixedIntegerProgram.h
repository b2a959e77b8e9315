//===- MixedIntegerProgram.h - 0-1 programs solved with CBC -----*- C++ -*-===//
//
// A small builder for mixed integer linear programs, min c^T x subject to
// rows lo <= a^T x <= hi and bounds on x, solved with COIN-OR CBC (Debian's
// coinor-libcbc-dev). IR-free: the global planner states its strategy
// choice in these terms.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_MIXEDINTEGERPROGRAM_H
#define DTENSOR_SUPPORT_MIXEDINTEGERPROGRAM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <utility>
#include <vector>

namespace mlir {
namespace dtensor {

class MixedIntegerProgram {
public:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  /// Adds a variable with bounds [lower, upper] and objective coefficient
  /// `cost`; returns its index.
  int addVariable(double lower, double upper, double cost, bool integer);
  int addBinary(double cost) { return addVariable(0, 1, cost, true); }
  /// Adds the row lower <= sum(coef * x[var]) <= upper (either may be
  /// infinite).
  void addRow(llvm::ArrayRef<std::pair<int, double>> terms, double lower,
              double upper);
  int getNumVariables() const { return static_cast<int>(columns.size()); }
  int getNumRows() const { return static_cast<int>(rows.size()); }

  enum class Status { Optimal, Feasible, Infeasible, Unsolved };
  struct Result {
    Status status = Status::Unsolved;
    std::vector<double> values;
    /// The solution's objective, and a lower bound on the optimum (equal
    /// when Optimal).
    double objective = kInfinity;
    double bound = 0;
  };
  /// Solves exploring at most `maxNodes` branch-and-bound nodes and within
  /// `seconds` of wall time (the best solution found so far and the bound
  /// when a limit is reached). The node limit keeps results reproducible.
  Result solve(int64_t maxNodes, double seconds) const;

private:
  struct Column {
    double lower, upper, cost;
    bool integer;
  };
  struct Row {
    llvm::SmallVector<std::pair<int, double>, 4> terms;
    double lower, upper;
  };
  std::vector<Column> columns;
  std::vector<Row> rows;
};

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_SUPPORT_MIXEDINTEGERPROGRAM_H
