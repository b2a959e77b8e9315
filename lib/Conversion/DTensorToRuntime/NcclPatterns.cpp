//===- NcclPatterns.cpp - collectives to dtrt_nccl calls ------------------===//
//
// The NCCL form of convert-dtensor-to-runtime (backend=nccl), for programs
// whose buffers are device buffers. Collectives run on the runtime's
// communication stream, ordered after the compute stream's work; a
// `dtrt_nccl_wait` makes the compute stream wait without blocking the host.
// The collectives that have `_start` forms run in place (the NCCL in-place
// layouts: all_gather sends from its block of the output, reduce_scatter
// receives into its block of the input), so the one buffer they use is live
// until the wait, where its tensor is first read: no buffer is freed while
// the communication stream may still use it.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/DTensorToRuntime/DTensorToRuntime.h"
#include "dtensor/Conversion/DTensorToRuntime/RuntimeCalls.h"

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include "dtrt/dtrt.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// Builds the NCCL calls of one collective at the rewriter's insertion point.
class NcclBuilder {
public:
  NcclBuilder(ConversionPatternRewriter &b, CollectiveOpInterface op,
              int32_t dtype)
      : b(b), op(op), loc(op.getLoc()), dtype(dtype) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value toI64(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  }
  Value mask() { return i64(runtimeAxesMask(op.getMeshAxes())); }
  Value groupRank() {
    return ProcessIndexOp::create(b, loc, b.getIndexType(), op.getMeshAttr(),
                                  b.getDenseI64ArrayAttr(op.getMeshAxes()));
  }

  SmallVector<OpFoldResult> sizes(Value t) {
    auto type = cast<ShapedType>(t.getType());
    SmallVector<OpFoldResult> s;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        s.push_back(b.getIndexAttr(type.getDimSize(d)));
      else if (isa<MemRefType>(type))
        s.push_back(memref::DimOp::create(b, loc, t, d).getResult());
      else
        s.push_back(tensor::DimOp::create(b, loc, t, d).getResult());
    }
    return s;
  }
  /// `s * k` (`multiply`) or `s / k`, folded when `s` is a constant.
  OpFoldResult scale(OpFoldResult s, int64_t k, bool multiply) {
    if (std::optional<int64_t> c = getConstantIntValue(s))
      return b.getIndexAttr(multiply ? *c * k : *c / k);
    Value v = cast<Value>(s);
    if (multiply)
      return arith::MulIOp::create(b, loc, v, index(k)).getResult();
    return arith::DivUIOp::create(b, loc, v, index(k)).getResult();
  }
  Value product(ArrayRef<OpFoldResult> sizes) {
    Value n = index(1);
    for (OpFoldResult s : sizes)
      n = arith::MulIOp::create(b, loc, n,
                                getValueOrCreateConstantIndexOp(b, loc, s));
    return n;
  }

  /// A fresh contiguous buffer of `sizes` with `t`'s element type.
  Value alloc(ArrayRef<OpFoldResult> sizes, Value t) {
    SmallVector<Value> dyn;
    SmallVector<int64_t> shape;
    dispatchIndexOpFoldResults(sizes, dyn, shape);
    return memref::AllocOp::create(
        b, loc, MemRefType::get(shape, getElementTypeOrSelf(t.getType())), dyn);
  }
  void writeInto(Value t, Value buf) {
    bufferization::MaterializeInDestinationOp::create(b, loc, TypeRange{}, t,
                                                      buf)
        .setWritable(true);
  }
  Value toTensor(Value buf) {
    auto type = cast<MemRefType>(buf.getType());
    return bufferization::ToTensorOp::create(
        b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
        buf, /*restrict=*/true, /*writable=*/true);
  }
  /// The rows [offset, offset + rows) of the contiguous buffer `buf`.
  Value rowBlock(Value buf, Value offset, OpFoldResult rows) {
    SmallVector<OpFoldResult> s = sizes(buf);
    SmallVector<OpFoldResult> offsets(s.size(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(s.size(), b.getIndexAttr(1));
    offsets[0] = offset;
    s[0] = rows;
    return memref::SubViewOp::create(b, loc, buf, offsets, s, strides);
  }

  /// Moves dim `d` of `t` to the front (`toFront`) or back from it.
  Value permute(Value t, int64_t d, bool toFront) {
    auto type = cast<RankedTensorType>(t.getType());
    if (d == 0)
      return t;
    SmallVector<int64_t> perm;
    if (toFront) {
      perm.push_back(d);
      for (int64_t i = 0; i < type.getRank(); ++i)
        if (i != d)
          perm.push_back(i);
    } else {
      for (int64_t i = 1; i <= d; ++i)
        perm.push_back(i);
      perm.push_back(0);
      for (int64_t i = d + 1; i < type.getRank(); ++i)
        perm.push_back(i);
    }
    SmallVector<OpFoldResult> in = sizes(t), out;
    for (int64_t p : perm)
      out.push_back(in[p]);
    Value init = tensor::EmptyOp::create(b, loc, out, type.getElementType());
    return linalg::TransposeOp::create(b, loc, t, init, perm).getResult()[0];
  }

  /// Calls `name` (status checked) with `args`.
  void call(StringRef name, ValueRange args) {
    auto module = op->getParentOfType<ModuleOp>();
    func::FuncOp fn = declareRuntimeFunction(
        b, module, name, b.getFunctionType(TypeRange(args), {b.getI32Type()}));
    createCheckedRuntimeCall(b, loc, fn, args);
  }

  /// `<name>_start(args..., &request)`; returns the request slot.
  Value start(StringRef name, SmallVector<Value> args) {
    Value slot =
        memref::AllocaOp::create(b, loc, MemRefType::get({1}, b.getI64Type()));
    args.push_back(createBufferAddress(b, loc, slot));
    call((name + "_start").str(), args);
    return slot;
  }
  /// `dtrt_nccl_wait(request)`.
  void wait(Value slot) {
    Value request = memref::LoadOp::create(b, loc, slot, index(0));
    call("dtrt_nccl_wait", request);
  }

  ConversionPatternRewriter &b;
  CollectiveOpInterface op;
  Location loc;
  int32_t dtype;
};

/// A started collective: the request slot and how to read its result.
struct Started {
  Value slot;
  /// The buffer holding the result once the request completed.
  Value result;
  /// The dim the collective worked on, moved to the front (0 for none).
  int64_t dim = 0;
};

Started startAllReduce(NcclBuilder &bl, Value input) {
  Value buf = bl.alloc(bl.sizes(input), input);
  bl.writeInto(input, buf);
  Value addr = createBufferAddress(bl.b, bl.loc, buf);
  Value slot = bl.start(
      "dtrt_nccl_all_reduce",
      {addr, addr, bl.toI64(bl.product(bl.sizes(input))), bl.i32(bl.dtype),
       bl.i32(runtimeReduceOpOf(*bl.op.getReduceKind())), bl.mask()});
  return {slot, buf};
}

/// all_gather (in place: this rank's block of the output is the input).
Started startAllGather(NcclBuilder &bl, Value input, int64_t dim,
                       int64_t groupSize) {
  Value in = bl.permute(input, dim, /*toFront=*/true);
  SmallVector<OpFoldResult> inSizes = bl.sizes(in), outSizes = inSizes;
  Value rows = getValueOrCreateConstantIndexOp(bl.b, bl.loc, inSizes[0]);
  outSizes[0] = bl.scale(inSizes[0], groupSize, /*multiply=*/true);
  Value out = bl.alloc(outSizes, in);
  Value offset = arith::MulIOp::create(bl.b, bl.loc, bl.groupRank(), rows);
  Value block = bl.rowBlock(out, offset, inSizes[0]);
  bl.writeInto(in, block);
  Value slot =
      bl.start("dtrt_nccl_all_gather",
               {createBufferAddress(bl.b, bl.loc, block),
                createBufferAddress(bl.b, bl.loc, out),
                bl.toI64(bl.product(inSizes)), bl.i32(bl.dtype), bl.mask()});
  return {slot, out, dim};
}

/// A fresh device buffer holding `input` with dim `dim` moved to the front
/// (the layout of NCCL's blocks); `sizes` gets its sizes.
Value stageAtFront(NcclBuilder &bl, Value input, int64_t dim,
                   SmallVector<OpFoldResult> &sizes) {
  Value in = bl.permute(input, dim, /*toFront=*/true);
  sizes = bl.sizes(in);
  Value buf = bl.alloc(sizes, in);
  bl.writeInto(in, buf);
  return buf;
}

/// reduce_scatter (in place: the result is this rank's block of the input).
Started startReduceScatter(NcclBuilder &bl, Value input, int64_t dim,
                           int64_t groupSize) {
  SmallVector<OpFoldResult> inSizes;
  Value buf = stageAtFront(bl, input, dim, inSizes);
  OpFoldResult rows = bl.scale(inSizes[0], groupSize, /*multiply=*/false);
  Value offset = arith::MulIOp::create(
      bl.b, bl.loc, bl.groupRank(),
      getValueOrCreateConstantIndexOp(bl.b, bl.loc, rows));
  Value block = bl.rowBlock(buf, offset, rows);
  Value perRank = arith::DivUIOp::create(bl.b, bl.loc, bl.product(inSizes),
                                         bl.index(groupSize));
  Value slot =
      bl.start("dtrt_nccl_reduce_scatter",
               {createBufferAddress(bl.b, bl.loc, buf),
                createBufferAddress(bl.b, bl.loc, block), bl.toI64(perRank),
                bl.i32(bl.dtype),
                bl.i32(runtimeReduceOpOf(*bl.op.getReduceKind())), bl.mask()});
  return {slot, block, dim};
}

/// all_to_all: the input with the split dim at the front (block g of its
/// rows is the chunk for group rank g) into a buffer of the same shape,
/// whose block g comes from group rank g (grouped ncclSend/ncclRecv); the
/// result is unpacked from it by `finish`.
Started startAllToAll(NcclBuilder &bl, Value input, int64_t splitDim,
                      int64_t groupSize) {
  SmallVector<OpFoldResult> sizes;
  Value send = stageAtFront(bl, input, splitDim, sizes);
  Value recv = bl.alloc(sizes, send);
  Value perRank = arith::DivUIOp::create(bl.b, bl.loc, bl.product(sizes),
                                         bl.index(groupSize));
  Value slot = bl.start("dtrt_nccl_all_to_all",
                        {createBufferAddress(bl.b, bl.loc, send),
                         createBufferAddress(bl.b, bl.loc, recv),
                         bl.toI64(perRank), bl.i32(bl.dtype), bl.mask()});
  return {slot, recv};
}

/// Starts the collective `bl.op` on `input` on the communication stream.
Started startCollective(NcclBuilder &bl, Value input, int64_t groupSize,
                        SymbolTableCollection &symbolTable) {
  CollectiveOpInterface op = bl.op;
  switch (op.getCollectiveKind()) {
  case CollectiveKind::AllReduce:
    return startAllReduce(bl, input);
  case CollectiveKind::AllGather:
    return startAllGather(bl, input, *op.getGatheredDim(), groupSize);
  case CollectiveKind::AllToAll:
    return startAllToAll(bl, input, *op.getScatteredDim(), groupSize);
  case CollectiveKind::ReduceScatter:
    return startReduceScatter(bl, input, *op.getScatteredDim(), groupSize);
  case CollectiveKind::Broadcast: {
    MeshOp mesh = lookupMesh(op, op.getMeshAttr(), symbolTable);
    int64_t root = 0;
    for (auto [a, coord] :
         llvm::zip_equal(op.getMeshAxes(), op.getRootCoords()))
      root = root * mesh.getShape()[a] + coord;
    Value buf = bl.alloc(bl.sizes(input), input);
    bl.writeInto(input, buf);
    Value slot = bl.start("dtrt_nccl_broadcast",
                          {createBufferAddress(bl.b, bl.loc, buf),
                           bl.toI64(bl.product(bl.sizes(input))),
                           bl.i32(bl.dtype), bl.i32(root), bl.mask()});
    return {slot, buf};
  }
  }
  llvm_unreachable("unknown collective");
}

/// Waits for `s` (if it is a request) and returns the collective's result.
Value finish(NcclBuilder &bl, const Started &s, int64_t groupSize) {
  if (s.slot)
    bl.wait(s.slot);
  CollectiveOpInterface op = bl.op;
  if (op.getCollectiveKind() == CollectiveKind::AllToAll)
    return unpackAllToAll(bl.b, bl.loc, bl.toTensor(s.result),
                          *op.getGatheredDim(), *op.getScatteredDim(),
                          groupSize, op.getResultTensorType());
  Value result = bl.permute(bl.toTensor(s.result), s.dim, /*toFront=*/false);
  RankedTensorType type = op.getResultTensorType();
  if (result.getType() != type)
    result = tensor::CastOp::create(bl.b, bl.loc, type, result);
  return result;
}

/// What NCCL cannot do, named; the dtype of the collective otherwise.
FailureOr<int32_t> checkNcclLowerable(CollectiveOpInterface op) {
  Type elt = op.getResultTensorType().getElementType();
  std::optional<dtrt_dtype> dtype = runtimeDtypeOf(elt);
  std::optional<ReduceOp> reduce = op.getReduceKind();
  if (!dtype)
    return op->emitOpError()
           << "element type " << elt << " has no NCCL dtype in the runtime";
  if (reduce &&
      (elt.isInteger(16) || (elt.isInteger(1) && *reduce == ReduceOp::Sum)))
    return op->emitOpError() << "NCCL has no " << stringifyReduceOp(*reduce)
                             << " reduction on " << elt;
  if (reduce == ReduceOp::Avg && !isa<FloatType>(elt))
    return op->emitOpError() << "reduction avg is defined for float element "
                                "types only, got "
                             << elt;
  if (op.isAsync()) {
    auto users = llvm::to_vector(op->getUsers());
    if (users.size() != 1 || !isa<WaitOp>(users[0]))
      return op->emitOpError()
             << "request must be completed by exactly one dtensor.wait";
  }
  return *dtype;
}

struct CollectiveToNccl : OpInterfaceConversionPattern<CollectiveOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult
  matchAndRewrite(CollectiveOpInterface op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int32_t> dtype = checkNcclLowerable(op);
    if (failed(dtype))
      return failure();
    SymbolTableCollection symbolTable;
    int64_t groupSize = op.getGroupSize(symbolTable);
    NcclBuilder bl(rewriter, op, *dtype);
    Started s = startCollective(bl, operands[0], groupSize, symbolTable);
    if (!op.isAsync()) {
      rewriter.replaceOp(op, finish(bl, s, groupSize));
      return success();
    }
    Operation *wait = *op->getUsers().begin();
    rewriter.setInsertionPoint(wait);
    rewriter.replaceOp(wait, finish(bl, s, groupSize));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::dtensor::populateDTensorToNcclConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<CollectiveToNccl>(patterns.getContext());
}
