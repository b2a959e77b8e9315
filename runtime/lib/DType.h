//===- DType.h - Element types and reduction operations ---------*- C++ -*-===//
//
// Maps `dtrt_dtype` / `dtrt_reduce_op` codes to sizes, names and MPI handles,
// and implements the division that turns a sum into an average.
//
//===----------------------------------------------------------------------===//

#ifndef DTRT_LIB_DTYPE_H
#define DTRT_LIB_DTYPE_H

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace dtrt {

/// Returns whether `dtype` is a known `dtrt_dtype`.
bool isValidDType(int32_t dtype);

/// Returns whether `dtype` is f32, f64, f16 or bf16.
bool isFloatDType(int32_t dtype);

/// Returns the size in bytes of one element of a valid `dtype`.
size_t dtypeSize(int32_t dtype);

/// Returns the MLIR spelling of a dtype ("f32", ...), "?" when unknown.
const char *dtypeName(int32_t dtype);

/// Returns the MPI datatype of a valid `dtype`.
MPI_Datatype dtypeToMpi(int32_t dtype);

/// Returns the MLIR-style name of a reduce op ("sum", ...), "?" when unknown.
const char *reduceOpName(int32_t op);

/// Checks that `op` is a known reduction that is defined on `dtype`; on
/// failure records a message prefixed with `caller` and returns its status.
int32_t checkReduceOp(const char *caller, int32_t dtype, int32_t op);

/// Returns the MPI operation for a checked (`dtype`, `op`) pair; DTRT_AVG maps
/// to MPI_SUM (the caller divides afterwards).
MPI_Op reduceOpToMpi(int32_t dtype, int32_t op);

/// Divides `count` float elements of `dtype` in `buf` by `divisor`.
void divideInPlace(void *buf, int64_t count, int32_t dtype, int64_t divisor);

} // namespace dtrt

#endif // DTRT_LIB_DTYPE_H
