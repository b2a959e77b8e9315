//===- TestDialect.h - dtensor test dialect ---------------------*- C++ -*-===//

#ifndef DTENSOR_TEST_DIALECT_TESTDIALECT_H
#define DTENSOR_TEST_DIALECT_TESTDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TestOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "TestOps.h.inc"

namespace mlir {
namespace dtensor {
namespace test {

/// Inserts the test dialect and attaches its sharding rule and its reverse
/// rule (external models of ShardingRuleOpInterface and
/// GradientOpInterface).
void registerTestDialect(DialectRegistry &registry);

/// Attaches the sharding rule of `dtensor_test.scaled_add`.
void registerTestShardingModel(DialectRegistry &registry);

/// Attaches the reverse rule of `dtensor_test.scaled_add`.
void registerTestGradientModel(DialectRegistry &registry);

} // namespace test
} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_TEST_DIALECT_TESTDIALECT_H
