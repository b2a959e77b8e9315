//===- DDPTrainingStep.cpp - DDP buckets of a training step ---------------===//
//
// A training step (`@f_train_step`, `@f_grad`) is one function: its forward
// ops (those the loss depends on), the backward the autodiff appended, and
// the optimizer update. The buckets come from the forward alone, exactly as
// dtensor-ddp-split buckets the loss function `@f`. In the backward, the
// gradients of a bucket that the plan reduces (a `P(sum)` value read as `R`:
// DDP's all-reduce) are concatenated into one 1-D buffer right after the op
// producing the last of them, and that buffer is redistributed once; the
// partitioner then emits `dtensor.all_reduce_start` there and the wait
// before the first reader, so the all-reduce overlaps the rest of the
// backward. Nothing is outlined: the request of an asynchronous collective
// cannot cross a function boundary, and one body lets the partitioner place
// the waits; the op groups are named by `dtensor.segment` instead.
//
//===----------------------------------------------------------------------===//

#include "DDPTrainingStep.h"

#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/IR/Segment.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"
#include "dtensor/Support/Bucketing.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

constexpr int64_t kNoResult = -1;
constexpr int64_t kManyResults = -2;

/// One gradient that joins its bucket's flat all-reduce.
struct Member {
  unsigned param;
  /// The `P(sum)` gradient as the backward produces it.
  Value grad;
  /// The operands that read it reduced (replaced by the flat buffer's
  /// slice), and the explicit redistribution they came from, if any.
  llvm::SmallVector<OpOperand *, 2> readers;
  RedistributeOp explicitOp;
};

/// The splitter of one training step.
class TrainingStepSplitter {
public:
  TrainingStepSplitter(func::FuncOp func, const FunctionPlan &plan)
      : func(func), plan(plan), body(func.getBody().front()) {}

  llvm::SmallVector<TrainingStepBucket> run(int64_t capBytes,
                                            int64_t firstCapBytes);

private:
  /// Marks the top-level ops the loss (return operand 0) depends on.
  void markForward();
  /// Buckets the forward ops; fills `buckets` and `bucketOfParam`.
  void bucketForward(int64_t capBytes, int64_t firstCapBytes);
  /// For every top-level op, the only result position >= 1 of the return
  /// its values reach (kNoResult, or kManyResults when several).
  void computeReach();
  /// The gradients the plan reduces, by the bucket of their parameter.
  void collectMembers();
  /// Walks back from the reduced value `v` to the gradient it scales (SGD's
  /// `lr * g`): through single-use ops whose only non-created tensor operand
  /// has the placements of `v`.
  Value gradientRoot(Value v) const;
  /// Emits the flat all-reduce of bucket `b` right after its last gradient;
  /// returns its redistribution (where the bucket's backward segment ends),
  /// or null when the bucket reduces nothing.
  Operation *emitBucket(size_t b, TrainingStepBucket &report);
  /// Tags every top-level op with its segment.
  void tagSegments(llvm::ArrayRef<Operation *> cutOps,
                   llvm::ArrayRef<TrainingStepBucket> reports);

  size_t indexOf(Operation *op) const {
    return index.lookup(body.findAncestorOpInBlock(*op));
  }
  Operation *firstReader(const Member &m) const;
  const Placements &placementsOf(Value v) const {
    return plan.lookup(v)->placements;
  }

  func::FuncOp func;
  const FunctionPlan &plan;
  Block &body;
  llvm::SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, size_t> index;
  llvm::SmallVector<bool> forward;
  llvm::SmallVector<int64_t> reach;
  /// Forward node index -> op index.
  llvm::SmallVector<size_t> forwardOps;
  llvm::SmallVector<Bucket> buckets;
  llvm::DenseMap<unsigned, size_t> bucketOfParam;
  /// Return position k >= 1 -> the argument number of its parameter.
  llvm::SmallVector<unsigned> paramOfResult;
  llvm::SmallVector<llvm::SmallVector<Member>> members;
};

} // namespace

bool mlir::dtensor::isTrainingStep(func::FuncOp func) {
  if (func.isExternal() || func.getNumResults() < 2)
    return false;
  auto loss = dyn_cast<RankedTensorType>(func.getResultTypes()[0]);
  if (!loss || loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
    return false;
  unsigned params = 0;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    params += func.getArgAttr(i, DTensorDialect::kParamAttrName) != nullptr;
  return func.getNumResults() == 1 + params;
}

void TrainingStepSplitter::markForward() {
  for (Operation &op : body.without_terminator()) {
    index[&op] = ops.size();
    ops.push_back(&op);
  }
  forward.assign(ops.size(), false);
  llvm::SmallVector<Value> work{body.getTerminator()->getOperand(0)};
  auto visit = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body || forward[index.lookup(def)])
      return;
    forward[index.lookup(def)] = true;
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        work.push_back(operand);
    });
  };
  while (!work.empty())
    visit(work.pop_back_val());
}

void TrainingStepSplitter::bucketForward(int64_t capBytes,
                                         int64_t firstCapBytes) {
  llvm::DenseMap<size_t, size_t> nodeOf;
  for (size_t i = 0; i < ops.size(); ++i)
    if (forward[i]) {
      nodeOf[i] = forwardOps.size();
      forwardOps.push_back(i);
    }
  llvm::SmallVector<BucketNode> nodes(forwardOps.size());
  Operation *ret = body.getTerminator();
  for (auto [n, i] : llvm::enumerate(forwardOps)) {
    BucketNode &node = nodes[n];
    ops[i]->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        auto arg = dyn_cast<BlockArgument>(v);
        if (!arg || arg.getOwner() != &body)
          continue;
        unsigned id = arg.getArgNumber();
        if (!func.getArgAttr(id, DTensorDialect::kParamAttrName) ||
            func.getArgAttr(id, DTensorDialect::kDdpIgnoredAttrName) ||
            llvm::any_of(node.params,
                         [&](const BucketParam &p) { return p.id == id; }))
          continue;
        node.params.push_back(
            {id, getTensorByteSize(cast<RankedTensorType>(arg.getType()))});
      }
    });
    // Users as in the loss function alone: forward ops and the loss.
    for (OpOperand &use : ops[i]->getUses()) {
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      if (user == ret) {
        node.usedByOutput |= use.getOperandNumber() == 0;
        continue;
      }
      auto it = nodeOf.find(index.lookup(user));
      if (it != nodeOf.end())
        node.users.push_back(it->second);
    }
  }
  buckets = computeDDPBuckets(nodes, capBytes, firstCapBytes);
  for (auto [b, bucket] : llvm::enumerate(buckets))
    for (const BucketParam &p : bucket.params)
      bucketOfParam.try_emplace(p.id, b);
}

void TrainingStepSplitter::computeReach() {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, DTensorDialect::kParamAttrName))
      paramOfResult.push_back(i);
  reach.assign(ops.size(), kNoResult);
  auto combine = [](int64_t a, int64_t b) {
    return a == kNoResult ? b : b == kNoResult || a == b ? a : kManyResults;
  };
  Operation *ret = body.getTerminator();
  for (size_t i = ops.size(); i-- > 0;) {
    int64_t r = kNoResult;
    for (OpOperand &use : ops[i]->getUses()) {
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      unsigned pos = use.getOperandNumber();
      r = combine(r, user == ret ? (pos == 0 ? kManyResults : int64_t(pos))
                                 : reach[index.lookup(user)]);
    }
    reach[i] = r;
  }
}

Value TrainingStepSplitter::gradientRoot(Value v) const {
  Value cur = v;
  while (Operation *def = cur.getDefiningOp()) {
    if (def->getBlock() != &body || def->getNumResults() != 1)
      break;
    Value next;
    unsigned candidates = 0;
    // A function argument is the parameter SGD updates (`p - lr * g`): the
    // planner may reduce the update instead of the gradient (R -> P(sum) of
    // `p` is free), and the gradient is still the root.
    for (Value o : def->getOperands())
      if (isa<RankedTensorType>(o.getType()) && !isCreatedValue(o) &&
          !isa<BlockArgument>(o)) {
        next = o;
        ++candidates;
      }
    Operation *nextDef = next ? next.getDefiningOp() : nullptr;
    if (candidates != 1 || !nextDef || nextDef->getBlock() != &body ||
        forward[index.lookup(nextDef)] || !next.hasOneUse() ||
        !plan.lookup(next) || placementsOf(next) != placementsOf(v))
      break;
    cur = next;
  }
  return cur;
}

void TrainingStepSplitter::collectMembers() {
  members.resize(buckets.size());
  llvm::DenseSet<Value> seen;
  for (const Redistribution &r : plan.getRedistributions()) {
    Operation *def = r.value.getDefiningOp();
    if (!def || def->getBlock() != &body || forward[index.lookup(def)])
      continue;
    // DDP's all-reduce: P(sum) on some axes, R everywhere afterwards.
    const Placements &from = placementsOf(r.value);
    bool reduces = false, replicated = true;
    for (auto [p, q] : llvm::zip_equal(from, r.target)) {
      replicated &=
          q.isReplicate() && (p.isReplicate() || p == Placement::partial());
      reduces |= p.isPartial();
    }
    int64_t k = reach[index.lookup(def)];
    if (!reduces || !replicated || k < 1)
      continue;
    unsigned param = paramOfResult[k - 1];
    auto bucket = bucketOfParam.find(param);
    if (bucket == bucketOfParam.end())
      continue;
    Member m{param, gradientRoot(r.value), {}, r.op};
    if (!seen.insert(m.grad).second)
      continue;
    if (m.grad != r.value)
      m.readers.push_back(&*m.grad.getUses().begin());
    else if (r.op)
      for (OpOperand &use : r.op->getUses())
        m.readers.push_back(&use);
    else
      m.readers.append(r.users.begin(), r.users.end());
    if (!m.readers.empty())
      members[bucket->second].push_back(std::move(m));
  }
}

Operation *TrainingStepSplitter::firstReader(const Member &m) const {
  Operation *first = nullptr;
  for (OpOperand *o : m.readers) {
    Operation *top = body.findAncestorOpInBlock(*o->getOwner());
    if (!first || top->isBeforeInBlock(first))
      first = top;
  }
  return first;
}

Operation *TrainingStepSplitter::emitBucket(size_t b,
                                            TrainingStepBucket &report) {
  llvm::SmallVector<Member> &group = members[b];
  // Members of one element type and one set of reduced axes share a buffer:
  // keep the most common kind (in practice, all of them).
  auto kindOf = [&](const Member &m) {
    return std::make_pair(getElementTypeOrSelf(m.grad.getType()),
                          placementsOf(m.grad));
  };
  llvm::SmallVector<std::pair<std::pair<Type, Placements>, unsigned>> kinds;
  for (const Member &m : group) {
    auto k = kindOf(m);
    auto it = llvm::find_if(kinds, [&](auto &e) { return e.first == k; });
    if (it == kinds.end())
      kinds.push_back({k, 1});
    else
      ++it->second;
  }
  if (kinds.empty())
    return nullptr;
  auto kind =
      std::max_element(kinds.begin(), kinds.end(), [](auto &x, auto &y) {
        return x.second < y.second;
      })->first;
  llvm::erase_if(group, [&](const Member &m) { return kindOf(m) != kind; });
  // The buffer starts after the last gradient; a member read before that
  // keeps its own reduction.
  Operation *anchor = nullptr;
  for (bool changed = true; changed && !group.empty();) {
    anchor = group.front().grad.getDefiningOp();
    for (const Member &m : group)
      if (anchor->isBeforeInBlock(m.grad.getDefiningOp()))
        anchor = m.grad.getDefiningOp();
    size_t before = group.size();
    llvm::erase_if(group, [&](const Member &m) {
      return !anchor->isBeforeInBlock(firstReader(m));
    });
    changed = group.size() != before;
  }
  if (group.empty())
    return nullptr;
  llvm::sort(group, [](const Member &x, const Member &y) {
    return x.param < y.param;
  });

  OpBuilder builder(func.getContext());
  builder.setInsertionPointAfter(anchor);
  Location loc = anchor->getLoc();
  SmallVector<Value> flats;
  SmallVector<int64_t> sizes;
  for (const Member &m : group) {
    auto type = cast<RankedTensorType>(m.grad.getType());
    int64_t n = type.getNumElements();
    auto flatType = RankedTensorType::get({n}, type.getElementType());
    Value flat = m.grad;
    if (type.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(builder, loc, flatType, flat,
                                           ArrayRef<ReassociationIndices>{});
    else if (type.getRank() > 1)
      flat = tensor::CollapseShapeOp::create(
          builder, loc, flat,
          ArrayRef<ReassociationIndices>{
              llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))});
    flats.push_back(flat);
    sizes.push_back(n);
    report.reduced.push_back(m.param);
    report.reducedBytes += getTensorByteSize(type);
  }
  Value buffer =
      flats.size() == 1
          ? flats.front()
          : tensor::ConcatOp::create(builder, loc, 0, flats).getResult();
  Placements replicated(kind.second.size(), Placement::replicate());
  auto reduce = RedistributeOp::create(builder, loc, buffer,
                                       plan.getSpecAttr(replicated));
  Value reduced = reduce.getResult();

  int64_t offset = 0;
  for (auto [m, n] : llvm::zip_equal(group, sizes)) {
    builder.setInsertionPoint(firstReader(m));
    auto type = cast<RankedTensorType>(m.grad.getType());
    Value v = tensor::ExtractSliceOp::create(
        builder, loc, reduced,
        ArrayRef<OpFoldResult>{builder.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1)});
    offset += n;
    if (type.getRank() == 0)
      v = tensor::CollapseShapeOp::create(builder, loc, type, v,
                                          ArrayRef<ReassociationIndices>{});
    else if (type.getRank() > 1)
      v = tensor::ExpandShapeOp::create(
          builder, loc, type, v,
          ArrayRef<ReassociationIndices>{
              llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))});
    for (OpOperand *o : m.readers)
      o->set(v);
    if (m.explicitOp && m.explicitOp->use_empty()) {
      // Forget it first: a later op may reuse its address.
      index.erase(m.explicitOp);
      m.explicitOp->erase();
    }
  }
  return reduce;
}

void TrainingStepSplitter::tagSegments(
    llvm::ArrayRef<Operation *> cutOps,
    llvm::ArrayRef<TrainingStepBucket> reports) {
  MLIRContext *ctx = func.getContext();
  llvm::SmallVector<size_t> bucketOfOp(ops.size(), 0);
  for (auto [b, bucket] : llvm::enumerate(buckets))
    for (size_t n = bucket.begin; n < bucket.end; ++n)
      bucketOfOp[forwardOps[n]] = b;
  // Backward segments end with their bucket's all-reduce, in program order.
  llvm::SmallVector<std::pair<Operation *, size_t>> cuts;
  for (auto [b, cut] : llvm::enumerate(cutOps))
    if (cut)
      cuts.push_back({cut, b});
  llvm::sort(
      cuts, [](auto &x, auto &y) { return x.first->isBeforeInBlock(y.first); });
  std::string update = (func.getName() + "_update").str();
  size_t next = 0;
  for (Operation &op : body.without_terminator()) {
    auto it = index.find(&op);
    std::string name;
    if (it != index.end() && forward[it->second])
      name = reports[bucketOfOp[it->second]].forwardSegment;
    else if (next < cuts.size())
      name = reports[cuts[next].second].backwardSegment;
    else
      name = update;
    op.setAttr(kSegmentAttrName, StringAttr::get(ctx, name));
    if (next < cuts.size() && &op == cuts[next].first)
      ++next;
  }
}

llvm::SmallVector<TrainingStepBucket>
TrainingStepSplitter::run(int64_t capBytes, int64_t firstCapBytes) {
  markForward();
  bucketForward(capBytes, firstCapBytes);
  computeReach();
  collectMembers();
  llvm::SmallVector<TrainingStepBucket> reports(buckets.size());
  llvm::SmallVector<Operation *> cuts(buckets.size());
  for (auto [b, bucket] : llvm::enumerate(buckets)) {
    TrainingStepBucket &r = reports[b];
    r.forwardSegment = (func.getName() + "_fwd_" + Twine(b)).str();
    r.backwardSegment = (func.getName() + "_bwd_" + Twine(b)).str();
    r.bytes = bucket.bytes;
    r.ops = bucket.size();
    for (const BucketParam &p : bucket.params)
      r.params.push_back(p.id);
    cuts[b] = emitBucket(b, r);
  }
  tagSegments(cuts, reports);
  return reports;
}

llvm::SmallVector<TrainingStepBucket>
mlir::dtensor::splitTrainingStep(func::FuncOp func, const FunctionPlan &plan,
                                 int64_t capBytes, int64_t firstCapBytes) {
  return TrainingStepSplitter(func, plan).run(capBytes, firstCapBytes);
}
