//===- DTensorDialect.cpp - dtensor dialect, attributes and types ---------===//

#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/IR/Segment.h"
#include "dtensor/Support/ShardingMath.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dtensor;

#include "dtensor/Dialect/DTensor/IR/DTensorOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorOpsTypes.cpp.inc"

void DTensorDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dtensor/Dialect/DTensor/IR/DTensorOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}

void DTensorDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dtensor/Dialect/DTensor/IR/DTensorAttrs.cpp.inc"
      >();
}

void DTensorDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dtensor/Dialect/DTensor/IR/DTensorOpsTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// SpecAttr
//===----------------------------------------------------------------------===//

static ParseResult parsePlacement(AsmParser &parser, Placement &result) {
  StringRef kw;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&kw))
    return failure();
  if (kw == "R") {
    result = Placement::replicate();
    return success();
  }
  if (kw == "S") {
    int64_t dim;
    if (parser.parseLParen() || parser.parseInteger(dim) ||
        parser.parseRParen())
      return failure();
    if (dim < 0)
      return parser.emitError(loc)
             << "shard dim must be non-negative, got " << dim;
    if (dim > std::numeric_limits<int32_t>::max())
      return parser.emitError(loc)
             << "shard dim " << dim << " is too large (max "
             << std::numeric_limits<int32_t>::max() << ")";
    result = Placement::shard(static_cast<int32_t>(dim));
    return success();
  }
  if (kw == "_S") {
    // `_S(<dim>, <split factor>)`, PyTorch's `str()` of `_StridedShard`.
    int64_t dim, sf;
    SMLoc sfLoc;
    if (parser.parseLParen() || parser.parseInteger(dim) ||
        parser.parseComma())
      return failure();
    sfLoc = parser.getCurrentLocation();
    if (parser.parseInteger(sf) || parser.parseRParen())
      return failure();
    if (dim < 0 || dim > std::numeric_limits<int32_t>::max())
      return parser.emitError(loc)
             << "strided shard dim must be in [0, "
             << std::numeric_limits<int32_t>::max() << "], got " << dim;
    if (sf < 2)
      return parser.emitError(sfLoc)
             << "strided shard split factor must be at least 2, got " << sf;
    result = Placement::stridedShard(static_cast<int32_t>(dim), sf);
    return success();
  }
  if (kw == "P") {
    StringRef op;
    SMLoc opLoc;
    if (parser.parseLParen())
      return failure();
    opLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&op) || parser.parseRParen())
      return failure();
    std::optional<ReduceOp> reduce = symbolizeReduceOp(op);
    if (!reduce)
      return parser.emitError(opLoc)
             << "expected partial reduction sum, avg, max or min, got '" << op
             << "'";
    result = Placement::partial(*reduce);
    return success();
  }
  return parser.emitError(loc)
         << "expected placement S(<dim>), R, P(<op>) or _S(<dim>, <split "
            "factor>), got '"
         << kw << "'";
}

ParseResult
mlir::dtensor::parseSpecPlacements(AsmParser &parser,
                                   SmallVectorImpl<Placement> &placements) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    Placement p;
    if (parsePlacement(parser, p))
      return failure();
    placements.push_back(p);
    return success();
  });
}

/// The `: type` the attribute parser read after the last full-form spec.
static thread_local Type specTrailingType;

Type mlir::dtensor::takeSpecTrailingType() {
  Type t = specTrailingType;
  specTrailingType = {};
  return t;
}

Attribute SpecAttr::parse(AsmParser &parser, Type trailingType) {
  specTrailingType = trailingType;
  FlatSymbolRefAttr mesh;
  SmallVector<Placement> placements;
  if (parser.parseLess() || parser.parseAttribute(mesh) ||
      parser.parseComma() || parseSpecPlacements(parser, placements) ||
      parser.parseGreater())
    return {};
  return SpecAttr::get(parser.getContext(), mesh, placements);
}

void SpecAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", " << getPlacementsString() << ">";
}

bool SpecAttr::isFullyReplicated() const {
  return llvm::all_of(getPlacements(),
                      [](Placement p) { return p.isReplicate(); });
}

bool SpecAttr::hasPartial() const {
  return llvm::any_of(getPlacements(),
                      [](Placement p) { return p.isPartial(); });
}

std::string SpecAttr::getPlacementsString() const {
  return placementsToString(getPlacements());
}

//===----------------------------------------------------------------------===//
// Attribute verification on functions and ops
//===----------------------------------------------------------------------===//

/// Verifies a `dtensor.spec` attached to a value of type `type`.
static LogicalResult verifySpecOn(Operation *op, Attribute attr, Type type,
                                  StringRef what) {
  auto spec = dyn_cast<SpecAttr>(attr);
  if (!spec)
    return op->emitOpError()
           << "'" << DTensorDialect::kSpecAttrName << "' on " << what
           << " must be a #dtensor.spec, got " << attr;
  // Buffers of a bufferized local program keep their arguments' specs.
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() || !isa<RankedTensorType, MemRefType>(type))
    return op->emitOpError()
           << "'" << DTensorDialect::kSpecAttrName << "' on " << what
           << " requires a ranked tensor or memref, got " << type;
  return verifySpec(op, spec, shaped, what);
}

static LogicalResult verifyArgOrResultAttr(Operation *op, unsigned index,
                                           NamedAttribute attr, bool isResult) {
  StringRef name = attr.getName().getValue();
  auto func = dyn_cast<FunctionOpInterface>(op);
  std::string what =
      (isResult ? "result #" : "argument #") + std::to_string(index);
  if (name == DTensorDialect::kSpecAttrName) {
    if (!func)
      return op->emitOpError() << "'" << name
                               << "' is only allowed on function "
                                  "arguments and results";
    Type type = isResult ? func.getResultTypes()[index]
                         : func.getArgumentTypes()[index];
    return verifySpecOn(op, attr.getValue(), type, what);
  }
  if (!isResult && name == DTensorDialect::kParamAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' on " << what << " must be a string";
    if (func &&
        !isa<RankedTensorType, MemRefType>(func.getArgumentTypes()[index]))
      return op->emitOpError() << "'" << name << "' on " << what
                               << " requires a ranked tensor or memref, got "
                               << func.getArgumentTypes()[index];
    return success();
  }
  if (!isResult && name == DTensorDialect::kStateAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' on " << what << " must be a string";
    return success();
  }
  if (!isResult && name == DTensorDialect::kDdpIgnoredAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  return op->emitOpError() << "unknown dtensor attribute '" << name << "' on "
                           << what;
}

LogicalResult DTensorDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                       unsigned argIndex,
                                                       NamedAttribute attr) {
  return verifyArgOrResultAttr(op, argIndex, attr, /*isResult=*/false);
}

LogicalResult DTensorDialect::verifyRegionResultAttribute(Operation *op,
                                                          unsigned,
                                                          unsigned resultIndex,
                                                          NamedAttribute attr) {
  return verifyArgOrResultAttr(op, resultIndex, attr, /*isResult=*/true);
}

LogicalResult DTensorDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kSegmentAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a string, got " << attr.getValue();
    return success();
  }
  if (name == kParallelLoopAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<LoopLikeOpInterface>(op))
      return op->emitOpError()
             << "'" << name << "' must be a unit attribute on a loop";
    return success();
  }
  if (name != kSpecsAttrName)
    return op->emitOpError() << "unknown dtensor attribute '" << name << "'";
  auto specs = dyn_cast<ArrayAttr>(attr.getValue());
  if (!specs || specs.size() != op->getNumResults())
    return op->emitOpError()
           << "'" << name << "' must be an array of " << op->getNumResults()
           << " #dtensor.spec (one per result)";
  for (auto [i, specAttr, result] :
       llvm::enumerate(specs.getValue(), op->getResults())) {
    std::string what = "result #" + std::to_string(i);
    // Non-tensor results carry a unit placeholder.
    if (isa<UnitAttr>(specAttr) && !isa<RankedTensorType>(result.getType()))
      continue;
    auto spec = dyn_cast<SpecAttr>(specAttr);
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!spec || !type)
      return op->emitOpError() << "'" << name << "' entry for " << what
                               << " must be a #dtensor.spec on a ranked "
                                  "tensor, got "
                               << specAttr;
    if (failed(verifySpec(op, spec, type, what)))
      return failure();
  }
  return success();
}
