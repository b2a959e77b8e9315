//===- LinalgGradientModels.cpp - reverse rules of linalg ops -------------===//
//
// One rule for every structured op, from its indexing maps and scalar body.
// The adjoint of operand i (indexing map M_i, a projected permutation) is a
// `linalg.generic` over the op's iteration space whose output map is M_i
// (loops absent from M_i become reductions, summing the contributions),
// whose inputs are the op's inputs, the op's inits (or, for a max/min
// reduction, its results) and the result adjoints, and whose body is the
// forward body followed by
//
//   acc + sum_k adj_k * d(yield_k)/d(arg_i)
//
// with the derivative built in forward mode (TangentBuilder). A result with
// reduction loops must accumulate as `acc + g(ins)` (d/d acc = 1, so the
// value bound to acc does not matter: the init is passed) or as `max(acc,
// g(ins))`/`min(...)` (acc is bound to the result, and the element equal
// to it gets the gradient); anything else is an error. The init of a sum
// reduction gets the result's adjoint unchanged. Inputs the derivative does
// not read are dropped, so that a contraction's adjoint reads only what
// its formula needs (dW = x^T dy reads x and dy).
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Extensions/GradientExternalModels.h"
#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// How a result of a structured op accumulates over the reduction loops.
enum class Accumulation { Parallel, Sum, MinMax, Unsupported };

/// Whether `v` (in `body`) is computed from `arg`.
bool dependsOn(Value v, Value arg, Block *body,
               llvm::DenseSet<Value> &visited) {
  if (v == arg)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != body || !visited.insert(v).second)
    return false;
  return llvm::any_of(def->getOperands(), [&](Value o) {
    return dependsOn(o, arg, body, visited);
  });
}

/// The accumulation of result `k`.
Accumulation classify(linalg::LinalgOp op, unsigned k) {
  if (op.getNumReductionLoops() == 0)
    return Accumulation::Parallel;
  Block *body = op.getBlock();
  Value acc = op.getRegionOutputArgs()[k];
  Operation *def = body->getTerminator()->getOperand(k).getDefiningOp();
  if (!def || def->getBlock() != body || def->getNumOperands() != 2)
    return Accumulation::Unsupported;
  bool sum = isa<arith::AddFOp>(def);
  bool minMax = isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
                    arith::MinNumFOp>(def);
  if (!sum && !minMax)
    return Accumulation::Unsupported;
  for (unsigned i = 0; i < 2; ++i) {
    llvm::DenseSet<Value> visited;
    if (def->getOperand(i) == acc &&
        !dependsOn(def->getOperand(1 - i), acc, body, visited))
      return sum ? Accumulation::Sum : Accumulation::MinMax;
  }
  return Accumulation::Unsupported;
}

/// Drops the inputs whose block argument is unused, unless a loop would
/// then appear in no indexing map (its extent would be lost).
linalg::GenericOp dropUnusedInputs(OpBuilder &b, linalg::GenericOp gen) {
  Block &body = gen.getRegion().front();
  llvm::SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  unsigned numInputs = gen.getNumDpsInputs();
  llvm::SmallBitVector covered(gen.getNumLoops()), drop(numInputs);
  auto cover = [&](AffineMap m) {
    for (unsigned d = 0; d < gen.getNumLoops(); ++d)
      if (m.isFunctionOfDim(d))
        covered.set(d);
  };
  cover(maps.back());
  for (unsigned j = 0; j < numInputs; ++j)
    if (!body.getArgument(j).use_empty())
      cover(maps[j]);
  for (unsigned j = 0; j < numInputs; ++j) {
    if (!body.getArgument(j).use_empty())
      continue;
    bool keep = false;
    for (unsigned d = 0; d < gen.getNumLoops(); ++d)
      keep |= maps[j].isFunctionOfDim(d) && !covered.test(d);
    if (keep)
      cover(maps[j]);
    else
      drop.set(j);
  }
  if (drop.none())
    return gen;
  llvm::SmallVector<Value> ins;
  llvm::SmallVector<AffineMap> keptMaps;
  for (unsigned j = 0; j < numInputs; ++j)
    if (!drop.test(j)) {
      ins.push_back(gen.getDpsInputs()[j]);
      keptMaps.push_back(maps[j]);
    }
  keptMaps.push_back(maps.back());
  auto repl = linalg::GenericOp::create(b, gen.getLoc(), gen.getResultTypes(),
                                        ins, gen.getDpsInits(), keptMaps,
                                        gen.getIteratorTypesArray());
  repl.getRegion().takeBody(gen.getRegion());
  for (int j = numInputs - 1; j >= 0; --j)
    if (drop.test(j))
      repl.getRegion().front().eraseArgument(j);
  gen.erase();
  return repl;
}

/// Erases the cloned forward ops of `block` that the derivative does not use.
void eraseDeadOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (!op.hasTrait<OpTrait::IsTerminator>() && op.use_empty() && isPure(&op))
      op.erase();
}

/// Builds the adjoint of one operand of `op`; see the file comment.
class AdjointBuilder {
public:
  AdjointBuilder(linalg::LinalgOp op, OpBuilder &b,
                 llvm::ArrayRef<Value> resultAdjoints,
                 llvm::ArrayRef<Accumulation> accumulation)
      : op(op), b(b), resultAdjoints(resultAdjoints),
        accumulation(accumulation) {}

  FailureOr<Value> build(OpOperand &operand);

private:
  FailureOr<Value> buildGeneric(OpOperand &operand);
  void buildBody(OpBuilder &nb, Location loc, ValueRange args,
                 unsigned argNumber, Type accType);

  linalg::LinalgOp op;
  OpBuilder &b;
  llvm::ArrayRef<Value> resultAdjoints;
  llvm::ArrayRef<Accumulation> accumulation;
  /// Per generic being built: the result adjoints it reads, whether any
  /// contribution is non-zero and the body op without a rule.
  llvm::SmallVector<unsigned> adjointResults;
  bool nonZero = false;
  /// Set when the body is `acc + adj` for one result adjoint `adj`.
  std::optional<unsigned> copiedAdjoint;
  Operation *unsupported = nullptr;
};

FailureOr<Value> AdjointBuilder::build(OpOperand &operand) {
  unsigned number = operand.getOperandNumber();
  if (op.isDpsInit(&operand)) {
    unsigned k = op.getTiedOpResult(&operand).getResultNumber();
    if (accumulation[k] == Accumulation::Sum)
      return resultAdjoints[k];
    if (accumulation[k] == Accumulation::MinMax)
      return op->emitOpError()
             << "has no gradient rule for the init of a max/min reduction "
                "(operand #"
             << number << ")";
  }
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return op->emitOpError() << "has no gradient rule for operand #" << number
                             << ": its indexing map " << AffineMapAttr::get(map)
                             << " is not a projected permutation";
  return buildGeneric(operand);
}

void AdjointBuilder::buildBody(OpBuilder &nb, Location loc, ValueRange args,
                               unsigned argNumber, Type accType) {
  Block *body = op.getBlock();
  IRMapping mapping;
  for (BlockArgument arg : body->getArguments())
    mapping.map(arg, args[arg.getArgNumber()]);
  llvm::SmallVector<Operation *> cloned;
  for (Operation &o : body->without_terminator())
    cloned.push_back(nb.clone(o, mapping));
  TangentBuilder tangents(nb, loc);
  Value seed = args[argNumber];
  tangents.setTangent(seed, tangents.constant(seed.getType(), 1.0));
  for (unsigned k = 0; k < accumulation.size(); ++k)
    if (accumulation[k] == Accumulation::MinMax)
      tangents.addMinMaxAccumulator(args[op.getNumDpsInputs() + k]);
  for (auto [c, o] : llvm::zip(cloned, body->without_terminator()))
    if (failed(tangents.differentiate(c))) {
      unsupported = &o;
      break;
    }
  Value contribution;
  unsigned numBound = body->getNumArguments();
  for (auto [idx, k] : llvm::enumerate(adjointResults)) {
    Value y = mapping.lookupOrDefault(body->getTerminator()->getOperand(k));
    Value t = unsupported ? Value() : tangents.getTangent(y);
    if (!t)
      continue;
    Value c = tangents.mul(args[numBound + idx], t);
    if (c.getType() != accType)
      c = accType.getIntOrFloatBitWidth() > c.getType().getIntOrFloatBitWidth()
              ? Value(arith::ExtFOp::create(nb, loc, accType, c))
              : Value(arith::TruncFOp::create(nb, loc, accType, c));
    contribution = tangents.add(contribution, c);
  }
  nonZero = static_cast<bool>(contribution);
  if (adjointResults.size() == 1 && contribution == args[numBound])
    copiedAdjoint = adjointResults[0];
  linalg::YieldOp::create(nb, loc, tangents.add(args.back(), contribution));
}

FailureOr<Value> AdjointBuilder::buildGeneric(OpOperand &operand) {
  Location loc = op.getLoc();
  Value target = operand.get();
  bool scalar = !isa<RankedTensorType>(target.getType());
  Type elem = getElementTypeOrSelf(target.getType());
  Value init = scalar ? buildZerosLike(b, loc,
                                       tensor::EmptyOp::create(
                                           b, loc, ArrayRef<int64_t>{}, elem))
                      : buildZerosLike(b, loc, target);
  llvm::SmallVector<Value> inputs;
  llvm::SmallVector<AffineMap> maps;
  for (OpOperand &o : op->getOpOperands()) {
    bool isInit = op.isDpsInit(&o);
    unsigned k = isInit ? op.getTiedOpResult(&o).getResultNumber() : 0;
    inputs.push_back(isInit && accumulation[k] == Accumulation::MinMax
                         ? op->getResult(k)
                         : o.get());
    maps.push_back(op.getMatchingIndexingMap(&o));
  }
  adjointResults.clear();
  for (auto [k, adj] : llvm::enumerate(resultAdjoints))
    if (adj) {
      adjointResults.push_back(k);
      inputs.push_back(adj);
      maps.push_back(op.getIndexingMapMatchingResult(op->getResult(k)));
    }
  AffineMap outMap = op.getMatchingIndexingMap(&operand);
  maps.push_back(outMap);
  llvm::SmallVector<utils::IteratorType> iterators;
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    iterators.push_back(outMap.isFunctionOfDim(d)
                            ? utils::IteratorType::parallel
                            : utils::IteratorType::reduction);
  nonZero = false;
  copiedAdjoint.reset();
  unsupported = nullptr;
  auto gen = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        buildBody(nb, l, args, operand.getOperandNumber(), elem);
      });
  if (unsupported) {
    gen.erase();
    return op->emitOpError()
           << "has no derivative rule for '" << unsupported->getName()
           << "' in its body (the gradient of operand #"
           << operand.getOperandNumber() << " is needed)";
  }
  if (!nonZero) {
    gen.erase();
    return Value();
  }
  // An elementwise copy of the result's adjoint (add, copy, the identity
  // part of a body): the adjoint itself.
  if (copiedAdjoint && op.getNumReductionLoops() == 0 &&
      outMap == maps[op->getNumOperands()] &&
      resultAdjoints[*copiedAdjoint].getType() == init.getType()) {
    gen.erase();
    Value adj = resultAdjoints[*copiedAdjoint];
    // A scalar operand of a 0-d op (a fill of a 0-d tensor): its element.
    if (scalar)
      return tensor::ExtractOp::create(b, loc, adj, ValueRange{}).getResult();
    return adj;
  }
  eraseDeadOps(gen.getRegion().front());
  gen = dropUnusedInputs(b, gen);
  if (!scalar)
    return gen.getResult(0);
  return tensor::ExtractOp::create(b, loc, gen.getResult(0), ValueRange{})
      .getResult();
}

template <typename OpTy>
struct StructuredOpGradientModel
    : public GradientOpInterface::ExternalModel<StructuredOpGradientModel<OpTy>,
                                                OpTy> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!linalgOp.hasPureTensorSemantics())
      return op->emitOpError() << "has no gradient rule on buffers";
    llvm::SmallVector<Accumulation> accumulation;
    for (auto [k, adj] : llvm::enumerate(resultAdjoints)) {
      accumulation.push_back(classify(linalgOp, k));
      if (adj && accumulation.back() == Accumulation::Unsupported)
        return op->emitOpError()
               << "has no gradient rule for result #" << k
               << ": its body accumulates over the reduction loops neither "
                  "as a sum nor as a max/min of the accumulator";
    }
    AdjointBuilder builder(linalgOp, b, resultAdjoints, accumulation);
    for (OpOperand &operand : op->getOpOperands()) {
      if (!needed[operand.getOperandNumber()]) {
        operandAdjoints.push_back(Value());
        continue;
      }
      FailureOr<Value> adj = builder.build(operand);
      if (failed(adj))
        return failure();
      operandAdjoints.push_back(*adj);
    }
    return success();
  }
};

/// `linalg.softmax` (y = softmax(x) along `dim`): dx = y * (dy - s), with
/// s = sum(dy * y) along `dim` broadcast back, as PyTorch's
/// `_softmax_backward_data`. Two generics: the reduction, then the product.
struct SoftmaxGradientModel
    : public GradientOpInterface::ExternalModel<SoftmaxGradientModel,
                                                linalg::SoftmaxOp> {
  LogicalResult
  buildOperandAdjoints(Operation *op, OpBuilder &b,
                       llvm::ArrayRef<Value> resultAdjoints,
                       llvm::ArrayRef<bool> needed,
                       llvm::SmallVectorImpl<Value> &operandAdjoints) const {
    auto softmax = cast<linalg::SoftmaxOp>(op);
    Value dy = resultAdjoints[0];
    operandAdjoints.assign(op->getNumOperands(), Value());
    if (!dy || !needed[0])
      return success();
    if (!softmax.hasPureTensorSemantics())
      return op->emitOpError() << "has no gradient rule on buffers";
    Location loc = op->getLoc();
    Value y = softmax.getResult()[0];
    auto type = cast<RankedTensorType>(y.getType());
    int64_t rank = type.getRank(), dim = softmax.getDimension();
    MLIRContext *ctx = b.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap reduced = id.dropResult(dim);
    llvm::SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(b, loc, softmax.getInput());
    sizes.erase(sizes.begin() + dim);
    Value sumInit = buildZerosLike(
        b, loc, tensor::EmptyOp::create(b, loc, sizes, type.getElementType()));
    llvm::SmallVector<utils::IteratorType> iterators(
        rank, utils::IteratorType::parallel);
    iterators[dim] = utils::IteratorType::reduction;
    Value s =
        linalg::GenericOp::create(
            b, loc, TypeRange{sumInit.getType()}, ValueRange{dy, y},
            ValueRange{sumInit}, llvm::ArrayRef<AffineMap>{id, id, reduced},
            iterators,
            [](OpBuilder &nb, Location l, ValueRange args) {
              Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
              linalg::YieldOp::create(
                  nb, l, ValueRange{arith::AddFOp::create(nb, l, args[2], p)});
            })
            .getResult(0);
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, y), type.getElementType());
    Value dx =
        linalg::GenericOp::create(
            b, loc, TypeRange{type}, ValueRange{y, dy, s}, ValueRange{init},
            llvm::ArrayRef<AffineMap>{id, id, reduced, id},
            llvm::SmallVector<utils::IteratorType>(
                rank, utils::IteratorType::parallel),
            [](OpBuilder &nb, Location l, ValueRange args) {
              Value d = arith::SubFOp::create(nb, l, args[1], args[2]);
              linalg::YieldOp::create(
                  nb, l, ValueRange{arith::MulFOp::create(nb, l, args[0], d)});
            })
            .getResult(0);
    operandAdjoints[0] = dx;
    return success();
  }
};

template <typename... OpTys> void attachAllStructured(MLIRContext *ctx) {
  (OpTys::template attachInterface<StructuredOpGradientModel<OpTys>>(*ctx),
   ...);
}

} // namespace

void mlir::dtensor::registerLinalgGradientExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachAllStructured<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
    linalg::SoftmaxOp::attachInterface<SoftmaxGradientModel>(*ctx);
  });
}
