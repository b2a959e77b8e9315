//===- ReverseFor.cpp - loop reversal of scf.for for dtensor-autodiff -----===//
//
// The forward loop is rebuilt to also store every iteration's iter_args
// in one stacked tensor per iter_arg (`tensor<N x T>` for a static tensor
// type T, `tensor<N x t>` for a scalar, N the trip count; written with
// `tensor.insert_slice`/`tensor.insert` at (iv - lb) / step). The reverse
// loop runs j = 0..N-1 over i = N-1-j: it reloads iteration i's iter_args,
// recomputes the body from them (a copy of the forward body), and sweeps
// the copy backwards seeded with the carried adjoints of the yielded
// values. It carries the adjoint of each float iter_arg (the adjoint of
// the previous iteration's yield) and the summed adjoint of each active
// value the body captures from above (the weights a loop body reads). The
// init of a float iter_arg gets the final carried adjoint.
//
//===----------------------------------------------------------------------===//

#include "ReverseSweep.h"

#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// The value of the index `v` when it is known before running: a constant
/// or the static size of a `tensor.dim` (the global view's shapes are
/// static, so a loop over a dim keeps static stacks).
std::optional<int64_t> knownIndex(Value v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  auto dim = v.getDefiningOp<tensor::DimOp>();
  std::optional<int64_t> d = dim ? dim.getConstantIndex() : std::nullopt;
  auto type = dim ? dyn_cast<RankedTensorType>(dim.getSource().getType())
                  : RankedTensorType();
  if (!d || !type || *d < 0 || *d >= type.getRank() || type.isDynamicDim(*d))
    return std::nullopt;
  return type.getDimSize(*d);
}

/// The trip count of `loop` (index), a constant when the bounds are known.
Value buildTripCount(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  std::optional<int64_t> lb = knownIndex(loop.getLowerBound()),
                         ub = knownIndex(loop.getUpperBound()),
                         step = knownIndex(loop.getStep());
  if (lb && ub && step && *step > 0)
    return arith::ConstantIndexOp::create(
        b, loc, *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0);
  Value diff =
      arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound());
  Value n = arith::CeilDivSIOp::create(b, loc, diff, loop.getStep());
  return arith::MaxSIOp::create(b, loc, n,
                                arith::ConstantIndexOp::create(b, loc, 0));
}

/// The stacked type of `type` for `n` iterations.
RankedTensorType stackType(Type type, std::optional<int64_t> n) {
  int64_t size = n ? *n : ShapedType::kDynamic;
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    llvm::SmallVector<int64_t> shape{size};
    llvm::append_range(shape, t.getShape());
    return RankedTensorType::get(shape, t.getElementType());
  }
  return RankedTensorType::get({size}, type);
}

/// The offsets, sizes and strides of iteration `i`'s slice of a stack of
/// `type` (rank-reduced along the stacked dim).
void sliceOf(OpBuilder &b, Value i, RankedTensorType type,
             llvm::SmallVectorImpl<OpFoldResult> &offsets,
             llvm::SmallVectorImpl<OpFoldResult> &sizes,
             llvm::SmallVectorImpl<OpFoldResult> &strides) {
  offsets.assign(type.getRank() + 1, b.getIndexAttr(0));
  offsets[0] = i;
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  strides.assign(type.getRank() + 1, b.getIndexAttr(1));
}

/// `stack` with `v` stored at iteration `i`.
Value storeIteration(OpBuilder &b, Location loc, Value stack, Value v,
                     Value i) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return tensor::InsertOp::create(b, loc, v, stack, ValueRange{i});
  llvm::SmallVector<OpFoldResult> offsets, sizes, strides;
  sliceOf(b, i, type, offsets, sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, v, stack, offsets, sizes,
                                       strides);
}

/// The value stored at iteration `i` of `stack`, of type `type`.
Value loadIteration(OpBuilder &b, Location loc, Value stack, Type type,
                    Value i) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return tensor::ExtractOp::create(b, loc, stack, ValueRange{i});
  llvm::SmallVector<OpFoldResult> offsets, sizes, strides;
  sliceOf(b, i, tensorType, offsets, sizes, strides);
  return tensor::ExtractSliceOp::create(b, loc, tensorType, stack, offsets,
                                        sizes, strides);
}

/// Rebuilds `loop` to also return the stack of each iter_arg; returns the
/// new loop and adds the ops it created in the body to `recording`.
scf::ForOp recordIterations(scf::ForOp loop, Value n,
                            llvm::SmallPtrSetImpl<Operation *> &recording) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  std::optional<int64_t> count = getConstantIntValue(n);
  llvm::SmallVector<Value> inits(loop.getInitArgs());
  for (Value v : loop.getRegionIterArgs()) {
    RankedTensorType type = stackType(v.getType(), count);
    inits.push_back(tensor::EmptyOp::create(
        b, loc, type, count ? ValueRange{} : ValueRange{n}));
  }
  auto rebuilt =
      scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                         loop.getStep(), inits);
  Block *body = rebuilt.getBody(), *old = loop.getBody();
  for (auto [from, to] : llvm::zip(old->getArguments(), body->getArguments()))
    from.replaceAllUsesWith(to);
  body->getOperations().splice(body->end(), old->getOperations());
  Operation *yield = body->getTerminator();
  OpBuilder yb(yield);
  auto track = [&](Value v) {
    recording.insert(v.getDefiningOp());
    return v;
  };
  Value i = track(arith::DivUIOp::create(
      yb, loc,
      track(arith::SubIOp::create(yb, loc, rebuilt.getInductionVar(),
                                  rebuilt.getLowerBound())),
      rebuilt.getStep()));
  unsigned numIter = loop.getNumRegionIterArgs();
  llvm::SmallVector<Value> stacks;
  for (unsigned k = 0; k < numIter; ++k)
    stacks.push_back(
        track(storeIteration(yb, loc, body->getArgument(1 + numIter + k),
                             rebuilt.getRegionIterArgs()[k], i)));
  yield->insertOperands(yield->getNumOperands(), stacks);
  loop->replaceAllUsesWith(rebuilt->getResults().take_front(numIter));
  loop.erase();
  return rebuilt;
}

} // namespace

LogicalResult ReverseSweep::reverseFor(scf::ForOp loop, OpBuilder &b,
                                       llvm::ArrayRef<Value> resultAdjoints) {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(loop.getRegion(), used);
  llvm::SmallVector<Value> captured;
  for (Value v : used)
    if (isActive(v) && isFloatLike(v.getType()))
      captured.push_back(v);
  if (captured.empty() &&
      llvm::none_of(loop.getInitArgs(), [&](Value v) { return isActive(v); }))
    return success();
  if (!loop.getInductionVar().getType().isIndex())
    return loop.emitOpError()
           << "has no gradient rule for an induction variable of type "
           << loop.getInductionVar().getType() << " (expected index)";
  for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (t ? !t.hasStaticShape() : !arg.getType().isIntOrIndexOrFloat())
      return loop.emitOpError()
             << "has no gradient rule for iter_arg #" << k << " of type "
             << arg.getType()
             << ": storing it per iteration needs a static tensor or a scalar";
  }
  Location loc = loop.getLoc();
  OpBuilder fb(loop);
  Value n = buildTripCount(fb, loop);
  llvm::SmallVector<Value> inits(loop.getInitArgs());
  llvm::SmallVector<Type> types(loop.getResultTypes());
  llvm::SmallPtrSet<Operation *, 8> recording;
  // The loop is replaced: forget its results (their storage is reused).
  for (Value r : loop.getResults()) {
    active.erase(r);
    adjoints.erase(r);
  }
  scf::ForOp forward = recordIterations(loop, n, recording);
  for (Value r : forward.getResults().take_front(types.size()))
    if (isFloatLike(r.getType()))
      active.insert(r);
  // Reverse loop's iter_args: float iter_args' adjoints, then captures'.
  llvm::SmallVector<unsigned> floats;
  llvm::SmallVector<Value> revInits;
  for (auto [k, t] : llvm::enumerate(types))
    if (isFloatLike(t)) {
      floats.push_back(k);
      Value r = forward.getResult(k);
      revInits.push_back(resultAdjoints[k] ? resultAdjoints[k]
                                           : buildZerosLike(b, loc, r));
    }
  for (Value c : captured)
    revInits.push_back(buildZerosLike(b, loc, c));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // The body is built once the loop exists (the sweep of the recomputed
  // body looks at the regions around it).
  auto rev = scf::ForOp::create(b, loc, zero, n, one, revInits);
  Block *revBody = rev.getBody();
  if (!revBody->empty() && revBody->back().hasTrait<OpTrait::IsTerminator>())
    revBody->back().erase();
  OpBuilder rb = OpBuilder::atBlockEnd(revBody);
  if (failed(buildReverseBody(rb, loc, forward, recording, n,
                              rev.getInductionVar(), rev.getRegionIterArgs(),
                              floats, captured)))
    return failure();
  for (auto [idx, k] : llvm::enumerate(floats))
    if (isActive(inits[k]))
      accumulate(b, inits[k], rev.getResult(idx));
  for (auto [idx, c] : llvm::enumerate(captured))
    accumulate(b, c, rev.getResult(floats.size() + idx));
  ++ctx.numRules;
  return success();
}

LogicalResult ReverseSweep::buildReverseBody(
    OpBuilder &rb, Location loc, scf::ForOp forward,
    const llvm::SmallPtrSetImpl<Operation *> &recording, Value n, Value j,
    ValueRange carried, llvm::ArrayRef<unsigned> floats,
    llvm::ArrayRef<Value> captured) {
  // Iteration i = n - 1 - j, at iv = lb + i * step.
  Value last = arith::SubIOp::create(
      rb, loc, n, arith::ConstantIndexOp::create(rb, loc, 1));
  Value i = arith::SubIOp::create(rb, loc, last, j);
  Value iv = arith::AddIOp::create(
      rb, loc, forward.getLowerBound(),
      arith::MulIOp::create(rb, loc, i, forward.getStep()));
  Block *body = forward.getBody();
  // The first half of the iter_args are the loop's, the second its stacks.
  unsigned numIter = forward.getNumRegionIterArgs() / 2;
  IRMapping mapping;
  mapping.map(forward.getInductionVar(), iv);
  llvm::SmallVector<Value> iterArgs;
  for (auto [k, arg] :
       llvm::enumerate(forward.getRegionIterArgs().take_front(numIter))) {
    iterArgs.push_back(loadIteration(rb, loc, forward.getResult(numIter + k),
                                     arg.getType(), i));
    mapping.map(arg, iterArgs.back());
  }
  llvm::SmallVector<Operation *> cloned;
  for (Operation &op : body->without_terminator())
    if (!recording.contains(&op))
      cloned.push_back(rb.clone(op, mapping));
  ReverseSweep inner(ctx, this);
  llvm::SmallVector<Value> roots;
  for (unsigned k : floats)
    roots.push_back(iterArgs[k]);
  inner.markActive(cloned, roots);
  Operation *yield = body->getTerminator();
  for (auto [idx, k] : llvm::enumerate(floats))
    inner.accumulate(rb, mapping.lookupOrDefault(yield->getOperand(k)),
                     carried[idx]);
  if (failed(inner.sweep(cloned, rb)))
    return failure();
  llvm::SmallVector<Value> next;
  for (unsigned k : floats) {
    Value adj = inner.lookup(iterArgs[k]);
    next.push_back(adj ? adj : buildZerosLike(rb, loc, iterArgs[k]));
  }
  for (auto [idx, c] : llvm::enumerate(captured)) {
    Value acc = carried[floats.size() + idx], adj = inner.lookup(c);
    next.push_back(adj ? buildAdjointSum(rb, loc, acc, adj) : acc);
  }
  scf::YieldOp::create(rb, loc, next);
  return success();
}
