//===- DType.cpp - Element types and reduction operations -----------------===//

#include "DType.h"

#include "Error.h"

#include <string>

using namespace dtrt;

bool dtrt::isValidDType(int32_t dtype) {
  return dtype >= DTRT_F32 && dtype <= DTRT_I16;
}

size_t dtrt::dtypeSize(int32_t dtype) {
  switch (dtype) {
  case DTRT_F32:
  case DTRT_I32:
    return 4;
  case DTRT_F64:
  case DTRT_I64:
    return 8;
  case DTRT_I16:
    return 2;
  default:
    return 1;
  }
}

const char *dtrt::dtypeName(int32_t dtype) {
  switch (dtype) {
  case DTRT_F32:
    return "f32";
  case DTRT_F64:
    return "f64";
  case DTRT_I32:
    return "i32";
  case DTRT_I64:
    return "i64";
  case DTRT_I8:
    return "i8";
  case DTRT_I1:
    return "i1";
  case DTRT_I16:
    return "i16";
  default:
    return "?";
  }
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
  bool isFloat = dtype == DTRT_F32 || dtype == DTRT_F64;
  if (op == DTRT_AVG && !isFloat)
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
  switch (op) {
  case DTRT_MAX:
    return MPI_MAX;
  case DTRT_MIN:
    return MPI_MIN;
  default:
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
  }
}
