//===- DTensorOpInterfaces.h - dtensor op interfaces ------------*- C++ -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPINTERFACES_H
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPINTERFACES_H

#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace mlir {
namespace dtensor {

/// The families of local-view collectives; a `_start` form has the family of
/// its synchronous form.
enum class CollectiveKind {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast
};

namespace detail {
/// Shared verifier of every CollectiveOpInterface op.
LogicalResult verifyCollectiveOp(Operation *op);
/// Group size of a collective, or 0 if its mesh or an axis is unknown.
int64_t getCollectiveGroupSize(Operation *op,
                               SymbolTableCollection &symbolTable);
} // namespace detail

} // namespace dtensor
} // namespace mlir

#include "dtensor/Dialect/DTensor/IR/DTensorOpInterfaces.h.inc"

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPINTERFACES_H
