//===- PackContraction.cpp - contraction operands packed for a GEMM -------===//

#include "dtensor/Conversion/Utils/PackContraction.h"
#include "dtensor/Conversion/Utils/BufferZeros.h"

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

namespace {
/// Copies `from` into `to`: into the packed copy (dims in the loop order
/// `order`) of the op's operand read through `map` when `toPacked`, else
/// from it back into the operand. A `linalg.transpose`, or a
/// `linalg.generic` converting the element type (extf or truncf) when the
/// types differ.
void copyPacked(RewriterBase &b, Location loc, Value from, Value to,
                bool toPacked, AffineMap map, ArrayRef<unsigned> order) {
  MLIRContext *ctx = b.getContext();
  // The op's operand dims in terms of the packed dims.
  SmallVector<AffineExpr> exprs;
  SmallVector<int64_t> perm;
  for (AffineExpr e : map.getResults()) {
    unsigned loop = cast<AffineDimExpr>(e).getPosition();
    exprs.push_back(getAffineDimExpr(llvm::find(order, loop) - order.begin(),
                                     ctx));
  }
  for (unsigned l : order)
    perm.push_back(*map.getResultPosition(getAffineDimExpr(l, ctx)));
  Type fromType = getElementTypeOrSelf(from), toType = getElementTypeOrSelf(to);
  if (fromType == toType) {
    SmallVector<int64_t> back(perm.size());
    for (auto [j, r] : llvm::enumerate(perm))
      back[r] = j;
    linalg::TransposeOp::create(b, loc, from, to, toPacked ? perm : back);
    return;
  }
  unsigned rank = order.size();
  AffineMap packed = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap operand = AffineMap::get(rank, 0, exprs, ctx);
  SmallVector<AffineMap> maps{toPacked ? operand : packed,
                              toPacked ? packed : operand};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, ValueRange{from}, ValueRange{to}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value v = args[0];
        if (toType.getIntOrFloatBitWidth() > fromType.getIntOrFloatBitWidth())
          v = arith::ExtFOp::create(nb, nl, toType, v);
        else
          v = arith::TruncFOp::create(nb, nl, toType, v);
        linalg::YieldOp::create(nb, nl, v);
      });
}
} // namespace

linalg::GenericOp mlir::dtensor::packContractionOperands(
    RewriterBase &b, linalg::LinalgOp op,
    const linalg::ContractionDimensions &d, ArrayRef<bool> pack,
    bool foldZeroFill, FloatType computeType) {
  // A packed C is written whole by the copy back: zeros it holds make a
  // zero fill of the copy (then beta = 0), and the fill of C goes.
  bool cZero = false;
  llvm::SetVector<Operation *> erasable;
  if (pack[2] && foldZeroFill)
    cZero = holdsZeros(op, op->getOperand(2), {}, erasable);
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  SmallVector<Range> ranges = op.createLoopRanges(b, loc);
  SmallVector<Value> operands(op->getOperands());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineMap> originalMaps = maps;
  SmallVector<Value> copies;
  for (unsigned i = 0; i < 3; ++i) {
    if (!pack[i])
      continue;
    SmallVector<unsigned> order = packedOrder(d, i);
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamicSizes;
    SmallVector<AffineExpr> exprs;
    for (unsigned l : order) {
      std::optional<int64_t> size = getConstantIntValue(ranges[l].size);
      shape.push_back(size ? *size : ShapedType::kDynamic);
      if (!size)
        dynamicSizes.push_back(
            getValueOrCreateConstantIndexOp(b, loc, ranges[l].size));
      exprs.push_back(getAffineDimExpr(l, ctx));
    }
    Type element = computeType ? computeType
                               : getElementTypeOrSelf(operands[i]);
    auto type = MemRefType::get(shape, element);
    Value copy = memref::AllocOp::create(b, loc, type, dynamicSizes);
    if (i == 2 && cZero) {
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
      linalg::FillOp::create(b, loc, zero, copy);
    } else {
      copyPacked(b, loc, operands[i], copy, /*toPacked=*/true, maps[i], order);
    }
    maps[i] = AffineMap::get(op.getNumLoops(), 0, exprs, ctx);
    operands[i] = copy;
    copies.push_back(copy);
  }
  linalg::GenericOp generic;
  if (computeType) {
    // The body in the compute type: acc + a * b.
    generic = linalg::GenericOp::create(
        b, loc, ValueRange{operands[0], operands[1]}, ValueRange{operands[2]},
        maps, op.getIteratorTypesArray(),
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value p = arith::MulFOp::create(nb, nl, args[0], args[1]);
          linalg::YieldOp::create(
              nb, nl, ValueRange{arith::AddFOp::create(nb, nl, args[2], p)});
        });
  } else {
    generic = linalg::GenericOp::create(
        b, loc, TypeRange(), ValueRange{operands[0], operands[1]},
        ValueRange{operands[2]}, maps, op.getIteratorTypesArray());
    b.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                        generic.getRegion().begin());
  }
  if (pack[2])
    copyPacked(b, loc, operands[2], op->getOperand(2), /*toPacked=*/false,
               originalMaps[2], packedOrder(d, 2));
  for (Value copy : copies)
    memref::DeallocOp::create(b, loc, copy);
  b.eraseOp(op);
  for (Operation *fill : erasable)
    b.eraseOp(fill);
  return generic;
}
