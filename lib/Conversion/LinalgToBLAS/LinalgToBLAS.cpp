//===- LinalgToBLAS.cpp - linalg contractions on buffers to cblas_?gemm ---===//
//
// A linalg op on buffers whose indexing maps make it a GEMM up to a
// permutation (`inferContractionDims`: batch, m, n and k loops) and whose
// body is `acc + a * b` becomes calls of cblas_sgemm/cblas_dgemm: one GEMM
// over one m, one n and the k loop, inside a scf.for nest over the other
// loops (the batch loops, and further m or n loops), each call on pointers
// into the operands computed from their strides. A transposed operand is
// passed with CblasTrans and the stride of its other dim as leading
// dimension, never copied; an output whose rows are strided and columns
// contiguous uses the column-major layout.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/LinalgToBLAS/LinalgToBLAS.h"
#include "dtensor/Conversion/Passes.h"
#include "dtensor/Conversion/Utils/BufferZeros.h"
#include "dtensor/Conversion/Utils/PackContraction.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

#include <limits>

namespace mlir::dtensor {
#define GEN_PASS_DEF_DTENSORLINALGTOBLAS
#include "dtensor/Conversion/Passes.h.inc"
} // namespace mlir::dtensor

using namespace mlir;

namespace {

/// CBLAS enum values (cblas.h).
enum : int64_t {
  kRowMajor = 101,
  kColMajor = 102,
  kNoTrans = 111,
  kTrans = 112
};

constexpr int64_t kDynamic = ShapedType::kDynamic;
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// One GEMM matrix in an operand buffer: the buffer dims of its rows and
/// columns and, once oriented, which of them is contiguous in memory.
struct Matrix {
  Value buffer;
  MemRefType type;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  int64_t rowDim = -1, colDim = -1;
  /// The unit-stride dim, and the other one whose stride is the leading
  /// dimension.
  int64_t fastDim = -1, slowDim = -1;
  /// Passed with CblasTrans.
  bool transposed = false;
  /// The leading dimension cannot be proven valid at compile time.
  bool checkAtRuntime = false;

  int64_t staticSize(int64_t dim) const { return type.getDimSize(dim); }
};

/// A contraction recognised as a (batched) GEMM: C = A B over one m, one n
/// and one k loop, repeated over `loops`.
struct GemmPlan {
  linalg::LinalgOp op;
  Matrix a, b, c;
  bool rowMajor = true;
  /// For every loop around the GEMM, the dim of a, b and c it indexes (-1
  /// where the operand does not depend on it).
  SmallVector<std::array<int64_t, 3>> loops;
  FloatType elementType;
  /// Sizes or leading dims are checked at run time, with the linalg op as
  /// the fallback.
  bool guarded = false;
  /// The output holds zeros before the op: beta = 0.
  bool betaZero = false;
  /// Calls the runtime's small-GEMM kernel instead of BLAS.
  bool small = false;
};

/// True if `body` computes exactly `acc + a * b` (in any operand order) of
/// its arguments (a, b, acc), with no cast or other op on the way.
bool isPlainMulAdd(Block &body) {
  if (body.getNumArguments() != 3 || !llvm::hasNItems(body, 3))
    return false;
  Operation *yield = body.getTerminator();
  if (yield->getNumOperands() != 1)
    return false;
  auto add = yield->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc   ? add.getRhs()
                  : add.getRhs() == acc ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value x = body.getArgument(0), y = body.getArgument(1);
  return (mul.getLhs() == x && mul.getRhs() == y) ||
         (mul.getLhs() == y && mul.getRhs() == x);
}

/// The result of `map` that is loop `dim`, or -1.
int64_t resultOf(AffineMap map, unsigned dim) {
  std::optional<unsigned> pos =
      map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
  return pos ? static_cast<int64_t>(*pos) : -1;
}

/// Fills `m` for the operand `buffer` read through `map`, whose GEMM rows
/// and columns are the loops `row` and `col`. False if the buffer has no
/// strided layout.
bool initMatrix(Matrix &m, Value buffer, AffineMap map, unsigned row,
                unsigned col) {
  m.buffer = buffer;
  m.type = cast<MemRefType>(buffer.getType());
  if (failed(m.type.getStridesAndOffset(m.strides, m.offset)))
    return false;
  m.rowDim = resultOf(map, row);
  m.colDim = resultOf(map, col);
  return m.rowDim >= 0 && m.colDim >= 0;
}

/// Chooses how `m` is passed in the given layout: untransposed if its
/// columns (rows in column-major) have unit stride, transposed if the other
/// dim has. False if neither has a static unit stride.
bool orient(Matrix &m, bool rowMajor) {
  int64_t expected = rowMajor ? m.colDim : m.rowDim;
  int64_t other = rowMajor ? m.rowDim : m.colDim;
  m.transposed = m.strides[expected] != 1;
  if (m.transposed && m.strides[other] != 1)
    return false;
  m.fastDim = m.transposed ? other : expected;
  m.slowDim = m.transposed ? expected : other;
  return true;
}

/// BLAS requires ld >= max(1, size of the contiguous dim) and 32-bit sizes.
/// False if that statically fails; otherwise sets `checkAtRuntime` when it
/// is not statically known. The leading dim does not matter when the other
/// dim has size 1: the call then gets the smallest valid one.
bool checkLeadingDim(Matrix &m) {
  int64_t slow = m.staticSize(m.slowDim), fast = m.staticSize(m.fastDim);
  int64_t ld = m.strides[m.slowDim];
  for (int64_t v : {slow, fast, ld})
    if (v != kDynamic && v > kInt32Max)
      return false;
  if (slow != kDynamic && slow <= 1) {
    m.checkAtRuntime = fast == kDynamic;
    return true;
  }
  if (ld != kDynamic && fast != kDynamic) {
    if (slow != kDynamic && ld < std::max<int64_t>(1, fast))
      return false;
    m.checkAtRuntime = slow == kDynamic && ld < std::max<int64_t>(1, fast);
    return true;
  }
  m.checkAtRuntime = true;
  return true;
}

/// The GEMM of `op` over the loops `m`, `n` and `k`, the other loops
/// around it, or failure if an operand has no unit stride on its GEMM dims.
FailureOr<GemmPlan> planGemm(linalg::LinalgOp op, FloatType elementType,
                             unsigned m, unsigned n, unsigned k) {
  OpOperand *opA = op.getDpsInputOperand(0), *opB = op.getDpsInputOperand(1);
  OpOperand *opC = op.getDpsInitOperand(0);
  GemmPlan plan;
  plan.op = op;
  plan.elementType = elementType;
  AffineMap mapA = op.getMatchingIndexingMap(opA);
  AffineMap mapB = op.getMatchingIndexingMap(opB);
  AffineMap mapC = op.getMatchingIndexingMap(opC);
  if (!initMatrix(plan.a, opA->get(), mapA, m, k) ||
      !initMatrix(plan.b, opB->get(), mapB, k, n) ||
      !initMatrix(plan.c, opC->get(), mapC, m, n))
    return failure();
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d) {
    if (d == m || d == n || d == k)
      continue;
    plan.loops.push_back(
        {resultOf(mapA, d), resultOf(mapB, d), resultOf(mapC, d)});
    if (plan.loops.back()[2] < 0)
      return failure();
  }
  // The output fixes the layout: it is never transposed.
  plan.rowMajor = plan.c.strides[plan.c.colDim] == 1;
  if (!orient(plan.c, plan.rowMajor) || plan.c.transposed ||
      !orient(plan.a, plan.rowMajor) || !orient(plan.b, plan.rowMajor))
    return failure();
  for (Matrix *x : {&plan.a, &plan.b, &plan.c}) {
    if (!checkLeadingDim(*x))
      return failure();
    plan.guarded |= x->checkAtRuntime;
  }
  // Dynamic M, N, K: checked to fit the 32-bit BLAS sizes.
  plan.guarded |= plan.c.staticSize(plan.c.rowDim) == kDynamic ||
                  plan.c.staticSize(plan.c.colDim) == kDynamic ||
                  plan.a.staticSize(plan.a.colDim) == kDynamic;
  return plan;
}

/// True if `body` computes `acc + ext(a) * ext(b)` (in any operand order)
/// of its arguments (a, b, acc), each `ext` an `arith.extf` to acc's type.
bool isExtendedMulAdd(Block &body) {
  if (body.getNumArguments() != 3 || !llvm::hasNItems(body, 5))
    return false;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  Value acc = body.getArgument(2);
  if (!add || (add.getLhs() != acc && add.getRhs() != acc))
    return false;
  auto mul = (add.getLhs() == acc ? add.getRhs() : add.getLhs())
                 .getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  auto source = [](Value v) {
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext ? ext.getIn() : Value();
  };
  Value x = body.getArgument(0), y = body.getArgument(1);
  Value l = source(mul.getLhs()), r = source(mul.getRhs());
  return (l == x && r == y) || (l == y && r == x);
}

/// The batch, m, n and k dims of `op` if it is a contraction on buffers
/// with one k loop, every other loop a batch, m or n loop.
FailureOr<linalg::ContractionDimensions> gemmDims(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1 || dims->m.empty() ||
      dims->n.empty() ||
      dims->batch.size() + dims->m.size() + dims->n.size() + 1 !=
          op.getNumLoops())
    return failure();
  return dims;
}

/// The dims of `op` if it is a contraction of 16-bit floats run as an f32
/// GEMM (packed, then rounded once): A and B of one f16/bf16 type, C of
/// that type with a plain multiply-accumulate, or f32 with the inputs
/// extended first.
FailureOr<linalg::ContractionDimensions>
matchUpcastContraction(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims = gemmDims(op);
  if (failed(dims))
    return failure();
  Type ta = getElementTypeOrSelf(op.getDpsInputs()[0]);
  Type tb = getElementTypeOrSelf(op.getDpsInputs()[1]);
  Type tc = getElementTypeOrSelf(op.getDpsInits()[0]);
  if (ta != tb || !(ta.isF16() || ta.isBF16()))
    return failure();
  if (tc == ta ? isPlainMulAdd(*op.getBlock())
               : tc.isF32() && isExtendedMulAdd(*op.getBlock()))
    return dims;
  return failure();
}

/// The batch, m, n and k dims of `op` if it is a GEMM up to permutation and
/// the layouts of its buffers: a plain multiply-accumulate on f32/f64
/// buffers with one k loop.
FailureOr<linalg::ContractionDimensions>
matchBLASContraction(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims = gemmDims(op);
  if (failed(dims) || !isPlainMulAdd(*op.getBlock()))
    return failure();
  Value c = op.getDpsInitOperand(0)->get();
  auto elementType = dyn_cast<FloatType>(getElementTypeOrSelf(c));
  if (!elementType || !(elementType.isF32() || elementType.isF64()) ||
      llvm::any_of(op.getDpsInputs(), [&](Value v) {
        return getElementTypeOrSelf(v) != elementType;
      }))
    return failure();
  return dims;
}

/// The GEMM view of `op`, or failure if it is not a GEMM up to permutation
/// on f32/f64 buffers with a unit stride in each operand's matrix. With
/// several m (or n) loops, the first pair (innermost first) whose operands
/// all have a unit stride on their GEMM dims is the GEMM.
FailureOr<GemmPlan> matchGemm(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims = matchBLASContraction(op);
  if (failed(dims))
    return failure();
  auto elementType =
      cast<FloatType>(getElementTypeOrSelf(op.getDpsInits()[0]));
  for (unsigned m : llvm::reverse(dims->m))
    for (unsigned n : llvm::reverse(dims->n))
      if (FailureOr<GemmPlan> plan =
              planGemm(op, elementType, m, n, dims->k.front());
          succeeded(plan))
        return plan;
  return failure();
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// Builds the calls of one GEMM plan at the rewriter's insertion point.
class GemmEmitter {
public:
  GemmEmitter(RewriterBase &rewriter, GemmPlan &plan)
      : rewriter(rewriter), plan(plan), loc(plan.op.getLoc()) {}

  /// Emits the guarded loop nest of calls of `callee` in place of the op.
  void emit(func::FuncOp callee);

  /// The argument types of cblas_?gemm.
  static SmallVector<Type> calleeArgTypes(MLIRContext *ctx, FloatType elt);

private:
  Value index(int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                        v);
  }
  Value toI32(Value v) {
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(), v);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(rewriter, loc, p, x, y);
  }
  memref::ExtractStridedMetadataOp metadata(const Matrix &m);
  Value size(const Matrix &m, int64_t dim);
  Value sizeI32(const Matrix &m, int64_t dim) {
    int64_t s = m.staticSize(dim);
    return s != kDynamic ? i32(s) : toI32(size(m, dim));
  }
  Value stride(const Matrix &m, int64_t dim);
  Value leadingDim(const Matrix &m);
  void addChecks(const Matrix &m, SmallVectorImpl<Value> &checks);
  Value pointer(const Matrix &m, ArrayRef<Value> ivs, int which);
  void emitCall(func::FuncOp callee, ArrayRef<Value> ivs);
  void emitLoops(func::FuncOp callee);

  RewriterBase &rewriter;
  GemmPlan &plan;
  Location loc;
  DenseMap<Value, memref::ExtractStridedMetadataOp> metadataOf;
};

SmallVector<Type> GemmEmitter::calleeArgTypes(MLIRContext *ctx, FloatType elt) {
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  return {i32, i32, i32, i32, i32, i32, elt, i64, i32, i64, i32, elt, i64, i32};
}

memref::ExtractStridedMetadataOp GemmEmitter::metadata(const Matrix &m) {
  auto &meta = metadataOf[m.buffer];
  if (!meta)
    meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, m.buffer);
  return meta;
}

Value GemmEmitter::size(const Matrix &m, int64_t dim) {
  int64_t s = m.staticSize(dim);
  return s != kDynamic ? index(s) : metadata(m).getSizes()[dim];
}

Value GemmEmitter::stride(const Matrix &m, int64_t dim) {
  int64_t s = m.strides[dim];
  return s != kDynamic ? index(s) : metadata(m).getStrides()[dim];
}

/// The leading dimension passed to BLAS: the stride of the slow dim, or the
/// smallest valid one when the slow dim has size 1 (any stride is then
/// right, but BLAS still checks it).
Value GemmEmitter::leadingDim(const Matrix &m) {
  int64_t slow = m.staticSize(m.slowDim), fast = m.staticSize(m.fastDim);
  int64_t ld = m.strides[m.slowDim];
  bool slowIsOne = slow != kDynamic && slow <= 1;
  if (slowIsOne && fast != kDynamic)
    return i32(std::max<int64_t>(1, fast));
  if (ld != kDynamic && fast != kDynamic && ld >= std::max<int64_t>(1, fast))
    return i32(ld);
  Value smallest =
      arith::MaxSIOp::create(rewriter, loc, index(1), size(m, m.fastDim));
  if (slowIsOne)
    return toI32(smallest);
  Value stride = this->stride(m, m.slowDim);
  if (slow == kDynamic)
    stride = arith::SelectOp::create(
        rewriter, loc,
        cmp(arith::CmpIPredicate::sle, size(m, m.slowDim), index(1)), smallest,
        stride);
  return toI32(stride);
}

/// Appends the run-time conditions under which `m` can be passed to BLAS:
/// a valid leading dim, and sizes that fit in 32 bits.
void GemmEmitter::addChecks(const Matrix &m, SmallVectorImpl<Value> &checks) {
  Value limit = index(kInt32Max);
  for (int64_t dim : {m.rowDim, m.colDim})
    if (m.staticSize(dim) == kDynamic)
      checks.push_back(cmp(arith::CmpIPredicate::sle, size(m, dim), limit));
  if (!m.checkAtRuntime)
    return;
  Value slow = size(m, m.slowDim), ld = stride(m, m.slowDim);
  Value smallest =
      arith::MaxSIOp::create(rewriter, loc, index(1), size(m, m.fastDim));
  Value valid = arith::OrIOp::create(
      rewriter, loc, cmp(arith::CmpIPredicate::sle, slow, index(1)),
      arith::AndIOp::create(rewriter, loc,
                            cmp(arith::CmpIPredicate::sge, ld, smallest),
                            cmp(arith::CmpIPredicate::sle, ld, limit)));
  checks.push_back(valid);
}

/// The address (as i64) of the first element of matrix `which` (0: a, 1: b,
/// 2: c) at the loop indices `ivs`.
Value GemmEmitter::pointer(const Matrix &m, ArrayRef<Value> ivs, int which) {
  Value offset = m.offset == 0          ? Value()
                 : m.offset != kDynamic ? index(m.offset)
                                        : metadata(m).getOffset();
  for (auto [iv, dims] : llvm::zip(ivs, plan.loops)) {
    if (dims[which] < 0)
      continue;
    Value step =
        arith::MulIOp::create(rewriter, loc, iv, stride(m, dims[which]));
    offset = offset ? arith::AddIOp::create(rewriter, loc, offset, step) : step;
  }
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, m.buffer);
  if (offset) {
    int64_t bytes = plan.elementType.getWidth() / 8;
    address = arith::AddIOp::create(
        rewriter, loc, address,
        arith::MulIOp::create(rewriter, loc, offset, index(bytes)));
  }
  return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                    address);
}

void GemmEmitter::emitCall(func::FuncOp callee, ArrayRef<Value> ivs) {
  const Matrix &a = plan.a, &b = plan.b, &c = plan.c;
  auto scalar = [&](double v) -> Value {
    return arith::ConstantOp::create(
        rewriter, loc, plan.elementType,
        rewriter.getFloatAttr(plan.elementType, v));
  };
  SmallVector<Value> args{i32(plan.rowMajor ? kRowMajor : kColMajor),
                          i32(a.transposed ? kTrans : kNoTrans),
                          i32(b.transposed ? kTrans : kNoTrans),
                          sizeI32(c, c.rowDim),
                          sizeI32(c, c.colDim),
                          sizeI32(a, a.colDim),
                          scalar(1.0),
                          pointer(a, ivs, 0),
                          leadingDim(a),
                          pointer(b, ivs, 1),
                          leadingDim(b),
                          scalar(plan.betaZero ? 0.0 : 1.0),
                          pointer(c, ivs, 2),
                          leadingDim(c)};
  func::CallOp::create(rewriter, loc, callee, args);
}

void GemmEmitter::emitLoops(func::FuncOp callee) {
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<Value> ivs;
  for (const std::array<int64_t, 3> &dims : plan.loops) {
    auto loop = scf::ForOp::create(rewriter, loc, index(0),
                                   size(plan.c, dims[2]), index(1));
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    ivs.push_back(loop.getInductionVar());
  }
  emitCall(callee, ivs);
}

void GemmEmitter::emit(func::FuncOp callee) {
  rewriter.setInsertionPoint(plan.op);
  SmallVector<Value> checks;
  if (plan.guarded)
    for (const Matrix *m : {&plan.a, &plan.b, &plan.c})
      addChecks(*m, checks);
  if (checks.empty()) {
    emitLoops(callee);
    rewriter.eraseOp(plan.op);
    return;
  }
  Value ok = checks.front();
  for (Value check : ArrayRef<Value>(checks).drop_front())
    ok = arith::AndIOp::create(rewriter, loc, ok, check);
  // Outside what BLAS accepts: the linalg op, lowered to loops later.
  auto branch = scf::IfOp::create(rewriter, loc, ok, /*withElseRegion=*/true);
  rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
  rewriter.clone(*plan.op);
  rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
  emitLoops(callee);
  rewriter.eraseOp(plan.op);
}

/// True if `plan` is an f32 GEMM of static sizes with at most `maxMacs`
/// multiply-adds per call: the runtime's kernel beats BLAS there.
bool isSmallGemm(const GemmPlan &plan, int64_t maxMacs) {
  if (!plan.elementType.isF32() || maxMacs <= 0)
    return false;
  int64_t m = plan.c.staticSize(plan.c.rowDim);
  int64_t n = plan.c.staticSize(plan.c.colDim);
  int64_t k = plan.a.staticSize(plan.a.colDim);
  if (m == kDynamic || n == kDynamic || k == kDynamic)
    return false;
  // m and n fit in 32 bits (checkLeadingDim): m * n does in 64.
  int64_t mn = m * n;
  return mn <= maxMacs && (mn == 0 || k <= maxMacs / mn);
}

/// The declaration of the callee of `plan` in `root` (cblas_sgemm/dgemm or
/// dtrt_sgemm_small, one signature), created if absent; null (after a
/// diagnostic) if the symbol exists with another type.
func::FuncOp getOrCreateCallee(RewriterBase &rewriter, Operation *root,
                               const GemmPlan &plan) {
  FloatType elt = plan.elementType;
  StringRef name = plan.small       ? "dtrt_sgemm_small"
                   : elt.isF32() ? "cblas_sgemm"
                                 : "cblas_dgemm";
  auto type = rewriter.getFunctionType(
      GemmEmitter::calleeArgTypes(rewriter.getContext(), elt), {});
  Operation *existing = SymbolTable::lookupSymbolIn(root, name);
  if (auto fn = dyn_cast_or_null<func::FuncOp>(existing);
      fn && fn.getFunctionType() == type)
    return fn;
  if (existing) {
    existing->emitError() << "symbol @" << name
                          << " exists but is not the GEMM function " << type;
    return nullptr;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&root->getRegion(0).front());
  auto fn = func::FuncOp::create(rewriter, root->getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

} // namespace

namespace {
/// Packs the operands of every contraction that is a GEMM but for its
/// buffers' layouts: those not already indexed as a packed copy would be
/// (packContractionOperands), so that each matrix has a unit stride.
void packContractions(Operation *root, bool foldZeroFill,
                      dtensor::LinalgToBLASStats &stats) {
  struct Packing {
    linalg::LinalgOp op;
    linalg::ContractionDimensions dims;
    SmallVector<bool> pack;
    bool upcast;
  };
  SmallVector<Packing> toPack;
  root->walk([&](linalg::LinalgOp op) {
    if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
          return map.isProjectedPermutation();
        }))
      return;
    FailureOr<linalg::ContractionDimensions> dims = matchBLASContraction(op);
    bool upcast = false;
    if (failed(dims)) {
      dims = matchUpcastContraction(op);
      upcast = true;
    }
    if (failed(dims) || (!upcast && succeeded(matchGemm(op))))
      return;
    // 16-bit operands are copied to f32 whatever their layout.
    SmallVector<bool> pack;
    for (unsigned i = 0; i < 3; ++i)
      pack.push_back(!dtensor::isPackedLayout(op, *dims, i) ||
                     (upcast &&
                      !getElementTypeOrSelf(op->getOperand(i)).isF32()));
    if (llvm::is_contained(pack, true))
      toPack.push_back({op, *dims, std::move(pack), upcast});
  });
  IRRewriter rewriter(root->getContext());
  for (auto &[op, dims, pack, upcast] : toPack) {
    rewriter.setInsertionPoint(op);
    dtensor::packContractionOperands(
        rewriter, op, dims, pack, foldZeroFill,
        upcast ? rewriter.getF32Type() : FloatType());
    ++stats.packed;
  }
}
} // namespace

LogicalResult mlir::dtensor::convertLinalgToBLAS(Operation *root,
                                                 bool foldZeroFill,
                                                 int64_t smallGemmMacs,
                                                 LinalgToBLASStats &stats) {
  packContractions(root, foldZeroFill, stats);
  // Decide everything on the unchanged IR, in program order, where the
  // linalg ops' memory effects are precise (the calls have none declared).
  SmallVector<GemmPlan, 0> plans;
  llvm::SetVector<Operation *> dead;
  root->walk([&](linalg::LinalgOp op) {
    FailureOr<GemmPlan> plan = matchGemm(op);
    if (failed(plan))
      return;
    if (foldZeroFill) {
      llvm::SetVector<Operation *> erasable;
      plan->betaZero = dtensor::holdsZeros(op, plan->c.buffer, dead, erasable);
      // The loop fallback of a guarded call needs the zeros.
      if (!plan->guarded)
        dead.insert(erasable.begin(), erasable.end());
    }
    plan->small = isSmallGemm(*plan, smallGemmMacs);
    plans.push_back(std::move(*plan));
  });
  IRRewriter rewriter(root->getContext());
  for (GemmPlan &plan : plans) {
    func::FuncOp callee = getOrCreateCallee(rewriter, root, plan);
    if (!callee)
      return failure();
    ++stats.gemms;
    stats.small += plan.small;
    stats.batched += !plan.loops.empty();
    stats.betaZero += plan.betaZero;
    GemmEmitter(rewriter, plan).emit(callee);
  }
  for (Operation *op : dead)
    rewriter.eraseOp(op);
  stats.erasedFills += dead.size();
  return success();
}

namespace {
struct LinalgToBLASPass
    : public dtensor::impl::DTensorLinalgToBLASBase<LinalgToBLASPass> {
  using Base::Base;

  void runOnOperation() override {
    dtensor::LinalgToBLASStats stats;
    if (failed(dtensor::convertLinalgToBLAS(getOperation(), foldZeroFill,
                                            smallGemmMacs, stats)))
      return signalPassFailure();
    numGemms += stats.gemms;
    numBatched += stats.batched;
    numBetaZero += stats.betaZero;
    numErasedFills += stats.erasedFills;
    numPacked += stats.packed;
    numSmall += stats.small;
  }
};
} // namespace
