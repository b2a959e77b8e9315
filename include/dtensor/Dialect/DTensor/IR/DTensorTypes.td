//===- DTensorTypes.td - dtensor types ---------------------*- tablegen -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORTYPES_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORTYPES_TD

include "dtensor/Dialect/DTensor/IR/DTensorDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def DTensor_RequestType : TypeDef<DTensor_Dialect, "Request"> {
  let mnemonic = "request";
  let summary = "handle of an asynchronous collective in flight";
  let description = [{
    Returned by the `*_start` forms of the collectives; `dtensor.wait` turns it
    into the collective's result. The parameter is that result's type.

    ```mlir
    %r = dtensor.all_reduce_start %g on @world axes [0] reduce sum
        : tensor<512x512xf32> -> !dtensor.request<tensor<512x512xf32>>
    %v = dtensor.wait %r : !dtensor.request<tensor<512x512xf32>>
    ```
  }];
  let parameters = (ins "::mlir::ShapedType":$valueType);
  let assemblyFormat = "`<` $valueType `>`";
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORTYPES_TD
