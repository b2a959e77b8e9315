//===- DTensorAttrs.td - dtensor enums and attributes ------*- tablegen -*-===//
//
// Placements follow PyTorch DTensor: one per mesh axis, `S(d)` (shard tensor
// dim d), `R` (replicate) or `P(op)` (partial, pending a reduction).
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORATTRS_TD

include "dtensor/Dialect/DTensor/IR/DTensorDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "dtensor/Support/ReduceOp.td"

def DTensor_ReduceOpAttr : EnumAttr<DTensor_Dialect, DTensor_ReduceOp, "reduce"> {
  let summary = "reduction that resolves a partial value";
  // Written as the bare keyword in ops: `reduce sum`.
  let assemblyFormat = "$value";
}

def DTensor_SpecAttr : AttrDef<DTensor_Dialect, "Spec"> {
  let mnemonic = "spec";
  let summary = "placements of a global tensor on a device mesh";
  let description = [{
    A sharding specification in PyTorch DTensor terms: the mesh symbol and one
    placement per mesh axis, in mesh-axis order. `S(d)` shards tensor dim `d`
    (torch.chunk sizes, uneven shards allowed), `R` replicates and `P(op)` marks
    a partial value pending a `sum`, `avg`, `max` or `min` reduction over that
    axis. Several axes may shard the same tensor dim; they apply left to right.

    ```mlir
    #dtensor.spec<@world, [S(0), R]>
    #dtensor.spec<@world, [P(sum), S(1)]>
    ```

    The attribute is checked against its mesh and tensor by the ops and
    function arguments that carry it.
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"::mlir::dtensor::Placement", "placements">:$placements
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Returns true if no placement shards or is partial.
    bool isFullyReplicated() const;
    /// Returns true if some placement is partial.
    bool hasPartial() const;
    /// Prints the placements as `[S(0), R]`.
    std::string getPlacementsString() const;
  }];
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
