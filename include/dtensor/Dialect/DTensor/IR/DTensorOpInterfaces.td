//===- DTensorOpInterfaces.td - dtensor op interfaces ------*- tablegen -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPINTERFACES_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPINTERFACES_TD

include "mlir/IR/OpBase.td"

def DTensor_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let description = [{
    A local-view collective over the groups of ranks that differ only in the
    listed mesh axes: its mesh, axes, input, result and group size, and how
    the result shape follows from the input shape (a gathered dim grows by
    the group size, a scattered dim shrinks by it). The `_start` forms are
    asynchronous: their result is a `!dtensor.request` of the result tensor.

    The interface verifies what every collective shares: the mesh exists,
    the axes are valid and distinct, the shapes agree with the group size,
    and a broadcast root lies on the mesh.
  }];
  let cppNamespace = "::mlir::dtensor";

  let methods = [
    InterfaceMethod<"The family of the collective (sync and async alike).",
      "::mlir::dtensor::CollectiveKind", "getCollectiveKind">,
    InterfaceMethod<"The mesh symbol the collective runs on.",
      "::mlir::FlatSymbolRefAttr", "getMeshAttr">,
    InterfaceMethod<"The mesh axes that form the groups.",
      "::llvm::ArrayRef<int64_t>", "getMeshAxes">,
    InterfaceMethod<"The local input tensor.",
      "::mlir::Value", "getInput">,
    InterfaceMethod<[{
        The reduction, for the collectives that reduce (all_reduce,
        reduce_scatter).
      }], "std::optional<::mlir::dtensor::ReduceOp>", "getReduceKind", (ins),
      /*methodBody=*/"", /*defaultImplementation=*/"return std::nullopt;">,
    InterfaceMethod<"The dim whose static size multiplies by the group size.",
      "std::optional<int64_t>", "getGatheredDim", (ins), "",
      "return std::nullopt;">,
    InterfaceMethod<"The dim whose static size divides by the group size.",
      "std::optional<int64_t>", "getScatteredDim", (ins), "",
      "return std::nullopt;">,
    InterfaceMethod<[{
        Coordinates of the root on the mesh axes (broadcast only; empty
        otherwise).
      }], "::llvm::ArrayRef<int64_t>", "getRootCoords", (ins), "",
      "return {};">,
    InterfaceMethod<"True for the `_start` forms, whose result is a request.",
      "bool", "isAsync", (ins), "",
      "return ::llvm::isa<::mlir::dtensor::RequestType>("
      "$_op->getResult(0).getType());">,
    InterfaceMethod<[{
        The result tensor type: the result itself, or the value type of the
        request of an async form. Null if that is not a ranked tensor.
      }], "::mlir::RankedTensorType", "getResultTensorType", (ins), "", [{
        ::mlir::Type type = $_op->getResult(0).getType();
        if (auto request = ::llvm::dyn_cast<::mlir::dtensor::RequestType>(type))
          type = request.getValueType();
        return ::llvm::dyn_cast<::mlir::RankedTensorType>(type);
      }]>,
    InterfaceMethod<[{
        Number of ranks in one group (the product of the sizes of the mesh
        axes), or 0 if the mesh or an axis cannot be resolved.
      }], "int64_t", "getGroupSize",
      (ins "::mlir::SymbolTableCollection &":$symbolTable), "", [{
        return ::mlir::dtensor::detail::getCollectiveGroupSize($_op,
                                                               symbolTable);
      }]>,
  ];

  let verify = [{
    return ::mlir::dtensor::detail::verifyCollectiveOp($_op);
  }];
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPINTERFACES_TD
