//===- Compare.h - the --check comparison -----------------------*- C++ -*-===//
//
// Compares the assembled outputs with the one-rank outputs. Integers (and
// i1) must be equal; floats pass where abs(x - y) <= atol + rtol * abs(y),
// where both are NaN, or where both are the same infinity. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_COMPARE_H
#define DTENSOR_TOOLS_DTENSOR_RUN_COMPARE_H

#include "HostArray.h"

#include <optional>
#include <string>
#include <vector>

namespace dtensor_run {

/// The first element that differs.
struct Mismatch {
  size_t output = 0;
  std::vector<int64_t> index;
  std::string actual, expected;
};

/// The outcome of a comparison.
struct CompareResult {
  bool ok = true;
  /// Largest abs(x - y) and abs(x - y) / max(abs(y), 1e-30) over every
  /// element; infinite where a NaN or an infinity is not matched.
  double maxAbsErr = 0, maxRelErr = 0;
  std::optional<Mismatch> first;
  /// Set when an output's shape or dtype differs from the expected one.
  std::string shapeError;
};

/// The tolerances of --check for floats of one dtype.
struct Tolerance {
  double rtol, atol;
};

/// The default tolerances of `dtype`: 1e-4/1e-5 for f32 and f64, 1e-2/1e-3
/// for f16 and 5e-2/1e-2 for bf16 (8 significant bits: partitioned and
/// one-rank runs round their partial sums in different orders, several
/// ulps apart).
Tolerance defaultTolerance(dtrt_dtype dtype);

/// Compares output `output` (`actual`) with `expected` and folds the
/// outcome into `result`. A tolerance not given is the dtype's default.
void compareArrays(size_t output, const HostArray &actual,
                   const HostArray &expected, std::optional<double> rtol,
                   std::optional<double> atol, CompareResult &result);

/// Compares every output.
CompareResult compareOutputs(const std::vector<HostArray> &actual,
                             const std::vector<HostArray> &expected,
                             std::optional<double> rtol,
                             std::optional<double> atol);

/// "check: PASS max_abs_err=<e> max_rel_err=<e>" (or FAIL), then on failure
/// a line naming the first element that differs, e.g.
/// "check: output #0 differs first at [1, 2]: got nan, expected 0.5".
std::string formatCheckReport(const CompareResult &result);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_COMPARE_H
