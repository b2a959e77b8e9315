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
#include "dtensor/Conversion/Passes.h"

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "dtrt/dtrt.h"

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

/// The dtrt_dtype of element type `t`, if the runtime has one.
std::optional<dtrt_dtype> dtypeOf(Type t) {
  if (t.isF32())
    return DTRT_F32;
  if (t.isF64())
    return DTRT_F64;
  if (t.isF16())
    return DTRT_F16;
  if (t.isBF16())
    return DTRT_BF16;
  if (t.isInteger(32))
    return DTRT_I32;
  if (t.isInteger(64) || t.isIndex())
    return DTRT_I64;
  if (t.isInteger(16))
    return DTRT_I16;
  if (t.isInteger(8))
    return DTRT_I8;
  if (t.isInteger(1))
    return DTRT_I1;
  return std::nullopt;
}

dtrt_reduce_op reduceOpOf(ReduceOp kind) {
  switch (kind) {
  case ReduceOp::Sum:
    return DTRT_SUM;
  case ReduceOp::Avg:
    return DTRT_AVG;
  case ReduceOp::Max:
    return DTRT_MAX;
  case ReduceOp::Min:
    return DTRT_MIN;
  }
  llvm_unreachable("unknown reduction");
}

/// Bit mask of mesh axes (`axes_mask` in dtrt.h).
uint64_t axesMask(ArrayRef<int64_t> axes) {
  uint64_t mask = 0;
  for (int64_t a : axes)
    mask |= uint64_t(1) << a;
  return mask;
}

/// Declares `fn` in the module of `from` if needed.
func::FuncOp declare(RewriterBase &rewriter, Operation *from,
                     RuntimeFunction fn) {
  auto module = from->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<func::FuncOp>(fn.name))
    return f;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(rewriter, module.getLoc(), fn.name,
                                fn.type(rewriter.getContext()));
  f.setPrivate();
  return f;
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
  Value mask(ArrayRef<int64_t> axes) { return i64(axesMask(axes)); }

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
    Value status = func::CallOp::create(b, loc, f, args).getResult(0);
    Value failed =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, status, i32(0));
    func::FuncOp lastError = declare(b, op, DTRT_FUNCTION(dtrt_last_error));
    func::FuncOp abort = declare(b, op, DTRT_FUNCTION(dtrt_abort));
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

Value lowerAllReduce(CallBuilder &bl, Collective &c) {
  Value inBuf = bl.materialize(c.input);
  Value outBuf =
      bl.alloc(bl.sizes(c.input), getElementTypeOrSelf(c.input.getType()));
  bl.call(DTRT_FUNCTION(dtrt_all_reduce),
          {bl.pointer(inBuf), bl.pointer(outBuf), bl.count(c.input),
           bl.i32(c.dtype), bl.i32(reduceOpOf(*c.op.getReduceKind())),
           bl.mask(c.op.getMeshAxes())});
  return bl.toTensor(outBuf);
}

Value lowerBroadcast(CallBuilder &bl, Collective &c,
                     SymbolTableCollection &symbolTable) {
  // Root coordinates on the axes, row-major, give the group root.
  MeshOp mesh = lookupMesh(c.op, c.op.getMeshAttr(), symbolTable);
  int64_t rootRank = 0;
  for (auto [a, coord] :
       llvm::zip_equal(c.op.getMeshAxes(), c.op.getRootCoords()))
    rootRank = rootRank * mesh.getShape()[a] + coord;
  Value buf = bl.materialize(c.input);
  bl.call(DTRT_FUNCTION(dtrt_broadcast),
          {bl.pointer(buf), bl.count(c.input), bl.i32(c.dtype),
           bl.i32(rootRank), bl.mask(c.op.getMeshAxes())});
  return bl.toTensor(buf);
}

/// all_gather (`gather`) or reduce_scatter of `input` along `dim`.
Value lowerGatherOrScatter(CallBuilder &bl, Collective &c, Value input,
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
  if (gather) {
    bl.call(DTRT_FUNCTION(dtrt_all_gather),
            {bl.pointer(inBuf), bl.pointer(outBuf), bl.count(in),
             bl.i32(c.dtype), mask});
  } else {
    Value perRank = arith::DivUIOp::create(b, bl.loc, bl.count(in), bl.i64(k));
    bl.call(DTRT_FUNCTION(dtrt_reduce_scatter),
            {bl.pointer(inBuf), bl.pointer(outBuf), perRank, bl.i32(c.dtype),
             bl.i32(reduceOpOf(*c.op.getReduceKind())), mask});
  }
  return bl.moveFromFront(bl.toTensor(outBuf), dim);
}

/// all_to_all(split j, concat i) as the all-gather of dim i followed by this
/// rank's chunk of dim j (equal chunks: the partitioner emits all_to_all
/// only for even shards).
Value lowerAllToAll(CallBuilder &bl, Collective &c, RankedTensorType type) {
  RewriterBase &b = bl.b;
  Location loc = bl.loc;
  int64_t i = *c.op.getGatheredDim(), j = *c.op.getScatteredDim();
  Value gathered = lowerGatherOrScatter(bl, c, c.input, i, /*gather=*/true);
  Value rank =
      ProcessIndexOp::create(b, loc, b.getIndexType(), c.op.getMeshAttr(),
                             b.getDenseI64ArrayAttr(c.op.getMeshAxes()));
  SmallVector<OpFoldResult> sizes = bl.sizes(gathered);
  Value nj = getValueOrCreateConstantIndexOp(b, loc, sizes[j]);
  Value chunk = arith::DivUIOp::create(b, loc, nj, bl.index(c.groupSize));
  SmallVector<OpFoldResult> offsets(sizes.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  offsets[j] = arith::MulIOp::create(b, loc, rank, chunk).getResult();
  sizes[j] = !type.isDynamicDim(j)
                 ? OpFoldResult(b.getIndexAttr(type.getDimSize(j)))
                 : OpFoldResult(chunk);
  return tensor::ExtractSliceOp::create(b, loc, type, gathered, offsets, sizes,
                                        strides);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Checks what the runtime cannot do, with a diagnostic naming the op and
/// the type; returns the dtype of the collective's elements.
FailureOr<dtrt_dtype> checkLowerable(CollectiveOpInterface op) {
  Type elt = op.getResultTensorType().getElementType();
  std::optional<dtrt_dtype> dtype = dtypeOf(elt);
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
  if (op.isAsync())
    for (Operation *user : op->getUsers())
      if (!isa<WaitOp>(user))
        return op->emitOpError() << "request is used by '" << user->getName()
                                 << "'; only dtensor.wait can complete it";
  return *dtype;
}

/// Lowers any collective through CollectiveOpInterface. An async `_start`
/// becomes the synchronous call and its waits read the result.
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
    Value result;
    switch (op.getCollectiveKind()) {
    case CollectiveKind::AllReduce:
      result = lowerAllReduce(bl, c);
      break;
    case CollectiveKind::Broadcast:
      result = lowerBroadcast(bl, c, symbolTable);
      break;
    case CollectiveKind::AllGather:
      result = lowerGatherOrScatter(bl, c, c.input, *op.getGatheredDim(),
                                    /*gather=*/true);
      break;
    case CollectiveKind::ReduceScatter:
      result = lowerGatherOrScatter(bl, c, c.input, *op.getScatteredDim(),
                                    /*gather=*/false);
      break;
    case CollectiveKind::AllToAll:
      result = lowerAllToAll(bl, c, type);
      break;
    }
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, op.getLoc(), type, result);
    if (!op.isAsync()) {
      rewriter.replaceOp(op, result);
      return success();
    }
    for (Operation *wait : llvm::make_early_inc_range(op->getUsers()))
      rewriter.replaceOp(wait, result);
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
  module.walk(
      [](Operation *op) { op->removeAttr(DTensorDialect::kSpecsAttrName); });
}

struct ConvertDTensorToRuntimePass
    : public dtensor::impl::ConvertDTensorToRuntimeBase<
          ConvertDTensorToRuntimePass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    configureDTensorToRuntimeConversionTarget(target);
    RewritePatternSet patterns(&getContext());
    populateDTensorToRuntimeConversionPatterns(patterns);
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
