//===- FiniteDiff.cpp - the math of --grad-check --------------------------===//

#include "FiniteDiff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

using namespace dtensor_run;

double dtensor_run::finiteDifferenceStep(double x) {
  static const double base = std::cbrt(std::numeric_limits<double>::epsilon());
  return base * std::max(std::fabs(x), 1.0);
}

double dtensor_run::errorScale(const std::vector<double> &finiteDifferences) {
  double largest = 0;
  for (double fd : finiteDifferences)
    if (std::isfinite(fd))
      largest = std::max(largest, std::fabs(fd));
  return std::max(kScaleFraction * largest, kScaleFloor);
}

double dtensor_run::gradientError(double gradient, double finiteDifference,
                                  double scale) {
  if (!std::isfinite(gradient) || !std::isfinite(finiteDifference))
    return std::numeric_limits<double>::infinity();
  return std::fabs(gradient - finiteDifference) /
         std::max(std::fabs(finiteDifference), scale);
}

std::vector<int64_t> dtensor_run::sampleElements(int64_t numElements,
                                                 int64_t count, uint64_t seed) {
  std::vector<int64_t> out;
  if (count >= numElements) {
    for (int64_t i = 0; i < numElements; ++i)
      out.push_back(i);
    return out;
  }
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int64_t> pick(0, numElements - 1);
  std::set<int64_t> chosen;
  while (static_cast<int64_t>(chosen.size()) < count)
    chosen.insert(pick(gen));
  return {chosen.begin(), chosen.end()};
}
