//===- MixedIntegerProgram.cpp - 0-1 programs solved with CBC -------------===//

#include "dtensor/Support/MixedIntegerProgram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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
  for (const Column &c : columns)
    Cbc_addCol(m, "", clampBound(c.lower), clampBound(c.upper), c.cost,
               c.integer, 0, nullptr, nullptr);
  std::vector<int> cols;
  std::vector<double> coefs;
  for (const Row &r : rows) {
    cols.clear();
    coefs.clear();
    for (auto [var, coef] : r.terms) {
      cols.push_back(var);
      coefs.push_back(coef);
    }
    int nz = static_cast<int>(cols.size());
    if (r.lower == r.upper) {
      Cbc_addRow(m, "", nz, cols.data(), coefs.data(), 'E', r.lower);
      continue;
    }
    if (!std::isinf(r.lower))
      Cbc_addRow(m, "", nz, cols.data(), coefs.data(), 'G', r.lower);
    if (!std::isinf(r.upper))
      Cbc_addRow(m, "", nz, cols.data(), coefs.data(), 'L', r.upper);
  }
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
