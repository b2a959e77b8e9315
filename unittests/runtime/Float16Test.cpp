//===- Float16Test.cpp - f16 and bf16 conversions (dtrt_float16.h) --------===//
//
// Checked against the compiler's _Float16 and LLVM's APFloat bfloat16
// conversions (both round to nearest even) over every 16-bit pattern and
// many floats.
//
//===----------------------------------------------------------------------===//

#include "dtrt/dtrt_float16.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace {

uint16_t bitsOf(_Float16 h) {
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

/// bfloat16 bits of `value`, rounded to nearest even by APFloat.
uint16_t bf16BitsOf(float value) {
  llvm::APFloat converted(value);
  bool lossy = false;
  converted.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                    &lossy);
  return static_cast<uint16_t>(converted.bitcastToAPInt().getZExtValue());
}

TEST(Float16, EveryHalfWidensExactly) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    _Float16 h;
    uint16_t b = static_cast<uint16_t>(bits);
    std::memcpy(&h, &b, 2);
    float want = static_cast<float>(h), got = dtrt_f16_to_float(b);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << bits;
    else
      EXPECT_EQ(dtrt_float_bits(got), dtrt_float_bits(want)) << bits;
  }
}

TEST(Float16, NarrowingRoundsToNearestEven) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<uint32_t> any;
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               1e9f,
                               6.0e-8f,
                               2.98e-8f,
                               2.9802322e-8f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::denorm_min()};
  for (int i = 0; i < 200000; ++i)
    values.push_back(dtrt_bits_float(any(gen)));
  // Halfway cases between neighbouring halves, normal and subnormal.
  for (uint32_t bits = 0; bits < 0x7c00; bits += 37) {
    float low = dtrt_f16_to_float(static_cast<uint16_t>(bits));
    float high = dtrt_f16_to_float(static_cast<uint16_t>(bits + 1));
    values.push_back(0.5f * (low + high));
  }
  for (float value : values) {
    uint16_t want = bitsOf(static_cast<_Float16>(value));
    uint16_t got = dtrt_float_to_f16(value);
    if (std::isnan(value))
      EXPECT_TRUE(std::isnan(dtrt_f16_to_float(got)));
    else
      EXPECT_EQ(got, want) << value;
  }
}

TEST(Float16, Bfloat16RoundsToNearestEven) {
  std::mt19937 gen(11);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 200000; ++i) {
    float value = dtrt_bits_float(any(gen));
    uint16_t got = dtrt_float_to_bf16(value);
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(dtrt_bf16_to_float(got)));
      continue;
    }
    EXPECT_EQ(got, bf16BitsOf(value)) << value;
    EXPECT_EQ(dtrt_float_bits(dtrt_bf16_to_float(got)),
              static_cast<uint32_t>(got) << 16);
  }
  // Ties: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 and rounds to 1 (even).
  EXPECT_EQ(dtrt_float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(dtrt_float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
}

} // namespace
