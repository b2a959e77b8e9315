//===- FakeTensorAnalysis.cpp - metadata-only sharding analysis -----------===//

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Analysis/RuleEquivalence.h"
#include "dtensor/Dialect/DTensor/Analysis/ExecutionCount.h"
#include "dtensor/Dialect/DTensor/Analysis/GlobalPlanner.h"
#include "dtensor/Dialect/DTensor/Analysis/MemoryBudget.h"
#include "dtensor/Dialect/DTensor/Analysis/MemoryLiveness.h"
#include "dtensor/Dialect/DTensor/Analysis/RegionEdges.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"
#include "dtensor/Support/CostModel.h"
#include "dtensor/Support/ShardingMath.h"

#include <cmath>
#include <deque>
#include <optional>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ThreadPool.h"

using namespace mlir;
using namespace mlir::dtensor;

int64_t mlir::dtensor::getElementByteSize(Type type) {
  if (type.isIndex())
    return 8;
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * getElementByteSize(complex.getElementType());
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
  return 8;
}

int64_t mlir::dtensor::getTensorByteSize(RankedTensorType type) {
  return type.getNumElements() * getElementByteSize(type.getElementType());
}

//===----------------------------------------------------------------------===//
// FunctionPlan
//===----------------------------------------------------------------------===//

int64_t FunctionPlan::getNumRanks() const { return meshNumDevices(meshShape); }

const FakeTensor *FunctionPlan::lookup(Value v) const {
  auto it = tensors.find(v);
  return it == tensors.end() ? nullptr : &it->second;
}

llvm::SmallVector<llvm::SmallVector<int64_t, 4>>
FunctionPlan::getLocalShapes(Value v) const {
  const FakeTensor *t = lookup(v);
  assert(t && "not a tensor of this function");
  return computeAllLocalShapes(t->type.getShape(), meshShape, t->placements);
}

llvm::SmallVector<int64_t> FunctionPlan::getLocalBytes(Value v) const {
  const FakeTensor *t = lookup(v);
  assert(t && "not a tensor of this function");
  return computeAllLocalBytes(t->type.getShape(),
                              getElementByteSize(t->type.getElementType()),
                              meshShape, t->placements);
}

const Placements *FunctionPlan::getRequiredPlacements(OpOperand &o) const {
  auto it = required.find(&o);
  return it == required.end() ? nullptr : &it->second;
}

bool FunctionPlan::planSteps(const Redistribution &r,
                             llvm::SmallVectorImpl<RedistributeStep> &steps,
                             std::string &error) const {
  if (!r.planned) {
    error = r.planError;
    return false;
  }
  steps.assign(r.steps.begin(), r.steps.end());
  return true;
}

namespace {
/// A redistribution's inputs to the step planner: the steps depend on
/// nothing else, and a long program repeats the same few.
struct StepsKey {
  Placements from, to;
  int64_t bytes = 0, rank = 0;
  bool required = false;
};

/// A `StepsKey` to look up without copying its placements.
struct StepsRef {
  llvm::ArrayRef<Placement> from, to;
  int64_t bytes, rank;
  bool required;

  /// The key to store, with its own placements.
  StepsKey key() const {
    return StepsKey{Placements(from), Placements(to), bytes, rank, required};
  }
};

struct StepsKeyInfo {
  static StepsKey getEmptyKey() {
    StepsKey k;
    k.bytes = -1;
    return k;
  }
  static StepsKey getTombstoneKey() {
    StepsKey k;
    k.bytes = -2;
    return k;
  }
  static unsigned getHashValue(const StepsRef &k) {
    return llvm::hash_combine(
        llvm::hash_combine_range(k.from.begin(), k.from.end()),
        llvm::hash_combine_range(k.to.begin(), k.to.end()), k.bytes, k.rank,
        k.required);
  }
  static unsigned getHashValue(const StepsKey &k) {
    return getHashValue(StepsRef{k.from, k.to, k.bytes, k.rank, k.required});
  }
  static bool isEqual(const StepsRef &a, const StepsKey &b) {
    return a.bytes == b.bytes && a.rank == b.rank && a.required == b.required &&
           llvm::equal(a.from, b.from) && llvm::equal(a.to, b.to);
  }
  static bool isEqual(const StepsKey &a, const StepsKey &b) {
    return a.bytes == b.bytes && a.rank == b.rank && a.required == b.required &&
           a.from == b.from && a.to == b.to;
  }
};

/// What `planRedistributions` fills in a redistribution.
struct PlannedSteps {
  llvm::SmallVector<RedistributeStep, 0> steps;
  bool planned = false;
  std::string planError;
  std::optional<Placements> through;
};
} // namespace

/// Plans the steps of the redistributions `k` stands for: PyTorch's greedy
/// steps, or with `minCost` the cheapest under the cost model.
static void planKeySteps(const StepsKey &k, llvm::ArrayRef<int64_t> meshShape,
                         bool minCost, PlannedSteps &p) {
  auto planOne =
      [&](llvm::ArrayRef<Placement> from, llvm::ArrayRef<Placement> to,
          llvm::SmallVectorImpl<RedistributeStep> &steps, std::string &error) {
        if (minCost)
          return planRedistributeMinCost(from, to, meshShape, k.bytes, k.rank,
                                         steps, error);
        return planRedistribute(from, to, steps, error);
      };
  // A redistribution the compiler requires that has no direct plan goes
  // through R (P(max) -> R -> P(sum)): never an infeasible step.
  std::optional<Placements> mid;
  if (k.required)
    mid = getReplicatedIntermediate(k.from, k.to);
  if (!mid) {
    p.planned = planOne(k.from, k.to, p.steps, p.planError);
    return;
  }
  p.through = mid;
  llvm::SmallVector<RedistributeStep> second;
  p.planned = planOne(k.from, *mid, p.steps, p.planError) &&
              planOne(*mid, k.to, second, p.planError);
  p.steps.append(second.begin(), second.end());
}

/// The key of `r`, whose value has the metadata `t`.
static StepsRef getStepsRef(const Redistribution &r, const FakeTensor &t) {
  return StepsRef{t.placements, r.target, getTensorByteSize(t.type),
                  t.type.getRank(), !r.op};
}

void FunctionPlan::planRedistributions(bool minCost) {
  // The only call of the planner: partitioning and the report read the
  // steps from here.
  stridedCost = minCost ? StridedCost::Collective : StridedCost::PyTorch;
  llvm::DenseMap<StepsKey, PlannedSteps, StepsKeyInfo> memo;
  for (Redistribution &r : redistributions) {
    StepsRef ref = getStepsRef(r, *lookup(r.value));
    auto it = memo.find_as(ref);
    if (it == memo.end()) {
      it = memo.try_emplace(ref.key()).first;
      planKeySteps(it->first, meshShape, minCost, it->second);
    }
    const PlannedSteps &p = it->second;
    r.steps.assign(p.steps.begin(), p.steps.end());
    r.planned = p.planned;
    r.planError = p.planError;
    r.through = p.through;
  }
}

double FunctionPlan::getCost(const Redistribution &r) const {
  const FakeTensor *t = lookup(r.value);
  int64_t bytes = getTensorByteSize(t->type);
  // What runs is what is paid: the name of a step (all_to_all, or
  // all_gather + local chunk) and its price always agree.
  if (r.planned)
    return planCost(r.steps, meshShape, bytes, stridedCost);
  return redistributeCost(bytes, meshShape, t->placements, r.target,
                          stridedCost);
}

/// The block a redistribution runs in: materialisation puts a required one
/// right after the value's definition (or at the start of its block); an
/// explicit one runs where it is.
static Block *getRedistributionBlock(const Redistribution &r) {
  Value value = r.value;
  RedistributeOp op = r.op;
  return op ? op->getBlock() : value.getParentBlock();
}

/// The cost of `region` from the cost of what runs directly in each block:
/// loops times their counted trip count, the dearest region of a branch.
static double
foldRegionCost(Region &region, const llvm::DenseMap<Block *, double> &direct) {
  double total = 0;
  for (Block &block : region) {
    total += direct.lookup(&block);
    for (Operation &op : block) {
      if (op.getNumRegions() == 0)
        continue;
      ScopeKind kind = getScopeKind(&op);
      double inner = 0;
      for (Region &r : op.getRegions()) {
        double c = foldRegionCost(r, direct);
        inner = kind == ScopeKind::Branch ? std::max(inner, c) : inner + c;
      }
      if (kind == ScopeKind::Loop)
        inner *= static_cast<double>(getCountedTripCount(&op));
      total += inner;
    }
  }
  return total;
}

double FunctionPlan::computeCommCost() const {
  return sumCommCost([&](const Redistribution &r) { return getCost(r); });
}

double FunctionPlan::computeMinCostCommCost() const {
  // Each distinct redistribution is planned and priced once; the sum is
  // the one `computeCommCost` makes after `planRedistributions(true)`.
  llvm::DenseMap<StepsKey, double, StepsKeyInfo> memo;
  return sumCommCost([&](const Redistribution &r) {
    const FakeTensor *t = lookup(r.value);
    StepsRef ref = getStepsRef(r, *t);
    auto it = memo.find_as(ref);
    if (it != memo.end())
      return it->second;
    StepsKey key = ref.key();
    PlannedSteps p;
    planKeySteps(key, meshShape, /*minCost=*/true, p);
    double cost =
        p.planned
            ? planCost(p.steps, meshShape, ref.bytes, StridedCost::Collective)
            : redistributeCost(ref.bytes, meshShape, t->placements, r.target,
                               StridedCost::Collective);
    return memo.try_emplace(std::move(key), cost).first->second;
  });
}

double FunctionPlan::sumCommCost(
    llvm::function_ref<double(const Redistribution &)> costOf) const {
  llvm::DenseMap<Block *, double> direct;
  Block *entry = nullptr;
  bool nested = false;
  for (const Redistribution &r : redistributions) {
    Block *block = getRedistributionBlock(r);
    direct[block] += costOf(r);
    if (!entry) {
      Operation *owner = block->getParentOp();
      auto func = isa<FunctionOpInterface>(owner)
                      ? cast<FunctionOpInterface>(owner)
                      : owner->getParentOfType<FunctionOpInterface>();
      entry = &func.getFunctionBody().front();
    }
    nested |= block != entry;
  }
  if (!nested)
    return entry ? direct.lookup(entry) : 0.0;
  return foldRegionCost(*entry->getParent(), direct);
}

SpecAttr FunctionPlan::getSpecAttr(llvm::ArrayRef<Placement> ps) const {
  MeshOp m = mesh;
  if (!m)
    return {};
  return SpecAttr::get(m.getContext(),
                       FlatSymbolRefAttr::get(m.getSymNameAttr()), ps);
}

//===----------------------------------------------------------------------===//
// FunctionPropagator
//===----------------------------------------------------------------------===//


namespace mlir {
namespace dtensor {

/// An op making a created value, with what the propagations of its
/// function have found out about it so far.
struct CreatedOp {
  Operation *op;
  /// Its rule class (`PropagationMemo::getRuleClasses`), -1 until asked
  /// for.
  int cls = -1;
  /// Whether its value is zeros or undefined (`isZeroOrUndef`), -1 until
  /// asked for.
  int8_t zeroOrUndef = -1;
};

/// What the first propagation of a function chose for each op with a
/// sharding rule, and the operand placements it chose from. A replay under
/// forced strategies (the global plans) reuses the choice of an op it does
/// not force whose operands arrive in the same placements: the rule, the
/// pins and the choice rule would give the same candidate again.
class PropagationMemo {
public:
  /// Starts grouping the ops of `func` by rule (`RuleClasses`) on another
  /// thread where the context has one.
  explicit PropagationMemo(FunctionOpInterface func);

  struct Choice {
    /// The operand placements (ops making created values read few tensors).
    llvm::SmallVector<Placements, 2> current;
    const ShardingCandidate *candidate;
  };
  /// Recorded for the ops the planner never forces (those making created
  /// values): the others are forced in every replay.
  std::vector<Choice> choices;
  llvm::DenseMap<Operation *, unsigned> choiceOf;
  /// The mesh the first propagation resolved (a replay has the same).
  MeshOp mesh;
  llvm::SmallVector<int64_t, 4> meshShape;
  /// The ops making created values, in walk order.
  std::vector<CreatedOp> createdOps;
  /// The candidate making a created value in each placement asked for so
  /// far, null if the rule cannot make it there: one list per rule class,
  /// since a long program's layers create the same few values. Every
  /// propagation adds to it.
  using Creations =
      llvm::SmallVector<std::pair<Placements, const ShardingCandidate *>, 2>;
  /// The list of `c`'s class; null for an op without a rule class (none
  /// makes a created tensor: a rule makes it created).
  Creations *getCreations(CreatedOp &c);
  /// The rule classes of the function's ops (waits for them if they are
  /// being built). The global planner reads them too.
  const RuleClasses &getRuleClasses();
  /// The sizes of the first propagation's maps.
  size_t numTensors = 0, numRequired = 0;
  /// False once the first propagation is over: replays read `choices`
  /// (and add to `creations`).
  bool recording = true;

  /// `c`, stored once: the ops making created values in a long program
  /// (every layer's fills) take the same few candidates, and a copy each
  /// would cost more than the choice.
  const ShardingCandidate *intern(ShardingCandidate c);

private:
  FunctionOpInterface func;
  std::vector<Creations> creations;
  std::optional<RuleClasses> ruleClasses;
  /// The task building `ruleClasses`; declared after it, so destroyed (and
  /// waited for) first.
  std::optional<llvm::ThreadPoolTaskGroup> building;
  /// The interned candidates by the hash of their placements.
  llvm::DenseMap<llvm::hash_code,
                 llvm::SmallVector<const ShardingCandidate *, 1>>
      pool;
  std::deque<ShardingCandidate> storage;
};

const ShardingCandidate *PropagationMemo::intern(ShardingCandidate c) {
  auto hashList = [](llvm::ArrayRef<Placements> list) {
    llvm::hash_code hash = llvm::hash_value(list.size());
    for (const Placements &ps : list)
      hash = llvm::hash_combine(hash,
                                llvm::hash_combine_range(ps.begin(), ps.end()));
    return hash;
  };
  llvm::hash_code hash =
      llvm::hash_combine(hashList(c.operands), hashList(c.results),
                         llvm::hash_combine_range(c.excludedFromCost.begin(),
                                                  c.excludedFromCost.end()));
  llvm::SmallVector<const ShardingCandidate *, 1> &bucket = pool[hash];
  for (const ShardingCandidate *known : bucket)
    if (known->operands == c.operands && known->results == c.results &&
        known->excludedFromCost == c.excludedFromCost)
      return known;
  return bucket.emplace_back(&storage.emplace_back(std::move(c)));
}

PropagationMemo::PropagationMemo(FunctionOpInterface func) : func(func) {
  MLIRContext *ctx = func.getContext();
  if (!ctx->isMultithreadingEnabled() ||
      ctx->getThreadPool().getMaxConcurrency() < 2)
    return;
  building.emplace(ctx->getThreadPool());
  building->async(
      [this] { ruleClasses.emplace(this->func.getFunctionBody()); });
}

const RuleClasses &PropagationMemo::getRuleClasses() {
  if (building) {
    building->wait();
    building.reset();
  }
  if (!ruleClasses)
    ruleClasses.emplace(func.getFunctionBody());
  return *ruleClasses;
}

PropagationMemo::Creations *PropagationMemo::getCreations(CreatedOp &c) {
  if (c.cls < 0) {
    const RuleClasses &classes = getRuleClasses();
    c.cls = classes.lookup(c.op);
    if (c.cls < 0)
      return nullptr;
    creations.resize(classes.size());
  }
  return &creations[c.cls];
}

/// Walks one function in program order, choosing a strategy per op.
class FunctionPropagator {
public:
  FunctionPropagator(FakeTensorAnalysis &analysis, FunctionPlan &plan,
                     FunctionOpInterface func,
                     const ForcedStrategies *forced = nullptr,
                     PropagationMemo *memo = nullptr)
      : analysis(analysis), plan(plan), func(func), forced(forced), memo(memo) {
  }

  LogicalResult run();
  /// With `deferCollect`, `run` stops once every value is placed; this
  /// then lists the plan's values and redistributions. It only reads the
  /// placements, so it may run beside other readers of them (the global
  /// planner).
  void collectPlan();
  bool deferCollect = false;

private:
  LogicalResult resolveMesh();
  LogicalResult checkMesh(Operation *op, SpecAttr spec);
  LogicalResult visitBlock(Block &block);
  LogicalResult visitOp(Operation *op);
  LogicalResult visitGeneric(Operation *op);
  /// The placements the operands of `op` have now.
  llvm::SmallVector<Placements, 4> getCurrent(Operation *op) const;
  /// The candidate `op` takes without consulting its rule: the forced one,
  /// or the first propagation's choice where the operands arrive as they
  /// did then (`current` is then filled); null otherwise.
  const ShardingCandidate *
  findKnownChoice(Operation *op, llvm::SmallVectorImpl<Placements> &current);
  /// Requires the candidate's operand placements and gives its results
  /// theirs.
  LogicalResult applyCandidate(Operation *op, const ShardingCandidate &c);
  /// The unknown-op policy: an error, or one all-replicated candidate (and
  /// the op's regions visited as replicated code).
  LogicalResult
  replicateUnknownOp(Operation *op,
                     llvm::SmallVectorImpl<ShardingCandidate> &candidates);
  /// Keeps the candidates producing the op's `dtensor.specs`, if it has any.
  LogicalResult
  keepPinnedCandidates(Operation *op, llvm::ArrayRef<Placements> current,
                       llvm::SmallVectorImpl<ShardingCandidate> &candidates);
  /// The cheapest candidate under the cost model (PyTorch's tie rules).
  const ShardingCandidate &
  chooseCandidate(Operation *op, llvm::ArrayRef<Placements> current,
                  llvm::ArrayRef<ShardingCandidate> candidates) const;
  LogicalResult visitCall(CallOpInterface call);
  /// Region-based control flow (scf.for, scf.if, scf.while, ... and any op
  /// with RegionBranchOpInterface): the inputs of every successor (region
  /// arguments, results) reach a fixed point over the op's edges.
  LogicalResult visitRegionBranch(RegionBranchOpInterface op,
                                  llvm::ArrayRef<RegionEdge> edges);
  LogicalResult visitReturn(Operation *op);
  void finish();
  /// Gives a created value (constant, empty, fill) the placements all its
  /// users need, so it is built in place instead of redistributed.
  void adoptUserPlacements();
  /// The candidate making the created value of `created` in `target`: the
  /// memo's for a rule-equivalent op, else one made in `local` (and kept in
  /// the memo); null if it cannot be made there.
  const ShardingCandidate *
  getCreationChoice(CreatedOp &created, const Placements &target,
                    std::optional<ShardingCandidate> &local);

  /// Records the placements of a tensor value.
  LogicalResult set(Value v, Placements ps);
  /// A static shape whose size in bytes fits in 64 bits (an error on the
  /// value's op otherwise).
  LogicalResult checkTensorType(Value v, RankedTensorType type);
  /// Current placements of a tensor value (R if not yet known).
  Placements get(Value v) const;
  /// Requires `operand` to hold `target` when read.
  void require(OpOperand &operand, const Placements &target);
  /// Placements of a callee argument or result, expressed on this mesh.
  FailureOr<Placements> fromCallee(Operation *at, const FunctionPlan *callee,
                                   Value calleeValue, Attribute specAttr);
  Placements replicated() const {
    return Placements(plan.meshShape.size(), Placement::replicate());
  }
  Placements fromSpec(SpecAttr spec) const {
    return Placements(spec.getPlacements().begin(), spec.getPlacements().end());
  }

  FakeTensorAnalysis &analysis;
  FunctionPlan &plan;
  FunctionOpInterface func;
  /// Strategies chosen by the global planner, if any.
  const ForcedStrategies *forced;
  /// Choices recorded by the first propagation, or reused from it.
  PropagationMemo *memo;
};

} // namespace dtensor
} // namespace mlir

LogicalResult FunctionPropagator::resolveMesh() {
  SymbolTableCollection &st = analysis.symbolTable;
  MeshOp found;
  Operation *foundAt = nullptr;
  auto consider = [&](Operation *at, FlatSymbolRefAttr ref) -> LogicalResult {
    MeshOp mesh = lookupMesh(at, ref, st);
    if (!mesh)
      return at->emitError() << "refers to unknown mesh " << ref;
    if (found && mesh != found) {
      InFlightDiagnostic d = at->emitError()
                             << "uses mesh " << ref << " but the function '"
                             << func.getName() << "' already uses mesh @"
                             << found.getSymName()
                             << "; different meshes never mix";
      d.attachNote(foundAt->getLoc())
          << "mesh @" << found.getSymName() << " first used here";
      return d;
    }
    if (!found) {
      found = mesh;
      foundAt = at;
    }
    return success();
  };
  Operation *fop = func.getOperation();
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (auto spec =
            func.getArgAttrOfType<SpecAttr>(i, DTensorDialect::kSpecAttrName))
      if (failed(consider(fop, spec.getMesh())))
        return failure();
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (auto spec = func.getResultAttrOfType<SpecAttr>(
            i, DTensorDialect::kSpecAttrName))
      if (failed(consider(fop, spec.getMesh())))
        return failure();
  WalkResult walk = func.getFunctionBody().walk([&](Operation *op) {
    SpecAttr spec;
    if (auto r = dyn_cast<RedistributeOp>(op))
      spec = r.getSpec();
    else if (auto f = dyn_cast<FromLocalOp>(op))
      spec = f.getSpec();
    else if (auto t = dyn_cast<ToLocalOp>(op))
      spec = t.getSpec();
    if (spec && failed(consider(op, spec.getMesh())))
      return WalkResult::interrupt();
    if (auto specs =
            op->getAttrOfType<ArrayAttr>(DTensorDialect::kSpecsAttrName))
      for (Attribute a : specs)
        if (auto s = dyn_cast<SpecAttr>(a))
          if (failed(consider(op, s.getMesh())))
            return WalkResult::interrupt();
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      auto callee = dyn_cast_or_null<FunctionOpInterface>(
          call.resolveCallableInTable(&st));
      if (callee && !callee.isExternal()) {
        FunctionPlan *cp = analysis.analyze(callee);
        if (!cp)
          return WalkResult::interrupt();
        if (cp->mesh && failed(consider(op, FlatSymbolRefAttr::get(
                                                cp->mesh.getSymNameAttr()))))
          return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!found) {
    // A function without any placement runs on the module's only mesh, fully
    // replicated; without a (unique) mesh it runs on one device.
    auto meshes = analysis.module.getOps<MeshOp>();
    if (!meshes.empty() && std::next(meshes.begin()) == meshes.end())
      found = *meshes.begin();
  }
  plan.mesh = found;
  if (found)
    plan.meshShape.assign(found.getShape().begin(), found.getShape().end());
  return success();
}

LogicalResult FunctionPropagator::checkMesh(Operation *op, SpecAttr spec) {
  if (!plan.mesh || spec.getMesh().getValue() != plan.mesh.getSymName())
    return op->emitError() << "spec " << spec << " is not on the mesh of '"
                           << func.getName() << "'";
  return success();
}

LogicalResult FunctionPropagator::set(Value v, Placements ps) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return success();
  // A replay places the values the first propagation checked.
  if ((!memo || memo->recording) && failed(checkTensorType(v, type)))
    return failure();
  assert(ps.size() == plan.meshShape.size() && "one placement per mesh axis");
  FakeTensor &t = plan.tensors[v];
  t.type = type;
  t.placements = std::move(ps);
  return success();
}

LogicalResult FunctionPropagator::checkTensorType(Value v,
                                                  RankedTensorType type) {
  Operation *at = v.getDefiningOp() ? v.getDefiningOp() : func.getOperation();
  if (!type.hasStaticShape())
    return at->emitError() << "value of type " << type
                           << " has a dynamic shape; the global view needs "
                              "static shapes";
  // Byte counts of every value must fit in 64 bits.
  int64_t bytes = getElementByteSize(type.getElementType());
  for (int64_t d : type.getShape())
    if (llvm::MulOverflow(bytes, d, bytes))
      return at->emitError() << "value of type " << type
                             << " is too large: its size in bytes does not "
                                "fit in 64 bits";
  return success();
}

Placements FunctionPropagator::get(Value v) const {
  if (const FakeTensor *t = plan.lookup(v))
    return t->placements;
  return replicated();
}

void FunctionPropagator::require(OpOperand &operand, const Placements &target) {
  Value v = operand.get();
  if (!isa<RankedTensorType>(v.getType()))
    return;
  const FakeTensor *t = plan.lookup(v);
  if (t ? t->placements == target : get(v) == target)
    plan.required.erase(&operand);
  else
    plan.required[&operand] = target;
}

LogicalResult FunctionPropagator::run() {
  if (memo && !memo->recording) {
    // A replay of a function whose mesh the first propagation resolved,
    // with about as many values and reads to place.
    plan.mesh = memo->mesh;
    plan.meshShape = memo->meshShape;
    plan.tensors.reserve(memo->numTensors);
    plan.required.reserve(memo->numRequired);
  } else if (failed(resolveMesh())) {
    return failure();
  } else if (memo) {
    memo->mesh = plan.mesh;
    memo->meshShape = plan.meshShape;
  }
  Block &entry = func.getFunctionBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    Placements ps = replicated();
    if (auto spec = func.getArgAttrOfType<SpecAttr>(
            arg.getArgNumber(), DTensorDialect::kSpecAttrName))
      ps = fromSpec(spec);
    if (failed(set(arg, ps)))
      return failure();
  }
  if (!func.getFunctionBody().hasOneBlock())
    return func.emitError() << "functions with more than one block are not "
                               "supported; use structured control flow (scf)";
  if (failed(visitBlock(entry)))
    return failure();
  finish();
  return success();
}

LogicalResult FunctionPropagator::visitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(visitOp(&op)))
      return failure();
  return success();
}

LogicalResult FunctionPropagator::visitOp(Operation *op) {
  if (op->hasTrait<OpTrait::ReturnLike>() &&
      op->getParentOp() == func.getOperation())
    return visitReturn(op);
  if (isa<RegionBranchTerminatorOpInterface>(op) &&
      isa_and_nonnull<RegionBranchOpInterface>(op->getParentOp()))
    return success(); // handled by the parent
  if (auto branch = dyn_cast<RegionBranchOpInterface>(op);
      branch && !isa<ShardingRuleOpInterface>(op))
    if (FailureOr<llvm::SmallVector<RegionEdge>> edges =
            getRegionEdges(branch);
        succeeded(edges))
      return visitRegionBranch(branch, *edges);
  if (auto call = dyn_cast<CallOpInterface>(op))
    return visitCall(call);
  if (auto r = dyn_cast<RedistributeOp>(op)) {
    if (failed(checkMesh(op, r.getSpec())))
      return failure();
    llvm::SmallVector<RedistributeStep> steps;
    std::string err;
    Placements from = get(r.getSource());
    if (!planRedistribute(from, fromSpec(r.getSpec()), steps, err))
      return op->emitError()
             << "cannot redistribute from " << placementsToString(from)
             << " to " << r.getSpec().getPlacementsString() << ": " << err;
    return set(r.getResult(), fromSpec(r.getSpec()));
  }
  if (auto f = dyn_cast<FromLocalOp>(op)) {
    if (failed(checkMesh(op, f.getSpec())))
      return failure();
    return set(f.getResult(), fromSpec(f.getSpec()));
  }
  if (auto t = dyn_cast<ToLocalOp>(op)) {
    if (failed(checkMesh(op, t.getSpec())))
      return failure();
    require(t->getOpOperand(0), fromSpec(t.getSpec()));
    // The local tensor is rank-private; the global view calls it replicated.
    return set(t.getResult(), replicated());
  }
  bool hasTensors = llvm::any_of(op->getOperandTypes(),
                                 [](Type t) { return isa<TensorType>(t); }) ||
                    llvm::any_of(op->getResultTypes(),
                                 [](Type t) { return isa<TensorType>(t); });
  if (!hasTensors) {
    // Scalar code: nothing to place, but nested regions may hold tensors.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (failed(visitBlock(block)))
          return failure();
    return success();
  }
  return visitGeneric(op);
}

LogicalResult FunctionPropagator::visitGeneric(Operation *op) {
  // No rule can place an unranked tensor (tensor.cast to tensor<*xf32>).
  for (Type t :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (isa<UnrankedTensorType>(t))
      return op->emitError() << "unranked tensors are not supported";
  llvm::SmallVector<Placements, 4> current;
  if (const ShardingCandidate *c = findKnownChoice(op, current))
    return applyCandidate(op, *c);
  if (current.empty())
    current = getCurrent(op);
  llvm::SmallVector<ShardingCandidate, 4> candidates;
  if (forced)
    if (const ShardingCandidate *c = forced->lookup(op))
      candidates.push_back(*c);
  auto rule = dyn_cast<ShardingRuleOpInterface>(op);
  bool replicated = false;
  if (candidates.empty() &&
      (!rule || failed(rule.getShardingCandidates(plan.meshShape, current,
                                                  candidates)))) {
    candidates.clear();
    replicated = true;
    if (failed(replicateUnknownOp(op, candidates)))
      return failure();
  }
  // An op annotated with `dtensor.specs` keeps those result placements.
  if (failed(keepPinnedCandidates(op, current, candidates)))
    return failure();
  if (rule && analysis.options.strategy == StrategyMode::PyTorch)
    if (std::string why = rule.getPyTorchRefusal(plan.meshShape, current);
        !why.empty() && llvm::none_of(plan.pytorchRefusals, [&](auto &r) {
          return r.first == op;
        })) {
      op->emitWarning() << "PyTorch DTensor refuses this op (" << why
                        << ": \"Please redistribute the tensor before this "
                           "operation\"); the plan redistributes instead";
      plan.pytorchRefusals.emplace_back(op, why);
    }
  const ShardingCandidate &c = chooseCandidate(op, current, candidates);
  if (failed(applyCandidate(op, c)))
    return failure();
  // A replicated unknown op visits its regions (and warns): never reused.
  if (memo && memo->recording && !replicated && op->getNumResults() == 1 &&
      isCreatedValue(op->getResult(0))) {
    // Applied already: the memo takes the candidate instead of a copy.
    PropagationMemo::Choice choice{
        llvm::SmallVector<Placements, 2>(
            std::make_move_iterator(current.begin()),
            std::make_move_iterator(current.end())),
        memo->intern(std::move(candidates[&c - candidates.data()]))};
    auto [it, inserted] = memo->choiceOf.try_emplace(op, memo->choices.size());
    if (inserted)
      memo->choices.push_back(std::move(choice));
    else
      memo->choices[it->second] = std::move(choice);
  }
  return success();
}

llvm::SmallVector<Placements, 4>
FunctionPropagator::getCurrent(Operation *op) const {
  llvm::SmallVector<Placements, 4> current;
  for (Value v : op->getOperands())
    current.push_back(isa<RankedTensorType>(v.getType()) ? get(v)
                                                         : Placements());
  return current;
}

const ShardingCandidate *FunctionPropagator::findKnownChoice(
    Operation *op, llvm::SmallVectorImpl<Placements> &current) {
  // PyTorch's refusals are checked op by op; pins are checked in full.
  if (analysis.options.strategy == StrategyMode::PyTorch ||
      op->hasAttr(DTensorDialect::kSpecsAttrName))
    return nullptr;
  if (forced)
    if (const ShardingCandidate *c = forced->lookup(op))
      return c;
  if (!memo || memo->recording)
    return nullptr;
  auto it = memo->choiceOf.find(op);
  if (it == memo->choiceOf.end())
    return nullptr;
  const PropagationMemo::Choice &choice = memo->choices[it->second];
  current = getCurrent(op);
  if (!llvm::equal(current, choice.current))
    return nullptr;
  return choice.candidate;
}

LogicalResult FunctionPropagator::applyCandidate(Operation *op,
                                                 const ShardingCandidate &c) {
  for (OpOperand &o : op->getOpOperands())
    require(o, c.operands[o.getOperandNumber()]);
  for (auto [r, ps] : llvm::zip_equal(op->getResults(), c.results))
    if (isa<RankedTensorType>(r.getType()) && failed(set(r, ps)))
      return failure();
  return success();
}

LogicalResult FunctionPropagator::replicateUnknownOp(
    Operation *op, llvm::SmallVectorImpl<ShardingCandidate> &candidates) {
  if (analysis.options.unknownOps == UnknownOpPolicy::Error)
    return op->emitError()
           << "no sharding rule for '" << op->getName()
           << "'; pass unknown-ops=replicate to replicate its operands and "
              "results";
  op->emitWarning() << "no sharding rule for '" << op->getName()
                    << "'; replicating its operands and results";
  ShardingCandidate c;
  for (Value v : op->getOperands()) {
    c.operands.push_back(isa<RankedTensorType>(v.getType()) ? replicated()
                                                            : Placements());
    c.excludedFromCost.push_back(false);
  }
  for (Value v : op->getResults())
    c.results.push_back(isa<RankedTensorType>(v.getType()) ? replicated()
                                                           : Placements());
  candidates.push_back(std::move(c));
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      for (BlockArgument arg : block.getArguments())
        if (failed(set(arg, replicated())))
          return failure();
      if (failed(visitBlock(block)))
        return failure();
    }
  return success();
}

LogicalResult FunctionPropagator::keepPinnedCandidates(
    Operation *op, llvm::ArrayRef<Placements> current,
    llvm::SmallVectorImpl<ShardingCandidate> &candidates) {
  auto specs = op->getAttrOfType<ArrayAttr>(DTensorDialect::kSpecsAttrName);
  if (!specs)
    return success();
  llvm::SmallVector<Placements, 2> pinned;
  for (Attribute a : specs)
    pinned.push_back(isa<SpecAttr>(a) ? fromSpec(cast<SpecAttr>(a))
                                      : Placements());
  llvm::SmallVector<ShardingCandidate, 4> kept;
  for (ShardingCandidate &c : candidates)
    if (llvm::equal(c.results, pinned))
      kept.push_back(std::move(c));
  // The pin may come from whole-function planning, or from an earlier
  // propagation whose operands have been redistributed since: look among
  // every strategy a pin may ask for (a superset of what either strategy
  // mode chooses).
  if (kept.empty())
    if (auto rule = dyn_cast<ShardingRuleOpInterface>(op)) {
      llvm::SmallVector<ShardingCandidate, 8> all;
      if (succeeded(
              rule.getPinnableShardingCandidates(plan.meshShape, current, all)))
        for (ShardingCandidate &c : all)
          if (llvm::equal(c.results, pinned))
            kept.push_back(std::move(c));
    }
  // A created value is built directly in the placements asked for; a fill
  // needs its destination in the same placements.
  if (kept.empty() && op->getNumResults() == 1 &&
      canCreateIn(op->getResult(0), pinned.front()))
    if (FailureOr<ShardingCandidate> c =
            getCreationCandidate(op, plan.meshShape, pinned.front());
        succeeded(c))
      kept.push_back(std::move(*c));
  if (kept.empty()) {
    std::string have;
    llvm::raw_string_ostream os(have);
    llvm::interleaveComma(pinned, os, [&](const Placements &ps) {
      os << placementsToString(ps);
    });
    return op->emitError() << "'" << DTensorDialect::kSpecsAttrName
                           << "' asks for results " << have
                           << " but no sharding strategy of this op "
                              "produces them";
  }
  candidates.assign(std::make_move_iterator(kept.begin()),
                    std::make_move_iterator(kept.end()));
  return success();
}

const ShardingCandidate &FunctionPropagator::chooseCandidate(
    Operation *op, llvm::ArrayRef<Placements> current,
    llvm::ArrayRef<ShardingCandidate> candidates) const {
  if (candidates.size() == 1)
    return candidates.front();
  llvm::SmallVector<CandidateCost, 4> costs;
  for (const ShardingCandidate &c : candidates)
    costs.push_back(scoreCandidate(op, current, c, plan.meshShape));
  return candidates[selectCandidate(costs)];
}

FailureOr<Placements> FunctionPropagator::fromCallee(Operation *at,
                                                     const FunctionPlan *callee,
                                                     Value calleeValue,
                                                     Attribute specAttr) {
  if (auto spec = dyn_cast_or_null<SpecAttr>(specAttr)) {
    if (failed(checkMesh(at, spec)))
      return failure();
    return fromSpec(spec);
  }
  if (callee && calleeValue)
    if (const FakeTensor *t = callee->lookup(calleeValue))
      if (!t->placements.empty() || plan.meshShape.empty())
        return t->placements;
  return replicated();
}

LogicalResult FunctionPropagator::visitCall(CallOpInterface call) {
  Operation *op = call.getOperation();
  auto callee = dyn_cast_or_null<FunctionOpInterface>(
      call.resolveCallableInTable(&analysis.symbolTable));
  if (!callee)
    return visitGeneric(op);
  const FunctionPlan *cp =
      callee.isExternal() ? nullptr : analysis.getPlan(callee);
  for (auto [i, operand] : llvm::enumerate(call.getArgOperandsMutable())) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    Value arg = cp ? callee.getFunctionBody().getArgument(i) : Value();
    FailureOr<Placements> ps = fromCallee(
        op, cp, arg, callee.getArgAttr(i, DTensorDialect::kSpecAttrName));
    if (failed(ps))
      return failure();
    require(operand, *ps);
  }
  Operation *ret = nullptr;
  if (cp)
    ret = callee.getFunctionBody().front().getTerminator();
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    if (!isa<RankedTensorType>(r.getType()))
      continue;
    FailureOr<Placements> ps =
        fromCallee(op, cp, ret ? ret->getOperand(i) : Value(),
                   callee.getResultAttr(i, DTensorDialect::kSpecAttrName));
    if (failed(ps) || failed(set(r, *ps)))
      return failure();
  }
  return success();
}


LogicalResult
FunctionPropagator::visitRegionBranch(RegionBranchOpInterface op,
                                      llvm::ArrayRef<RegionEdge> edges) {
  // The placements of every successor input. An input is an assumption when
  // it was set by the op's own entry edges or in an earlier round: a later
  // edge that disagrees (a loop's yield) changes it and the regions are
  // visited again, for a few rounds; after that the edge is redistributed
  // instead. Within one round the first edge to reach an input defines it
  // and later ones (the else branch) are redistributed to it.
  llvm::DenseMap<Value, Placements> state;
  llvm::DenseSet<Value> assumed;
  constexpr int kMaxRounds = 4;
  auto flow = [&](const RegionEdge &e, bool mayUpdate) {
    bool changed = false;
    for (auto [o, in] : llvm::zip_equal(e.operands, e.inputs)) {
      if (!isa<RankedTensorType>(in.getType()))
        continue;
      Placements y = get(o->get());
      auto [it, inserted] = state.try_emplace(in, y);
      if (!e.from)
        assumed.insert(in);
      if (inserted || it->second == y || !assumed.contains(in))
        continue;
      changed = true;
      if (mayUpdate)
        it->second = std::move(y);
    }
    return changed;
  };
  for (const RegionEdge &e : edges)
    if (!e.from)
      (void)flow(e, /*mayUpdate=*/false);
  for (int round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    for (Region &region : op->getRegions()) {
      if (region.empty())
        continue;
      for (BlockArgument arg : region.front().getArguments()) {
        auto it = state.find(arg);
        if (failed(set(arg, it == state.end() ? replicated() : it->second)))
          return failure();
      }
      for (Block &block : region)
        if (failed(visitBlock(block)))
          return failure();
      for (const RegionEdge &e : edges)
        if (e.from == &region)
          changed |= flow(e, /*mayUpdate=*/round + 1 < kMaxRounds);
    }
    for (auto &entry : state)
      assumed.insert(entry.first);
    if (!changed)
      break;
  }
  for (const RegionEdge &e : edges)
    for (auto [o, in] : llvm::zip_equal(e.operands, e.inputs))
      if (auto it = state.find(in); it != state.end())
        require(*o, it->second);
  for (OpResult r : op->getResults())
    if (auto it = state.find(r); it != state.end())
      if (failed(set(r, it->second)))
        return failure();
  return success();
}

LogicalResult FunctionPropagator::visitReturn(Operation *op) {
  for (OpOperand &o : op->getOpOperands()) {
    auto spec = func.getResultAttrOfType<SpecAttr>(
        o.getOperandNumber(), DTensorDialect::kSpecAttrName);
    if (spec)
      require(o, fromSpec(spec));
  }
  return success();
}

void FunctionPropagator::adoptUserPlacements() {
  // A replay reads the created ops the first propagation found.
  std::vector<CreatedOp> walked;
  std::vector<CreatedOp> &created = memo ? memo->createdOps : walked;
  if (!memo || memo->recording) {
    created.clear();
    func.getFunctionBody().walk([&](Operation *op) {
      if (op->getNumResults() == 1 && isCreatedValue(op->getResult(0)))
        created.push_back({op});
    });
  }
  // Later values first: a fill is settled before the value it fills.
  for (CreatedOp &entry : llvm::reverse(created)) {
    Operation *op = entry.op;
    Value v = op->getResult(0);
    const FakeTensor *t = plan.lookup(v);
    if (!t)
      continue;
    const Placements *target = nullptr;
    bool unique = true;
    for (OpOperand &use : v.getUses()) {
      const Placements *req = plan.getRequiredPlacements(use);
      const Placements *want = req ? req : &t->placements;
      if (!target)
        target = want;
      else if (*target != *want)
        unique = false;
    }
    if (!target || !unique || *target == t->placements)
      continue;
    std::optional<ShardingCandidate> local;
    const ShardingCandidate *c = getCreationChoice(entry, *target, local);
    if (!c)
      continue;
    (void)set(v, *target);
    for (OpOperand &use : v.getUses())
      plan.required.erase(&use);
    for (OpOperand &o : op->getOpOperands())
      require(o, c->operands[o.getOperandNumber()]);
  }
}

const ShardingCandidate *
FunctionPropagator::getCreationChoice(CreatedOp &created,
                                      const Placements &target,
                                      std::optional<ShardingCandidate> &local) {
  // Whether the value can be made there depends on the value (a fill of
  // zeros may be P(sum)); how, only on the op's rule. `created` makes a
  // created value (`canCreateIn`'s other half).
  Operation *op = created.op;
  if (createInNeedsZero(target)) {
    if (created.zeroOrUndef < 0)
      created.zeroOrUndef = isZeroOrUndef(op->getResult(0));
    if (!created.zeroOrUndef)
      return nullptr;
  }
  PropagationMemo::Creations *known =
      memo ? memo->getCreations(created) : nullptr;
  if (known)
    for (const auto &[ps, c] : *known)
      if (ps == target)
        return c;
  if (FailureOr<ShardingCandidate> c =
          getCreationCandidate(op, plan.meshShape, target);
      succeeded(c))
    local = std::move(*c);
  if (!known)
    return local ? &*local : nullptr;
  const ShardingCandidate *c =
      local ? memo->intern(std::move(*local)) : nullptr;
  known->push_back({target, c});
  return c;
}

void FunctionPropagator::finish() {
  adoptUserPlacements();
  if (!deferCollect)
    collectPlan();
}

void FunctionPropagator::collectPlan() {
  for (BlockArgument arg : func.getFunctionBody().getArguments())
    if (plan.lookup(arg))
      plan.values.push_back(arg);
  // Redistributions of one value to one target are shared by their users,
  // except in strategy=pytorch: PyTorch redistributes an input at every op
  // (and every operand) that needs it, and pays each time.
  bool share = analysis.options.strategy != StrategyMode::PyTorch;
  llvm::DenseMap<Value, llvm::SmallVector<size_t, 1>> index;
  func.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Only tensors have placements: scalars skip the map lookups.
    for (OpOperand &o : op->getOpOperands()) {
      if (!isa<RankedTensorType>(o.get().getType()))
        continue;
      const Placements *target = plan.getRequiredPlacements(o);
      if (!target)
        continue;
      llvm::SmallVector<size_t, 1> &entries = index[o.get()];
      auto it = llvm::find_if(entries, [&](size_t i) {
        return share && plan.redistributions[i].target == *target;
      });
      size_t idx;
      if (it != entries.end()) {
        idx = *it;
      } else {
        idx = plan.redistributions.size();
        entries.push_back(idx);
        Redistribution r;
        r.value = o.get();
        r.target = *target;
        plan.redistributions.push_back(std::move(r));
      }
      plan.redistributions[idx].users.push_back(&o);
    }
    if (auto r = dyn_cast<RedistributeOp>(op)) {
      Redistribution red;
      red.value = r.getSource();
      red.target = fromSpec(r.getSpec());
      red.op = r;
      plan.redistributions.push_back(std::move(red));
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isa<RankedTensorType>(arg.getType()) && plan.lookup(arg))
            plan.values.push_back(arg);
    for (Value r : op->getResults())
      if (isa<RankedTensorType>(r.getType()) && plan.lookup(r))
        plan.values.push_back(r);
  });
}

//===----------------------------------------------------------------------===//
// FakeTensorAnalysis
//===----------------------------------------------------------------------===//

FakeTensorAnalysis::FakeTensorAnalysis(ModuleOp module,
                                       FakeTensorOptions options)
    : module(module), options(options) {
  for (auto func : module.getOps<FunctionOpInterface>()) {
    if (func.isExternal())
      continue;
    if (!analyze(func))
      ok = false;
  }
}

FakeTensorAnalysis::~FakeTensorAnalysis() = default;

GlobalPlannerOptions
FakeTensorAnalysis::getPlannerOptions(PropagationMemo &memo) const {
  GlobalPlannerOptions plannerOptions;
  plannerOptions.exact = true;
  plannerOptions.conserveWork = options.strategy == StrategyMode::Global;
  plannerOptions.ruleClasses = &memo.getRuleClasses();
  return plannerOptions;
}

std::unique_ptr<FunctionPlan> FakeTensorAnalysis::planGlobally(
    FunctionOpInterface func, std::unique_ptr<FunctionPlan> pytorch,
    PropagationMemo &memo, llvm::function_ref<void()> completePyTorch) {
  GlobalPlannerOptions plannerOptions = getPlannerOptions(memo);
  PlannerStats stats;
  // PyTorch's plan is priced with the cheapest steps; they are planned into
  // it only if it stays.
  double pytorchCost = 0;
  auto pricePyTorch = [&] {
    completePyTorch();
    pytorchCost = pytorch->computeMinCostCommCost();
  };
  // The planner and the replays read PyTorch's placements; `pricePyTorch`
  // writes only the plan's lists and costs: on two threads where the
  // context has them.
  MLIRContext *ctx = func.getContext();
  std::optional<llvm::ThreadPoolTaskGroup> tasks;
  if (ctx->isMultithreadingEnabled() &&
      ctx->getThreadPool().getMaxConcurrency() > 1) {
    tasks.emplace(ctx->getThreadPool());
    tasks->async(pricePyTorch);
  } else {
    pricePyTorch();
  }
  llvm::SmallVector<ForcedStrategies, 2> alternatives =
      planFunctionGlobally(func, *pytorch, plannerOptions, &stats);
  pytorch->plannerStats = stats;
  // Each alternative is propagated and costed as the program will be; the
  // cheapest is kept, PyTorch's unless one is strictly cheaper. Their
  // diagnostics (if any) are not the user's concern when one is dropped.
  llvm::SmallVector<std::unique_ptr<FunctionPlan>, 2> replays;
  for (const ForcedStrategies &forced : alternatives) {
    auto global = std::make_unique<FunctionPlan>();
    ScopedDiagnosticHandler quiet(func.getContext(),
                                  [](Diagnostic &) { return success(); });
    if (failed(FunctionPropagator(*this, *global, func, &forced, &memo).run()))
      continue;
    global->planRedistributions(/*minCost=*/true);
    replays.push_back(std::move(global));
  }
  if (tasks)
    tasks->wait();
  double bestCost = pytorchCost;
  std::unique_ptr<FunctionPlan> best = std::move(pytorch);
  bool pytorchStays = true;
  for (std::unique_ptr<FunctionPlan> &global : replays) {
    global->pytorchCommCost = best->pytorchCommCost;
    global->plannerStats = stats;
    double cost = global->computeCommCost();
    if (cost < bestCost - 1e-9) {
      bestCost = cost;
      best = std::move(global);
      pytorchStays = false;
    }
  }
  if (pytorchStays)
    best->planRedistributions(/*minCost=*/true);
  return best;
}

std::unique_ptr<FunctionPlan>
FakeTensorAnalysis::propagateForced(FunctionOpInterface func,
                                    const ForcedStrategies &forced,
                                    double pytorchCost,
                                    const PlannerStats &stats) {
  auto p = std::make_unique<FunctionPlan>();
  ScopedDiagnosticHandler quiet(func.getContext(),
                                [](Diagnostic &) { return success(); });
  if (failed(FunctionPropagator(*this, *p, func, &forced).run()))
    return nullptr;
  p->planRedistributions(
      /*minCost=*/options.strategy != StrategyMode::PyTorch);
  p->pytorchCommCost = pytorchCost;
  p->plannerStats = stats;
  return p;
}

FailureOr<std::unique_ptr<FunctionPlan>>
FakeTensorAnalysis::fitBudget(FunctionOpInterface func,
                              std::unique_ptr<FunctionPlan> plan,
                              PropagationMemo *memo) {
  // A re-plan: the constrained ops forced, the others by PyTorch's rules;
  // with strategy=global/exact also the global planner's plans from there
  // with the constraints laid over them, the cheapest kept among those
  // within the budget (or within the greedy plan's peak).
  double pytorchCost = plan->pytorchCommCost;
  PlannerStats stats = plan->plannerStats;
  auto replan =
      [&](const ForcedStrategies &forced) -> std::unique_ptr<FunctionPlan> {
    std::unique_ptr<FunctionPlan> best =
        propagateForced(func, forced, pytorchCost, stats);
    if (!best || options.strategy == StrategyMode::PyTorch)
      return best;
    MemoryPeak greedyPeak = computeMemoryPeak(func, *best);
    int64_t limit = std::max(options.maxBytesPerRank,
                             greedyPeak.bytes[greedyPeak.getWorstRank()]);
    double bestCost = best->computeCommCost();
    for (ForcedStrategies alt :
         planFunctionGlobally(func, *best, getPlannerOptions(*memo))) {
      alt.override(forced);
      std::unique_ptr<FunctionPlan> p =
          propagateForced(func, alt, pytorchCost, stats);
      if (!p || p->computeCommCost() >= bestCost - 1e-9)
        continue;
      MemoryPeak peak = computeMemoryPeak(func, *p);
      if (peak.bytes[peak.getWorstRank()] > limit)
        continue;
      bestCost = p->computeCommCost();
      best = std::move(p);
    }
    return best;
  };
  // A budget the plan fits changes nothing.
  MemoryPeak peak = computeMemoryPeak(func, *plan);
  if (peak.bytes[peak.getWorstRank()] <= options.maxBytesPerRank)
    return std::move(plan);
  std::unique_ptr<FunctionPlan> solved =
      options.strategy == StrategyMode::PyTorch
          ? nullptr
          : planUnderBudget(func, *plan, pytorchCost, *memo);
  const FunctionPlan *original = plan.get();
  FailureOr<std::unique_ptr<FunctionPlan>> greedy = failure();
  {
    // The greedy fit may still be cheaper (the solver's memory model is an
    // upper bound); its failure is no error when the solver's plan fits.
    std::optional<ScopedDiagnosticHandler> quiet;
    if (solved)
      quiet.emplace(func.getContext(), [](Diagnostic &) { return success(); });
    greedy = fitMemoryBudget(func, std::move(plan), options.maxBytesPerRank,
                             replan);
  }
  if (::mlir::succeeded(greedy) &&
      (!solved ||
       (*greedy)->computeCommCost() < solved->computeCommCost() - 1e-9)) {
    // Ops constrained greedily: the plan is optimal only if it reaches the
    // unconstrained bound.
    FunctionPlan &p = **greedy;
    if (&p != original)
      p.plannerStats.provenOptimal &=
          p.computeCommCost() <= p.plannerStats.lowerBound + 1e-6;
    return std::move(*greedy);
  }
  if (!solved)
    return failure();
  return std::move(solved);
}

std::unique_ptr<FunctionPlan>
FakeTensorAnalysis::planUnderBudget(FunctionOpInterface func,
                                    const FunctionPlan &plan,
                                    double pytorchCost, PropagationMemo &memo) {
  GlobalPlannerOptions plannerOptions = getPlannerOptions(memo);
  plannerOptions.maxBytesPerRank = options.maxBytesPerRank;
  PlannerStats stats;
  std::optional<ForcedStrategies> forced =
      planFunctionUnderBudget(func, plan, plannerOptions, &stats);
  if (!forced)
    return nullptr;
  stats.underBudget = true;
  std::unique_ptr<FunctionPlan> p =
      propagateForced(func, *forced, pytorchCost, stats);
  if (!p)
    return nullptr;
  MemoryPeak peak = computeMemoryPeak(func, *p);
  if (peak.bytes[peak.getWorstRank()] > options.maxBytesPerRank)
    return nullptr;
  return p;
}

FunctionPlan *FakeTensorAnalysis::analyze(FunctionOpInterface func) {
  auto it = plans.find(func);
  if (it != plans.end())
    return it->second.get();
  if (!inProgress.insert(func).second) {
    func.emitError() << "recursive call of '" << func.getName()
                     << "' is not supported";
    return nullptr;
  }
  auto plan = std::make_unique<FunctionPlan>();
  // The global plans' replays reuse what this propagation chose.
  std::optional<PropagationMemo> memo;
  if (options.strategy != StrategyMode::PyTorch)
    memo.emplace(func);
  FunctionPropagator propagator(*this, *plan, func, /*forced=*/nullptr,
                                memo ? &*memo : nullptr);
  // The global planner reads only the placements: the plan's lists and
  // costs are made beside it.
  propagator.deferCollect = memo.has_value();
  LogicalResult result = propagator.run();
  if (failed(result)) {
    inProgress.erase(func);
    ok = false;
    return nullptr;
  }
  bool global = memo && plan->getMesh();
  auto completePyTorch = [&, p = plan.get()] {
    if (propagator.deferCollect)
      propagator.collectPlan();
    // Costs read the planned steps (a redistribution through R has no cost
    // of its own in PyTorch's model).
    p->planRedistributions(/*minCost=*/false);
    // The global plan is compared with PyTorch's in its own prices: strided
    // steps as the collectives they run (PyTorch prices them at 0).
    if (global)
      p->stridedCost = StridedCost::Collective;
    p->pytorchCommCost = p->computeCommCost();
  };
  if (global) {
    memo->recording = false;
    memo->numTensors = plan->tensors.size();
    memo->numRequired = plan->required.size();
    plan = planGlobally(func, std::move(plan), *memo, completePyTorch);
  } else {
    completePyTorch();
  }
  if (options.maxBytesPerRank > 0 && plan->getMesh()) {
    FailureOr<std::unique_ptr<FunctionPlan>> fitted =
        fitBudget(func, std::move(plan), memo ? &*memo : nullptr);
    if (failed(fitted)) {
      inProgress.erase(func);
      ok = false;
      return nullptr;
    }
    plan = std::move(*fitted);
  }
  inProgress.erase(func);
  FunctionPlan *raw = plan.get();
  plans[func] = std::move(plan);
  functions.push_back(func);
  return raw;
}

void FakeTensorAnalysis::priceStridedStepsAsCollectives() {
  for (auto &entry : plans)
    entry.second->stridedCost = StridedCost::Collective;
}

const FunctionPlan *
FakeTensorAnalysis::getPlan(FunctionOpInterface func) const {
  auto it = plans.find(func);
  return it == plans.end() ? nullptr : it->second.get();
}

//===----------------------------------------------------------------------===//
// FakeTensorAnalysisCache
//===----------------------------------------------------------------------===//

FakeTensorAnalysisCache::FakeTensorAnalysisCache(Operation *op)
    : module(cast<ModuleOp>(op)) {}

const FakeTensorAnalysis &
FakeTensorAnalysisCache::get(const FakeTensorOptions &opts) {
  if (!analysis || !(options == opts)) {
    analysis.reset();
    analysis = std::make_unique<FakeTensorAnalysis>(module, opts);
    options = opts;
  }
  return *analysis;
}
