//===- DTensorDialect.td - dtensor dialect definition ------*- tablegen -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_TD

include "mlir/IR/OpBase.td"

def DTensor_Dialect : Dialect {
  let name = "dtensor";
  let summary = "sharded tensors with PyTorch DTensor semantics";
  let description = [{
    The `dtensor` dialect models values distributed over a device mesh the way
    PyTorch's DTensor does. A module-level `dtensor.mesh` symbol names the mesh
    axes; a `#dtensor.spec` attribute gives one placement per mesh axis.

    In the global view tensors keep their global builtin types and placements
    live in attributes: `dtensor.spec` on function arguments and results,
    `dtensor.specs` on ops after propagation, and explicit
    `dtensor.redistribute` ops where a value changes placement. In the local
    view (after partitioning) tensors are per-rank shards and communication is
    explicit through collective ops over mesh axes.
  }];
  let cppNamespace = "::mlir::dtensor";
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Attribute name of an argument or result placement specification.
    static constexpr ::llvm::StringLiteral kSpecAttrName = "dtensor.spec";
    /// Attribute name of the per-result specifications of an op.
    static constexpr ::llvm::StringLiteral kSpecsAttrName = "dtensor.specs";
    /// Attribute name of a trainable parameter's name.
    static constexpr ::llvm::StringLiteral kParamAttrName = "dtensor.param";
    /// Unit attribute that keeps a parameter out of gradient buckets.
    static constexpr ::llvm::StringLiteral kDdpIgnoredAttrName =
        "dtensor.ddp_ignored";
    /// Attribute name of an optimizer state argument of a training step
    /// (`"<param>.exp_avg"`, `"<param>.exp_avg_sq"`, `"step"` for AdamW).
    static constexpr ::llvm::StringLiteral kStateAttrName = "dtensor.state";
    /// Unit attribute on a loop whose iterations are independent (each
    /// writes data no other reads or writes): dtensor-parallelize-loops may
    /// run them on several threads.
    static constexpr ::llvm::StringLiteral kParallelLoopAttrName =
        "dtensor.parallel_loop";

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

class DTensor_Op<string mnemonic, list<Trait> traits = []>
    : Op<DTensor_Dialect, mnemonic, traits>;

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSORDIALECT_TD
