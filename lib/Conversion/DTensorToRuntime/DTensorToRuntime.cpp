//===- DTensorToRuntime.cpp - collectives to dtrt runtime calls -----------===//
//
// The runtime exchanges equal contiguous blocks in group-rank order. A
// collective on dim d moves d to the front (linalg.transpose), runs on the
// leading dim and moves it back. Buffers are passed as raw pointers (i64) so
// the runtime needs no knowledge of MLIR memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_CONVERTDTENSORTORUNTIME
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// dtrt_dtype codes (runtime/include/dtrt/dtrt.h).
FailureOr<int32_t> dtypeCode(Type t) {
  if (t.isF32())
    return 0;
  if (t.isF64())
    return 1;
  if (t.isInteger(32))
    return 2;
  if (t.isInteger(64) || t.isIndex())
    return 3;
  if (t.isInteger(8))
    return 4;
  if (t.isInteger(1))
    return 5;
  if (t.isInteger(16))
    return 6;
  return failure();
}

/// Bit mask of mesh axes.
int64_t axesMask(ArrayRef<int64_t> axes) {
  int64_t mask = 0;
  for (int64_t a : axes)
    mask |= int64_t(1) << a;
  return mask;
}

/// Declares `name` in the module if needed.
func::FuncOp declare(RewriterBase &rewriter, Operation *from, StringRef name,
                     TypeRange args, TypeRange results) {
  auto module = from->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(rewriter, module.getLoc(), name,
                                rewriter.getFunctionType(args, results));
  f.setPrivate();
  return f;
}

/// Helper building the IR of one collective call.
class Builder {
public:
  Builder(RewriterBase &rewriter, Location loc) : b(rewriter), loc(loc) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }

  SmallVector<OpFoldResult> sizes(Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<OpFoldResult> s;
    for (int64_t d = 0; d < type.getRank(); ++d)
      s.push_back(type.isDynamicDim(d)
                      ? OpFoldResult(tensor::DimOp::create(b, loc, t, d))
                      : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
    return s;
  }

  /// Number of elements of `t`, as i64.
  Value count(Value t) {
    Value n = index(1);
    for (OpFoldResult s : sizes(t))
      n = arith::MulIOp::create(b, loc, n,
                                getValueOrCreateConstantIndexOp(b, loc, s));
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
  }

  /// A fresh contiguous buffer of `sizes` and element type `elt`.
  Value alloc(ArrayRef<OpFoldResult> sizes, Type elt) {
    SmallVector<int64_t> shape;
    SmallVector<Value> dyn;
    for (OpFoldResult s : sizes) {
      if (std::optional<int64_t> c = getConstantIntValue(s)) {
        shape.push_back(*c);
      } else {
        shape.push_back(ShapedType::kDynamic);
        dyn.push_back(cast<Value>(s));
      }
    }
    return memref::AllocOp::create(b, loc, MemRefType::get(shape, elt), dyn);
  }

  /// Copies tensor `t` into a fresh contiguous buffer.
  Value materialize(Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    Value buf = alloc(sizes(t), type.getElementType());
    bufferization::MaterializeInDestinationOp::create(b, loc, TypeRange{}, t,
                                                      buf)
        .setWritable(true);
    return buf;
  }

  Value pointer(Value buf) {
    Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buf);
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), p);
  }

  Value toTensor(Value buf, RankedTensorType type) {
    return bufferization::ToTensorOp::create(b, loc, type, buf,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  }

  /// Calls runtime function `name`; a non-zero status aborts the job with
  /// the runtime's message (`dtrt_abort(dtrt_last_error())`), so a failed
  /// collective never leaves a wrong result or a hung peer behind.
  void call(Operation *from, StringRef name, ValueRange args) {
    SmallVector<Type> types;
    for (Value a : args)
      types.push_back(a.getType());
    func::FuncOp f = declare(b, from, name, types, {b.getI32Type()});
    Value status = func::CallOp::create(b, loc, f, args).getResult(0);
    Value failed =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, status, i32(0));
    func::FuncOp lastError =
        declare(b, from, "dtrt_last_error", {}, {b.getI64Type()});
    func::FuncOp abort = declare(b, from, "dtrt_abort", {b.getI64Type()}, {});
    scf::IfOp::create(b, loc, failed, [&](OpBuilder &nb, Location nl) {
      Value msg =
          func::CallOp::create(nb, nl, lastError, ValueRange{}).getResult(0);
      func::CallOp::create(nb, nl, abort, ValueRange{msg});
      scf::YieldOp::create(nb, nl);
    });
  }

  /// Moves dim `d` of `t` to the front.
  Value moveToFront(Value t, int64_t d) {
    if (d == 0)
      return t;
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<int64_t> perm{d};
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (i != d)
        perm.push_back(i);
    return transpose(t, perm);
  }

  /// Moves the front dim of `t` back to position `d`.
  Value moveFromFront(Value t, int64_t d) {
    if (d == 0)
      return t;
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<int64_t> perm;
    for (int64_t i = 1; i <= d; ++i)
      perm.push_back(i);
    perm.push_back(0);
    for (int64_t i = d + 1; i < type.getRank(); ++i)
      perm.push_back(i);
    return transpose(t, perm);
  }

  Value transpose(Value t, ArrayRef<int64_t> perm) {
    SmallVector<OpFoldResult> in = sizes(t), out;
    for (int64_t p : perm)
      out.push_back(in[p]);
    auto type = cast<RankedTensorType>(t.getType());
    Value init = tensor::EmptyOp::create(b, loc, out, type.getElementType());
    return linalg::TransposeOp::create(b, loc, t, init, perm).getResult()[0];
  }

  RewriterBase &b;
  Location loc;
};

/// The kinds of exchange the runtime offers.
enum class Kind { AllReduce, AllGather, ReduceScatter, Broadcast };

/// Lowers one collective producing `resultType` from `input`.
FailureOr<Value> lowerCollective(RewriterBase &rewriter, Operation *op,
                                 Kind kind, Value input,
                                 RankedTensorType resultType, int64_t dim,
                                 ArrayRef<int64_t> axes, int32_t reduceCode,
                                 ArrayRef<int64_t> root, int64_t groupSize) {
  Location loc = op->getLoc();
  Builder bl(rewriter, loc);
  Type elt = resultType.getElementType();
  FailureOr<int32_t> dtype = dtypeCode(elt);
  if (failed(dtype))
    return rewriter.notifyMatchFailure(op, "element type not supported by "
                                           "the runtime");
  Value mask = bl.i64(axesMask(axes));
  Value in = bl.moveToFront(input, dim);
  Value inBuf = bl.materialize(in);
  SmallVector<OpFoldResult> outSizes = bl.sizes(in);
  switch (kind) {
  case Kind::AllReduce: {
    Value outBuf = bl.alloc(outSizes, elt);
    bl.call(op, "dtrt_all_reduce",
            {bl.pointer(inBuf), bl.pointer(outBuf), bl.count(in),
             bl.i32(*dtype), bl.i32(reduceCode), mask});
    return bl.toTensor(outBuf, cast<RankedTensorType>(in.getType()));
  }
  case Kind::Broadcast: {
    // Root coordinates on the axes, row-major, give the group root.
    int64_t rootRank = 0;
    auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(
        op, cast<FlatSymbolRefAttr>(op->getAttr("mesh")));
    for (auto [a, c] : llvm::zip_equal(axes, root))
      rootRank = rootRank * mesh.getShape()[a] + c;
    bl.call(op, "dtrt_broadcast",
            {bl.pointer(inBuf), bl.count(in), bl.i32(*dtype), bl.i32(rootRank),
             mask});
    return bl.toTensor(inBuf, cast<RankedTensorType>(in.getType()));
  }
  case Kind::AllGather:
  case Kind::ReduceScatter: {
    Value lead = getValueOrCreateConstantIndexOp(rewriter, loc, outSizes[0]);
    Value k = bl.index(groupSize);
    if (kind == Kind::AllGather)
      lead = arith::MulIOp::create(rewriter, loc, lead, k);
    else
      lead = arith::DivUIOp::create(rewriter, loc, lead, k);
    if (std::optional<int64_t> c = getConstantIntValue(outSizes[0]))
      outSizes[0] = rewriter.getIndexAttr(
          kind == Kind::AllGather ? *c * groupSize : *c / groupSize);
    else
      outSizes[0] = lead;
    Value outBuf = bl.alloc(outSizes, elt);
    auto outType = cast<MemRefType>(outBuf.getType());
    Value perRank = kind == Kind::AllGather ? bl.count(in) : Value();
    if (kind == Kind::AllGather) {
      bl.call(op, "dtrt_all_gather",
              {bl.pointer(inBuf), bl.pointer(outBuf), perRank, bl.i32(*dtype),
               mask});
    } else {
      Value total = bl.count(in);
      Value per =
          arith::DivUIOp::create(rewriter, loc, total, bl.i64(groupSize));
      bl.call(op, "dtrt_reduce_scatter",
              {bl.pointer(inBuf), bl.pointer(outBuf), per, bl.i32(*dtype),
               bl.i32(reduceCode), mask});
    }
    Value t =
        bl.toTensor(outBuf, RankedTensorType::get(outType.getShape(), elt));
    return bl.moveFromFront(t, dim);
  }
  }
  llvm_unreachable("unknown collective kind");
}

/// Group size of a collective's axes.
template <typename OpT> int64_t groupSize(OpT op) {
  auto mesh =
      SymbolTable::lookupNearestSymbolFrom<MeshOp>(op, op.getMeshAttr());
  int64_t k = 1;
  for (int64_t a : op.getMeshAxes())
    k *= mesh.getShape()[a];
  return k;
}

int32_t reduceCode(ReduceOp kind) { return static_cast<int32_t>(kind); }

/// Replaces `op` (or, for an async start, its waits) by `v`.
LogicalResult finish(RewriterBase &rewriter, Operation *op, FailureOr<Value> v,
                     Type want) {
  if (failed(v))
    return failure();
  Value r = *v;
  if (r.getType() != want)
    r = tensor::CastOp::create(rewriter, op->getLoc(), want, r);
  if (isa<RequestType>(op->getResult(0).getType())) {
    for (OpOperand &use :
         llvm::make_early_inc_range(op->getResult(0).getUses()))
      if (auto wait = dyn_cast<WaitOp>(use.getOwner()))
        rewriter.replaceOp(wait, r);
    if (!op->use_empty())
      return rewriter.notifyMatchFailure(op, "request used by a non-wait op");
    rewriter.eraseOp(op);
    return success();
  }
  rewriter.replaceOp(op, r);
  return success();
}

/// Result tensor type of a collective (through its request if async).
RankedTensorType resultTensorType(Operation *op) {
  Type t = op->getResult(0).getType();
  if (auto req = dyn_cast<RequestType>(t))
    return cast<RankedTensorType>(req.getValueType());
  return cast<RankedTensorType>(t);
}

template <typename OpT> struct AllReduceLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    return finish(rewriter, op,
                  lowerCollective(rewriter, op, Kind::AllReduce, op.getInput(),
                                  type, 0, op.getMeshAxes(),
                                  reduceCode(op.getReduce()), {},
                                  groupSize(op)),
                  type);
  }
};

template <typename OpT> struct AllGatherLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    return finish(rewriter, op,
                  lowerCollective(rewriter, op, Kind::AllGather, op.getInput(),
                                  type, op.getGatherDim(), op.getMeshAxes(), 0,
                                  {}, groupSize(op)),
                  type);
  }
};

template <typename OpT> struct ReduceScatterLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    return finish(rewriter, op,
                  lowerCollective(rewriter, op, Kind::ReduceScatter,
                                  op.getInput(), type, op.getScatterDim(),
                                  op.getMeshAxes(), reduceCode(op.getReduce()),
                                  {}, groupSize(op)),
                  type);
  }
};

template <typename OpT> struct BroadcastLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    return finish(rewriter, op,
                  lowerCollective(rewriter, op, Kind::Broadcast, op.getInput(),
                                  type, 0, op.getMeshAxes(), 0, op.getRoot(),
                                  groupSize(op)),
                  type);
  }
};

/// all_to_all(split j, concat i) as the all-gather of dim i followed by this
/// rank's chunk of dim j (equal chunks: the partitioner emits all_to_all
/// only for even shards).
template <typename OpT> struct AllToAllLowering : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    Location loc = op.getLoc();
    int64_t i = op.getConcatDim(), j = op.getSplitDim();
    int64_t k = groupSize(op);
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    SmallVector<int64_t> shape(inType.getShape());
    shape[i] = ShapedType::isDynamic(shape[i]) ? shape[i] : shape[i] * k;
    FailureOr<Value> gathered =
        lowerCollective(rewriter, op, Kind::AllGather, op.getInput(),
                        RankedTensorType::get(shape, inType.getElementType()),
                        i, op.getMeshAxes(), 0, {}, k);
    if (failed(gathered))
      return failure();
    Builder bl(rewriter, loc);
    Value rank = ProcessIndexOp::create(rewriter, loc, rewriter.getIndexType(),
                                        op.getMeshAttr(), op.getMeshAxesAttr());
    SmallVector<OpFoldResult> sizes = bl.sizes(*gathered);
    Value nj = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[j]);
    Value chunk = arith::DivUIOp::create(rewriter, loc, nj, bl.index(k));
    SmallVector<OpFoldResult> offsets(sizes.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(sizes.size(), rewriter.getIndexAttr(1));
    offsets[j] = arith::MulIOp::create(rewriter, loc, rank, chunk).getResult();
    sizes[j] = !type.isDynamicDim(j)
                   ? OpFoldResult(rewriter.getIndexAttr(type.getDimSize(j)))
                   : OpFoldResult(chunk);
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, type, *gathered,
                                                 offsets, sizes, strides);
    return finish(rewriter, op, slice, type);
  }
};

struct ProcessIndexLowering : OpRewritePattern<ProcessIndexOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ProcessIndexOp op,
                                PatternRewriter &rewriter) const override {
    Builder bl(rewriter, op.getLoc());
    SmallVector<Type> args{rewriter.getI64Type()};
    func::FuncOp f =
        declare(rewriter, op, "dtrt_group_rank", args, {rewriter.getI32Type()});
    Value r =
        func::CallOp::create(rewriter, op.getLoc(), f,
                             ValueRange{bl.i64(axesMask(op.getMeshAxes()))})
            .getResult(0);
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getIndexType(),
                                                    r);
    return success();
  }
};

struct ConvertDTensorToRuntimePass
    : public dtensor::impl::ConvertDTensorToRuntimeBase<
          ConvertDTensorToRuntimePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDTensorToRuntimeConversionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation().walk([](Operation *op) {
      if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp,
              BroadcastOp, AllReduceStartOp, AllGatherStartOp,
              ReduceScatterStartOp, AllToAllStartOp, BroadcastStartOp,
              ProcessIndexOp>(op)) {
        op->emitError() << "could not lower '" << op->getName()
                        << "' to the runtime";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
    // Nothing refers to the meshes or the placements any more.
    ModuleOp module = getOperation();
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
    module.walk([](FunctionOpInterface func) {
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        for (StringRef name :
             {DTensorDialect::kSpecAttrName, DTensorDialect::kParamAttrName,
              DTensorDialect::kDdpIgnoredAttrName})
          func.removeArgAttr(i, name);
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        func.removeResultAttr(
            i,
            StringAttr::get(func.getContext(), DTensorDialect::kSpecAttrName));
    });
    module.walk(
        [](Operation *op) { op->removeAttr(DTensorDialect::kSpecsAttrName); });
  }
};

} // namespace

void mlir::dtensor::populateDTensorToRuntimeConversionPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<AllReduceLowering<AllReduceOp>, AllReduceLowering<AllReduceStartOp>,
           AllGatherLowering<AllGatherOp>, AllGatherLowering<AllGatherStartOp>,
           ReduceScatterLowering<ReduceScatterOp>,
           ReduceScatterLowering<ReduceScatterStartOp>,
           AllToAllLowering<AllToAllOp>, AllToAllLowering<AllToAllStartOp>,
           BroadcastLowering<BroadcastOp>, BroadcastLowering<BroadcastStartOp>,
           ProcessIndexLowering>(patterns.getContext());
}
