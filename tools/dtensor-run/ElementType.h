//===- ElementType.h - the runner's view of dtrt element types --*- C++ -*-===//
//
// Sizes, names and NumPy descriptors of element types, all derived from the
// runtime's one table (DTRT_FOR_EACH_DTYPE in dtrt/dtrt.h). No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_ELEMENTTYPE_H
#define DTENSOR_TOOLS_DTENSOR_RUN_ELEMENTTYPE_H

#include "dtrt/dtrt.h"
#include "dtrt/dtrt_float16.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace dtensor_run {

/// One row of DTRT_FOR_EACH_DTYPE.
struct ElementTypeInfo {
  dtrt_dtype dtype;
  int64_t size;
  const char *name;
  const char *npyDescr;
};

/// Every row of the table, in code order.
inline constexpr ElementTypeInfo kElementTypes[] = {
#define DTENSOR_RUN_DTYPE_ROW(E, CODE, SIZE, MLIR, NPY) {E, SIZE, MLIR, NPY},
    DTRT_FOR_EACH_DTYPE(DTENSOR_RUN_DTYPE_ROW)
#undef DTENSOR_RUN_DTYPE_ROW
};

/// The row of `dtype`.
inline const ElementTypeInfo &infoOf(dtrt_dtype dtype) {
  return kElementTypes[static_cast<int>(dtype)];
}

/// Bytes of one element.
inline int64_t elementSize(dtrt_dtype dtype) { return infoOf(dtype).size; }

/// Whether `dtype` is a floating-point type.
inline bool isFloat(dtrt_dtype dtype) {
  return dtype == DTRT_F32 || dtype == DTRT_F64 || dtype == DTRT_F16 ||
         dtype == DTRT_BF16;
}

/// The conversions of a 16-bit float format (dtrt_float16.h).
struct Bf16Format {
  static float load(uint16_t bits) { return dtrt_bf16_to_float(bits); }
  static uint16_t store(float value) { return dtrt_float_to_bf16(value); }
  /// Decimal digits that print every value distinctly.
  static constexpr int maxDigits10 = 4;
};
struct F16Format {
  static float load(uint16_t bits) { return dtrt_f16_to_float(bits); }
  static uint16_t store(float value) { return dtrt_float_to_f16(value); }
  static constexpr int maxDigits10 = 5;
};

/// A 16-bit float element as stored (its bits), which converts to and from
/// float (rounding to nearest even), so that the element-generic code
/// computes on it in float.
template <typename FormatT> struct Float16Element {
  using Format = FormatT;
  uint16_t bits = 0;
  Float16Element() = default;
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  Float16Element(U value) : bits(Format::store(static_cast<float>(value))) {}
  operator float() const { return Format::load(bits); }
};
using BF16Element = Float16Element<Bf16Format>;
using F16Element = Float16Element<F16Format>;

/// Whether the storage type `T` of visitDType holds floats.
template <typename T>
inline constexpr bool isFloatElement =
    std::is_floating_point_v<T> || std::is_same_v<T, BF16Element> ||
    std::is_same_v<T, F16Element>;

/// Decimal digits that print every value of the float storage type `T`.
template <typename T> constexpr int maxDigits10() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::max_digits10;
  else
    return T::Format::maxDigits10;
}

/// The dtype of a NumPy descriptor ("<f4", ...); also accepts NumPy's other
/// spellings of the one-byte types ("<b1", "<i1").
std::optional<dtrt_dtype> dtypeFromNpy(const std::string &descr);

/// The dtype of an MLIR element type name ("f32", "i16", ...).
std::optional<dtrt_dtype> dtypeFromName(const std::string &name);

/// "<f4, <f8, ..." for messages.
std::string supportedNpyDescrs();

/// Calls `fn(T{})` with the C++ storage type of `dtype` (uint8_t for i1,
/// BF16Element and F16Element for bf16 and f16).
template <typename Fn> decltype(auto) visitDType(dtrt_dtype dtype, Fn &&fn) {
  switch (dtype) {
  case DTRT_F32:
    return fn(float{});
  case DTRT_F64:
    return fn(double{});
  case DTRT_I32:
    return fn(int32_t{});
  case DTRT_I64:
    return fn(int64_t{});
  case DTRT_I8:
    return fn(int8_t{});
  case DTRT_I16:
    return fn(int16_t{});
  case DTRT_F16:
    return fn(F16Element{});
  case DTRT_BF16:
    return fn(BF16Element{});
  case DTRT_I1:
    break;
  }
  return fn(uint8_t{});
}

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_ELEMENTTYPE_H
