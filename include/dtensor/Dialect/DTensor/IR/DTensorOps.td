//===- DTensorOps.td - dtensor operations ------------------*- tablegen -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_TD
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_TD

include "dtensor/Dialect/DTensor/IR/DTensorDialect.td"
include "dtensor/Dialect/DTensor/IR/DTensorAttrs.td"
include "dtensor/Dialect/DTensor/IR/DTensorTypes.td"
include "dtensor/Dialect/DTensor/IR/DTensorOpInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

def DTensor_MeshOp : DTensor_Op<"mesh", [Symbol]> {
  let summary = "a device mesh with named axes";
  let description = [{
    Declares an n-D mesh of devices at module level. Each axis has a unique
    name and a static, positive size; ranks are numbered row-major over the
    mesh coordinates.

    ```mlir
    dtensor.mesh @world = <["dp" = 2, "tp" = 4]>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axis_names,
                       DenseI64ArrayAttr:$shape);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of mesh axes.
    int64_t getRank() { return getShape().size(); }
    /// Number of devices (product of the axis sizes).
    int64_t getNumDevices();
    /// Index of the axis called `name`, if any.
    std::optional<int64_t> getAxisIndex(::llvm::StringRef name);
  }];
}

//===----------------------------------------------------------------------===//
// Global-view ops
//===----------------------------------------------------------------------===//

def DTensor_RedistributeOp : DTensor_Op<"redistribute", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "change the placements of a global tensor";
  let description = [{
    Identity on the data of the global tensor; changes how it is laid out on
    the mesh. Partitioning turns it into collectives (all_gather for S -> R,
    all_reduce for P -> R, reduce_scatter for P -> S, all_to_all for
    S(i) -> S(j)) or into local slicing (R -> S).

    ```mlir
    %y = dtensor.redistribute %x to #dtensor.spec<@world, [R, R]>
        : tensor<32x2048xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, DTensor_SpecAttr:$spec);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source `to` custom<Spec>($spec, type($result)) attr-dict";
  let hasFolder = 1;
}

def DTensor_FromLocalOp : DTensor_Op<"from_local", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "wrap a rank-local shard as a global tensor";
  let description = [{
    Like `DTensor.from_local`: every rank contributes its local part, and the
    result is the global tensor with the given placements. Local dims that
    differ between ranks (uneven shards) must be dynamic.

    ```mlir
    %g = dtensor.from_local %l to #dtensor.spec<@world, [S(0)]>
        : tensor<8x512xf32> -> tensor<32x512xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, DTensor_SpecAttr:$spec);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat =
      "$local `to` custom<SpecAndTypes>($spec, type($local), type($result)) attr-dict";
}

def DTensor_ToLocalOp : DTensor_Op<"to_local", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the rank-local shard of a global tensor";
  let description = [{
    Like `DTensor.to_local`: the local part of a global tensor held in the
    given placements. Local dims that differ between ranks must be dynamic.

    ```mlir
    %l = dtensor.to_local %g from #dtensor.spec<@world, [S(0)]>
        : tensor<32x512xf32> -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$global, DTensor_SpecAttr:$spec);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$global `from` custom<SpecAndTypes>($spec, type($global), type($result)) attr-dict";
}

//===----------------------------------------------------------------------===//
// Local-view ops
//===----------------------------------------------------------------------===//

def DTensor_ProcessIndexOp : DTensor_Op<"process_index", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "this rank's index in its group over some mesh axes";
  let description = [{
    The row-major index of the calling rank among the ranks that differ only
    in the listed mesh axes: with one axis, the rank's coordinate on it. The
    partitioner uses it to compute the offsets and sizes of uneven shards.

    ```mlir
    %c = dtensor.process_index on @world axes [1] : index
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, DenseI64ArrayAttr:$mesh_axes);
  let results = (outs Index:$result);
  let assemblyFormat = "`on` $mesh `axes` $mesh_axes attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Local-view collectives
//===----------------------------------------------------------------------===//

class DTensor_CollectiveBase<string mnemonic, string kind, code extraDecls>
    : DTensor_Op<mnemonic, [DTensor_CollectiveOpInterface]> {
  let extraClassDeclaration = [{
    /// The family of this collective.
    ::mlir::dtensor::CollectiveKind getCollectiveKind() {
      return ::mlir::dtensor::CollectiveKind::}] # kind # [{;
    }
  }] # extraDecls;
}

// Each collective comes in a synchronous form and an asynchronous `_start`
// form whose result is a request; both share operands and the verifier of
// CollectiveOpInterface. `extraDecls` overrides the interface methods whose
// default does not fit the family (gathered/scattered dims, reduction, root).
multiclass DTensor_Collective<string mnemonic, string kind, string summaryText,
                              string descriptionText, dag extraArgs,
                              string extraFormat, code extraDecls = ""> {
  def Op : DTensor_CollectiveBase<mnemonic, kind, extraDecls> {
    let summary = summaryText;
    let description = descriptionText;
    let arguments = !con((ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                              DenseI64ArrayAttr:$mesh_axes), extraArgs);
    let results = (outs AnyRankedTensor:$result);
    let assemblyFormat = "$input `on` $mesh `axes` $mesh_axes " # extraFormat #
        " attr-dict `:` type($input) `->` type($result)";
  }
  def StartOp : DTensor_CollectiveBase<mnemonic # "_start", kind, extraDecls> {
    let summary = "asynchronous form of `dtensor." # mnemonic # "`";
    let description = [{
      Starts the collective and returns a request; `dtensor.wait` yields its
      result. Operands, attributes and verification are those of the
      synchronous form.
    }];
    let arguments = !con((ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                              DenseI64ArrayAttr:$mesh_axes), extraArgs);
    let results = (outs DTensor_RequestType:$request);
    let assemblyFormat = "$input `on` $mesh `axes` $mesh_axes " # extraFormat #
        " attr-dict `:` type($input) `->` qualified(type($request))";
  }
}

defm DTensor_AllReduce : DTensor_Collective<"all_reduce", "AllReduce",
  "reduce a local tensor over mesh axes, result on every rank", [{
    Every rank of each group formed by `mesh_axes` receives the elementwise
    reduction of the group's inputs. Input and result types are equal.

    ```mlir
    %y = dtensor.all_reduce %x on @world axes [1] reduce sum
        : tensor<8x512xf32> -> tensor<8x512xf32>
    ```
  }], (ins DTensor_ReduceOpAttr:$reduce), "`reduce` custom<Reduce>($reduce)", [{
    std::optional<::mlir::dtensor::ReduceOp> getReduceKind() {
      return getReduce();
    }
  }]>;

defm DTensor_AllGather : DTensor_Collective<"all_gather", "AllGather",
  "concatenate the local tensors of a group along one dim", [{
    Dim `gather_dim` of the result is the concatenation, in group-rank order,
    of the inputs of the group formed by `mesh_axes` (`k` ranks): a static
    size `n` becomes `n * k`; other dims are unchanged.

    ```mlir
    %y = dtensor.all_gather %x on @world axes [0] gather_dim 0
        : tensor<8x512xf32> -> tensor<32x512xf32>
    ```
  }], (ins I64Attr:$gather_dim), "`gather_dim` $gather_dim", [{
    std::optional<int64_t> getGatheredDim() { return getGatherDim(); }
  }]>;

defm DTensor_ReduceScatter : DTensor_Collective<"reduce_scatter", "ReduceScatter",
  "reduce over a group and keep one chunk per rank", [{
    Reduces the inputs of the group formed by `mesh_axes` (`k` ranks) and
    gives rank `i` of the group the `i`-th of `k` equal chunks along
    `scatter_dim`: a static size `n` (a multiple of `k`) becomes `n / k`.

    ```mlir
    %y = dtensor.reduce_scatter %x on @world axes [0] reduce sum scatter_dim 0
        : tensor<32x512xf32> -> tensor<8x512xf32>
    ```
  }], (ins DTensor_ReduceOpAttr:$reduce, I64Attr:$scatter_dim),
  "`reduce` custom<Reduce>($reduce) `scatter_dim` $scatter_dim", [{
    std::optional<::mlir::dtensor::ReduceOp> getReduceKind() {
      return getReduce();
    }
    std::optional<int64_t> getScatteredDim() { return getScatterDim(); }
  }]>;

defm DTensor_AllToAll : DTensor_Collective<"all_to_all", "AllToAll",
  "exchange chunks: split one dim, concatenate another", [{
    Each rank splits its input into `k` equal chunks along `split_dim`, sends
    chunk `j` to group rank `j`, and concatenates what it receives along
    `concat_dim`.

    ```mlir
    %y = dtensor.all_to_all %x on @world axes [0] split_dim 1 concat_dim 0
        : tensor<8x512xf32> -> tensor<32x128xf32>
    ```
  }], (ins I64Attr:$split_dim, I64Attr:$concat_dim),
  "`split_dim` $split_dim `concat_dim` $concat_dim", [{
    std::optional<int64_t> getGatheredDim() { return getConcatDim(); }
    std::optional<int64_t> getScatteredDim() { return getSplitDim(); }
  }]>;

defm DTensor_Broadcast : DTensor_Collective<"broadcast", "Broadcast",
  "copy the tensor of one group rank to the whole group", [{
    Every rank of each group formed by `mesh_axes` receives the input of the
    rank whose coordinates on those axes are `root`.

    ```mlir
    %y = dtensor.broadcast %x on @world axes [0] root [0]
        : tensor<8x512xf32> -> tensor<8x512xf32>
    ```
  }], (ins DenseI64ArrayAttr:$root), "`root` $root", [{
    ::llvm::ArrayRef<int64_t> getRootCoords() { return getRoot(); }
  }]>;

def DTensor_WaitOp : DTensor_Op<"wait", [
    TypesMatchWith<"result type is the request's value type", "request",
                   "result",
                   "::llvm::cast<::mlir::dtensor::RequestType>($_self).getValueType()">]> {
  let summary = "wait for an asynchronous collective";
  let description = [{
    Blocks until the collective that produced `request` completes and yields
    its result.

    ```mlir
    %v = dtensor.wait %r : !dtensor.request<tensor<8x512xf32>>
    ```
  }];
  let arguments = (ins DTensor_RequestType:$request);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$request attr-dict `:` qualified(type($request))";
}

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_TD
