//===- UnitGemmDims.cpp - matvec and dot products as GEMMs ----------------===//
//
// A contraction with no n loop (a matrix times a vector) or no m loop (a
// vector times a matrix, a dot product) is a GEMM with n = 1 or m = 1. The
// BLAS and cuBLASLt lowerings match one m, one n and one k loop; this pass
// gives such contractions the missing loop, of size 1, with unit dims
// added to the operands that have it (tensor.expand_shape: free views once
// bufferized) and the result collapsed back.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORUNITGEMMDIMS
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// True if `op` is a contraction on tensors with a k loop and no m or no n
/// loop, every map a projected permutation.
bool lacksGemmDim(linalg::LinalgOp op, linalg::ContractionDimensions &dims) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return false;
  FailureOr<linalg::ContractionDimensions> d =
      linalg::inferContractionDims(op);
  if (failed(d) || d->k.empty() || (!d->m.empty() && !d->n.empty()))
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation();
      }))
    return false;
  dims = *d;
  return true;
}

/// The reassociation between a rank-`rank` shape and the same shape with
/// `units` trailing unit dims: each dim alone, the last one with the units
/// (none for rank 0: the units are all the other shape's dims).
SmallVector<ReassociationIndices> trailingUnitGroups(int64_t rank,
                                                     int64_t units) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i)
    groups.push_back({i});
  if (rank > 0)
    for (int64_t u = 0; u < units; ++u)
      groups.back().push_back(rank + u);
  return groups;
}

/// `value` with `units` trailing unit dims: a tensor.expand_shape grouping
/// its last dim with them (a 0-d tensor becomes `units` unit dims).
Value appendUnitDims(OpBuilder &b, Location loc, Value value, int64_t units) {
  if (units == 0)
    return value;
  // Each group holds at most one dynamic dim: the shape is inferred.
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.append(units, 1);
  auto expanded = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(
      b, loc, expanded, value, trailingUnitGroups(type.getRank(), units));
}

/// Rewrites `op` (dims `d`) with a unit m loop and/or unit n loop appended.
void addUnitLoops(RewriterBase &b, linalg::LinalgOp op,
                  const linalg::ContractionDimensions &d) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  unsigned numLoops = op.getNumLoops();
  bool addM = d.m.empty(), addN = d.n.empty();
  unsigned total = numLoops + addM + addN;
  unsigned mLoop = numLoops, nLoop = numLoops + addM;
  SmallVector<AffineMap> maps;
  SmallVector<Value> operands;
  for (auto [i, map] : llvm::enumerate(op.getIndexingMapsArray())) {
    SmallVector<AffineExpr> exprs(map.getResults());
    // A gets the m loop, B the n loop, C both, each after its own dims.
    if (addM && i != 1)
      exprs.push_back(getAffineDimExpr(mLoop, ctx));
    if (addN && i != 0)
      exprs.push_back(getAffineDimExpr(nLoop, ctx));
    maps.push_back(AffineMap::get(total, 0, exprs, ctx));
    int64_t units = exprs.size() - map.getNumResults();
    operands.push_back(appendUnitDims(b, loc, op->getOperand(i), units));
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.append(addM + addN, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{operands[2].getType()},
      ValueRange{operands[0], operands[1]}, ValueRange{operands[2]}, maps,
      iterators);
  b.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                      generic.getRegion().begin());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value result = tensor::CollapseShapeOp::create(
      b, loc, resultType, generic->getResult(0),
      trailingUnitGroups(resultType.getRank(), addM + addN));
  b.replaceOp(op, result);
}

struct UnitGemmDimsPass
    : public dtensor::impl::DTensorUnitGemmDimsBase<UnitGemmDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, linalg::ContractionDimensions>>
        ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      linalg::ContractionDimensions dims;
      if (lacksGemmDim(op, dims))
        ops.emplace_back(op, dims);
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, dims] : ops) {
      rewriter.setInsertionPoint(op);
      addUnitLoops(rewriter, op, dims);
      ++numExpanded;
    }
  }
};
} // namespace
