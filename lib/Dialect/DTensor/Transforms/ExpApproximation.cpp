//===- ExpApproximation.cpp - exp on f32 vectors as a polynomial ----------===//
//
// The softmax of the CPU pipeline is bound by its exp, not by memory: the
// polynomial of upstream's `populateMathPolynomialApproximationPatterns`
// is about 24 vector instructions per vector. This one computes the same
// reduction and polynomial in 19:
//   - k = roundeven(x log2(e)) is one multiplication and one rounding, not a
//     fused multiply-add of 1/2 and a floor;
//   - k is clamped only above (to 127): x is clamped to [-87.8, 88.8] first,
//     so k >= roundeven(-126.67) = -127 already.
// Everything else (the clamps of x, the two-constant reduction by ln 2, the
// coefficients, the scaling by 2^k built in the exponent bits) is
// upstream's, so results agree with it within an ulp (both round the
// product x log2(e) before choosing k; at a tie the two ks differ by one and
// r by ln 2, within the polynomial's accurate range).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/ExpApproximation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;

namespace {
struct ExpAsPolynomial : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32() || type.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed vector of f32");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto splat = [&](float value) -> Value {
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(type, b.getF32FloatAttr(value)));
    };
    auto fma = [&](Value a, Value c, Value d) -> Value {
      return math::FmaOp::create(b, a, c, d);
    };
    // Unordered compares: a NaN passes through both clamps.
    auto atLeast = [&](Value v, Value bound) -> Value {
      Value keep = arith::CmpFOp::create(b, arith::CmpFPredicate::UGE, v, bound);
      return arith::SelectOp::create(b, keep, v, bound);
    };
    auto atMost = [&](Value v, Value bound) -> Value {
      Value keep = arith::CmpFOp::create(b, arith::CmpFPredicate::ULE, v, bound);
      return arith::SelectOp::create(b, keep, v, bound);
    };

    // exp(x) = 2^k exp(r), r = x - k ln 2 in [-ln 2 / 2, ln 2 / 2]; beyond
    // the clamps exp(x) is 0 (k = -127 gives a zero scale) or +inf.
    Value x = atMost(atLeast(op.getOperand(), splat(-87.8f)), splat(88.8f));
    Value k = math::RoundEvenOp::create(
        b, arith::MulFOp::create(b, x, splat(1.44269504088896341f)));
    k = atMost(k, splat(127.0f));
    Value r = fma(k, splat(-0.693359375f), x);
    r = fma(k, splat(2.12194440e-4f), r);

    // exp(r) = 1 + r + r^2 p(r).
    Value p = fma(splat(1.9875691500e-4f), r, splat(1.3981999507e-3f));
    p = fma(p, r, splat(8.3334519073e-3f));
    p = fma(p, r, splat(4.1665795894e-2f));
    p = fma(p, r, splat(1.6666665459e-1f));
    p = fma(p, r, splat(5.0000001201e-1f));
    Value expR = arith::AddFOp::create(
        b, fma(p, arith::MulFOp::create(b, r, r), r), splat(1.0f));

    // 2^k from its exponent bits: (k + 127) << 23.
    auto i32 = type.clone(b.getI32Type());
    auto splatI = [&](int32_t value) -> Value {
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(i32, b.getI32IntegerAttr(value)));
    };
    Value biased =
        arith::AddIOp::create(b, arith::FPToSIOp::create(b, i32, k),
                              splatI(127));
    Value scale = arith::BitcastOp::create(
        b, type, arith::ShLIOp::create(b, biased, splatI(23)));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, expR, scale);
    return success();
  }
};
} // namespace

void mlir::dtensor::populateExpApproximationPatterns(
    RewritePatternSet &patterns, PatternBenefit benefit) {
  patterns.add<ExpAsPolynomial>(patterns.getContext(), benefit);
}
