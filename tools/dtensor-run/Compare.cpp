//===- Compare.cpp - the --check comparison -------------------------------===//

#include "Compare.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>
#include <type_traits>

using namespace dtensor_run;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The error of one float pair and whether it passes.
template <typename T>
bool compareFloat(T x, T y, double rtol, double atol, double &absErr,
                  double &relErr) {
  absErr = relErr = 0;
  if (std::isnan(x) || std::isnan(y)) {
    if (std::isnan(x) && std::isnan(y))
      return true;
    absErr = relErr = kInf;
    return false;
  }
  if (std::isinf(x) || std::isinf(y)) {
    if (x == y)
      return true;
    absErr = relErr = kInf;
    return false;
  }
  double dx = x, dy = y;
  absErr = std::fabs(dx - dy);
  relErr = absErr / std::max(std::fabs(dy), 1e-30);
  return absErr <= atol + rtol * std::fabs(dy);
}

/// The error of one integer pair (computed without overflow) and whether
/// the two are equal.
template <typename T>
bool compareInteger(T x, T y, double &absErr, double &relErr) {
  long double diff = static_cast<long double>(x) - static_cast<long double>(y);
  absErr = static_cast<double>(std::fabs(diff));
  relErr = absErr / std::max(std::fabs(static_cast<double>(y)), 1e-30);
  return x == y;
}
} // namespace

Tolerance dtensor_run::defaultTolerance(dtrt_dtype dtype) {
  switch (dtype) {
  case DTRT_F16:
    return {1e-2, 1e-3};
  case DTRT_BF16:
    return {5e-2, 1e-2};
  default:
    return {1e-4, 1e-5};
  }
}

void dtensor_run::compareArrays(size_t output, const HostArray &actual,
                                const HostArray &expected,
                                std::optional<double> givenRtol,
                                std::optional<double> givenAtol,
                                CompareResult &result) {
  Tolerance tolerance = defaultTolerance(actual.dtype);
  double rtol = givenRtol.value_or(tolerance.rtol);
  double atol = givenAtol.value_or(tolerance.atol);
  if (actual.shape != expected.shape || actual.dtype != expected.dtype) {
    result.ok = false;
    if (result.shapeError.empty())
      result.shapeError =
          llvm::formatv("output #{0} is {1} {2} but the one-rank run gives "
                        "{3} {4}",
                        output, infoOf(actual.dtype).name,
                        formatShape(actual.shape), infoOf(expected.dtype).name,
                        formatShape(expected.shape))
              .str();
    return;
  }
  visitDType(actual.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0, n = actual.numElements(); i < n; ++i) {
      T x = actual.get<T>(i), y = expected.get<T>(i);
      double absErr, relErr;
      bool pass;
      if constexpr (isFloatElement<T>)
        pass = compareFloat<double>(x, y, rtol, atol, absErr, relErr);
      else
        pass = compareInteger(x, y, absErr, relErr);
      result.maxAbsErr = std::max(result.maxAbsErr, absErr);
      result.maxRelErr = std::max(result.maxRelErr, relErr);
      if (pass)
        continue;
      result.ok = false;
      if (!result.first)
        result.first =
            Mismatch{output, unflatten(actual.shape, i),
                     formatElement(actual, i), formatElement(expected, i)};
    }
  });
}

CompareResult
dtensor_run::compareOutputs(const std::vector<HostArray> &actual,
                            const std::vector<HostArray> &expected,
                            std::optional<double> rtol,
                            std::optional<double> atol) {
  CompareResult result;
  for (size_t i = 0; i < actual.size() && i < expected.size(); ++i)
    compareArrays(i, actual[i], expected[i], rtol, atol, result);
  if (actual.size() != expected.size()) {
    result.ok = false;
    result.shapeError = llvm::formatv("{0} outputs but the one-rank run gives "
                                      "{1}",
                                      actual.size(), expected.size());
  }
  return result;
}

std::string dtensor_run::formatCheckReport(const CompareResult &result) {
  std::string text =
      llvm::formatv("check: {0} max_abs_err={1:e} max_rel_err={2:e}\n",
                    result.ok ? "PASS" : "FAIL", result.maxAbsErr,
                    result.maxRelErr)
          .str();
  if (!result.shapeError.empty())
    text += "check: " + result.shapeError + "\n";
  if (result.first)
    text +=
        llvm::formatv("check: output #{0} differs first at {1}: got {2}, "
                      "expected {3}\n",
                      result.first->output, formatShape(result.first->index),
                      result.first->actual, result.first->expected)
            .str();
  return text;
}
