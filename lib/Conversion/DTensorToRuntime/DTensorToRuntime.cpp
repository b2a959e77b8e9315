//===- DTensorToRuntime.cpp - collectives to dtrt runtime calls -----------===//
//
// One conversion pattern lowers every CollectiveOpInterface op; the
// interface gives its family, mesh, axes, group size, reduction and the dims
// it gathers or scatters. The runtime exchanges equal contiguous blocks in
// group-rank order: a collective on dim d moves d to the front
// (linalg.transpose), runs on the leading dim and moves it back. Buffers are
// passed as raw pointers (i64) so the runtime needs no knowledge of MLIR
// memref descriptors. The runtime's ABI (dtype and reduction codes, the
// signature of every `dtrt_*` function) is read from dtrt.h.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/DTensorToRuntime/DTensorToRuntime.h"
#include "dtensor/Conversion/DTensorToRuntime/RuntimeCalls.h"
#include "dtensor/Conversion/Passes.h"

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/IR/Segment.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "dtrt/dtrt.h"

#include <functional>
#include <type_traits>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_CONVERTDTENSORTORUNTIME
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

//===----------------------------------------------------------------------===//
// The runtime's ABI, from dtrt.h
//===----------------------------------------------------------------------===//

// Pointers travel as i64 (what memref.extract_aligned_pointer_as_index gives,
// cast to i64), which the C ABI passes like a pointer on 64-bit hosts.
static_assert(sizeof(void *) == sizeof(int64_t), "dtrt needs a 64-bit host");

/// The MLIR type of a C parameter or result type of dtrt.h.
template <typename T> Type abiType(MLIRContext *ctx) {
  static_assert(std::is_pointer_v<T> || std::is_integral_v<T>,
                "dtrt.h passes integers and pointers only");
  if constexpr (std::is_pointer_v<T>)
    return IntegerType::get(ctx, 64);
  else
    return IntegerType::get(ctx, 8 * sizeof(T));
}

template <typename Fn> struct AbiSignature;
template <typename R, typename... Args> struct AbiSignature<R(Args...)> {
  static FunctionType get(MLIRContext *ctx) {
    SmallVector<Type> results;
    if constexpr (!std::is_void_v<R>)
      results.push_back(abiType<R>(ctx));
    return FunctionType::get(ctx, {abiType<Args>(ctx)...}, results);
  }
};

/// A `dtrt_*` function: its name and its signature as dtrt.h declares it.
struct RuntimeFunction {
  StringRef name;
  FunctionType (*type)(MLIRContext *);
};

/// The RuntimeFunction of `fn`, a function declared in dtrt.h (only its type
/// is used: the compiler does not link the runtime).
#define DTRT_FUNCTION(fn)                                                      \
  RuntimeFunction { #fn, &AbiSignature < decltype(fn)> ::get }

/// Declares `fn` in the module of `from` if needed.
func::FuncOp declare(RewriterBase &rewriter, Operation *from,
                     RuntimeFunction fn) {
  return declareRuntimeFunction(rewriter, from->getParentOfType<ModuleOp>(),
                                fn.name, fn.type(rewriter.getContext()));
}

//===----------------------------------------------------------------------===//
// Building the calls
//===----------------------------------------------------------------------===//

/// Builds the IR of one collective call at the rewriter's insertion point.
class CallBuilder {
public:
  CallBuilder(RewriterBase &rewriter, Operation *op)
      : b(rewriter), op(op), loc(op->getLoc()) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value mask(ArrayRef<int64_t> axes) { return i64(runtimeAxesMask(axes)); }

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

  /// The tensor of buffer `buf` (of the same shape and element type).
  Value toTensor(Value buf) {
    auto type = cast<MemRefType>(buf.getType());
    return bufferization::ToTensorOp::create(
        b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
        buf, /*restrict=*/true, /*writable=*/true);
  }

  /// Calls `fn`; a non-zero status aborts the job with the runtime's message
  /// (`dtrt_abort(dtrt_last_error())`), so a failed collective never leaves
  /// a wrong result or a hung peer behind.
  void call(RuntimeFunction fn, ValueRange args) {
    func::FuncOp f = declare(b, op, fn);
    assert(TypeRange(args) == f.getArgumentTypes() && "dtrt.h signature");
    createCheckedRuntimeCall(b, loc, f, args);
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
  Operation *op;
  Location loc;
};

//===----------------------------------------------------------------------===//
// One lowering per collective family
//===----------------------------------------------------------------------===//

/// What every family's lowering needs of the collective.
struct Collective {
  CollectiveOpInterface op;
  /// The input as the conversion hands it over.
  Value input;
  dtrt_dtype dtype;
  int64_t groupSize;
};

/// A collective prepared up to its runtime call: the synchronous function
/// and its `_start` form (which takes a request pointer after `args`), the
/// buffer the runtime writes, and how that buffer's tensor becomes the
/// result (built right after the call, or at the wait when asynchronous).
struct RuntimeCall {
  RuntimeFunction sync;
  RuntimeFunction start;
  SmallVector<Value> args;
  Value outBuf;
  std::function<Value(CallBuilder &, Value)> finish = [](CallBuilder &,
                                                         Value t) { return t; };
};

RuntimeCall prepareAllReduce(CallBuilder &bl, Collective &c) {
  Value inBuf = bl.materialize(c.input);
  Value outBuf =
      bl.alloc(bl.sizes(c.input), getElementTypeOrSelf(c.input.getType()));
  return {DTRT_FUNCTION(dtrt_all_reduce),
          DTRT_FUNCTION(dtrt_all_reduce_start),
          {bl.pointer(inBuf), bl.pointer(outBuf), bl.count(c.input),
           bl.i32(c.dtype), bl.i32(runtimeReduceOpOf(*c.op.getReduceKind())),
           bl.mask(c.op.getMeshAxes())},
          outBuf};
}

RuntimeCall prepareBroadcast(CallBuilder &bl, Collective &c,
                             SymbolTableCollection &symbolTable) {
  // Root coordinates on the axes, row-major, give the group root.
  MeshOp mesh = lookupMesh(c.op, c.op.getMeshAttr(), symbolTable);
  int64_t rootRank = 0;
  for (auto [a, coord] :
       llvm::zip_equal(c.op.getMeshAxes(), c.op.getRootCoords()))
    rootRank = rootRank * mesh.getShape()[a] + coord;
  Value buf = bl.materialize(c.input);
  return {DTRT_FUNCTION(dtrt_broadcast),
          DTRT_FUNCTION(dtrt_broadcast_start),
          {bl.pointer(buf), bl.count(c.input), bl.i32(c.dtype),
           bl.i32(rootRank), bl.mask(c.op.getMeshAxes())},
          buf};
}

/// all_gather (`gather`) or reduce_scatter of `input` along `dim`.
RuntimeCall prepareGatherOrScatter(CallBuilder &bl, Collective &c, Value input,
                                   int64_t dim, bool gather) {
  RewriterBase &b = bl.b;
  Value in = bl.moveToFront(input, dim);
  Value inBuf = bl.materialize(in);
  SmallVector<OpFoldResult> outSizes = bl.sizes(in);
  int64_t k = c.groupSize;
  if (std::optional<int64_t> n = getConstantIntValue(outSizes[0])) {
    outSizes[0] = b.getIndexAttr(gather ? *n * k : *n / k);
  } else {
    Value lead = getValueOrCreateConstantIndexOp(b, bl.loc, outSizes[0]);
    outSizes[0] =
        gather
            ? arith::MulIOp::create(b, bl.loc, lead, bl.index(k)).getResult()
            : arith::DivUIOp::create(b, bl.loc, lead, bl.index(k)).getResult();
  }
  Value outBuf = bl.alloc(outSizes, getElementTypeOrSelf(in.getType()));
  Value mask = bl.mask(c.op.getMeshAxes());
  RuntimeCall call;
  call.outBuf = outBuf;
  call.finish = [dim](CallBuilder &fb, Value t) {
    return fb.moveFromFront(t, dim);
  };
  if (gather) {
    call.sync = DTRT_FUNCTION(dtrt_all_gather);
    call.start = DTRT_FUNCTION(dtrt_all_gather_start);
    call.args = {bl.pointer(inBuf), bl.pointer(outBuf), bl.count(in),
                 bl.i32(c.dtype), mask};
  } else {
    call.sync = DTRT_FUNCTION(dtrt_reduce_scatter);
    call.start = DTRT_FUNCTION(dtrt_reduce_scatter_start);
    Value perRank = arith::DivUIOp::create(b, bl.loc, bl.count(in), bl.i64(k));
    call.args = {bl.pointer(inBuf),
                 bl.pointer(outBuf),
                 perRank,
                 bl.i32(c.dtype),
                 bl.i32(runtimeReduceOpOf(*c.op.getReduceKind())),
                 mask};
  }
  return call;
}

/// all_to_all(split j, concat i): the input with dim j at the front, so that
/// the chunk for group rank g is block g of its rows (equal chunks: the
/// partitioner emits all_to_all only for even shards), exchanged by
/// `dtrt_all_to_all`; each received block goes back along dim i.
RuntimeCall prepareAllToAll(CallBuilder &bl, Collective &c,
                            RankedTensorType type) {
  int64_t i = *c.op.getGatheredDim(), j = *c.op.getScatteredDim();
  Value in = bl.moveToFront(c.input, j);
  Value inBuf = bl.materialize(in);
  Value outBuf = bl.alloc(bl.sizes(in), getElementTypeOrSelf(in.getType()));
  int64_t groupSize = c.groupSize;
  Value perRank =
      arith::DivUIOp::create(bl.b, bl.loc, bl.count(in), bl.i64(groupSize));
  RuntimeCall call;
  call.sync = DTRT_FUNCTION(dtrt_all_to_all);
  call.start = DTRT_FUNCTION(dtrt_all_to_all_start);
  call.args = {bl.pointer(inBuf), bl.pointer(outBuf), perRank,
               bl.i32(c.dtype), bl.mask(c.op.getMeshAxes())};
  call.outBuf = outBuf;
  call.finish = [=](CallBuilder &fb, Value t) {
    return unpackAllToAll(fb.b, fb.loc, t, i, j, groupSize, type);
  };
  return call;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Checks what the runtime cannot do, with a diagnostic naming the op and
/// the type; returns the dtype of the collective's elements.
FailureOr<dtrt_dtype> checkLowerable(CollectiveOpInterface op) {
  Type elt = op.getResultTensorType().getElementType();
  std::optional<dtrt_dtype> dtype = runtimeDtypeOf(elt);
  if (!dtype)
    return op->emitOpError()
           << "element type " << elt
           << " is not supported by the runtime (it has f32, f64, f16, bf16, "
              "i1, i8, i16, i32, i64 and index)";
  std::optional<ReduceOp> reduce = op.getReduceKind();
  if (reduce == ReduceOp::Avg && !isa<FloatType>(elt))
    return op->emitOpError()
           << "reduction avg is defined by the runtime for float element "
              "types only, got "
           << elt;
  if (!op.isAsync())
    return *dtype;
  for (Operation *user : op->getUsers())
    if (!isa<WaitOp>(user))
      return op->emitOpError() << "request is used by '" << user->getName()
                               << "'; only dtensor.wait can complete it";
  size_t waits = llvm::range_size(op->getUsers());
  if (waits != 1)
    return op->emitOpError()
           << "request is waited on " << waits
           << " times; the runtime completes a request with exactly one "
              "dtensor.wait";
  return *dtype;
}

/// Prepares the runtime call of any collective, by family.
RuntimeCall prepareCall(CallBuilder &bl, Collective &c,
                        SymbolTableCollection &symbolTable) {
  CollectiveOpInterface op = c.op;
  switch (op.getCollectiveKind()) {
  case CollectiveKind::AllReduce:
    return prepareAllReduce(bl, c);
  case CollectiveKind::Broadcast:
    return prepareBroadcast(bl, c, symbolTable);
  case CollectiveKind::AllGather:
    return prepareGatherOrScatter(bl, c, c.input, *op.getGatheredDim(),
                                  /*gather=*/true);
  case CollectiveKind::ReduceScatter:
    return prepareGatherOrScatter(bl, c, c.input, *op.getScatteredDim(),
                                  /*gather=*/false);
  case CollectiveKind::AllToAll:
    return prepareAllToAll(bl, c, op.getResultTensorType());
  }
  llvm_unreachable("unknown collective kind");
}

/// The result of `call` from its output buffer, with the op's result type.
Value finishCall(CallBuilder &bl, RuntimeCall &call, RankedTensorType type) {
  Value result = call.finish(bl, bl.toTensor(call.outBuf));
  if (result.getType() != type)
    result = tensor::CastOp::create(bl.b, bl.loc, type, result);
  return result;
}

/// Lowers any collective through CollectiveOpInterface. A synchronous one
/// becomes its `dtrt_*` call; an async `_start` becomes the `dtrt_*_start`
/// call (the request kept in a one-element buffer), and its wait becomes
/// `dtrt_wait` followed by the reading of the output buffer, so that the
/// compute between them overlaps the transfer.
struct CollectiveLowering
    : OpInterfaceConversionPattern<CollectiveOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult
  matchAndRewrite(CollectiveOpInterface op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<dtrt_dtype> dtype = checkLowerable(op);
    if (failed(dtype))
      return failure();
    SymbolTableCollection symbolTable;
    Collective c{op, operands[0], *dtype, op.getGroupSize(symbolTable)};
    RankedTensorType type = op.getResultTensorType();
    CallBuilder bl(rewriter, op);
    RuntimeCall call = prepareCall(bl, c, symbolTable);
    if (!op.isAsync()) {
      bl.call(call.sync, call.args);
      rewriter.replaceOp(op, finishCall(bl, call, type));
      return success();
    }
    Value slot = bl.alloc({}, rewriter.getI64Type());
    SmallVector<Value> args = call.args;
    args.push_back(bl.pointer(slot));
    bl.call(call.start, args);
    Value request =
        memref::LoadOp::create(rewriter, op.getLoc(), slot, ValueRange{});
    Operation *wait = *op->getUsers().begin();
    rewriter.setInsertionPoint(wait);
    CallBuilder wl(rewriter, wait);
    wl.call(DTRT_FUNCTION(dtrt_wait), {request});
    rewriter.replaceOp(wait, finishCall(wl, call, type));
    rewriter.eraseOp(op);
    return success();
  }
};

struct ProcessIndexLowering : OpConversionPattern<ProcessIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ProcessIndexOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CallBuilder bl(rewriter, op);
    func::FuncOp f = declare(rewriter, op, DTRT_FUNCTION(dtrt_group_rank));
    Value r = func::CallOp::create(rewriter, op.getLoc(), f,
                                   ValueRange{bl.mask(op.getMeshAxes())})
                  .getResult(0);
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(op, rewriter.getIndexType(),
                                                    r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Segment spans
//===----------------------------------------------------------------------===//

/// Brackets the top-level ops of each function's segments (`dtensor.segment`,
/// see Segment.h) with compute spans: `dtrt_span_begin("<segment>")` before
/// the first op of a segment, `dtrt_span_end()` where the next segment or the
/// return begins. Ops without the attribute (recreated constants,
/// collectives) stay in the span that is open. The names are constant
/// globals; the statuses are ignored, as tracing must never stop a program.
class SegmentSpans {
public:
  explicit SegmentSpans(ModuleOp module)
      : module(module), rewriter(module.getContext()) {}

  void run() {
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      if (auto whole = func->getAttrOfType<StringAttr>(kSegmentAttrName))
        bracketWhole(func.getBody().front(), whole);
      else
        bracket(func.getBody().front());
    }
  }

private:
  /// A function that is one segment: its whole body.
  void bracketWhole(Block &body, StringAttr name) {
    Operation *first = &body.front();
    begin(first, name);
    emit(body.getTerminator(), DTRT_FUNCTION(dtrt_span_end), {});
  }

  void begin(Operation *before, StringAttr name) {
    rewriter.setInsertionPoint(before);
    Value kind = arith::ConstantIntOp::create(
        rewriter, before->getLoc(), rewriter.getI32Type(), DTRT_SPAN_COMPUTE);
    emit(before, DTRT_FUNCTION(dtrt_span_begin),
         {namePointer(before->getLoc(), name), kind});
  }

  void bracket(Block &body) {
    StringAttr open;
    for (Operation &op : body) {
      auto segment = op.getAttrOfType<StringAttr>(kSegmentAttrName);
      bool last = op.hasTrait<OpTrait::IsTerminator>();
      if (open && (last || (segment && segment != open))) {
        emit(&op, DTRT_FUNCTION(dtrt_span_end), {});
        open = {};
      }
      if (last || !segment || segment == open)
        continue;
      begin(&op, segment);
      open = segment;
    }
  }

  void emit(Operation *before, RuntimeFunction fn, ValueRange args) {
    rewriter.setInsertionPoint(before);
    func::FuncOp f = declare(rewriter, before, fn);
    func::CallOp::create(rewriter, before->getLoc(), f, args);
  }

  /// A pointer (i64) to the NUL-terminated name, a private constant global.
  Value namePointer(Location loc, StringAttr name) {
    memref::GlobalOp &global = globals[name.getValue()];
    auto type =
        MemRefType::get({int64_t(name.size() + 1)}, rewriter.getI8Type());
    if (!global) {
      SmallVector<int8_t> bytes(name.getValue().begin(), name.getValue().end());
      bytes.push_back(0);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      global = memref::GlobalOp::create(
          rewriter, loc, ("__dtrt_segment_" + Twine(globals.size())).str(),
          rewriter.getStringAttr("private"), type,
          DenseElementsAttr::get(
              RankedTensorType::get(type.getShape(), rewriter.getI8Type()),
              llvm::ArrayRef(bytes)),
          /*constant=*/true, /*alignment=*/IntegerAttr());
    }
    Value buf =
        memref::GetGlobalOp::create(rewriter, loc, type, global.getSymName());
    Value p =
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buf);
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), p);
  }

  ModuleOp module;
  IRRewriter rewriter;
  llvm::StringMap<memref::GlobalOp> globals;
};

/// Removes the meshes and the placement attributes: nothing refers to them
/// once the collectives are calls.
void eraseShardingMetadata(ModuleOp module) {
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
          i, StringAttr::get(func.getContext(), DTensorDialect::kSpecAttrName));
  });
  module.walk([](Operation *op) {
    op->removeAttr(DTensorDialect::kSpecsAttrName);
    op->removeAttr(kSegmentAttrName);
  });
}

struct ConvertDTensorToRuntimePass
    : public dtensor::impl::ConvertDTensorToRuntimeBase<
          ConvertDTensorToRuntimePass> {
  using Base::Base;
  void runOnOperation() override {
    SegmentSpans(getOperation()).run();
    ConversionTarget target(getContext());
    configureDTensorToRuntimeConversionTarget(target);
    RewritePatternSet patterns(&getContext());
    if (backend == "nccl") {
      populateDTensorToNcclConversionPatterns(patterns);
      patterns.add<ProcessIndexLowering>(&getContext());
    } else if (backend == "mpi") {
      populateDTensorToRuntimeConversionPatterns(patterns);
    } else {
      getOperation().emitError()
          << "unknown backend '" << backend << "' (expected mpi or nccl)";
      return signalPassFailure();
    }
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    // Fold the index arithmetic of static shapes and share the constants
    // the calls are built from.
    (void)applyPatternsGreedily(getOperation(), FrozenRewritePatternSet());
    eraseShardingMetadata(getOperation());
  }
};

} // namespace

void mlir::dtensor::configureDTensorToRuntimeConversionTarget(
    ConversionTarget &target) {
  target.addIllegalOp<ProcessIndexOp, WaitOp>();
  target.markUnknownOpDynamicallyLegal(
      [](Operation *op) { return !isa<CollectiveOpInterface>(op); });
}

void mlir::dtensor::populateDTensorToRuntimeConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ProcessIndexLowering>(patterns.getContext());
  patterns.add<CollectiveLowering>(patterns.getContext());
}
