//===- DTensorOps.cpp - dtensor operations --------------------------------===//

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Support/ShardingMath.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::dtensor;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

MeshOp mlir::dtensor::lookupMesh(Operation *from, FlatSymbolRefAttr mesh,
                                 SymbolTableCollection &symbolTable) {
  return symbolTable.lookupNearestSymbolFrom<MeshOp>(from, mesh.getAttr());
}

/// Verifies `spec` against its resolved `mesh` (null if unknown).
static LogicalResult verifySpecOnMesh(Operation *op, SpecAttr spec, MeshOp mesh,
                                      ShapedType type, StringRef what) {
  if (!mesh)
    return op->emitOpError() << "spec of " << what << " refers to unknown mesh "
                             << spec.getMesh();
  std::string err =
      checkPlacements(spec.getPlacements(), mesh.getRank(), type.getRank());
  if (err.empty())
    err = checkStridedShards(spec.getPlacements(), type.getShape(),
                             ShapedType::kDynamic);
  if (!err.empty())
    return op->emitOpError()
           << "spec " << spec << " of " << what << ": " << err;
  return success();
}

LogicalResult mlir::dtensor::verifySpec(Operation *op, SpecAttr spec,
                                        ShapedType type, StringRef what,
                                        SymbolTableCollection &symbolTable) {
  return verifySpecOnMesh(op, spec, lookupMesh(op, spec.getMesh(), symbolTable),
                          type, what);
}

LogicalResult mlir::dtensor::verifySpec(Operation *op, SpecAttr spec,
                                        ShapedType type, StringRef what) {
  return verifySpecOnMesh(op, spec,
                          SymbolTable::lookupNearestSymbolFrom<MeshOp>(
                              op, spec.getMesh().getAttr()),
                          type, what);
}

/// Parses `<spec> : <type>` where the spec is written in its full form
/// `#dtensor.spec<@mesh, [...]>` or its short form `<@mesh, [...]>`. The
/// attribute parser takes a `: type` after a full-form attribute as the
/// attribute's own type; SpecAttr::parse hands that type back here.
/// Parses the reduction of a collective as a bare keyword: `sum`.
static ParseResult parseReduce(OpAsmParser &parser, ReduceOpAttr &attr) {
  std::string keyword;
  SMLoc loc = parser.getCurrentLocation();
  std::optional<ReduceOp> kind;
  if (succeeded(parser.parseOptionalKeywordOrString(&keyword)))
    kind = symbolizeReduceOp(keyword);
  if (!kind)
    return parser.emitError(loc)
           << "expected string or keyword containing one of the following "
              "enum values for attribute 'reduce' [sum, avg, max, min]";
  attr = ReduceOpAttr::get(parser.getContext(), *kind);
  return success();
}

static void printReduce(OpAsmPrinter &p, Operation *, ReduceOpAttr attr) {
  p << stringifyReduceOp(attr.getValue());
}

static ParseResult parseSpecColonType(OpAsmParser &parser, SpecAttr &spec,
                                      Type &type) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLess())) {
    FlatSymbolRefAttr mesh;
    SmallVector<Placement> placements;
    if (parser.parseAttribute(mesh) || parser.parseComma() ||
        parseSpecPlacements(parser, placements) || parser.parseGreater())
      return failure();
    spec = SpecAttr::get(parser.getContext(), mesh, placements);
    return parser.parseColonType(type);
  }
  Attribute attr;
  Type trailing = takeSpecTrailingType(); // clear any stale value
  if (parser.parseAttribute(attr))
    return failure();
  spec = dyn_cast<SpecAttr>(attr);
  if (!spec)
    return parser.emitError(loc) << "expected #dtensor.spec, got " << attr;
  trailing = takeSpecTrailingType();
  if (trailing) {
    type = trailing;
    return success();
  }
  return parser.parseColonType(type);
}

static ParseResult parseSpec(OpAsmParser &parser, SpecAttr &spec, Type &type) {
  return parseSpecColonType(parser, spec, type);
}

static void printSpec(OpAsmPrinter &p, Operation *, SpecAttr spec, Type type) {
  p.printAttribute(spec);
  p << " : " << type;
}

static ParseResult parseSpecAndTypes(OpAsmParser &parser, SpecAttr &spec,
                                     Type &from, Type &to) {
  if (parseSpecColonType(parser, spec, from) || parser.parseArrow() ||
      parser.parseType(to))
    return failure();
  return success();
}

static void printSpecAndTypes(OpAsmPrinter &p, Operation *, SpecAttr spec,
                              Type from, Type to) {
  p.printAttribute(spec);
  p << " : " << from << " -> " << to;
}

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

int64_t MeshOp::getNumDevices() { return meshNumDevices(getShape()); }

std::optional<int64_t> MeshOp::getAxisIndex(StringRef name) {
  for (auto [i, axis] : llvm::enumerate(getAxisNames()))
    if (cast<StringAttr>(axis).getValue() == name)
      return i;
  return std::nullopt;
}

ParseResult MeshOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  SmallVector<Attribute> axisNames;
  SmallVector<int64_t> shape;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseEqual() || parser.parseLess() ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square,
          [&] {
            std::string axis;
            int64_t size;
            if (parser.parseString(&axis) || parser.parseEqual() ||
                parser.parseInteger(size))
              return failure();
            axisNames.push_back(parser.getBuilder().getStringAttr(axis));
            shape.push_back(size);
            return success();
          }) ||
      parser.parseGreater() || parser.parseOptionalAttrDict(result.attributes))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute(getAxisNamesAttrName(result.name),
                      b.getArrayAttr(axisNames));
  result.addAttribute(getShapeAttrName(result.name),
                      b.getDenseI64ArrayAttr(shape));
  return success();
}

void MeshOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printSymbolName(getSymName());
  p << " = <[";
  llvm::interleaveComma(llvm::zip_equal(getAxisNames(), getShape()), p,
                        [&](auto it) {
                          auto [name, size] = it;
                          p.printString(cast<StringAttr>(name).getValue());
                          p << " = " << size;
                        });
  p << "]>";
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getAxisNamesAttrName(), getShapeAttrName()});
}

LogicalResult MeshOp::verify() {
  if (getAxisNames().size() != getShape().size())
    return emitOpError() << "has " << getAxisNames().size()
                         << " axis names but " << getShape().size()
                         << " axis sizes";
  if (getShape().empty())
    return emitOpError() << "must have at least one axis";
  if (static_cast<int64_t>(getShape().size()) > kMaxMeshAxes)
    return emitOpError() << "mesh has " << getShape().size()
                         << " axes but at most " << kMaxMeshAxes
                         << " are supported";
  llvm::StringSet<> seen;
  for (auto [name, size] : llvm::zip_equal(getAxisNames(), getShape())) {
    StringRef axis = cast<StringAttr>(name).getValue();
    if (axis.empty())
      return emitOpError() << "axis names must not be empty";
    if (!seen.insert(axis).second)
      return emitOpError() << "duplicate axis name \"" << axis << "\"";
    if (size <= 0)
      return emitOpError() << "axis \"" << axis
                           << "\" must have a positive size, got " << size;
  }
  int64_t devices = 1;
  for (int64_t size : getShape())
    if (llvm::MulOverflow(devices, size, devices) || devices > kMaxMeshDevices)
      return emitOpError() << "mesh has more than the supported "
                           << kMaxMeshDevices << " devices";
  return success();
}

//===----------------------------------------------------------------------===//
// RedistributeOp
//===----------------------------------------------------------------------===//

LogicalResult
RedistributeOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifySpec(*this, getSpec(), getType(), "the target", symbolTable);
}

OpFoldResult RedistributeOp::fold(FoldAdaptor) {
  // Redistributing twice to the same placements is one redistribution.
  if (auto prev = getSource().getDefiningOp<RedistributeOp>())
    if (prev.getSpec() == getSpec())
      return getSource();
  return {};
}

//===----------------------------------------------------------------------===//
// FromLocalOp / ToLocalOp
//===----------------------------------------------------------------------===//

/// Checks that `local` can hold the shard of every rank of `global` under
/// `spec`: same rank and element type, dims static and equal where all ranks
/// agree, dynamic where shards are uneven.
static LogicalResult verifyLocalGlobal(Operation *op, SpecAttr spec,
                                       ShapedType local, ShapedType global,
                                       SymbolTableCollection &symbolTable) {
  if (failed(verifySpec(op, spec, global, "the global tensor", symbolTable)))
    return failure();
  if (local.getElementType() != global.getElementType())
    return op->emitOpError()
           << "local element type " << local.getElementType()
           << " differs from global element type " << global.getElementType();
  if (local.getRank() != global.getRank())
    return op->emitOpError()
           << "local rank " << local.getRank() << " differs from global rank "
           << global.getRank();
  MeshOp mesh = lookupMesh(op, spec.getMesh(), symbolTable);
  SmallVector<int64_t, 4> expected =
      computeLocalTypeShape(global.getShape(), mesh.getShape(),
                            spec.getPlacements(), ShapedType::kDynamic);
  for (auto [i, want, have] : llvm::enumerate(expected, local.getShape())) {
    if (want == have)
      continue;
    if (ShapedType::isDynamic(want))
      return op->emitOpError()
             << "local dim " << i << " must be dynamic: shards of global dim "
             << i << " (size " << global.getDimSize(i) << ") are uneven under "
             << spec.getPlacementsString() << " on mesh " << spec.getMesh();
    return op->emitOpError()
           << "local dim " << i << " is "
           << (ShapedType::isDynamic(have) ? "dynamic" : std::to_string(have))
           << " but global size " << global.getDimSize(i) << " under "
           << spec.getPlacementsString() << " gives " << want
           << " on every rank";
  }
  return success();
}

LogicalResult FromLocalOp::verifySymbolUses(SymbolTableCollection &table) {
  if (getSpec().hasPartial())
    return emitOpError() << "partial placements are not supported here";
  return verifyLocalGlobal(*this, getSpec(), getLocal().getType(), getType(),
                           table);
}

LogicalResult ToLocalOp::verifySymbolUses(SymbolTableCollection &table) {
  return verifyLocalGlobal(*this, getSpec(), getType(), getGlobal().getType(),
                           table);
}

//===----------------------------------------------------------------------===//
// ProcessIndexOp
//===----------------------------------------------------------------------===//

LogicalResult mlir::dtensor::verifyMeshAxes(Operation *op,
                                            FlatSymbolRefAttr meshRef,
                                            MeshOp mesh, ArrayRef<int64_t> axes,
                                            int64_t &groupSize) {
  if (!mesh)
    return op->emitOpError() << "refers to unknown mesh " << meshRef;
  if (axes.empty())
    return op->emitOpError() << "needs at least one mesh axis";
  groupSize = 1;
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= mesh.getRank())
      return op->emitOpError()
             << "mesh axis " << axis << " is out of range: mesh " << meshRef
             << " has " << mesh.getRank() << " axes";
    if (!seen.insert(axis).second)
      return op->emitOpError() << "mesh axis " << axis << " is listed twice";
    groupSize *= mesh.getShape()[axis];
  }
  return success();
}

LogicalResult
ProcessIndexOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  int64_t k;
  return verifyMeshAxes(*this, getMeshAttr(),
                        lookupMesh(*this, getMeshAttr(), symbolTable),
                        getMeshAxes(), k);
}

#define GET_OP_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorOps.cpp.inc"
