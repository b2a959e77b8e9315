//===- MemoryLiveness.cpp - per-rank peak memory of a plan ----------------===//

#include "dtensor/Dialect/DTensor/Analysis/MemoryLiveness.h"

#include "dtensor/Support/MemoryPeak.h"
#include "dtensor/Support/ShardingMath.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::dtensor;

int64_t MemoryPeak::getWorstRank() const {
  int64_t worst = 0;
  for (auto [r, b] : llvm::enumerate(bytes))
    if (b > bytes[worst])
      worst = static_cast<int64_t>(r);
  return worst;
}

FailureOr<int64_t> mlir::dtensor::parseMaxBytesPerRank(Operation *op,
                                                       llvm::StringRef text) {
  if (text.empty())
    return int64_t(0);
  int64_t bytes = 0;
  std::string error;
  if (!parseByteSize(text, bytes, error))
    return op->emitError() << "max-bytes-per-rank: " << error;
  return bytes;
}

namespace {
/// Positions: op `i` in pre-order runs at `i * kSlots`; the redistributions
/// after it take the slots between.
constexpr int64_t kSlots = int64_t(1) << 20;

/// Builds the live intervals of one function.
class LivenessBuilder {
public:
  LivenessBuilder(FunctionOpInterface func, const FunctionPlan &plan)
      : func(func), plan(plan) {}

  MemoryPeak run();

private:
  void numberOps();
  /// Where `v` is made: after its op (and its regions), or where its block's
  /// op starts (0 for a function argument).
  int64_t defPosition(Value v) const;
  /// Where `use` reads its value: the end of the outermost loop around the
  /// reader that does not hold the value's definition, else the end of the
  /// reader.
  int64_t usePosition(OpOperand &use) const;
  void add(int64_t start, int64_t end, llvm::SmallVector<int64_t> bytes,
           PeakBuffer what);
  /// The copies of the created operands a copy built in place reads.
  void addCreatedOperands(const Redistribution &r, int64_t at);
  /// Values `materializePlan` erases: every reader takes a copy built in
  /// place (`created`) or is itself erased.
  llvm::DenseSet<Value>
  findErasedCreated(const llvm::DenseSet<OpOperand *> &created) const;
  /// `slotsUsed` counts the redistributions placed after each position
  /// (they run one after the other there).
  void addRedistribution(const Redistribution &r,
                         llvm::DenseMap<int64_t, int64_t> &slotsUsed,
                         llvm::DenseMap<Value, int64_t> &sourceEnd);

  mutable FunctionOpInterface func;
  const FunctionPlan &plan;
  llvm::DenseMap<Operation *, int64_t> order, endOrder;
  llvm::SmallVector<LiveInterval> intervals;
  llvm::SmallVector<PeakBuffer> buffers;
};
} // namespace

void LivenessBuilder::numberOps() {
  int64_t counter = 0;
  func.getFunctionBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { order[op] = ++counter; });
  func.getFunctionBody().walk<WalkOrder::PostOrder>([&](Operation *op) {
    int64_t end = order[op];
    for (Region &region : op->getRegions())
      for (Operation &inner : region.getOps())
        end = std::max(end, endOrder[&inner]);
    endOrder[op] = end;
  });
}

int64_t LivenessBuilder::defPosition(Value v) const {
  if (Operation *def = v.getDefiningOp())
    return endOrder.lookup(def) * kSlots;
  Operation *parent = cast<BlockArgument>(v).getOwner()->getParentOp();
  return parent == func.getOperation() ? 0 : order.lookup(parent) * kSlots;
}

int64_t LivenessBuilder::usePosition(OpOperand &use) const {
  Region *defRegion = use.get().getParentRegion();
  Operation *cur = use.getOwner();
  // An op reads its operands until it ends (its regions included).
  int64_t pos = endOrder.lookup(cur) * kSlots;
  while (cur && cur->getParentRegion() != defRegion) {
    Operation *parent = cur->getParentOp();
    if (!parent || parent == func.getOperation())
      break;
    if (isa<LoopLikeOpInterface>(parent))
      pos = std::max(pos, endOrder.lookup(parent) * kSlots);
    cur = parent;
  }
  return pos;
}

void LivenessBuilder::add(int64_t start, int64_t end,
                          llvm::SmallVector<int64_t> bytes, PeakBuffer what) {
  intervals.push_back(LiveInterval{start, std::max(start, end), std::move(bytes)});
  buffers.push_back(std::move(what));
}

void LivenessBuilder::addRedistribution(
    const Redistribution &r, llvm::DenseMap<int64_t, int64_t> &slotsUsed,
    llvm::DenseMap<Value, int64_t> &sourceEnd) {
  const FakeTensor *t = plan.lookup(r.value);
  if (!t)
    return;
  llvm::ArrayRef<int64_t> mesh = plan.getMeshShape();
  llvm::SmallVector<int64_t> result = computeAllLocalBytes(
      t->type.getShape(), getElementByteSize(t->type.getElementType()), mesh,
      r.target);
  // An explicit op runs where it is; a required one right after the value.
  int64_t def = defPosition(r.value);
  int64_t at = r.op ? order.lookup(r.op) * kSlots : def + 1 + slotsUsed[def]++;
  sourceEnd[r.value] = std::max(sourceEnd.lookup(r.value), at);
  if (!r.op) {
    int64_t end = at;
    for (OpOperand *user : r.users)
      end = std::max(end, usePosition(*user));
    add(at, end, result, PeakBuffer{r.value, BufferKind::Redistributed});
  }
  if (canCreateIn(r.value, r.target)) {
    addCreatedOperands(r, at);
    return;
  }
  if (!r.planned)
    return;
  llvm::SmallVector<int64_t> temps = computeRedistributionBuffers(
      t->type.getShape(), getElementByteSize(t->type.getElementType()), mesh,
      r.steps);
  std::string steps;
  for (const RedistributeStep &s : r.steps)
    if (isCollective(s.kind))
      steps += (steps.empty() ? "" : "+") + stringifyStepKind(s.kind).str();
  for (auto [tb, rb] : llvm::zip_equal(temps, result))
    tb = std::max<int64_t>(0, tb - rb);
  if (llvm::any_of(temps, [](int64_t b) { return b > 0; }))
    add(at, at, std::move(temps),
        PeakBuffer{r.value, BufferKind::Temporaries, steps});
}

void LivenessBuilder::addCreatedOperands(const Redistribution &r, int64_t at) {
  // A copy built in place recreates its op on copies of the created values
  // it reads (the empty of a fill), each a buffer until the copy is made.
  Operation *def = r.value.getDefiningOp();
  if (!def)
    return;
  llvm::SmallVector<int64_t> bytes(plan.getNumRanks(), 0);
  for (Value operand : def->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !operand.getDefiningOp() || type != r.value.getType())
      continue;
    llvm::SmallVector<int64_t> b = computeAllLocalBytes(
        type.getShape(), getElementByteSize(type.getElementType()),
        plan.getMeshShape(), r.target);
    for (auto [sum, x] : llvm::zip_equal(bytes, b))
      sum += x;
  }
  if (llvm::any_of(bytes, [](int64_t b) { return b > 0; }))
    add(at, at, std::move(bytes),
        PeakBuffer{r.value, BufferKind::Temporaries, "copy"});
}

llvm::DenseSet<Value> LivenessBuilder::findErasedCreated(
    const llvm::DenseSet<OpOperand *> &created) const {
  // Program order reversed: every reader of a value comes after it.
  llvm::DenseSet<Value> erased;
  auto isErased = [&](Operation *op) {
    return op->getNumResults() > 0 &&
           llvm::all_of(op->getResults(),
                        [&](Value r) { return erased.contains(r); });
  };
  for (Value v : llvm::reverse(plan.getValues())) {
    if (!v.getDefiningOp() || v.use_empty())
      continue;
    if (llvm::all_of(v.getUses(), [&](OpOperand &use) {
          return created.contains(&use) || isErased(use.getOwner());
        }))
      erased.insert(v);
  }
  return erased;
}

MemoryPeak LivenessBuilder::run() {
  numberOps();
  int64_t numRanks = plan.getNumRanks();
  // Operands reading a redistributed copy, and where each source is last
  // needed by its redistributions.
  llvm::DenseSet<OpOperand *> redirected, created;
  llvm::DenseMap<int64_t, int64_t> slotsUsed;
  llvm::DenseMap<Value, int64_t> sourceEnd;
  for (const Redistribution &r : plan.getRedistributions()) {
    redirected.insert(r.users.begin(), r.users.end());
    if (!r.op && canCreateIn(r.value, r.target))
      created.insert(r.users.begin(), r.users.end());
    addRedistribution(r, slotsUsed, sourceEnd);
  }
  llvm::DenseSet<Value> erased = findErasedCreated(created);
  for (Value v : plan.getValues()) {
    if (erased.contains(v))
      continue;
    int64_t start = defPosition(v);
    int64_t end = std::max(start, sourceEnd.lookup(v));
    for (OpOperand &use : v.getUses())
      if (!redirected.contains(&use))
        end = std::max(end, usePosition(use));
    add(start, end, plan.getLocalBytes(v), PeakBuffer{v, BufferKind::Value});
  }
  MemoryPeak peak;
  llvm::SmallVector<RankPeak> peaks = computeLivePeaks(intervals, numRanks);
  for (auto [r, p] : llvm::enumerate(peaks)) {
    peak.bytes.push_back(p.bytes);
    PeakBuffer b;
    if (p.largest >= 0) {
      b = buffers[p.largest];
      b.bytes = intervals[p.largest].bytes[r];
    }
    peak.largest.push_back(std::move(b));
  }
  int64_t worst = peak.getWorstRank();
  int64_t at = peaks[worst].position;
  for (auto [iv, b] : llvm::zip_equal(intervals, buffers))
    if (iv.start <= at && at <= iv.end && iv.bytes[worst] > 0) {
      peak.liveAtWorst.push_back(b);
      peak.liveAtWorst.back().bytes = iv.bytes[worst];
    }
  llvm::stable_sort(peak.liveAtWorst,
                    [](const PeakBuffer &a, const PeakBuffer &b) {
                      return a.bytes > b.bytes;
                    });
  return peak;
}

MemoryPeak mlir::dtensor::computeMemoryPeak(FunctionOpInterface func,
                                            const FunctionPlan &plan) {
  return LivenessBuilder(func, plan).run();
}
