//===- DTensorOpInterfaces.cpp - dtensor op interfaces --------------------===//
//
// The verifier that every collective shares: request result, mesh and axes,
// the shape rule (gathered dims grow by the group size, scattered dims shrink
// by it, the others are equal) and a broadcast root on the mesh.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensorOpInterfaces.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"

using namespace mlir;
using namespace mlir::dtensor;

#include "dtensor/Dialect/DTensor/IR/DTensorOpInterfaces.cpp.inc"

/// The mesh of a collective, found by scanning the enclosing symbol tables:
/// op verifiers have no shared symbol table cache, and meshes are declared
/// before the functions, so the scan stops early.
static MeshOp findMesh(CollectiveOpInterface op) {
  return SymbolTable::lookupNearestSymbolFrom<MeshOp>(
      op, op.getMeshAttr().getAttr());
}

/// Shape rule of a collective over groups of `k` ranks.
static LogicalResult verifyShapes(CollectiveOpInterface op, ShapedType in,
                                  ShapedType out, int64_t k) {
  std::optional<int64_t> grow = op.getGatheredDim();
  std::optional<int64_t> shrink = op.getScatteredDim();
  if (in.getElementType() != out.getElementType())
    return op->emitOpError()
           << "result element type " << out.getElementType()
           << " differs from input element type " << in.getElementType();
  if (in.getRank() != out.getRank())
    return op->emitOpError() << "result rank " << out.getRank()
                             << " differs from input rank " << in.getRank();
  for (std::optional<int64_t> d : {grow, shrink})
    if (d && (*d < 0 || *d >= in.getRank()))
      return op->emitOpError()
             << "dim " << *d << " is out of range for a tensor of rank "
             << in.getRank();
  for (int64_t i = 0, e = in.getRank(); i < e; ++i) {
    int64_t a = in.getDimSize(i), b = out.getDimSize(i);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    int64_t want = a;
    if (grow && *grow == i)
      want *= k;
    if (shrink && *shrink == i) {
      if (want % k != 0)
        return op->emitOpError()
               << "dim " << i << " of size " << want << " does not split into "
               << k << " equal chunks";
      want /= k;
    }
    if (b != want)
      return op->emitOpError()
             << "result dim " << i << " is " << b << " but the input dim " << a
             << " over a group of " << k << " ranks gives " << want;
  }
  return success();
}

/// The root of a broadcast names one coordinate per listed mesh axis.
static LogicalResult verifyRoot(CollectiveOpInterface op, MeshOp mesh) {
  ArrayRef<int64_t> root = op.getRootCoords(), axes = op.getMeshAxes();
  if (root.size() != axes.size())
    return op->emitOpError()
           << "root has " << root.size() << " coordinates but " << axes.size()
           << " mesh axes are listed";
  for (auto [c, a] : llvm::zip_equal(root, axes))
    if (c < 0 || c >= mesh.getShape()[a])
      return op->emitOpError()
             << "root coordinate " << c << " is out of range for mesh axis "
             << a << " of size " << mesh.getShape()[a];
  return success();
}

LogicalResult mlir::dtensor::detail::verifyCollectiveOp(Operation *op) {
  auto collective = cast<CollectiveOpInterface>(op);
  RankedTensorType result = collective.getResultTensorType();
  if (!result)
    return op->emitOpError()
           << "request must hold a ranked tensor, got "
           << cast<RequestType>(op->getResult(0).getType()).getValueType();
  MeshOp mesh = findMesh(collective);
  int64_t k;
  if (failed(verifyMeshAxes(op, collective.getMeshAttr(), mesh,
                            collective.getMeshAxes(), k)) ||
      failed(verifyShapes(collective,
                          cast<ShapedType>(collective.getInput().getType()),
                          result, k)))
    return failure();
  if (collective.getCollectiveKind() == CollectiveKind::Broadcast)
    return verifyRoot(collective, mesh);
  return success();
}

int64_t
mlir::dtensor::detail::getCollectiveGroupSize(Operation *op,
                                              SymbolTableCollection &table) {
  auto collective = cast<CollectiveOpInterface>(op);
  MeshOp mesh = lookupMesh(op, collective.getMeshAttr(), table);
  if (!mesh)
    return 0;
  int64_t k = 1;
  for (int64_t axis : collective.getMeshAxes()) {
    if (axis < 0 || axis >= mesh.getRank())
      return 0;
    k *= mesh.getShape()[axis];
  }
  return k;
}
