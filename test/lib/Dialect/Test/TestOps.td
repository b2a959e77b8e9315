//===- TestOps.td - dtensor test dialect -------------------*- tablegen -*-===//
//
// Ops for extension tests. They know nothing about sharding: rules are
// attached from the outside (TestShardingModel.cpp), the way a downstream
// compiler gives its own ops a rule.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TEST_DIALECT_TESTOPS_TD
#define DTENSOR_TEST_DIALECT_TESTOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Dialect/Linalg/IR/LinalgInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def DTensorTest_Dialect : Dialect {
  let name = "dtensor_test";
  let summary = "ops for dtensor-mlir extension tests";
  let cppNamespace = "::mlir::dtensor::test";
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DTensorTest_ScaledAddOp : Op<DTensorTest_Dialect, "scaled_add", [
    Pure, AllTypesMatch<["lhs", "rhs", "result"]>,
    DeclareOpInterfaceMethods<AggregatedOpInterface, ["decomposeOperation"]>]> {
  let summary = "lhs + scale * rhs, element by element";
  let description = [{
    An elementwise op that carries no `Elementwise` trait and no sharding
    rule of its own. It decomposes into a `linalg.generic`
    (`dtensor-decompose-aggregates`), so the CPU pipeline runs it.

    ```mlir
    %r = dtensor_test.scaled_add %a, %b {scale = 2.0 : f32} : tensor<8x4xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyFloat]>:$lhs,
                       RankedTensorOf<[AnyFloat]>:$rhs, F32Attr:$scale);
  let results = (outs RankedTensorOf<[AnyFloat]>:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

#endif // DTENSOR_TEST_DIALECT_TESTOPS_TD
