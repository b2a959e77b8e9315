//===- LinalgToBLAS.h - linalg contractions to CBLAS calls ------*- C++ -*-===//

#ifndef DTENSOR_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
#define DTENSOR_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H

#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir {
class Operation;
namespace dtensor {

/// What `convertLinalgToBLAS` did.
struct LinalgToBLASStats {
  /// Contractions rewritten into (loops of) cblas_?gemm calls.
  int64_t gemms = 0;
  /// Of those, the ones batched over a loop nest.
  int64_t batched = 0;
  /// Of those, the ones called with beta = 0 (their output held zeros).
  int64_t betaZero = 0;
  /// Zero fills and copies of zeros erased because the GEMM overwrites them.
  int64_t erasedFills = 0;
  /// Contractions whose operands were packed into GEMM layouts first.
  int64_t packed = 0;
  /// Contractions that call the runtime's small-GEMM kernel instead.
  int64_t small = 0;
};

/// Rewrites every linalg op nested in `root` that is a (batched) GEMM on
/// f32/f64 buffers, up to a permutation of its loops and of its operands'
/// dims, into calls of cblas_sgemm/cblas_dgemm (a loop nest of calls over
/// strided views when batched), the transposes folded into the transpose
/// flags and leading dimensions. With `foldZeroFill`, a GEMM whose output
/// provably holds zeros (a zero `linalg.fill` of it, or a copy of a buffer
/// filled so, with no write in between) is called with beta = 0 and the
/// fill or copy is erased when nothing else reads it. The declarations of
/// the CBLAS functions are added to `root`, which must be a symbol table.
/// f32 GEMMs of static sizes with at most `smallGemmMacs` multiply-adds per
/// call (and m * n at most that) call the runtime's `dtrt_sgemm_small`
/// (dtrt/dtrt_cpu.h, same arguments) instead; 0 never does.
/// Returns failure (with a diagnostic) if a symbol of that name exists with
/// another type.
LogicalResult convertLinalgToBLAS(Operation *root, bool foldZeroFill,
                                  int64_t smallGemmMacs,
                                  LinalgToBLASStats &stats);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
