//===- DType.cpp - Element types and reduction operations -----------------===//

#include "DType.h"

#include "Error.h"

#include "dtrt/dtrt_float16.h"

#include <string>
#include <type_traits>

using namespace dtrt;

namespace {
/// One row of DTRT_FOR_EACH_DTYPE.
struct DTypeInfo {
  size_t size;
  const char *name;
};

constexpr DTypeInfo kDTypes[] = {
#define DTRT_DTYPE_ROW(E, CODE, SIZE, MLIR, NPY) {SIZE, MLIR},
    DTRT_FOR_EACH_DTYPE(DTRT_DTYPE_ROW)
#undef DTRT_DTYPE_ROW
};
static_assert(sizeof(kDTypes) / sizeof(kDTypes[0]) == DTRT_NUM_DTYPES,
              "DTRT_NUM_DTYPES must count the rows of DTRT_FOR_EACH_DTYPE");
// The table is indexed by code: its rows must be in code order.
#define DTRT_DTYPE_ORDER(E, CODE, SIZE, MLIR, NPY)                             \
  static_assert(kDTypes[CODE].size == SIZE, "rows out of code order");
DTRT_FOR_EACH_DTYPE(DTRT_DTYPE_ORDER)
#undef DTRT_DTYPE_ORDER

/// Two's-complement sum of `T` elements (through the unsigned type, so that
/// overflow wraps instead of being undefined).
template <typename T>
void wrappingSum(void *in, void *inout, int *len, MPI_Datatype *) {
  using U = std::make_unsigned_t<T>;
  const T *a = static_cast<const T *>(in);
  T *b = static_cast<T *>(inout);
  for (int i = 0; i < *len; ++i)
    b[i] = static_cast<T>(
        static_cast<U>(static_cast<U>(a[i]) + static_cast<U>(b[i])));
}

/// A user-defined MPI_Op summing `T` with wraparound, created on first use.
/// Open MPI 4.1's op/avx component saturates MPI_SUM on 8- and 16-bit
/// integers for vectors of 64 elements or more; user-defined operations never
/// go through it, so i8/i16 sums wrap like MLIR's arith.addi.
template <typename T> MPI_Op wrappingSumOp() {
  static MPI_Op op = MPI_OP_NULL;
  if (op == MPI_OP_NULL &&
      MPI_Op_create(&wrappingSum<T>, /*commute=*/1, &op) != MPI_SUCCESS)
    op = MPI_SUM;
  return op;
}
/// A 16-bit float format: its conversions to and from float.
struct Bf16Format {
  static float load(uint16_t bits) { return dtrt_bf16_to_float(bits); }
  static uint16_t store(float value) { return dtrt_float_to_bf16(value); }
};
struct F16Format {
  static float load(uint16_t bits) { return dtrt_f16_to_float(bits); }
  static uint16_t store(float value) { return dtrt_float_to_f16(value); }
};

/// Combines 16-bit floats in float and rounds the result back: MPI has no
/// f16/bf16 types.
template <typename Format, int32_t Op>
void halfReduce(void *in, void *inout, int *len, MPI_Datatype *) {
  const uint16_t *a = static_cast<const uint16_t *>(in);
  uint16_t *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = Format::load(a[i]), y = Format::load(b[i]);
    float r = Op == DTRT_MAX   ? (x > y ? x : y)
              : Op == DTRT_MIN ? (x < y ? x : y)
                               : x + y;
    b[i] = Format::store(r);
  }
}

/// The user-defined MPI_Op of `Op` on a 16-bit float format.
template <typename Format, int32_t Op> MPI_Op halfReduceOp() {
  static MPI_Op op = MPI_OP_NULL;
  if (op == MPI_OP_NULL)
    MPI_Op_create(&halfReduce<Format, Op>, /*commute=*/1, &op);
  return op;
}

template <typename Format> MPI_Op halfReduceOpFor(int32_t op) {
  switch (op) {
  case DTRT_MAX:
    return halfReduceOp<Format, DTRT_MAX>();
  case DTRT_MIN:
    return halfReduceOp<Format, DTRT_MIN>();
  default:
    return halfReduceOp<Format, DTRT_SUM>();
  }
}

template <typename Format>
void divideHalves(void *buf, int64_t count, int64_t divisor) {
  auto *values = static_cast<uint16_t *>(buf);
  for (int64_t i = 0; i < count; ++i)
    values[i] =
        Format::store(Format::load(values[i]) / static_cast<float>(divisor));
}
} // namespace

bool dtrt::isFloatDType(int32_t dtype) {
  return dtype == DTRT_F32 || dtype == DTRT_F64 || dtype == DTRT_F16 ||
         dtype == DTRT_BF16;
}

bool dtrt::isValidDType(int32_t dtype) {
  return dtype >= 0 && dtype < DTRT_NUM_DTYPES;
}

size_t dtrt::dtypeSize(int32_t dtype) {
  return isValidDType(dtype) ? kDTypes[dtype].size : 1;
}

const char *dtrt::dtypeName(int32_t dtype) {
  return isValidDType(dtype) ? kDTypes[dtype].name : "?";
}

MPI_Datatype dtrt::dtypeToMpi(int32_t dtype) {
  switch (dtype) {
  case DTRT_F32:
    return MPI_FLOAT;
  case DTRT_F64:
    return MPI_DOUBLE;
  case DTRT_I32:
    return MPI_INT32_T;
  case DTRT_I64:
    return MPI_INT64_T;
  case DTRT_I8:
    return MPI_INT8_T;
  case DTRT_I16:
    return MPI_INT16_T;
  case DTRT_F16:
  case DTRT_BF16:
    // Moved as 16-bit words, reduced by user-defined operations.
    return MPI_UINT16_T;
  default:
    // i1 is a byte holding 0 or 1; the logical operations below keep it so.
    return MPI_UINT8_T;
  }
}

const char *dtrt::reduceOpName(int32_t op) {
  switch (op) {
  case DTRT_SUM:
    return "sum";
  case DTRT_AVG:
    return "avg";
  case DTRT_MAX:
    return "max";
  case DTRT_MIN:
    return "min";
  default:
    return "?";
  }
}

int32_t dtrt::checkReduceOp(const char *caller, int32_t dtype, int32_t op) {
  if (op < DTRT_SUM || op > DTRT_MIN)
    return fail(DTRT_ERR_INVALID_ARGUMENT, std::string(caller) +
                                               ": unknown reduce op " +
                                               std::to_string(op));
  if (op == DTRT_AVG && !isFloatDType(dtype))
    return fail(DTRT_ERR_INVALID_ARGUMENT,
                std::string(caller) + ": avg needs a float dtype, got " +
                    dtypeName(dtype));
  return DTRT_OK;
}

MPI_Op dtrt::reduceOpToMpi(int32_t dtype, int32_t op) {
  if (dtype == DTRT_I1) {
    // i1 arithmetic: addition is xor; max/min are or/and on {0, 1}.
    switch (op) {
    case DTRT_MAX:
      return MPI_LOR;
    case DTRT_MIN:
      return MPI_LAND;
    default:
      return MPI_LXOR;
    }
  }
  if (dtype == DTRT_BF16)
    return halfReduceOpFor<Bf16Format>(op);
  if (dtype == DTRT_F16)
    return halfReduceOpFor<F16Format>(op);
  switch (op) {
  case DTRT_MAX:
    return MPI_MAX;
  case DTRT_MIN:
    return MPI_MIN;
  default:
    if (dtype == DTRT_I8)
      return wrappingSumOp<int8_t>();
    if (dtype == DTRT_I16)
      return wrappingSumOp<int16_t>();
    return MPI_SUM;
  }
}

void dtrt::divideInPlace(void *buf, int64_t count, int32_t dtype,
                         int64_t divisor) {
  if (dtype == DTRT_F32) {
    auto *values = static_cast<float *>(buf);
    for (int64_t i = 0; i < count; ++i)
      values[i] /= static_cast<float>(divisor);
  } else if (dtype == DTRT_F64) {
    auto *values = static_cast<double *>(buf);
    for (int64_t i = 0; i < count; ++i)
      values[i] /= static_cast<double>(divisor);
  } else if (dtype == DTRT_BF16) {
    divideHalves<Bf16Format>(buf, count, divisor);
  } else if (dtype == DTRT_F16) {
    divideHalves<F16Format>(buf, count, divisor);
  }
}
