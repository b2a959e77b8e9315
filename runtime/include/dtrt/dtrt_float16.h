/*===- dtrt_float16.h - f16 and bf16 storage conversions --------*- C -*-===*\
|*                                                                            *|
|* Header-only conversions between float and the 16-bit storage of DTRT_F16   *|
|* (IEEE binary16) and DTRT_BF16 (bfloat16, the upper half of a float), with  *|
|* round-to-nearest-even, as MLIR's arith.truncf. Used by the runtime's MPI   *|
|* reductions and by the runner for inputs, outputs and checks.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DTRT_DTRT_FLOAT16_H
#define DTRT_DTRT_FLOAT16_H

#include <stdint.h>
#include <string.h>

#if defined(__cplusplus)
extern "C" {
#endif

static inline uint32_t dtrt_float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static inline float dtrt_bits_float(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

/// bfloat16 bits -> float (exact).
static inline float dtrt_bf16_to_float(uint16_t bits) {
  return dtrt_bits_float((uint32_t)bits << 16);
}

/// float -> bfloat16 bits, rounding to nearest even; NaN stays a quiet NaN.
static inline uint16_t dtrt_float_to_bf16(float value) {
  uint32_t bits = dtrt_float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

/// IEEE half bits -> float (exact).
static inline float dtrt_f16_to_float(uint16_t bits) {
  uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    /* Zero or subnormal: mantissa * 2^-24, exact in float. */
    float magnitude = (float)mantissa * 5.9604644775390625e-8f;
    return dtrt_bits_float(sign | dtrt_float_bits(magnitude));
  }
  if (exponent == 31)
    return dtrt_bits_float(sign | 0x7f800000u | (mantissa << 13));
  return dtrt_bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/// float -> IEEE half bits, rounding to nearest even; overflow gives
/// infinity, NaN a quiet NaN.
static inline uint16_t dtrt_float_to_f16(float value) {
  uint32_t bits = dtrt_float_bits(value);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u)
    return (uint16_t)(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x47800000u) /* 2^16 and above, and infinity */
    return (uint16_t)(sign | 0x7c00u);
  uint32_t result, rest, halfway;
  if (magnitude >= 0x38800000u) { /* normal: rebias the exponent by 112 */
    uint32_t rebiased = magnitude - (112u << 23);
    result = rebiased >> 13;
    rest = rebiased & 0x1fffu;
    halfway = 0x1000u;
  } else { /* subnormal: (1.mantissa) * 2^(e-126) units of 2^-24 */
    uint32_t exponent = magnitude >> 23;
    if (exponent < 102u) /* below 2^-25: rounds to zero */
      return sign;
    uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - exponent;
    result = mantissa >> shift;
    rest = mantissa & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1u);
  }
  if (rest > halfway || (rest == halfway && (result & 1u)))
    ++result; /* a carry into the exponent is the correct rounding */
  return (uint16_t)(sign | result);
}

#if defined(__cplusplus)
} /* extern "C" */
#endif

#endif /* DTRT_DTRT_FLOAT16_H */
