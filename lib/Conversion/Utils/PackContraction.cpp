//===- PackContraction.cpp - contraction operands packed for a GEMM -------===//

#include "dtensor/Conversion/Utils/PackContraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

SmallVector<unsigned>
mlir::dtensor::packedOrder(const linalg::ContractionDimensions &d,
                           unsigned i) {
  SmallVector<unsigned> order(d.batch.begin(), d.batch.end());
  ArrayRef<unsigned> rows = i == 1 ? d.k : d.m;
  ArrayRef<unsigned> cols = i == 0 ? d.k : d.n;
  order.append(rows.begin(), rows.end());
  order.append(cols.begin(), cols.end());
  return order;
}

bool mlir::dtensor::isPackedLayout(linalg::LinalgOp op,
                                   const linalg::ContractionDimensions &d,
                                   unsigned i) {
  AffineMap map = op.getIndexingMapsArray()[i];
  SmallVector<unsigned> order = packedOrder(d, i);
  if (map.getNumResults() != order.size())
    return false;
  for (auto [expr, loop] : llvm::zip_equal(map.getResults(), order)) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || dim.getPosition() != loop)
      return false;
  }
  auto type = dyn_cast<MemRefType>(op->getOperand(i).getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type && type.getRank() > 0 &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

linalg::GenericOp mlir::dtensor::packContractionOperands(
    RewriterBase &b, linalg::LinalgOp op,
    const linalg::ContractionDimensions &d, ArrayRef<bool> pack, bool cZero) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  SmallVector<Range> ranges = op.createLoopRanges(b, loc);
  SmallVector<Value> operands(op->getOperands());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<SmallVector<int64_t>> perms(3);
  SmallVector<Value> copies;
  for (unsigned i = 0; i < 3; ++i) {
    if (!pack[i])
      continue;
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamicSizes;
    SmallVector<AffineExpr> exprs;
    for (unsigned l : packedOrder(d, i)) {
      std::optional<int64_t> size = getConstantIntValue(ranges[l].size);
      shape.push_back(size ? *size : ShapedType::kDynamic);
      if (!size)
        dynamicSizes.push_back(
            getValueOrCreateConstantIndexOp(b, loc, ranges[l].size));
      perms[i].push_back(
          *maps[i].getResultPosition(getAffineDimExpr(l, ctx)));
      exprs.push_back(getAffineDimExpr(l, ctx));
    }
    auto type = MemRefType::get(shape, getElementTypeOrSelf(operands[i]));
    Value copy = memref::AllocOp::create(b, loc, type, dynamicSizes);
    if (i == 2 && cZero) {
      Value zero = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(type.getElementType()));
      linalg::FillOp::create(b, loc, zero, copy);
    } else {
      linalg::TransposeOp::create(b, loc, operands[i], copy, perms[i]);
    }
    maps[i] = AffineMap::get(op.getNumLoops(), 0, exprs, ctx);
    operands[i] = copy;
    copies.push_back(copy);
  }
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(), ValueRange{operands[0], operands[1]},
      ValueRange{operands[2]}, maps, op.getIteratorTypesArray());
  b.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                      generic.getRegion().begin());
  if (pack[2]) {
    // Dim r of the op's C holds dim back[r] of the packed copy.
    SmallVector<int64_t> back(perms[2].size());
    for (auto [j, r] : llvm::enumerate(perms[2]))
      back[r] = j;
    linalg::TransposeOp::create(b, loc, operands[2], op->getOperand(2), back);
  }
  for (Value copy : copies)
    memref::DeallocOp::create(b, loc, copy);
  b.eraseOp(op);
  return generic;
}
