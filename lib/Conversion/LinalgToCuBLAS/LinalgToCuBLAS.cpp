//===- LinalgToCuBLAS.cpp - contractions on buffers to cuBLASLt calls -----===//
//
// A contraction is matched structurally: linalg::inferContractionDims splits
// its loops into batch, m, n and k dims, and the strides of each buffer say
// which operand is stored transposed. The call is the runtime's row-major
// batched strided GEMM (dtrt_cublaslt_matmul in dtrt_cuda.h).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/LinalgToCuBLAS/LinalgToCuBLAS.h"
#include "dtensor/Conversion/DTensorToRuntime/RuntimeCalls.h"
#include "dtensor/Conversion/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "dtrt/dtrt.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORLINALGTOCUBLASLT
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// The dtype code of dtrt_cuda.h's GEMM: the runtime's code of f32, f16 or
/// bf16 (the types the GEMM takes).
std::optional<int32_t> gemmDtype(Type t) {
  if (!t.isF32() && !t.isF16() && !t.isBF16())
    return std::nullopt;
  return dtensor::runtimeDtypeOf(t);
}

/// One GEMM operand: the positions, in its buffer, of the dims of the
/// matrix it holds (rows, cols of the row-major matrix as stored), and of
/// every batch dim (std::nullopt where the operand does not have it).
struct GemmOperand {
  Value buffer;
  int64_t rowPos, colPos;
  bool transposed;
  SmallVector<int64_t> batchPos;
};

/// A matched contraction C[batch, m, n] += A[batch, m, k] * B[batch, k, n].
struct GemmPlan {
  linalg::ContractionDimensions dims;
  GemmOperand a, b, c;
};

/// The position of loop `dim` among the results of `map`.
std::optional<int64_t> positionOf(AffineMap map, unsigned dim) {
  std::optional<unsigned> pos =
      map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
  if (!pos)
    return std::nullopt;
  return *pos;
}

/// The layout of the operand `buffer` (indexing map `map`) holding matrix
/// dims (`first`, `second`), stored row-major if `second` has unit stride,
/// transposed if `first` has; fails otherwise.
FailureOr<GemmOperand> matchOperand(Value buffer, AffineMap map, unsigned first,
                                    unsigned second, ArrayRef<unsigned> batch,
                                    bool allowTranspose) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return failure();
  std::optional<int64_t> p = positionOf(map, first),
                         q = positionOf(map, second);
  if (!p || !q)
    return failure();
  GemmOperand op{buffer, *p, *q, false, {}};
  if (strides[*q] != 1) {
    if (!allowTranspose || strides[*p] != 1)
      return failure();
    op = GemmOperand{buffer, *q, *p, true, {}};
  }
  for (unsigned d : batch) {
    std::optional<int64_t> pos = positionOf(map, d);
    if (!pos)
      return failure();
    op.batchPos.push_back(*pos);
  }
  return op;
}

/// Matches `op` as a cuBLASLt GEMM (see the pass description).
FailureOr<GemmPlan> matchGemm(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return failure();
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return failure();
  Type ta = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type tb = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  Type tc = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!gemmDtype(ta) || ta != tb || (tc != ta && !tc.isF32()))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // C = A B, or, when C is stored with m contiguous, C^T = B^T A^T: the
  // inputs swap roles (the body's product commutes).
  for (bool swap : {false, true}) {
    unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
    unsigned ia = 0, ib = 1;
    if (swap) {
      std::swap(m, n);
      std::swap(ia, ib);
    }
    FailureOr<GemmOperand> a =
        matchOperand(op.getDpsInputs()[ia], maps[ia], m, k, dims->batch, true);
    FailureOr<GemmOperand> b =
        matchOperand(op.getDpsInputs()[ib], maps[ib], k, n, dims->batch, true);
    FailureOr<GemmOperand> c =
        matchOperand(op.getDpsInits()[0], maps[2], m, n, dims->batch, false);
    if (failed(a) || failed(b) || failed(c))
      continue;
    linalg::ContractionDimensions gemmDims = *dims;
    gemmDims.m = {m};
    gemmDims.n = {n};
    return GemmPlan{gemmDims, *a, *b, *c};
  }
  return failure();
}

/// Marks the linalg.generic of an emulated call, itself a contraction the
/// pattern must not match again.
constexpr StringLiteral kEmulationAttr = "__cublaslt_emulation__";

/// The values one call passes for an operand: the element offset of its
/// first matrix, its leading dimension and its batch stride (elements).
struct OperandArgs {
  Value offset, ld, batchStride;
};

/// Builds the calls (or their emulation) of one matched contraction.
class GemmBuilder {
public:
  GemmBuilder(RewriterBase &b, linalg::LinalgOp op, const GemmPlan &plan,
              bool emulate)
      : b(b), op(op), plan(plan), loc(op.getLoc()), emulate(emulate) {}

  void build() {
    ranges = op.createLoopRanges(b, loc);
    SmallVector<const GemmOperand *> operands{&plan.a, &plan.b, &plan.c};
    SmallVector<OperandArgs> args;
    for (const GemmOperand *o : operands) {
      auto meta = memref::ExtractStridedMetadataOp::create(b, loc, o->buffer);
      metadata.push_back(meta);
      args.push_back(
          {meta.getOffset(), meta.getStrides()[o->rowPos], index(0)});
    }
    // The innermost batch dim is the GEMM's batch; the others are loops.
    size_t numBatch = plan.dims.batch.size();
    for (auto [i, o] : llvm::enumerate(operands))
      if (numBatch > 0)
        args[i].batchStride =
            metadata[i].getStrides()[o->batchPos[numBatch - 1]];
    Value batch = numBatch ? size(plan.dims.batch.back()) : index(1);
    buildOuterLoops(0, args, batch);
  }

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value size(unsigned loopDim) {
    return getValueOrCreateConstantIndexOp(b, loc, ranges[loopDim].size);
  }

  /// The loops over the batch dims but the innermost, each adding its
  /// iteration's offset to every operand.
  void buildOuterLoops(size_t level, SmallVector<OperandArgs> args,
                       Value batch) {
    size_t numBatch = plan.dims.batch.size();
    if (level + 1 >= numBatch) {
      emulate ? buildEmulation(args, batch) : buildCall(args, batch);
      return;
    }
    auto loop = scf::ForOp::create(b, loc, index(0),
                                   size(plan.dims.batch[level]), index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<const GemmOperand *> operands{&plan.a, &plan.b, &plan.c};
    for (auto [i, o] : llvm::enumerate(operands)) {
      Value stride = metadata[i].getStrides()[o->batchPos[level]];
      Value step =
          arith::MulIOp::create(b, loc, loop.getInductionVar(), stride);
      args[i].offset = arith::AddIOp::create(b, loc, args[i].offset, step);
    }
    buildOuterLoops(level + 1, args, batch);
  }

  void buildCall(ArrayRef<OperandArgs> args, Value batch);
  void buildEmulation(ArrayRef<OperandArgs> args, Value batch);

  RewriterBase &b;
  linalg::LinalgOp op;
  const GemmPlan &plan;
  Location loc;
  bool emulate;
  SmallVector<Range> ranges;
  SmallVector<memref::ExtractStridedMetadataOp> metadata;
};

void GemmBuilder::buildCall(ArrayRef<OperandArgs> args, Value batch) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  auto cst32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  auto toI64 = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, i64, v);
  };
  SmallVector<const GemmOperand *> operands{&plan.a, &plan.b, &plan.c};
  auto address = [&](size_t i) -> Value {
    const GemmOperand &o = *operands[i];
    int64_t bytes =
        cast<MemRefType>(o.buffer.getType()).getElementTypeBitWidth() / 8;
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, o.buffer);
    Value off = arith::MulIOp::create(b, loc, args[i].offset, index(bytes));
    return toI64(arith::AddIOp::create(b, loc, base, off));
  };
  Type inType = getElementTypeOrSelf(plan.a.buffer.getType());
  Type outType = getElementTypeOrSelf(plan.c.buffer.getType());
  Value one = arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(1.0));
  SmallVector<Value> callArgs{cst32(*gemmDtype(inType)),
                              cst32(*gemmDtype(outType)),
                              cst32(plan.a.transposed),
                              cst32(plan.b.transposed),
                              toI64(batch),
                              toI64(size(plan.dims.m[0])),
                              toI64(size(plan.dims.n[0])),
                              toI64(size(plan.dims.k[0]))};
  for (size_t i = 0; i < 3; ++i)
    callArgs.append(
        {address(i), toI64(args[i].ld), toI64(args[i].batchStride)});
  callArgs.append(
      {one, one, arith::ConstantIntOp::create(b, loc, i64, 0), cst32(0)});
  func::FuncOp fn = dtensor::declareRuntimeFunction(
      b, op->getParentOfType<ModuleOp>(), "dtrt_cublaslt_matmul",
      b.getFunctionType(TypeRange(ValueRange(callArgs)), {i32}));
  dtensor::createCheckedRuntimeCall(b, loc, fn, callArgs);
}

void GemmBuilder::buildEmulation(ArrayRef<OperandArgs> args, Value batch) {
  MLIRContext *ctx = b.getContext();
  Value m = size(plan.dims.m[0]), n = size(plan.dims.n[0]),
        k = size(plan.dims.k[0]);
  // The [batch, rows, cols] view each call argument describes.
  auto view = [&](const GemmOperand &o, const OperandArgs &a, Value rows,
                  Value cols) -> Value {
    auto type = cast<MemRefType>(o.buffer.getType());
    int64_t dyn = ShapedType::kDynamic;
    auto layout = StridedLayoutAttr::get(ctx, dyn, {dyn, dyn, 1});
    auto viewType =
        MemRefType::get({dyn, dyn, dyn}, type.getElementType(), layout);
    SmallVector<OpFoldResult> sizes{batch, rows, cols};
    SmallVector<OpFoldResult> strides{a.batchStride, a.ld, b.getIndexAttr(1)};
    return memref::ReinterpretCastOp::create(
        b, loc, viewType, o.buffer, OpFoldResult(a.offset), sizes, strides);
  };
  Value va = plan.a.transposed ? view(plan.a, args[0], k, m)
                               : view(plan.a, args[0], m, k);
  Value vb = plan.b.transposed ? view(plan.b, args[1], n, k)
                               : view(plan.b, args[1], k, n);
  Value vc = view(plan.c, args[2], m, n);
  // Loops (batch, i, j, l): C[b, i, j] += op(A)[b, i, l] * op(B)[b, l, j].
  AffineExpr eb, ei, ej, el;
  bindDims(ctx, eb, ei, ej, el);
  auto map = [&](ArrayRef<AffineExpr> e) {
    return AffineMap::get(4, 0, e, ctx);
  };
  SmallVector<AffineMap> maps{
      plan.a.transposed ? map({eb, el, ei}) : map({eb, ei, el}),
      plan.b.transposed ? map({eb, ej, el}) : map({eb, el, ej}),
      map({eb, ei, ej})};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(3, IteratorType::parallel);
  iterators.push_back(IteratorType::reduction);
  Type acc = getElementTypeOrSelf(vc.getType());
  auto generic = linalg::GenericOp::create(
      b, loc, ValueRange{va, vb}, ValueRange{vc}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange x) {
        Value xa = x[0], xb = x[1];
        if (xa.getType() != acc) {
          xa = arith::ExtFOp::create(nb, nl, acc, xa);
          xb = arith::ExtFOp::create(nb, nl, acc, xb);
        }
        Value prod = arith::MulFOp::create(nb, nl, xa, xb);
        linalg::YieldOp::create(
            nb, nl, ValueRange{arith::AddFOp::create(nb, nl, x[2], prod)});
      });
  generic->setAttr(kEmulationAttr, b.getUnitAttr());
}

struct ContractionToCuBLASLt : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionToCuBLASLt(MLIRContext *ctx, bool emulate)
      : OpInterfaceRewritePattern(ctx), emulate(emulate) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    // The emulation is itself a contraction: leave it alone.
    if (op->hasAttr(kEmulationAttr))
      return failure();
    FailureOr<GemmPlan> plan = matchGemm(op);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "not a cuBLASLt GEMM");
    rewriter.setInsertionPoint(op);
    GemmBuilder(rewriter, op, *plan, emulate).build();
    rewriter.eraseOp(op);
    return success();
  }

  bool emulate;
};

struct LinalgToCuBLASLtPass
    : public dtensor::impl::DTensorLinalgToCuBLASLtBase<LinalgToCuBLASLtPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    dtensor::populateLinalgToCuBLASLtPatterns(patterns, emulate);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::dtensor::populateLinalgToCuBLASLtPatterns(
    RewritePatternSet &patterns, bool emulate) {
  patterns.add<ContractionToCuBLASLt>(patterns.getContext(), emulate);
}
