//===- MixedIntegerProgram.cpp - 0-1 programs solved with CBC -------------===//

#include "dtensor/Support/MixedIntegerProgram.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <coin/Cbc_C_Interface.h>

using namespace mlir::dtensor;

int MixedIntegerProgram::addVariable(double lower, double upper, double cost,
                                     bool integer) {
  columns.push_back({lower, upper, cost, integer});
  return static_cast<int>(columns.size()) - 1;
}

void MixedIntegerProgram::addRow(llvm::ArrayRef<std::pair<int, double>> terms,
                                 double lower, double upper) {
  rows.push_back({{terms.begin(), terms.end()}, lower, upper});
}

namespace {
/// Owns a CBC model.
struct CbcModel {
  Cbc_Model *model = Cbc_newModel();
  ~CbcModel() { Cbc_deleteModel(model); }
};

/// CBC's stand-in for an infinite bound.
double clampBound(double v) {
  constexpr double kCbcInfinity = 1e30;
  return std::isinf(v) ? (v > 0 ? kCbcInfinity : -kCbcInfinity) : v;
}
} // namespace

MixedIntegerProgram::Result MixedIntegerProgram::solve(int64_t maxNodes,
                                                      double seconds) const {
  Result result;
  if (columns.empty()) {
    result.status = Status::Optimal;
    result.objective = 0;
    return result;
  }
  CbcModel cbc;
  Cbc_Model *m = cbc.model;
  Cbc_setLogLevel(m, 0);
  // The whole matrix at once, column by column (adding rows one at a time
  // makes CBC copy its matrix each time).
  int numCols = static_cast<int>(columns.size());
  int numRows = static_cast<int>(rows.size());
  std::vector<CoinBigIndex> start(numCols + 1, 0);
  for (const Row &r : rows)
    for (auto [var, coef] : r.terms)
      ++start[var + 1];
  for (int c = 0; c < numCols; ++c)
    start[c + 1] += start[c];
  std::vector<int> index(start.back());
  std::vector<double> value(start.back());
  std::vector<CoinBigIndex> next(start.begin(), start.end() - 1);
  std::vector<double> rowLower, rowUpper;
  for (auto [ri, r] : llvm::enumerate(rows)) {
    for (auto [var, coef] : r.terms) {
      index[next[var]] = static_cast<int>(ri);
      value[next[var]++] = coef;
    }
    rowLower.push_back(clampBound(r.lower));
    rowUpper.push_back(clampBound(r.upper));
  }
  std::vector<double> colLower, colUpper, cost;
  for (const Column &c : columns) {
    colLower.push_back(clampBound(c.lower));
    colUpper.push_back(clampBound(c.upper));
    cost.push_back(c.cost);
  }
  Cbc_loadProblem(m, numCols, numRows, start.data(), index.data(),
                  value.data(), colLower.data(), colUpper.data(), cost.data(),
                  rowLower.data(), rowUpper.data());
  for (auto [ci, c] : llvm::enumerate(columns))
    if (c.integer)
      Cbc_setInteger(m, static_cast<int>(ci));
  Cbc_setMaximumSeconds(m, seconds);
  Cbc_setMaximumNodes(m, static_cast<int>(std::min<int64_t>(maxNodes, INT32_MAX)));
  // Costs are in microseconds: a plan within 1e-6 us of the bound is optimal.
  Cbc_setAllowableGap(m, 1e-6);
  Cbc_solve(m);
  if (Cbc_isProvenInfeasible(m)) {
    result.status = Status::Infeasible;
    return result;
  }
  const double *x = Cbc_bestSolution(m);
  result.bound = Cbc_getBestPossibleObjValue(m);
  if (!x)
    return result;
  result.values.assign(x, x + columns.size());
  result.objective = Cbc_getObjValue(m);
  result.status =
      Cbc_isProvenOptimal(m) ? Status::Optimal : Status::Feasible;
  if (result.status == Status::Optimal)
    result.bound = result.objective;
  return result;
}
