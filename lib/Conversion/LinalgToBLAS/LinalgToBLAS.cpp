//===- MatmulToBlas.cpp - linalg.matmul on buffers to cblas_?gemm ---------===//

#include "dtensor/Conversion/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORMATMULTOBLAS
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// CBLAS enum values.
constexpr int64_t kRowMajor = 101;
constexpr int64_t kNoTrans = 111;

/// True if `m` is a 2-D memref with contiguous rows.
bool hasUnitInnerStride(MemRefType m) {
  if (m.getRank() != 2)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(m.getStridesAndOffset(strides, offset)))
    return false;
  return strides[1] == 1;
}

struct MatmulToBlasPass
    : public dtensor::impl::DTensorMatmulToBlasBase<MatmulToBlasPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::MatmulOp> matmuls;
    module.walk([&](linalg::MatmulOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      // Only the default (row-major, untransposed) indexing.
      if (op.hasUserDefinedMaps())
        return;
      auto a = cast<MemRefType>(op.getDpsInputs()[0].getType());
      auto b = cast<MemRefType>(op.getDpsInputs()[1].getType());
      auto c = cast<MemRefType>(op.getDpsInits()[0].getType());
      Type elt = c.getElementType();
      if (!(elt.isF32() || elt.isF64()) || a.getElementType() != elt ||
          b.getElementType() != elt)
        return;
      if (hasUnitInnerStride(a) && hasUnitInnerStride(b) &&
          hasUnitInnerStride(c))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : matmuls)
      rewrite(rewriter, op, module);
  }

  void rewrite(IRRewriter &rewriter, linalg::MatmulOp op, ModuleOp module) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1],
          c = op.getDpsInits()[0];
    Type elt = cast<MemRefType>(c.getType()).getElementType();
    int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto cst32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, i32, v);
    };
    auto toI32 = [&](Value index) -> Value {
      return arith::IndexCastOp::create(rewriter, loc, i32, index);
    };
    // Pointer to the first element and leading dimension of a 2-D memref.
    auto pointerAndLd = [&](Value m) -> std::pair<Value, Value> {
      auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, m);
      Value base =
          memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, m);
      Value bytes = arith::MulIOp::create(
          rewriter, loc, meta.getOffset(),
          arith::ConstantIndexOp::create(rewriter, loc, eltBytes));
      Value ptr = arith::AddIOp::create(rewriter, loc, base, bytes);
      return {arith::IndexCastOp::create(rewriter, loc, i64, ptr),
              toI32(meta.getStrides()[0])};
    };
    auto dim = [&](Value m, int64_t d) {
      return toI32(memref::DimOp::create(rewriter, loc, m, d));
    };
    auto [pa, lda] = pointerAndLd(a);
    auto [pb, ldb] = pointerAndLd(b);
    auto [pc, ldc] = pointerAndLd(c);
    Value one = arith::ConstantOp::create(rewriter, loc, elt,
                                          rewriter.getFloatAttr(elt, 1.0));
    StringRef name = elt.isF32() ? "cblas_sgemm" : "cblas_dgemm";
    SmallVector<Value> args{cst32(kRowMajor),
                            cst32(kNoTrans),
                            cst32(kNoTrans),
                            dim(a, 0),
                            dim(b, 1),
                            dim(a, 1),
                            one,
                            pa,
                            lda,
                            pb,
                            ldb,
                            one,
                            pc,
                            ldc};
    SmallVector<Type> types;
    for (Value v : args)
      types.push_back(v.getType());
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      fn = func::FuncOp::create(rewriter, loc, name,
                                rewriter.getFunctionType(types, {}));
      fn.setPrivate();
    }
    func::CallOp::create(rewriter, loc, fn, args);
    rewriter.eraseOp(op);
  }
};

} // namespace
