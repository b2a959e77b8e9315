//===- ElementType.h - the runner's view of dtrt element types --*- C++ -*-===//
//
// Sizes, names and NumPy descriptors of element types, all derived from the
// runtime's one table (DTRT_FOR_EACH_DTYPE in dtrt/dtrt.h). No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_ELEMENTTYPE_H
#define DTENSOR_TOOLS_DTENSOR_RUN_ELEMENTTYPE_H

#include "dtrt/dtrt.h"

#include <cstdint>
#include <optional>
#include <string>

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
  return dtype == DTRT_F32 || dtype == DTRT_F64;
}

/// The dtype of a NumPy descriptor ("<f4", ...); also accepts NumPy's other
/// spellings of the one-byte types ("<b1", "<i1").
std::optional<dtrt_dtype> dtypeFromNpy(const std::string &descr);

/// The dtype of an MLIR element type name ("f32", "i16", ...).
std::optional<dtrt_dtype> dtypeFromName(const std::string &name);

/// "<f4, <f8, ..." for messages.
std::string supportedNpyDescrs();

/// Calls `fn(T{})` with the C++ storage type of `dtype` (uint8_t for i1).
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
  case DTRT_I1:
    break;
  }
  return fn(uint8_t{});
}

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_ELEMENTTYPE_H
