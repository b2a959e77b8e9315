//===- BlockReductions.cpp - reductions as one thread block per output ----===//
//
// The loop path gives each thread one output element and a sequential loop
// over the reduced dims: for a reduction along the innermost (contiguous)
// dim, consecutive threads then read addresses a whole row apart. Here a
// block of threads shares one output: the threads stride over the row
// together (coalesced), and gpu.all_reduce combines their partials. The
// partials of f16/bf16 reductions are f32: nothing accumulates in 16 bits.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORGPUBLOCKREDUCTIONS
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// A reduction `out[p] = combine(g(inputs[p, r]), out[p])` along the
/// innermost loop.
struct ReductionPlan {
  linalg::GenericOp op;
  /// The body's combiner: one operand is the output block argument.
  Operation *combiner;
  /// The combiner's operand that is not the output block argument.
  Value reduced;
  TypedAttr neutral;
  SmallVector<unsigned> parallelDims, reductionDims;
  /// The `linalg.fill` of the output right before the op, if any: its value
  /// is then the init, and the fill goes away.
  linalg::FillOp fill;
};

/// The fill of `buffer` that `op` follows with no op that has memory effects
/// in between, if any.
linalg::FillOp precedingFill(Operation *op, Value buffer) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev))
      return fill.hasPureBufferSemantics() &&
                     fill.getDpsInits()[0] == buffer &&
                     fill.getDpsInputs()[0].getType() ==
                         getElementTypeOrSelf(buffer.getType())
                 ? fill
                 : linalg::FillOp();
    if (!isMemoryEffectFree(prev))
      return linalg::FillOp();
  }
  return linalg::FillOp();
}

/// Matches `op` as a block reduction (see the pass description).
FailureOr<ReductionPlan> matchBlockReduction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() == 0 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      llvm::is_contained(op.getStaticLoopRanges(), 0))
    return failure();
  ReductionPlan plan{op, nullptr, Value(), TypedAttr(), {}, {}, nullptr};
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray()))
    (it == utils::IteratorType::parallel ? plan.parallelDims : plan.reductionDims)
        .push_back(i);
  // The output is indexed by the parallel loops, each once.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != plan.parallelDims.size() ||
      llvm::any_of(plan.reductionDims, [&](unsigned d) {
        return outMap.isFunctionOfDim(d);
      }))
    return failure();
  BlockArgument acc = op.getRegionOutputArgs()[0];
  Type type = acc.getType();
  if (!type.isIntOrFloat() ||
      (type.getIntOrFloatBitWidth() != 32 && !type.isF16() && !type.isBF16()))
    return failure();
  SmallVector<Operation *> combiners;
  plan.reduced = matchReduction(op.getRegionOutputArgs(), 0, combiners);
  if (!plan.reduced || combiners.size() != 1 || !acc.hasOneUse())
    return failure();
  plan.combiner = combiners.front();
  // The body yields the combined value and uses it for nothing else.
  if (!plan.combiner->getResult(0).hasOneUse() ||
      !isa<linalg::YieldOp>(*plan.combiner->getResult(0).getUsers().begin()))
    return failure();
  std::optional<TypedAttr> neutral = arith::getNeutralElement(plan.combiner);
  if (!neutral || plan.combiner->getNumOperands() != 2)
    return failure();
  plan.neutral = *neutral;
  plan.fill = precedingFill(op, op.getDpsInits()[0]);
  return plan;
}

/// Builds the kernel (or its emulation) of one matched reduction.
class ReductionBuilder {
public:
  ReductionBuilder(RewriterBase &b, const ReductionPlan &plan,
                   int64_t maxThreads)
      : b(b), plan(plan), loc(op()->getLoc()) {
    auto op = cast<linalg::LinalgOp>(this->op().getOperation());
    for (Range r : op.createLoopRanges(b, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
    numOutputs = product(plan.parallelDims);
    numReduced = product(plan.reductionDims);
    int64_t threads = maxThreads;
    if (std::optional<int64_t> n = getConstantIntValue(numReduced))
      threads = std::min(threads, std::max<int64_t>(32, llvm::alignTo(*n, 32)));
    numThreads = index(threads);
    Type type = this->op().getRegionOutputArgs()[0].getType();
    accType = type.isF16() || type.isBF16() ? b.getF32Type() : type;
  }

  /// The kernel: one block per output, `numThreads` threads.
  void buildKernel();
  /// Host loops with the kernel's per-thread partials (testing).
  void buildEmulation();

  /// The fused kernel (or emulation) of `group`, whose first reduction is
  /// this builder's: one block per row, each reduction's all-reduced value
  /// kept for the later ops of the row, then the elementwise tail.
  void buildGroup(ArrayRef<const ReductionPlan *> group,
                  linalg::GenericOp tail, int64_t maxThreads, bool emulate);

private:
  /// Opens a launch of one block per output and `numThreads` threads (inside
  /// an `scf.if` on there being an output, unless the count is a positive
  /// constant) and sets the insertion point at the start of its body.
  gpu::LaunchOp beginLaunch();
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value product(ArrayRef<unsigned> dims) {
    Value p = index(1);
    for (unsigned d : dims)
      p = b.createOrFold<arith::MulIOp>(loc, p, sizes[d]);
    return p;
  }
  linalg::GenericOp op() const { return plan.op; }
  /// True if the partials are wider than the output (f32 for 16-bit).
  bool widened() const { return accType != plan.neutral.getType(); }
  /// The combiner's neutral element, of the partials' type.
  Value neutral() {
    if (!widened())
      return arith::ConstantOp::create(b, loc, plan.neutral);
    APFloat value = cast<FloatAttr>(plan.neutral).getValue();
    bool lost = false;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(accType, value));
  }
  /// `v` (of the output's type) as a partial.
  Value widen(Value v) {
    return widened() ? arith::ExtFOp::create(b, loc, accType, v).getResult()
                     : v;
  }

  /// Sets `ivs[d]` for the loops `dims` from their linearized index (the
  /// last dim varies fastest).
  void delinearize(Value linear, ArrayRef<unsigned> dims,
                   SmallVectorImpl<Value> &ivs) {
    for (unsigned d : llvm::reverse(dims)) {
      ivs[d] = b.createOrFold<arith::RemUIOp>(loc, linear, sizes[d]);
      linear = b.createOrFold<arith::DivUIOp>(loc, linear, sizes[d]);
    }
  }

  /// The indices of the operand read or written through `map` at `ivs`.
  SmallVector<Value> indices(AffineMap map, ArrayRef<Value> ivs) {
    SmallVector<Value> result;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(i))) {
        result.push_back(ivs[dim.getPosition()]);
        continue;
      }
      result.push_back(
          affine::AffineApplyOp::create(b, loc, map.getSubMap({i}), ivs));
    }
    return result;
  }

  /// The combiner applied to the partial `value` and the accumulator `acc`
  /// (both of the partials' type).
  Value combine(Value value, Value acc) {
    Operation *combiner = plan.combiner;
    SmallVector<Value> operands;
    for (Value operand : combiner->getOperands())
      operands.push_back(operand == plan.reduced ? value : acc);
    // The same op (and attributes, e.g. fastmath) on the partials' type.
    OperationState state(loc, combiner->getName().getIdentifier(), operands,
                         TypeRange{accType}, combiner->getAttrs());
    return b.create(state)->getResult(0);
  }

  /// The partial of the thread `tid`: from the neutral element, the body
  /// over the reduced elements tid, tid + numThreads, ...
  Value buildPartial(Value tid, SmallVector<Value> ivs);

  /// Clones the body of `op` but `skip` at the loop indices `ivs`: inputs
  /// loaded, or the row's value where `rowValues` has one for the buffer.
  void cloneBodyAt(linalg::GenericOp op, ArrayRef<Value> ivs,
                   IRMapping &mapping, Operation *skip = nullptr) {
    Block *body = op.getBlock();
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = body->getArgument(input->getOperandNumber());
      if (Value known = rowValues.lookup(input->get())) {
        mapping.map(arg, known);
      } else if (!isa<MemRefType>(input->get().getType())) {
        mapping.map(arg, input->get());
      } else {
        SmallVector<Value> at = indices(op.getMatchingIndexingMap(input), ivs);
        mapping.map(arg, memref::LoadOp::create(b, loc, input->get(), at));
      }
    }
    for (Operation &nested : body->without_terminator()) {
      if (auto indexOp = dyn_cast<linalg::IndexOp>(nested)) {
        mapping.map(indexOp.getResult(), ivs[indexOp.getDim()]);
        continue;
      }
      if (&nested != skip)
        b.clone(nested, mapping);
    }
  }

  /// The all-reduce of the threads' partials `partial` (kernel).
  Value allReduce(Value partial) {
    auto allReduce = gpu::AllReduceOp::create(b, loc, partial, /*op=*/nullptr,
                                              /*uniform=*/true);
    OpBuilder::InsertionGuard inner(b);
    Type type = partial.getType();
    Block *combiner =
        b.createBlock(&allReduce.getBody(), {}, {type, type}, {loc, loc});
    b.setInsertionPointToStart(combiner);
    gpu::YieldOp::create(
        b, loc, combine(combiner->getArgument(0), combiner->getArgument(1)));
    return allReduce.getResult();
  }

  /// The partials of `numThreads` threads combined in thread order
  /// (emulation).
  Value threadsInOrder(ArrayRef<Value> ivs) {
    auto threads = scf::ForOp::create(b, loc, index(0), numThreads, index(1),
                                      ValueRange{neutral()});
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(threads.getBody());
    Value partial =
        buildPartial(threads.getInductionVar(), llvm::to_vector(ivs));
    scf::YieldOp::create(b, loc,
                         combine(partial, threads.getRegionIterArg(0)));
    return threads.getResult(0);
  }

  /// The elementwise `tail` at row `ivs`, on the elements tid, tid + step,
  /// ... of the last loop.
  void buildTail(linalg::GenericOp tail, Value tid, Value step,
                 SmallVector<Value> ivs) {
    unsigned last = tail.getNumLoops() - 1;
    auto loop = scf::ForOp::create(b, loc, tid, sizes[last], step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    ivs[last] = loop.getInductionVar();
    IRMapping mapping;
    cloneBodyAt(tail, ivs, mapping);
    OpOperand *init = tail.getDpsInitOperand(0);
    Value result = mapping.lookupOrDefault(
        tail.getBlock()->getTerminator()->getOperand(0));
    memref::StoreOp::create(b, loc, result, init->get(),
                            indices(tail.getMatchingIndexingMap(init), ivs));
  }

  /// The row's value of the output: the reduction's result combined with the
  /// fill's value (fused groups always have the fill).
  Value rowValue(Value total) {
    Value result = combine(total, widen(linalg::FillOp(plan.fill).getDpsInputs()[0]));
    if (widened())
      result = arith::TruncFOp::create(b, loc, plan.neutral.getType(), result);
    return result;
  }

  /// Combines `total` into the output at the parallel loop indices `ivs`.
  void buildStore(Value total, ArrayRef<Value> ivs) {
    OpOperand *init = op().getDpsInitOperand(0);
    SmallVector<Value> at = indices(op().getMatchingIndexingMap(init), ivs);
    linalg::FillOp fill = plan.fill;
    Value old = fill ? fill.getDpsInputs()[0]
                     : memref::LoadOp::create(b, loc, init->get(), at);
    Value result = combine(total, widen(old));
    if (widened())
      result = arith::TruncFOp::create(b, loc, plan.neutral.getType(), result);
    memref::StoreOp::create(b, loc, result, init->get(), at);
  }

  RewriterBase &b;
  const ReductionPlan &plan;
  Location loc;
  SmallVector<Value> sizes;
  Value numOutputs, numReduced, numThreads;
  /// The type of the partials.
  Type accType;
  /// In a fused group: the buffers of the earlier reductions, and their
  /// value for the current row.
  DenseMap<Value, Value> rowValues;
};

Value ReductionBuilder::buildPartial(Value tid, SmallVector<Value> ivs) {
  linalg::GenericOp op = this->op();
  auto loop = scf::ForOp::create(b, loc, tid, numReduced, numThreads,
                                 ValueRange{neutral()});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  delinearize(loop.getInductionVar(), plan.reductionDims, ivs);
  // The body but its combiner (the accumulator's only use), which combines
  // in the partials' type.
  IRMapping mapping;
  cloneBodyAt(op, ivs, mapping, plan.combiner);
  Value value = widen(mapping.lookupOrDefault(plan.reduced));
  scf::YieldOp::create(b, loc, combine(value, loop.getRegionIterArg(0)));
  return loop.getResult(0);
}

gpu::LaunchOp ReductionBuilder::beginLaunch() {
  Value one = index(1);
  // A launch of no blocks is an error: uneven shards may have no rows.
  std::optional<int64_t> count = getConstantIntValue(numOutputs);
  if (!count || *count <= 0) {
    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                      numOutputs, index(0));
    auto ifAny = scf::IfOp::create(b, loc, any, /*withElse=*/false);
    b.setInsertionPointToStart(ifAny.thenBlock());
  }
  auto launch = gpu::LaunchOp::create(b, loc, numOutputs, one, one,
                                      numThreads, one, one);
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  return launch;
}

void ReductionBuilder::buildKernel() {
  OpBuilder::InsertionGuard guard(b);
  gpu::LaunchOp launch = beginLaunch();
  SmallVector<Value> ivs(sizes.size());
  delinearize(launch.getBlockIds().x, plan.parallelDims, ivs);
  Value total = allReduce(buildPartial(launch.getThreadIds().x, ivs));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      launch.getThreadIds().x, index(0));
  auto ifFirst = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  buildStore(total, ivs);
}

void ReductionBuilder::buildEmulation() {
  auto outputs = scf::ParallelOp::create(b, loc, ValueRange{index(0)},
                                         ValueRange{numOutputs},
                                         ValueRange{index(1)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(outputs.getBody());
  SmallVector<Value> ivs(sizes.size());
  delinearize(outputs.getInductionVars()[0], plan.parallelDims, ivs);
  buildStore(threadsInOrder(ivs), ivs);
}

void ReductionBuilder::buildGroup(ArrayRef<const ReductionPlan *> group,
                                  linalg::GenericOp tail, int64_t maxThreads,
                                  bool emulate) {
  OpBuilder::InsertionGuard guard(b);
  Value row, thread;
  if (emulate) {
    auto rows = scf::ParallelOp::create(b, loc, ValueRange{index(0)},
                                        ValueRange{numOutputs},
                                        ValueRange{index(1)});
    b.setInsertionPointToStart(rows.getBody());
    row = rows.getInductionVars()[0];
  } else {
    gpu::LaunchOp launch = beginLaunch();
    row = launch.getBlockIds().x;
    thread = launch.getThreadIds().x;
  }
  SmallVector<Value> ivs(sizes.size());
  delinearize(row, plan.parallelDims, ivs);
  Value first =
      emulate ? Value()
              : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                                      index(0))
                    .getResult();
  for (const ReductionPlan *member : group) {
    ReductionBuilder builder(b, *member, maxThreads);
    builder.rowValues = rowValues;
    Value total = emulate ? builder.threadsInOrder(ivs)
                          : builder.allReduce(builder.buildPartial(thread, ivs));
    Value value = builder.rowValue(total);
    OpOperand *init = linalg::GenericOp(member->op).getDpsInitOperand(0);
    SmallVector<Value> at =
        indices(linalg::GenericOp(member->op).getMatchingIndexingMap(init), ivs);
    if (emulate) {
      memref::StoreOp::create(b, loc, value, init->get(), at);
    } else {
      auto ifFirst = scf::IfOp::create(b, loc, first, /*withElse=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(ifFirst.thenBlock());
      memref::StoreOp::create(b, loc, value, init->get(), at);
    }
    rowValues[init->get()] = value;
  }
  if (tail)
    emulate ? buildTail(tail, index(0), index(1), ivs)
            : buildTail(tail, thread, numThreads, ivs);
}

/// A row-fusable reduction: a fill, one reduction loop (the innermost),
/// static loop ranges.
bool isFusable(const ReductionPlan &plan) {
  return plan.fill && plan.reductionDims.size() == 1 &&
         !ShapedType::isDynamicShape(
             linalg::GenericOp(plan.op).getStaticLoopRanges());
}

/// True if `op` may join the row group `group` (same loop ranges): each
/// input is an earlier member's output read at the row, or a buffer no
/// member writes; for the elementwise `tail`, all loops parallel and an
/// identity output map that the members read, if at all, at the same
/// element.
bool joinsGroup(linalg::GenericOp op, ArrayRef<const ReductionPlan *> group,
                bool tail) {
  linalg::GenericOp first = group.front()->op;
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getStaticLoopRanges() != first.getStaticLoopRanges())
    return false;
  DenseMap<Value, AffineMap> outputs;
  for (const ReductionPlan *member : group)
    outputs[linalg::GenericOp(member->op).getDpsInits()[0]] =
        linalg::GenericOp(member->op).getMatchingIndexingMap(linalg::GenericOp(member->op).getDpsInitOperand(0));
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto it = outputs.find(input->get());
    if (it != outputs.end() && it->second != op.getMatchingIndexingMap(input))
      return false;
  }
  if (!tail)
    return !outputs.contains(op.getDpsInits()[0]);
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (op.getNumParallelLoops() != op.getNumLoops() || !outMap.isIdentity() ||
      outputs.contains(op.getDpsInits()[0]))
    return false;
  for (const ReductionPlan *member : group)
    for (OpOperand *input : linalg::GenericOp(member->op).getDpsInputOperands())
      if (input->get() == op.getDpsInits()[0] &&
          linalg::GenericOp(member->op).getMatchingIndexingMap(input) != outMap)
        return false;
  return true;
}

/// The row group starting at `start`: the fusable reductions that follow it
/// over the same rows (with only their fills and ops without memory effects
/// in between) and the elementwise op after them, if any; `planOf` maps
/// each matched reduction to its plan.
std::pair<SmallVector<const ReductionPlan *>, linalg::GenericOp>
formGroup(const ReductionPlan &start,
          const DenseMap<Operation *, const ReductionPlan *> &planOf) {
  SmallVector<const ReductionPlan *> group{&start};
  if (!isFusable(start))
    return {group, nullptr};
  for (Operation *op = start.op->getNextNode(); op; op = op->getNextNode()) {
    if (isMemoryEffectFree(op))
      continue;
    const ReductionPlan *next = planOf.lookup(op);
    if (next && isFusable(*next) && joinsGroup(next->op, group, false)) {
      group.push_back(next);
      continue;
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      // The fill of the next member, if it joins.
      auto following = dyn_cast_or_null<linalg::GenericOp>(
          fill->getNextNode());
      const ReductionPlan *owner =
          following ? planOf.lookup(following) : nullptr;
      if (owner && owner->fill == fill)
        continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && !planOf.contains(op) && joinsGroup(generic, group, true))
      return {group, generic};
    break;
  }
  return {group, nullptr};
}

struct BlockReductionsPass
    : public dtensor::impl::DTensorGPUBlockReductionsBase<
          BlockReductionsPass> {
  using Base::Base;
  void runOnOperation() override;
};

void BlockReductionsPass::runOnOperation() {
  IRRewriter rewriter(&getContext());
  // Reductions written as linalg.reduce: the same op as a linalg.generic.
  SmallVector<linalg::ReduceOp> named;
  getOperation().walk([&](linalg::ReduceOp op) {
    if (op.hasPureBufferSemantics() && !op->getParentOfType<gpu::LaunchOp>())
      named.push_back(op);
  });
  for (linalg::ReduceOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  SmallVector<ReductionPlan> plans;
  getOperation().walk([&](linalg::GenericOp op) {
    if (op->getParentOfType<gpu::LaunchOp>())
      return;
    FailureOr<ReductionPlan> plan = matchBlockReduction(op);
    if (succeeded(plan))
      plans.push_back(*plan);
  });
  DenseMap<Operation *, const ReductionPlan *> planOf;
  for (const ReductionPlan &plan : plans)
    planOf[plan.op] = &plan;
  DenseSet<const ReductionPlan *> done;
  for (const ReductionPlan &plan : plans) {
    if (done.contains(&plan))
      continue;
    auto [group, tail] = fuseRows ? formGroup(plan, planOf)
                                  : std::make_pair(
                                        SmallVector<const ReductionPlan *>{
                                            &plan},
                                        linalg::GenericOp());
    rewriter.setInsertionPoint(plan.op);
    ReductionBuilder builder(rewriter, plan, blockSize);
    if (group.size() == 1 && !tail)
      emulate ? builder.buildEmulation() : builder.buildKernel();
    else
      builder.buildGroup(group, tail, blockSize, emulate);
    for (const ReductionPlan *member : group) {
      done.insert(member);
      rewriter.eraseOp(member->op);
      if (member->fill)
        rewriter.eraseOp(member->fill);
    }
    if (tail)
      rewriter.eraseOp(tail);
  }
}

} // namespace
