//===- ReduceOp.td - the reduction of a partial value ------*- tablegen -*-===//
//
// The one enum for the reduction that resolves a partial value. It lives in
// Support (no IR dependency) so that the pure sharding arithmetic, the
// placements and the dialect's `reduce` attribute share it.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_SUPPORT_REDUCEOP_TD
#define DTENSOR_SUPPORT_REDUCEOP_TD

include "mlir/IR/EnumAttr.td"

def DTensor_ReduceOp : I32Enum<"ReduceOp",
    "reduction that resolves a partial value", [
      I32EnumCase<"Sum", 0, "sum">,
      I32EnumCase<"Avg", 1, "avg">,
      I32EnumCase<"Max", 2, "max">,
      I32EnumCase<"Min", 3, "min">
    ]> {
  let cppNamespace = "::mlir::dtensor";
  let underlyingType = "uint8_t";
}

#endif // DTENSOR_SUPPORT_REDUCEOP_TD
