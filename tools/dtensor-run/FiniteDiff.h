//===- FiniteDiff.h - the math of --grad-check ------------------*- C++ -*-===//
//
// Central finite differences in f64 and the error measure that compares
// them with a (f32) gradient. No MLIR.
//
// Step: h = cbrt(eps_f64) * max(|x|, 1) (about 6e-6 max(|x|, 1)), the step
// that balances the truncation error of a central difference (h^2) and
// the rounding error of the f64 loss (eps / h), relative to the element's
// magnitude. The difference divides by (x + h) - (x - h) as computed, so the
// representation error of the step cancels.
//
// Error: |g - fd| / max(|fd|, scale), where scale = max(kScaleFraction *
// max_j |fd_j| over the sampled elements of the same parameter, kScaleFloor).
// The relative error of a f32 gradient is about n * 2^-24 for sums of n
// terms; an element whose gradient is much smaller than the parameter's
// largest (cancellation, near-zero) is measured against the parameter's
// scale instead of its own magnitude, so f32 rounding stays far below the
// default tolerance (1e-3) while a wrong rule (a missing term, a factor of
// 2, a transposed map) gives errors of order 1.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_FINITEDIFF_H
#define DTENSOR_TOOLS_DTENSOR_RUN_FINITEDIFF_H

#include <cstdint>
#include <vector>

namespace dtensor_run {

/// Fraction of the parameter's largest finite difference below which an
/// element's error is measured against that largest value.
inline constexpr double kScaleFraction = 1e-2;
/// Absolute floor of the scale (a loss that hardly depends on a parameter).
inline constexpr double kScaleFloor = 1e-6;

/// The central-difference step for an element of value `x`.
double finiteDifferenceStep(double x);

/// The scale of a parameter's errors from its sampled finite differences.
double errorScale(const std::vector<double> &finiteDifferences);

/// |g - fd| / max(|fd|, scale); infinite when g or fd is not finite.
double gradientError(double gradient, double finiteDifference, double scale);

/// `count` distinct element indices of an array of `numElements`, sorted,
/// chosen by a generator seeded with `seed` (every index when `count` >=
/// `numElements`).
std::vector<int64_t> sampleElements(int64_t numElements, int64_t count,
                                    uint64_t seed);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_FINITEDIFF_H
