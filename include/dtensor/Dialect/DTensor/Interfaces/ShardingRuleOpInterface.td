//===- ShardingRuleOpInterface.td - per-op sharding rules --*- tablegen -*-===//
//
// The one place an op's sharding knowledge lives: its candidate strategies
// (PyTorch DTensor's, in PyTorch's order), every strategy for the global
// planner, whether it creates values from scalars, and its local rewrite for
// partitioning. Upstream ops get it through external models
// (lib/Dialect/DTensor/Extensions); a downstream dialect attaches its own.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_DIALECT_DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_TD
#define DTENSOR_DIALECT_DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let description = [{
    Sharding rule of an op in PyTorch DTensor terms. A candidate gives the
    placements every tensor operand must have (empty for non-tensor
    operands) and the placements of every tensor result. The fake-tensor
    analysis (`dtensor-fake-propagate`, `dtensor-fake-report`), the global
    planner and `dtensor-partition` reach the op only through this
    interface; an op without it is an unknown op (`unknown-ops=`).
  }];
  let cppNamespace = "::mlir::dtensor";

  let methods = [
    InterfaceMethod<[{
        Appends the candidates of this op given the current placements of
        its operands (`operands[i]` empty for a non-tensor operand) on a
        mesh of `meshShape`, in PyTorch's order (the first of equal cost
        wins). Fails if no rule covers this instance; the op is then an
        unknown op.
      }],
      "::llvm::LogicalResult", "getShardingCandidates",
      (ins "::llvm::ArrayRef<int64_t>":$meshShape,
           "::llvm::ArrayRef<::mlir::dtensor::Placements>":$operands,
           "::llvm::SmallVectorImpl<::mlir::dtensor::ShardingCandidate> &":$out)
    >,
    InterfaceMethod<[{
        Appends every candidate of this op independent of where its operands
        are now (whole-function planning). `current` is used only for
        operands the rule does not follow. The default applies
        `getShardingCandidates` to every placement operand 0 could have
        (R, P(sum), S(d) per mesh axis) and keeps the distinct candidates.
      }],
      "::llvm::LogicalResult", "getAllShardingCandidates",
      (ins "::llvm::ArrayRef<int64_t>":$meshShape,
           "::llvm::ArrayRef<::mlir::dtensor::Placements>":$current,
           "::llvm::SmallVectorImpl<::mlir::dtensor::ShardingCandidate> &":$out),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::dtensor::enumerateFollowedCandidates(
            ::llvm::cast<::mlir::dtensor::ShardingRuleOpInterface>(
                $_op.getOperation()),
            /*followed=*/0, meshShape, current, out);
      }]
    >,
    InterfaceMethod<[{
        Appends every strategy that an explicit `dtensor.specs` on this op
        may ask for, given the current placements of its operands: at least
        those of `getAllShardingCandidates`, and those `getShardingCandidates`
        gives for the placements its operands had before a propagation
        redistributed them to what the chosen candidate asks for (a rule that
        follows one of several operands may follow another one then). The
        fake-tensor analysis checks pins against these; the planner never
        chooses from them. The default is `getAllShardingCandidates`.
      }],
      "::llvm::LogicalResult", "getPinnableShardingCandidates",
      (ins "::llvm::ArrayRef<int64_t>":$meshShape,
           "::llvm::ArrayRef<::mlir::dtensor::Placements>":$current,
           "::llvm::SmallVectorImpl<::mlir::dtensor::ShardingCandidate> &":$out),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::llvm::cast<::mlir::dtensor::ShardingRuleOpInterface>(
                   $_op.getOperation())
            .getAllShardingCandidates(meshShape, current, out);
      }]
    >,
    InterfaceMethod<[{
        Why PyTorch DTensor would refuse this op with its operands in
        `operands` (PyTorch 2.15 raises instead of redistributing, e.g. a
        reshape that flattens or unflattens an unevenly sharded dim), or an
        empty string. The project still plans the op; strategy=pytorch warns
        with this reason.
      }],
      "std::string", "getPyTorchRefusal",
      (ins "::llvm::ArrayRef<int64_t>":$meshShape,
           "::llvm::ArrayRef<::mlir::dtensor::Placements>":$operands), "",
      /*defaultImplementation=*/[{ return std::string(); }]
    >,
    InterfaceMethod<[{
        True if this op creates its tensor results from nothing but scalars
        and attributes (constants, empty tensors, splats), so that every
        rank can build any placement of them locally.
      }],
      "bool", "createsFromScalars", (ins), "",
      /*defaultImplementation=*/[{ return false; }]
    >,
    InterfaceMethod<[{
        True if this op keeps values created from scalars created: a fill,
        broadcast or transpose of created values is itself created.
      }],
      "bool", "preservesCreation", (ins), "",
      /*defaultImplementation=*/[{ return false; }]
    >,
    InterfaceMethod<[{
        True if the created result is all zeros or undefined, so that it may
        also be built as P(sum).
      }],
      "bool", "createsZeroOrUndef", (ins), "",
      /*defaultImplementation=*/[{ return false; }]
    >,
    InterfaceMethod<[{
        For an op that `preservesCreation`: the candidate producing its
        result directly in `result` (operands mapped back through the op).
        Ops that `createsFromScalars` need not implement it.
      }],
      "::llvm::FailureOr<::mlir::dtensor::ShardingCandidate>",
      "getCreationCandidate",
      (ins "::llvm::ArrayRef<int64_t>":$meshShape,
           "::llvm::ArrayRef<::mlir::dtensor::Placement>":$result), "",
      /*defaultImplementation=*/[{ return ::mlir::failure(); }]
    >,
    InterfaceMethod<[{
        Rewrites this op of the global view into the local program of one
        rank. Operands have been localised already. The default gives the
        results their local types in place.
      }],
      "::llvm::LogicalResult", "localize",
      (ins "::mlir::dtensor::PartitionContext &":$ctx), "",
      /*defaultImplementation=*/[{
        ctx.localizeResultTypes($_op.getOperation());
        return ::mlir::success();
      }]
    >,
  ];
}

#endif // DTENSOR_DIALECT_DTENSOR_INTERFACES_SHARDINGRULEOPINTERFACE_TD
