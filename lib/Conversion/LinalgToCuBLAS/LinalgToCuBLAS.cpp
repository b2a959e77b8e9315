//===- LinalgToCuBLAS.cpp - contractions on buffers to cuBLASLt calls -----===//
//
// A contraction is matched structurally: linalg::inferContractionDims splits
// its loops into batch, m, n and k dims, and the strides of each buffer say
// which operand is stored transposed. The call is the runtime's row-major
// batched strided GEMM (dtrt_cublaslt_matmul in dtrt_cuda.h). A zero-filled
// output gives beta = 0 (BufferZeros.h, shared with the CBLAS lowering), an
// in-place bias add and/or relu right after the GEMM its epilogue.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/LinalgToCuBLAS/LinalgToCuBLAS.h"
#include "dtensor/Conversion/DTensorToRuntime/RuntimeCalls.h"
#include "dtensor/Conversion/Passes.h"
#include "dtensor/Conversion/Utils/BufferZeros.h"
#include "dtensor/Conversion/Utils/PackContraction.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "dtrt/dtrt_cuda.h"

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

/// The cuBLASLt epilogue of one GEMM: the elementwise op it replaces (null
/// for none) and the bias vector of the BIAS kinds.
struct Epilogue {
  linalg::GenericOp op;
  dtrt_epilogue kind = DTRT_EPILOGUE_NONE;
  Value bias;
};

/// A matched contraction C[batch, m, n] += A[batch, m, k] * B[batch, k, n].
struct GemmPlan {
  linalg::ContractionDimensions dims;
  GemmOperand a, b, c;
  /// C holds zeros before the op: beta = 0.
  bool betaZero = false;
  Epilogue epilogue;
};

/// The position of loop `dim` among the results of `map`.
std::optional<int64_t> positionOf(AffineMap map, unsigned dim) {
  std::optional<unsigned> pos =
      map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
  if (!pos)
    return std::nullopt;
  return *pos;
}

/// The positions in `map`'s results of the loop dims `group`, if they are
/// consecutive, in the group's order, and (for a group of several dims) of
/// one contiguous run of `type`'s buffer, each stride the next one's times
/// its size, all static: the group then indexes the buffer as one dim of
/// the product of their sizes with the innermost one's stride.
std::optional<SmallVector<int64_t>> groupPositions(AffineMap map,
                                                   ArrayRef<unsigned> group,
                                                   MemRefType type,
                                                   ArrayRef<int64_t> strides) {
  SmallVector<int64_t> positions;
  for (unsigned dim : group) {
    std::optional<int64_t> p = positionOf(map, dim);
    if (!p || (!positions.empty() && *p != positions.back() + 1))
      return std::nullopt;
    positions.push_back(*p);
  }
  for (size_t i = 0; i + 1 < positions.size(); ++i) {
    int64_t outer = positions[i], inner = positions[i + 1];
    if (ShapedType::isDynamic(strides[outer]) ||
        ShapedType::isDynamic(strides[inner]) ||
        type.isDynamicDim(inner) ||
        strides[outer] != strides[inner] * type.getDimSize(inner))
      return std::nullopt;
  }
  return positions;
}

/// The layout of the operand `buffer` (indexing map `map`) holding the
/// matrix of loop dim groups (`first`, `second`), stored row-major if the
/// innermost dim of `second` has unit stride, transposed if that of `first`
/// has; fails otherwise or when a group is not one contiguous run.
FailureOr<GemmOperand> matchOperand(Value buffer, AffineMap map,
                                    ArrayRef<unsigned> first,
                                    ArrayRef<unsigned> second,
                                    ArrayRef<unsigned> batch,
                                    bool allowTranspose) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return failure();
  std::optional<SmallVector<int64_t>> ps =
      groupPositions(map, first, type, strides);
  std::optional<SmallVector<int64_t>> qs =
      groupPositions(map, second, type, strides);
  if (!ps || !qs)
    return failure();
  int64_t p = ps->back(), q = qs->back();
  GemmOperand op{buffer, p, q, false, {}};
  if (strides[q] != 1) {
    if (!allowTranspose || strides[p] != 1)
      return failure();
    op = GemmOperand{buffer, q, p, true, {}};
  }
  for (unsigned d : batch) {
    std::optional<int64_t> pos = positionOf(map, d);
    if (!pos)
      return failure();
    op.batchPos.push_back(*pos);
  }
  return op;
}

/// The batch, m, n and k dims of `op` if it is a cuBLASLt GEMM up to the
/// layouts of its buffers: a contraction on buffers with m, n and k dims,
/// projected permutation maps, and element types the GEMM takes.
FailureOr<linalg::ContractionDimensions>
matchContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
    return failure();
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return failure();
  Type ta = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type tb = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  Type tc = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!gemmDtype(ta) || ta != tb || (tc != ta && !tc.isF32()))
    return failure();
  return dims;
}

/// Matches `op` as a cuBLASLt GEMM (see the pass description).
FailureOr<GemmPlan> matchGemm(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims = matchContraction(op);
  if (failed(dims))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // C = A B, or, when C is stored with m contiguous, C^T = B^T A^T: the
  // inputs swap roles (the body's product commutes).
  for (bool swap : {false, true}) {
    SmallVector<unsigned, 2> m = dims->m, n = dims->n, k = dims->k;
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
    gemmDims.m = m;
    gemmDims.n = n;
    return GemmPlan{gemmDims, *a, *b, *c, false, {}};
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

/// Which operands of the contraction `op` (dims `d`) the GEMM cannot read in
/// place: those matchOperand refuses in the plain orientation (C = A B).
/// Empty when none needs a copy or when a packed copy would not be one GEMM
/// operand either: a group of several dims needs the static strides of
/// static sizes.
SmallVector<bool> operandsToPack(linalg::LinalgOp op,
                                 const linalg::ContractionDimensions &d) {
  SmallVector<bool> pack(3, false);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (unsigned i = 0; i < 3; ++i) {
    ArrayRef<unsigned> rows = i == 1 ? d.k : d.m;
    ArrayRef<unsigned> cols = i == 0 ? d.k : d.n;
    pack[i] = failed(matchOperand(op->getOperand(i), maps[i], rows, cols,
                                  d.batch, /*allowTranspose=*/i != 2));
  }
  if (llvm::none_of(pack, [](bool p) { return p; }))
    return {};
  bool grouped = d.m.size() > 1 || d.n.size() > 1 || d.k.size() > 1;
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  for (ArrayRef<unsigned> group : {d.m, d.n, d.k})
    for (unsigned l : group)
      if (grouped && ShapedType::isDynamic(sizes[l]))
        return {};
  return pack;
}

//===----------------------------------------------------------------------===//
// Epilogues
//===----------------------------------------------------------------------===//

/// True if `v` is `max(x, +0.0)` (maximumf or maxnumf, either order); sets
/// `x`.
bool matchRelu(Value v, Value &x) {
  Operation *op = v.getDefiningOp();
  if (!isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return false;
  for (int i = 0; i < 2; ++i)
    if (matchPattern(op->getOperand(1 - i), m_PosZeroFloat())) {
      x = op->getOperand(i);
      return true;
    }
  return false;
}

/// The epilogue computed by the body of `op`, whose input `c` is the GEMM's
/// output and input `bias` (if any) the bias vector: `c + bias`,
/// `max(c, 0)` or `max(c + bias, 0)`, with no other op.
std::optional<dtrt_epilogue> matchEpilogueBody(linalg::GenericOp op,
                                               BlockArgument c,
                                               BlockArgument bias) {
  Block *body = op.getBlock();
  Value result = body->getTerminator()->getOperand(0);
  Value x = result;
  bool relu = matchRelu(result, x);
  auto isBiasAdd = [&](Value v) {
    auto add = v.getDefiningOp<arith::AddFOp>();
    return bias && add &&
           ((add.getLhs() == c && add.getRhs() == bias) ||
            (add.getLhs() == bias && add.getRhs() == c));
  };
  size_t numOps = body->getOperations().size() - 1;
  if (relu && x == c && !bias && numOps == 1)
    return DTRT_EPILOGUE_RELU;
  if (isBiasAdd(x) && numOps == 1 + static_cast<size_t>(relu))
    return relu ? DTRT_EPILOGUE_BIAS_RELU : DTRT_EPILOGUE_BIAS;
  return std::nullopt;
}

/// True if `op` has no effect on memory or only reads buffers other than
/// the fresh allocation `root`.
bool leavesAlone(Operation *op, Value root) {
  return isMemoryEffectFree(op) ||
         !dtensor::mayAccessBuffer(op, root, /*writesOnly=*/false);
}

/// The epilogue of the unbatched GEMM `op` of `plan`: the first op after it
/// that accesses its output C, if that is an elementwise linalg.generic
/// rewriting C in place as a bias add and/or relu (see the pass
/// description).
Epilogue matchEpilogue(linalg::LinalgOp op, const GemmPlan &plan) {
  Value c = plan.c.buffer;
  auto type = cast<MemRefType>(c.getType());
  if (!plan.dims.batch.empty() || type.getRank() != 2 ||
      plan.c.rowPos != 0 || plan.c.colPos != 1 ||
      !dtensor::isFreshAllocation(c))
    return {};
  Operation *next = op->getNextNode();
  while (next && leavesAlone(next, c))
    next = next->getNextNode();
  auto generic = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInits() != 1 || generic.getDpsInits()[0] != c ||
      generic.getNumParallelLoops() != 2 || generic.getNumLoops() != 2 ||
      generic.getNumDpsInputs() > 2 ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      !generic.getRegionOutputArgs()[0].use_empty())
    return {};
  BlockArgument cArg, biasArg;
  Value bias;
  MLIRContext *ctx = op->getContext();
  AffineMap cols = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    auto inType = dyn_cast<MemRefType>(input->get().getType());
    if (input->get() == c && map.isIdentity() && !cArg) {
      cArg = arg;
    } else if (inType && inType.getRank() == 1 && map == cols &&
               inType.getElementType() == type.getElementType() &&
               inType.getLayout().isIdentity() && !biasArg) {
      biasArg = arg;
      bias = input->get();
    } else {
      return {};
    }
  }
  if (!cArg)
    return {};
  std::optional<dtrt_epilogue> kind =
      matchEpilogueBody(generic, cArg, biasArg);
  if (!kind)
    return {};
  return Epilogue{generic, *kind, bias};
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
    // The innermost batch dims that every operand strides through as one
    // are the GEMM's batch; the others are loops.
    size_t numBatch = plan.dims.batch.size();
    gemmBatchBegin = firstGemmBatchDim();
    for (auto [i, o] : llvm::enumerate(operands))
      if (numBatch > 0)
        args[i].batchStride =
            metadata[i].getStrides()[o->batchPos[numBatch - 1]];
    Value batch = index(1);
    if (numBatch > 0)
      batch = size(ArrayRef<unsigned>(plan.dims.batch)
                       .drop_front(gemmBatchBegin));
    buildOuterLoops(0, args, batch);
  }

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value size(unsigned loopDim) {
    return getValueOrCreateConstantIndexOp(b, loc, ranges[loopDim].size);
  }
  /// The size of a collapsed group of loop dims (m, n or k): the product.
  Value size(ArrayRef<unsigned> group) {
    Value product = size(group.front());
    for (unsigned d : group.drop_front())
      product = arith::MulIOp::create(b, loc, product, size(d));
    return product;
  }

  /// The first of the innermost batch dims that are one GEMM batch: each
  /// operand's stride of a dim is, statically, the next dim's stride times
  /// its size (the Block's attention: batch and heads, one call).
  size_t firstGemmBatchDim() {
    ArrayRef<unsigned> batch = plan.dims.batch;
    if (batch.empty())
      return 0;
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    size_t first = batch.size() - 1;
    SmallVector<const GemmOperand *> operands{&plan.a, &plan.b, &plan.c};
    auto joins = [&](size_t i) {
      if (ShapedType::isDynamic(sizes[batch[i + 1]]))
        return false;
      return llvm::all_of(operands, [&](const GemmOperand *o) {
        SmallVector<int64_t> strides;
        int64_t offset;
        auto type = cast<MemRefType>(o->buffer.getType());
        if (failed(type.getStridesAndOffset(strides, offset)))
          return false;
        int64_t outer = strides[o->batchPos[i]];
        int64_t inner = strides[o->batchPos[i + 1]];
        return !ShapedType::isDynamic(outer) &&
               !ShapedType::isDynamic(inner) &&
               outer == inner * sizes[batch[i + 1]];
      });
    };
    while (first > 0 && joins(first - 1))
      --first;
    return first;
  }

  /// The loops over the batch dims before the GEMM's batch, each adding its
  /// iteration's offset to every operand.
  void buildOuterLoops(size_t level, SmallVector<OperandArgs> args,
                       Value batch) {
    if (level >= gemmBatchBegin) {
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
  /// C += op(A) op(B) on the [batch, rows, cols] views (emulation).
  void buildProductEmulation(Value va, Value vb, Value vc);
  /// The epilogue of the plan on the f32 accumulator `acc` (emulation).
  void buildEpilogueEmulation(Value acc);
  /// A parallel linalg.generic over the 3-D `output` computing `body` of
  /// `inputs` (a null map is the identity).
  void buildElementwise(
      ValueRange inputs, ArrayRef<AffineMap> inputMaps, Value output,
      function_ref<Value(OpBuilder &, Location, ValueRange)> body);

  RewriterBase &b;
  linalg::LinalgOp op;
  const GemmPlan &plan;
  Location loc;
  bool emulate;
  SmallVector<Range> ranges;
  SmallVector<memref::ExtractStridedMetadataOp> metadata;
  /// The batch dims from this one on are the GEMM's batch.
  size_t gemmBatchBegin = 0;
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
  auto scalar = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(v));
  };
  const Epilogue &epilogue = plan.epilogue;
  Value bias = epilogue.bias
                   ? dtensor::createBufferAddress(b, loc, epilogue.bias)
                   : arith::ConstantIntOp::create(b, loc, i64, 0).getResult();
  SmallVector<Value> callArgs{cst32(*gemmDtype(inType)),
                              cst32(*gemmDtype(outType)),
                              cst32(plan.a.transposed),
                              cst32(plan.b.transposed),
                              toI64(batch),
                              toI64(size(plan.dims.m)),
                              toI64(size(plan.dims.n)),
                              toI64(size(plan.dims.k))};
  for (size_t i = 0; i < 3; ++i)
    callArgs.append(
        {address(i), toI64(args[i].ld), toI64(args[i].batchStride)});
  callArgs.append({scalar(1.0), scalar(plan.betaZero ? 0.0 : 1.0), bias,
                   cst32(epilogue.kind)});
  func::FuncOp fn = dtensor::declareRuntimeFunction(
      b, op->getParentOfType<ModuleOp>(), "dtrt_cublaslt_matmul",
      b.getFunctionType(TypeRange(ValueRange(callArgs)), {i32}));
  dtensor::createCheckedRuntimeCall(b, loc, fn, callArgs);
}

void GemmBuilder::buildEmulation(ArrayRef<OperandArgs> args, Value batch) {
  MLIRContext *ctx = b.getContext();
  Value m = size(plan.dims.m), n = size(plan.dims.n), k = size(plan.dims.k);
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
  // cuBLASLt accumulates (and applies the epilogue) in f32: a 16-bit C is
  // emulated through an f32 copy, rounded once at the end.
  Value acc = vc;
  Type cType = getElementTypeOrSelf(vc.getType());
  if (!cType.isF32()) {
    auto accType = MemRefType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic, ShapedType::kDynamic},
        b.getF32Type());
    acc = memref::AllocOp::create(b, loc, accType, ValueRange{batch, m, n});
    if (!plan.betaZero)
      buildElementwise({vc}, {AffineMap()}, acc, [&](OpBuilder &nb,
                                                     Location nl,
                                                     ValueRange x) {
        return arith::ExtFOp::create(nb, nl, nb.getF32Type(), x[0]);
      });
  }
  // beta = 0: the call ignores what C holds.
  if (plan.betaZero)
    linalg::FillOp::create(
        b, loc,
        arith::ConstantOp::create(b, loc, b.getZeroAttr(b.getF32Type()))
            .getResult(),
        acc);
  buildProductEmulation(va, vb, acc);
  if (plan.epilogue.kind != DTRT_EPILOGUE_NONE)
    buildEpilogueEmulation(acc);
  if (acc != vc) {
    buildElementwise({acc}, {AffineMap()}, vc, [&](OpBuilder &nb, Location nl,
                                                   ValueRange x) {
      return arith::TruncFOp::create(nb, nl, cType, x[0]);
    });
    memref::DeallocOp::create(b, loc, acc);
  }
}

void GemmBuilder::buildElementwise(
    ValueRange inputs, ArrayRef<AffineMap> inputMaps, Value output,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  AffineMap all = b.getMultiDimIdentityMap(3);
  SmallVector<AffineMap> maps;
  for (AffineMap map : inputMaps)
    maps.push_back(map ? map : all);
  maps.push_back(all);
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, inputs, ValueRange{output}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange x) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, x));
      });
}

void GemmBuilder::buildProductEmulation(Value va, Value vb, Value vc) {
  MLIRContext *ctx = b.getContext();
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

void GemmBuilder::buildEpilogueEmulation(Value acc) {
  dtrt_epilogue kind = plan.epilogue.kind;
  bool hasBias = kind == DTRT_EPILOGUE_BIAS || kind == DTRT_EPILOGUE_BIAS_RELU;
  bool relu = kind == DTRT_EPILOGUE_RELU || kind == DTRT_EPILOGUE_BIAS_RELU;
  SmallVector<Value> inputs{acc};
  SmallVector<AffineMap> maps{AffineMap()};
  if (hasBias) {
    inputs.push_back(plan.epilogue.bias);
    maps.push_back(AffineMap::get(3, 0, {b.getAffineDimExpr(2)},
                                  b.getContext()));
  }
  buildElementwise(inputs, maps, acc,
                   [&](OpBuilder &nb, Location nl, ValueRange x) {
                     Value v = x[0];
                     if (hasBias) {
                       Value bias = x[1];
                       if (bias.getType() != v.getType())
                         bias = arith::ExtFOp::create(nb, nl, v.getType(),
                                                      bias);
                       v = arith::AddFOp::create(nb, nl, v, bias);
                     }
                     if (relu)
                       v = arith::MaximumFOp::create(
                           nb, nl, v,
                           arith::ConstantOp::create(
                               nb, nl, nb.getZeroAttr(v.getType())));
                     return v;
                   });
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
  void runOnOperation() override;
};

/// Packs the operands of every contraction that is a GEMM but for its
/// buffers' layouts (operandsToPack, packContractionOperands).
void packContractions(Operation *root, bool foldZeroFill,
                      llvm::Statistic &numPacked) {
  SmallVector<std::tuple<linalg::LinalgOp, linalg::ContractionDimensions,
                         SmallVector<bool>>>
      toPack;
  root->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kEmulationAttr) || succeeded(matchGemm(op)))
      return;
    FailureOr<linalg::ContractionDimensions> dims = matchContraction(op);
    if (failed(dims))
      return;
    SmallVector<bool> pack = operandsToPack(op, *dims);
    if (!pack.empty())
      toPack.emplace_back(op, *dims, std::move(pack));
  });
  IRRewriter rewriter(root->getContext());
  for (auto &[op, dims, pack] : toPack) {
    rewriter.setInsertionPoint(op);
    dtensor::packContractionOperands(rewriter, op, dims, pack, foldZeroFill);
    ++numPacked;
  }
}

void LinalgToCuBLASLtPass::runOnOperation() {
  packContractions(getOperation(), foldZeroFill, numPacked);
  // Decide everything on the unchanged IR, in program order, where the
  // linalg ops' memory effects are precise (the calls have none declared).
  SmallVector<std::pair<linalg::LinalgOp, GemmPlan>, 0> plans;
  llvm::SetVector<Operation *> dead;
  getOperation()->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kEmulationAttr) || dead.contains(op))
      return;
    FailureOr<GemmPlan> plan = matchGemm(op);
    if (failed(plan))
      return;
    if (foldZeroFill) {
      llvm::SetVector<Operation *> erasable;
      plan->betaZero =
          dtensor::holdsZeros(op, plan->c.buffer, dead, erasable);
      dead.insert(erasable.begin(), erasable.end());
    }
    if (fuseEpilogues) {
      plan->epilogue = matchEpilogue(op, *plan);
      if (plan->epilogue.op)
        dead.insert(plan->epilogue.op);
    }
    plans.emplace_back(op, std::move(*plan));
  });
  IRRewriter rewriter(&getContext());
  for (auto &[op, plan] : plans) {
    rewriter.setInsertionPoint(op);
    GemmBuilder(rewriter, op, plan, emulate).build();
    rewriter.eraseOp(op);
    ++numGemms;
    numBetaZero += plan.betaZero;
    numEpilogues += plan.epilogue.kind != DTRT_EPILOGUE_NONE;
  }
  for (Operation *op : dead) {
    numErasedFills += !isa<linalg::GenericOp>(op);
    rewriter.eraseOp(op);
  }
}

} // namespace

void mlir::dtensor::populateLinalgToCuBLASLtPatterns(
    RewritePatternSet &patterns, bool emulate) {
  patterns.add<ContractionToCuBLASLt>(patterns.getContext(), emulate);
}
