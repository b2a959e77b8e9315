//===- ShardingRuleUtils.cpp - shared math of sharding rules --------------===//

#include "dtensor/Dialect/DTensor/Extensions/ShardingRuleUtils.h"
#include "dtensor/Support/ShardingMath.h"

#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace dtensor {

int64_t DimMap::find(int64_t l) const {
  for (auto [i, x] : llvm::enumerate(dimToLoop))
    if (x == l)
      return i;
  return -1;
}

//===----------------------------------------------------------------------===//
// Classification of payloads
//===----------------------------------------------------------------------===//

Linearity classifyScalarOp(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp,
          arith::NegFOp, arith::ExtFOp, arith::TruncFOp, tosa::AddOp,
          tosa::SubOp, tosa::NegateOp>(op))
    return Linearity::Add;
  if (isa<arith::MulFOp, arith::MulIOp, tosa::MulOp, arith::DivFOp>(op))
    return Linearity::One;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp, arith::MaxUIOp,
          tosa::MaximumOp>(op))
    return Linearity::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp, arith::MinUIOp,
          tosa::MinimumOp>(op))
    return Linearity::Min;
  return Linearity::None;
}

static std::optional<ReduceOp> combinerOf(Linearity l) {
  switch (l) {
  case Linearity::Add:
    return ReduceOp::Sum;
  case Linearity::Max:
    return ReduceOp::Max;
  case Linearity::Min:
    return ReduceOp::Min;
  default:
    return std::nullopt;
  }
}

namespace {
/// Degree of a scalar value in the partial block arguments.
enum class Degree {
  Zero,  ///< a literal zero: linear and constant at once
  Fixed, ///< does not depend on the partial arguments
  Linear,
  Other, ///< neither
};
} // namespace

static bool isFixed(Degree d) {
  return d == Degree::Zero || d == Degree::Fixed;
}

/// Degree of a sum or difference, and of the two branches of a select.
static Degree joinDegrees(Degree a, Degree b) {
  if (a == Degree::Zero)
    return b;
  if (b == Degree::Zero || a == b)
    return a;
  return Degree::Other;
}

static Degree productDegree(Degree a, Degree b) {
  if (a == Degree::Zero || b == Degree::Zero)
    return Degree::Zero;
  if (a == Degree::Other || b == Degree::Other)
    return Degree::Other;
  if (a == Degree::Linear && b == Degree::Linear)
    return Degree::Other; // x * x, or a product of two partials
  return a == Degree::Linear || b == Degree::Linear ? Degree::Linear
                                                    : Degree::Fixed;
}

/// Degree of the result of the scalar op `op` given its operands' degrees.
static Degree opDegree(Operation *op, llvm::ArrayRef<Degree> in) {
  if (isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp>(op))
    return joinDegrees(in[0], in[1]);
  if (isa<arith::NegFOp, arith::ExtFOp, arith::TruncFOp, arith::TruncIOp>(op))
    return in[0];
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return productDegree(in[0], in[1]);
  if (isa<arith::DivFOp>(op))
    return in[1] == Degree::Fixed ? in[0] : Degree::Other;
  if (isa<arith::SelectOp>(op))
    return isFixed(in[0]) ? joinDegrees(in[1], in[2]) : Degree::Other;
  if (llvm::all_of(in, isFixed))
    return Degree::Fixed;
  return Degree::Other;
}

bool isLinearIn(Block &body, const llvm::SmallBitVector &partial) {
  llvm::DenseMap<Value, Degree> degree;
  auto degreeOf = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &body)
      return partial.test(arg.getArgNumber()) ? Degree::Linear : Degree::Fixed;
    auto it = degree.find(v);
    // Values from above the body are fixed.
    return it == degree.end() ? Degree::Fixed : it->second;
  };
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() != 0 || op.getNumResults() != 1)
      return false;
    Degree d;
    if (matchPattern(op.getResult(0), m_AnyZeroFloat()) ||
        matchPattern(op.getResult(0), m_Zero()))
      d = Degree::Zero;
    else
      d = opDegree(&op, llvm::map_to_vector(op.getOperands(), degreeOf));
    degree[op.getResult(0)] = d;
  }
  return llvm::all_of(body.getTerminator()->getOperands(), [&](Value v) {
    Degree d = degreeOf(v);
    return d == Degree::Linear || d == Degree::Zero;
  });
}

/// How partials pass through a linalg payload with `numInputs` inputs
/// (sets `linearIn` for `Linearity::One`). Destination arguments count as
/// partial: a partial result's destination is partial too.
static Linearity classifyPayload(Block &body, int64_t numInputs,
                                 llvm::SmallVectorImpl<bool> &linearIn) {
  int64_t numArgs = body.getNumArguments();
  llvm::SmallBitVector all(numArgs, true);
  if (isLinearIn(body, all))
    return Linearity::Add;
  bool any = false;
  linearIn.assign(numArgs, false);
  for (int64_t i = 0; i < numInputs; ++i) {
    llvm::SmallBitVector one(numArgs, false);
    one.set(numInputs, numArgs);
    one.set(i);
    linearIn[i] = isLinearIn(body, one);
    any |= linearIn[i];
  }
  if (any)
    return Linearity::One;
  // max/min of arguments keep P(max)/P(min).
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield->getNumOperands() != 1)
    return Linearity::None;
  Operation *def = yield->getOperand(0).getDefiningOp();
  if (!def || def->getBlock() != &body ||
      !llvm::all_of(def->getOperands(),
                    [&](Value x) { return isa<BlockArgument>(x); }))
    return Linearity::None;
  Linearity l = classifyScalarOp(def);
  return l == Linearity::Max || l == Linearity::Min ? l : Linearity::None;
}

/// The reduction combiner of a linalg payload: the op producing the yielded
/// value must combine the accumulator block argument `acc` directly.
static std::optional<ReduceOp> classifyCombiner(Block &body, Value acc) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield->getNumOperands() != 1)
    return std::nullopt;
  Operation *def = yield->getOperand(0).getDefiningOp();
  if (!def || def->getNumOperands() != 2 ||
      !llvm::is_contained(def->getOperands(), acc))
    return std::nullopt;
  if (isa<arith::SubFOp, arith::SubIOp>(def))
    return std::nullopt;
  return combinerOf(classifyScalarOp(def));
}

//===----------------------------------------------------------------------===//
// Building loop spaces
//===----------------------------------------------------------------------===//

static std::optional<DimMap> mapFromAffine(AffineMap map, Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return std::nullopt;
  DimMap m;
  m.shape = type.getShape();
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      m.dimToLoop.push_back(d.getPosition());
    else
      m.dimToLoop.push_back(-1);
  }
  return m;
}

/// Loop space of a linalg op whose maps are all projected permutations (with
/// constant results allowed for broadcast dims). Fails otherwise, e.g. for
/// convolutions.
FailureOr<LoopSpace> buildLinalgSpace(linalg::LinalgOp op) {
  LoopSpace space;
  space.numLoops = op.getNumLoops();
  for (utils::IteratorType it : op.getIteratorTypesArray())
    space.isReduction.push_back(it == utils::IteratorType::reduction);
  // Maps are rebuilt by named ops on every query: fetch them once. Structured
  // ops list their inputs, then their inits.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t numInputs = op.getNumDpsInputs();
  if (static_cast<int64_t>(maps.size()) != op->getNumOperands())
    return failure();
  for (OpOperand &operand : op->getOpOperands()) {
    int64_t idx = operand.getOperandNumber();
    AffineMap map = maps[idx];
    for (AffineExpr e : map.getResults())
      if (!isa<AffineDimExpr>(e) && !isa<AffineConstantExpr>(e))
        return failure();
    space.operands.push_back(mapFromAffine(map, operand.get()));
    bool init = idx >= numInputs;
    space.isInit.push_back(init);
    space.initResult.push_back(init ? idx - numInputs : -1);
    if (init && op.payloadUsesValueFromOperand(&operand))
      space.readsInits = true;
  }
  for (OpResult r : op->getResults()) {
    std::optional<DimMap> m =
        mapFromAffine(maps[numInputs + r.getResultNumber()], r);
    if (!m)
      return failure();
    space.results.push_back(*m);
  }
  Block *body = op.getBlock();
  if (body) {
    space.linearity = classifyPayload(*body, numInputs, space.linearIn);
    if (op.getNumDpsInits() == 1 && llvm::is_contained(space.isReduction, true))
      space.combiner = classifyCombiner(*body, body->getArgument(numInputs));
  }
  return space;
}

/// Loop space of an elementwise op with numpy broadcasting (arith/math on
/// tensors of one shape, tosa with size-1 broadcast dims).
FailureOr<LoopSpace> buildElementwiseSpace(Operation *op) {
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType)
    return failure();
  for (Value r : op->getResults())
    if (cast<RankedTensorType>(r.getType()).getShape() != resultType.getShape())
      return failure();
  LoopSpace space;
  int64_t rank = resultType.getRank();
  space.numLoops = rank;
  space.isReduction.assign(rank, false);
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    space.isInit.push_back(false);
    space.initResult.push_back(-1);
    if (!type) {
      space.operands.push_back(std::nullopt);
      continue;
    }
    if (type.getRank() > rank)
      return failure();
    DimMap m;
    m.shape = type.getShape();
    int64_t offset = rank - type.getRank();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t loop = d + offset;
      if (type.getDimSize(d) == resultType.getDimSize(loop))
        m.dimToLoop.push_back(loop);
      else if (type.getDimSize(d) == 1)
        m.dimToLoop.push_back(-1);
      else
        return failure();
    }
    space.operands.push_back(m);
  }
  for (Value r : op->getResults()) {
    DimMap m;
    m.shape = cast<RankedTensorType>(r.getType()).getShape();
    for (int64_t d = 0; d < rank; ++d)
      m.dimToLoop.push_back(d);
    space.results.push_back(m);
  }
  space.linearity = classifyScalarOp(op);
  if (space.linearity == Linearity::One) {
    // A product is linear in either factor, a quotient in its numerator;
    // other operands (tosa.mul's shift) are never the partial one.
    space.linearIn.assign(op->getNumOperands(), false);
    space.linearIn[0] = true;
    if (!isa<arith::DivFOp>(op))
      space.linearIn[1] = true;
  }
  return space;
}

//===----------------------------------------------------------------------===//
// Loop-space rules
//===----------------------------------------------------------------------===//

/// Placement of a tensor indexed by `m` when mesh axis shards loop `l`
/// (strided with `splitFactor` groups if it is not 0).
static Placement shardLoop(const DimMap &m, int64_t l, int64_t splitFactor) {
  int64_t pos = m.find(l);
  if (pos < 0)
    return Placement::replicate();
  auto d = static_cast<int32_t>(pos);
  return splitFactor ? Placement::stridedShard(d, splitFactor)
                     : Placement::shard(d);
}

namespace {
/// Per-axis assignment of a candidate: a loop to shard, R, or P(op).
struct AxisChoice {
  enum Kind { Replicate, Loop, Partial } kind = Replicate;
  int64_t loop = -1;
  ReduceOp reduce = ReduceOp::Sum;
  /// For `Partial`: the one input that stays partial (mul-like ops), or -1
  /// when the caller decides.
  int64_t partialOperand = -1;
  /// For `Loop`: the split factor of a strided shard (`_S`), 0 for `S`.
  int64_t splitFactor = 0;
};
} // namespace

/// Builds the candidate that assigns `choices[a]` to mesh axis `a`.
/// `partialInputs` says which inputs take a partial placement when an axis is
/// `Partial` in a pointwise op (others are replicated).
static ShardingCandidate buildCandidate(
    const LoopSpace &space, llvm::ArrayRef<AxisChoice> choices,
    llvm::function_ref<bool(int64_t operand, int64_t axis)> partialInput) {
  ShardingCandidate c;
  for (auto [i, m] : llvm::enumerate(space.operands)) {
    Placements ps;
    if (m) {
      for (auto [axis, ch] : llvm::enumerate(choices)) {
        switch (ch.kind) {
        case AxisChoice::Replicate:
          ps.push_back(Placement::replicate());
          break;
        case AxisChoice::Loop:
          if (space.isInit[i] && space.isReduction[ch.loop])
            ps.push_back(Placement::partial(ch.reduce));
          else
            ps.push_back(shardLoop(*m, ch.loop, ch.splitFactor));
          break;
        case AxisChoice::Partial:
          ps.push_back(space.isInit[i] || partialInput(i, axis)
                           ? Placement::partial(ch.reduce)
                           : Placement::replicate());
          break;
        }
      }
    }
    c.operands.push_back(ps);
    c.excludedFromCost.push_back(space.isInit[i]);
  }
  for (const DimMap &m : space.results) {
    Placements ps;
    for (const AxisChoice &ch : choices) {
      if (ch.kind == AxisChoice::Replicate)
        ps.push_back(Placement::replicate());
      else if (ch.kind == AxisChoice::Partial || space.isReduction[ch.loop])
        ps.push_back(Placement::partial(ch.reduce));
      else
        ps.push_back(shardLoop(m, ch.loop, ch.splitFactor));
    }
    c.results.push_back(ps);
  }
  return c;
}

/// Pointwise rule of PyTorch 2.15 (`_common_pointwise_single_dim_strategy`
/// expanded over the mesh): per axis R, a shard of each result dim (inputs
/// follow through broadcasting), and the partials the payload's linearity
/// lets through; the cheapest combination wins. Relu of [S(0), P(sum)] on
/// 2x2 becomes [S(0), S(0)] by a reduce-scatter.
static void pointwiseCandidates(const LoopSpace &space,
                                llvm::ArrayRef<int64_t> mesh,
                                llvm::ArrayRef<Placements> current,
                                llvm::SmallVectorImpl<ShardingCandidate> &out);

/// Reduction rule for one input: follow it; a sharded reduction loop makes the
/// result partial with the combiner, or is gathered if there is none.
static ShardingCandidate reductionCandidate(const LoopSpace &space,
                                            llvm::ArrayRef<int64_t> mesh,
                                            llvm::ArrayRef<Placements> current,
                                            int64_t input) {
  llvm::SmallVector<AxisChoice, 2> choices(mesh.size());
  const DimMap &im = *space.operands[input];
  for (auto [axis, p] : llvm::enumerate(current[input])) {
    AxisChoice &ch = choices[axis];
    if (p.isShardLike()) {
      int64_t loop = im.loopDim(p.getDim());
      if (loop < 0)
        continue;
      if (space.isReduction[loop] && !space.combiner)
        continue;
      ch.kind = AxisChoice::Loop;
      ch.loop = loop;
      ch.splitFactor = p.isStridedShard() ? p.getSplitFactor() : 0;
      if (space.isReduction[loop])
        ch.reduce = *space.combiner;
    } else if (p.isPartial() && space.combiner == ReduceOp::Sum &&
               space.linearity == Linearity::Add &&
               (p.getReduceOp() == ReduceOp::Sum ||
                p.getReduceOp() == ReduceOp::Avg)) {
      ch.kind = AxisChoice::Partial;
      ch.reduce = p.getReduceOp();
    }
  }
  return buildCandidate(space, choices,
                        [&](int64_t i, int64_t) { return i == input; });
}

namespace {
/// Which assignments `expandOverMesh` keeps.
enum class Expansion {
  /// Those whose operands and results are all shardable
  /// (`is_tensor_shardable`) and that make no P(avg).
  Shardable,
  /// Only the others: a dim with fewer elements than its shards, or a
  /// P(avg) option.
  Extra,
};
} // namespace

namespace {
/// PyTorch's view of an expansion (`expand_to_full_mesh_op_strategy` with
/// `_fill_single_dim_strategy_placeholders`), for the candidates of one op
/// given its inputs' placements.
struct PyTorchExpansion {
  llvm::ArrayRef<Placements> current;
  /// `allow_uneven_sharding` (pointwise ops): an input that already holds
  /// the candidate's placements is accepted even if not shardable.
  bool allowUneven = false;
};
} // namespace

/// True if some placements of `current` are P(`op`).
static bool hasPartial(llvm::ArrayRef<Placements> current, ReduceOp op) {
  return llvm::any_of(current, [&](const Placements &ps) {
    return llvm::any_of(
        ps, [&](Placement p) { return p.isPartial() && p.getReduceOp() == op; });
  });
}

/// True if some tensor input (not a destination) holds a shard.
static bool hasShardedInput(const LoopSpace &space,
                            llvm::ArrayRef<Placements> current) {
  for (auto [i, m] : llvm::enumerate(space.operands))
    if (m && !space.isInit[i] && i < current.size() &&
        llvm::any_of(current[i], [](Placement p) { return p.isShardLike(); }))
      return true;
  return false;
}

/// PyTorch's shard builders (`_fill_single_dim_strategy_placeholders`): the
/// kinds of shard the tensor inputs hold, 0 for `S` (first, if any) and the
/// split factor of each `_S`.
static llvm::SmallVector<int64_t, 2>
getShardBuilders(const LoopSpace &space, llvm::ArrayRef<Placements> current) {
  llvm::SmallVector<int64_t, 2> builders;
  bool plain = false;
  for (auto [i, m] : llvm::enumerate(space.operands)) {
    if (!m || space.isInit[i] || i >= current.size())
      continue;
    for (Placement p : current[i]) {
      plain |= p.isShard();
      if (p.isStridedShard() && !llvm::is_contained(builders, p.getSplitFactor()))
        builders.push_back(p.getSplitFactor());
    }
  }
  llvm::sort(builders);
  if (plain)
    builders.insert(builders.begin(), 0);
  return builders;
}

/// `options` with every loop option once per shard builder, in builder
/// order after the options before it (a placeholder strategy expands in
/// place).
static llvm::SmallVector<AxisChoice>
expandShardBuilders(llvm::ArrayRef<AxisChoice> options,
                    llvm::ArrayRef<int64_t> builders) {
  llvm::SmallVector<AxisChoice> out;
  for (const AxisChoice &o : options) {
    if (o.kind != AxisChoice::Loop) {
      out.push_back(o);
      continue;
    }
    for (int64_t sf : builders) {
      AxisChoice c = o;
      c.splitFactor = sf;
      out.push_back(c);
    }
  }
  return out;
}

/// Whether candidate `c` passes the shardability filter: PyTorch's (`pt`:
/// the inputs only, uneven ones where allowed) or the planner's (every
/// operand and result).
static bool isShardableCandidate(const LoopSpace &space,
                                 llvm::ArrayRef<int64_t> mesh,
                                 const ShardingCandidate &c,
                                 const PyTorchExpansion *pt) {
  for (auto [i, m] : llvm::enumerate(space.operands)) {
    if (!m || (pt && space.isInit[i]) ||
        isShardable(m->shape, mesh, c.operands[i]))
      continue;
    if (!pt || !pt->allowUneven || pt->current[i] != c.operands[i])
      return false;
  }
  if (!pt)
    for (auto [i, m] : llvm::enumerate(space.results))
      if (!isShardable(m.shape, mesh, c.results[i]))
        return false;
  return true;
}

/// Appends the candidate of every assignment of one of `options` to each
/// mesh axis (first axis varying slowest, itertools.product) that `keep`
/// asks for. With `pt`, PyTorch's filter: shards only where some input is
/// sharded (its placeholders expand to the shard types the inputs use).
static void expandOverMesh(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                           llvm::ArrayRef<AxisChoice> baseOptions,
                           llvm::SmallVectorImpl<ShardingCandidate> &out,
                           Expansion keep = Expansion::Shardable,
                           const PyTorchExpansion *pt = nullptr) {
  llvm::SmallVector<AxisChoice, 2> choices(mesh.size());
  bool shardOptions = !pt || hasShardedInput(space, pt->current);
  llvm::SmallVector<AxisChoice> expanded;
  if (pt && shardOptions)
    expanded =
        expandShardBuilders(baseOptions, getShardBuilders(space, pt->current));
  llvm::ArrayRef<AxisChoice> options =
      pt && shardOptions ? llvm::ArrayRef<AxisChoice>(expanded) : baseOptions;
  forEachAxisAssignment(
      mesh.size(), options.size(), [&](llvm::ArrayRef<int64_t> idx) {
        for (auto [a, i] : llvm::enumerate(idx))
          choices[a] = options[i];
        if (!shardOptions && llvm::any_of(choices, [](const AxisChoice &ch) {
              return ch.kind == AxisChoice::Loop;
            }))
          return;
        ShardingCandidate c =
            buildCandidate(space, choices, [&](int64_t i, int64_t axis) {
              int64_t only = choices[axis].partialOperand;
              return only < 0 || only == i;
            });
        bool shardable = isShardableCandidate(space, mesh, c, pt);
        bool avg = llvm::any_of(choices, [](const AxisChoice &ch) {
          return ch.kind == AxisChoice::Partial && ch.reduce == ReduceOp::Avg;
        });
        // PyTorch's own expansion has the P(avg) rules; the planner's
        // leaves them to pins.
        if ((keep == Expansion::Shardable) != (shardable && (pt || !avg)))
          return;
        out.push_back(std::move(c));
      });
}

/// Operand numbers of the tensor inputs (not destinations) of `space`.
static llvm::SmallVector<int64_t> getTensorInputs(const LoopSpace &space) {
  llvm::SmallVector<int64_t> inputs;
  for (auto [i, m] : llvm::enumerate(space.operands))
    if (m && !space.isInit[i])
      inputs.push_back(i);
  return inputs;
}

/// Einsum rule: all-replicate first, then per axis batch loops, contracting
/// loops and free loops (in the order of the first input using them),
/// expanded over the mesh axes (first axis varies slowest).
void einsumCandidates(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                      llvm::ArrayRef<Placements> current,
                      llvm::SmallVectorImpl<ShardingCandidate> &out) {
  llvm::SmallVector<int64_t> inputs = getTensorInputs(space);
  auto usedByAllInputs = [&](int64_t l) {
    return llvm::all_of(
        inputs, [&](int64_t i) { return space.operands[i]->find(l) >= 0; });
  };
  const DimMap &res = space.results.front();
  llvm::SmallVector<AxisChoice> options;
  options.push_back(AxisChoice());
  for (int64_t l = 0; l < space.numLoops; ++l)
    if (!space.isReduction[l] && usedByAllInputs(l) && res.find(l) >= 0)
      options.push_back({AxisChoice::Loop, l, ReduceOp::Sum});
  if (space.combiner)
    for (int64_t l = 0; l < space.numLoops; ++l)
      if (space.isReduction[l])
        options.push_back({AxisChoice::Loop, l, *space.combiner});
  llvm::SmallVector<bool> taken(space.numLoops, false);
  for (const AxisChoice &o : options)
    if (o.kind == AxisChoice::Loop)
      taken[o.loop] = true;
  for (int64_t i : inputs)
    for (int64_t l : space.operands[i]->dimToLoop)
      if (l >= 0 && !taken[l] && !space.isReduction[l] && res.find(l) >= 0) {
        taken[l] = true;
        options.push_back({AxisChoice::Loop, l, ReduceOp::Sum});
      }
  // Loops indexed only by the result (e.g. broadcast outputs).
  for (int64_t l = 0; l < space.numLoops; ++l)
    if (!taken[l] && !space.isReduction[l] && res.find(l) >= 0)
      options.push_back({AxisChoice::Loop, l, ReduceOp::Sum});
  // Linearity (PyTorch 2.15 `gen_single_dim_einsum_strategies`): a
  // contraction is linear in each input alone, so one P(sum) input with the
  // others replicated gives a P(sum) result: mm(P(sum), S(1)) may keep the
  // partial and gather the weight.
  // P(avg) likewise, where an input carries it.
  llvm::SmallVector<ReduceOp, 2> linear{ReduceOp::Sum};
  if (hasPartial(current, ReduceOp::Avg))
    linear.push_back(ReduceOp::Avg);
  if (space.linearity == Linearity::One && space.combiner == ReduceOp::Sum)
    for (ReduceOp r : linear)
      for (int64_t i : inputs)
        if (space.linearIn[i])
          options.push_back({AxisChoice::Partial, -1, r, i});

  PyTorchExpansion pt{current, /*allowUneven=*/false};
  expandOverMesh(space, mesh, options, out, Expansion::Shardable, &pt);
}

void loopSpaceCandidates(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                         llvm::ArrayRef<Placements> current,
                         llvm::SmallVectorImpl<ShardingCandidate> &out) {
  bool hasReduction = llvm::is_contained(space.isReduction, true);
  llvm::SmallVector<int64_t> inputs = getTensorInputs(space);
  if (!hasReduction) {
    pointwiseCandidates(space, mesh, current, out);
    return;
  }
  if (inputs.size() == 1) {
    out.push_back(reductionCandidate(space, mesh, current, inputs.front()));
    return;
  }
  einsumCandidates(space, mesh, current, out);
}

//===----------------------------------------------------------------------===//
// Structural rules
//===----------------------------------------------------------------------===//

/// Candidate with every tensor operand and result replicated.
ShardingCandidate replicatedCandidate(Operation *op, size_t meshRank) {
  ShardingCandidate c;
  Placements r(meshRank, Placement::replicate());
  for (Value v : op->getOperands()) {
    c.operands.push_back(isa<RankedTensorType>(v.getType()) ? r : Placements());
    c.excludedFromCost.push_back(false);
  }
  for (Value v : op->getResults())
    c.results.push_back(isa<RankedTensorType>(v.getType()) ? r : Placements());
  return c;
}

/// Maps placements of a source through a dim mapping (`srcToDst[d]` or -1
/// meaning the shard cannot survive). Partials survive if `keepPartial`.
/// Returns the source target and the destination placements.
std::pair<Placements, Placements>
mapPlacements(llvm::ArrayRef<Placement> src,
              llvm::function_ref<int64_t(int64_t axis, int64_t dim)> srcToDst,
              bool keepPartial) {
  Placements target, dst;
  for (auto [axis, p] : llvm::enumerate(src)) {
    if (p.isShard()) {
      int64_t d = srcToDst(axis, p.getDim());
      if (d >= 0) {
        target.push_back(p);
        dst.push_back(Placement::shard(static_cast<int32_t>(d)));
        continue;
      }
    } else if (p.isPartial() && keepPartial) {
      target.push_back(p);
      dst.push_back(p);
      continue;
    }
    target.push_back(Placement::replicate());
    dst.push_back(Placement::replicate());
  }
  return {target, dst};
}

/// Number of shards applied to dim `d` by axes 0..axis.
int64_t shardsOnDimUpTo(llvm::ArrayRef<int64_t> mesh,
                        llvm::ArrayRef<Placement> ps, int64_t d, int64_t axis) {
  int64_t n = 1;
  for (int64_t a = 0; a <= axis; ++a)
    if (ps[a].isShard(d))
      n *= mesh[a];
  return n;
}

ShardingCandidate unaryCandidate(Operation *op,
                                 const std::pair<Placements, Placements> &m) {
  ShardingCandidate c;
  for (Value v : op->getOperands()) {
    c.operands.push_back(v == op->getOperand(0) ? m.first : Placements());
    c.excludedFromCost.push_back(false);
  }
  c.results.push_back(m.second);
  return c;
}

/// True if a slice covers source dim `d` completely.
bool coversDim(OffsetSizeAndStrideOpInterface op, int64_t d, int64_t dimSize) {
  std::optional<int64_t> off = getConstantIntValue(op.getMixedOffsets()[d]);
  std::optional<int64_t> size = getConstantIntValue(op.getMixedSizes()[d]);
  std::optional<int64_t> stride = getConstantIntValue(op.getMixedStrides()[d]);
  return off == 0 && size == dimSize && stride == 1;
}

void exceptDimCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                         llvm::ArrayRef<Placements> current,
                         llvm::function_ref<bool(int64_t)> blocked,
                         unsigned numInputs,
                         llvm::SmallVectorImpl<ShardingCandidate> &out) {
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  bool sharded = false;
  llvm::SmallVector<int64_t, 2> splitFactors;
  for (unsigned i = 0; i < numInputs && i < current.size(); ++i)
    for (Placement p : current[i]) {
      sharded |= p.isShard();
      if (p.isStridedShard() &&
          !llvm::is_contained(splitFactors, p.getSplitFactor()))
        splitFactors.push_back(p.getSplitFactor());
    }
  llvm::sort(splitFactors);
  // The shard kinds the inputs hold, as PyTorch's placeholders expand.
  llvm::SmallVector<Placement> options{Placement::replicate()};
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (blocked(d))
      continue;
    auto dim = static_cast<int32_t>(d);
    if (sharded)
      options.push_back(Placement::shard(dim));
    for (int64_t sf : splitFactors)
      options.push_back(Placement::stridedShard(dim, sf));
  }
  forEachAxisAssignment(
      mesh.size(), options.size(), [&](llvm::ArrayRef<int64_t> idx) {
        Placements ps;
        for (int64_t i : idx)
          ps.push_back(options[i]);
        ShardingCandidate c;
        for (auto [i, v] : llvm::enumerate(op->getOperands())) {
          bool tensor = isa<RankedTensorType>(v.getType());
          bool input = i < numInputs;
          if (tensor && input && ps != current[i] &&
              !isShardable(cast<RankedTensorType>(v.getType()).getShape(),
                           mesh, ps))
            return;
          c.operands.push_back(tensor ? ps : Placements());
          c.excludedFromCost.push_back(!input);
        }
        for (Value v : op->getResults())
          c.results.push_back(isa<RankedTensorType>(v.getType()) ? ps
                                                                 : Placements());
        out.push_back(std::move(c));
      });
}

ShardingCandidate
followWithBlockedDims(Operation *op, llvm::ArrayRef<int64_t> mesh,
                      llvm::ArrayRef<Placements> current,
                      llvm::function_ref<bool(int64_t)> blocked,
                      unsigned numFollowable) {
  int64_t best = -1, bestShards = -1;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    if (i >= numFollowable || !isa<RankedTensorType>(v.getType()))
      continue;
    int64_t s = numShards(mesh, current[i]);
    if (s > bestShards) {
      best = i;
      bestShards = s;
    }
  }
  Placements ps(mesh.size(), Placement::replicate());
  if (best >= 0)
    for (auto [axis, p] : llvm::enumerate(current[best]))
      if (p.isShard() && !blocked(p.getDim()))
        ps[axis] = p;
  ShardingCandidate c;
  for (Value v : op->getOperands()) {
    c.operands.push_back(isa<RankedTensorType>(v.getType()) ? ps
                                                            : Placements());
    c.excludedFromCost.push_back(false);
  }
  for (Value v : op->getResults())
    c.results.push_back(isa<RankedTensorType>(v.getType()) ? ps : Placements());
  return c;
}

//===----------------------------------------------------------------------===//
// Exhaustive candidates (whole-function planning)
//===----------------------------------------------------------------------===//

/// The per-axis options of every strategy of a loop-space op: replicate,
/// shard one loop (a reduction loop gives a partial with the combiner), or
/// pass partial inputs through a linear payload. With `avg`, every option
/// that passes P(sum) through comes once more with P(avg).
static llvm::SmallVector<AxisChoice> exhaustiveOptions(const LoopSpace &space,
                                                       bool avg) {
  llvm::SmallVector<int64_t> inputs = getTensorInputs(space);
  const DimMap &res = space.results.front();
  llvm::SmallVector<AxisChoice> options;
  options.push_back(AxisChoice());
  for (int64_t l = 0; l < space.numLoops; ++l) {
    if (space.isReduction[l]) {
      if (space.combiner)
        options.push_back({AxisChoice::Loop, l, *space.combiner, -1});
    } else if (res.find(l) >= 0) {
      options.push_back({AxisChoice::Loop, l, ReduceOp::Sum, -1});
    }
  }
  llvm::SmallVector<ReduceOp, 2> additive{ReduceOp::Sum};
  if (avg)
    additive.push_back(ReduceOp::Avg);
  // How partial inputs pass through: by the payload's linearity in its
  // inputs. A pointwise payload must not read its inits (they are not
  // classified); a sum reduction reads its init only to add to it, and the
  // init becomes partial with the inputs (`buildCandidate`): sum(x) of
  // P(sum) x, or matmul with one P(sum) input, stays P(sum) as PyTorch has
  // it.
  bool pointwise = !llvm::is_contained(space.isReduction, true);
  Linearity linearity = Linearity::None;
  if (pointwise && !space.readsInits)
    linearity = space.linearity;
  else if (!pointwise && space.combiner == ReduceOp::Sum &&
           (space.linearity == Linearity::Add ||
            space.linearity == Linearity::One))
    linearity = space.linearity;
  switch (linearity) {
  case Linearity::Add:
    for (ReduceOp r : additive)
      options.push_back({AxisChoice::Partial, -1, r, -1});
    break;
  case Linearity::One:
    for (ReduceOp r : additive)
      for (int64_t i : inputs)
        if (space.linearIn[i])
          options.push_back({AxisChoice::Partial, -1, r, i});
    break;
  case Linearity::Max:
    options.push_back({AxisChoice::Partial, -1, ReduceOp::Max, -1});
    break;
  case Linearity::Min:
    options.push_back({AxisChoice::Partial, -1, ReduceOp::Min, -1});
    break;
  case Linearity::None:
    break;
  }
  return options;
}

/// Every strategy of a loop-space op: the exhaustive options expanded over
/// the mesh axes, shardable ones only.
void enumerateLoopSpace(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                        llvm::SmallVectorImpl<ShardingCandidate> &out) {
  expandOverMesh(space, mesh, exhaustiveOptions(space, /*avg=*/false), out);
}

void enumeratePinnableLoopSpace(const LoopSpace &space,
                                llvm::ArrayRef<int64_t> mesh,
                                llvm::ArrayRef<Placements> current,
                                llvm::SmallVectorImpl<ShardingCandidate> &out) {
  enumerateLoopSpace(space, mesh, out);
  // P(avg) reaches the op only on an operand that carries it.
  bool avg = llvm::any_of(current, [](const Placements &ps) {
    return llvm::any_of(ps, [](Placement p) {
      return p.isPartial() && p.getReduceOp() == ReduceOp::Avg;
    });
  });
  expandOverMesh(space, mesh, exhaustiveOptions(space, avg), out,
                 Expansion::Extra);
}

ShardingCandidate creationCandidate(const LoopSpace &space,
                                    llvm::ArrayRef<int64_t> mesh,
                                    llvm::ArrayRef<Placement> result) {
  llvm::SmallVector<AxisChoice, 2> choices(mesh.size());
  for (auto [axis, p] : llvm::enumerate(result)) {
    if (p.isShardLike()) {
      choices[axis].kind = AxisChoice::Loop;
      choices[axis].loop = space.results.front().loopDim(p.getDim());
      choices[axis].splitFactor = p.isStridedShard() ? p.getSplitFactor() : 0;
    } else if (p.isPartial()) {
      choices[axis].kind = AxisChoice::Partial;
      choices[axis].reduce = p.getReduceOp();
    }
  }
  return buildCandidate(space, choices, [](int64_t, int64_t) { return false; });
}

/// True if the pointwise rule applies to `op` at all.
/// The loop space of an elementwise op with results and no regions.
static FailureOr<LoopSpace> getPointwiseSpace(Operation *op) {
  if (op->getNumResults() == 0 || op->getNumRegions() != 0)
    return failure();
  return buildElementwiseSpace(op);
}

static void pointwiseCandidates(const LoopSpace &space,
                                llvm::ArrayRef<int64_t> mesh,
                                llvm::ArrayRef<Placements> current,
                                llvm::SmallVectorImpl<ShardingCandidate> &out) {
  PyTorchExpansion pt{current, /*allowUneven=*/true};
  expandOverMesh(space, mesh,
                 exhaustiveOptions(space, hasPartial(current, ReduceOp::Avg)),
                 out, Expansion::Shardable, &pt);
}

LogicalResult
elementwiseCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                      llvm::ArrayRef<Placements> current,
                      llvm::SmallVectorImpl<ShardingCandidate> &out) {
  FailureOr<LoopSpace> space = getPointwiseSpace(op);
  if (failed(space))
    return failure();
  pointwiseCandidates(*space, mesh, current, out);
  return success();
}

LogicalResult
allElementwiseCandidates(Operation *op, llvm::ArrayRef<int64_t> mesh,
                         llvm::SmallVectorImpl<ShardingCandidate> &out) {
  FailureOr<LoopSpace> space = getPointwiseSpace(op);
  if (failed(space))
    return failure();
  enumerateLoopSpace(*space, mesh, out);
  return success();
}

LogicalResult allPinnableElementwiseCandidates(
    Operation *op, llvm::ArrayRef<int64_t> mesh,
    llvm::ArrayRef<Placements> current,
    llvm::SmallVectorImpl<ShardingCandidate> &out) {
  FailureOr<LoopSpace> space = getPointwiseSpace(op);
  if (failed(space))
    return failure();
  enumeratePinnableLoopSpace(*space, mesh, current, out);
  return success();
}

LogicalResult localizeCreation(Operation *op, PartitionContext &ctx) {
  if (!isCreationOp(op) || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType())) {
    ctx.localizeResultTypes(op);
    return success();
  }
  const FakeTensor *t = ctx.lookup(op->getResult(0));
  if (!t)
    return success();
  llvm::ArrayRef<Placement> ps = t->placements;
  bool replicated = llvm::all_of(
      ps, [](Placement p) { return p.isReplicate() || p.isPartial(); });
  if (replicated) {
    op->removeAttr(DTensorDialect::kSpecsAttrName);
    return success();
  }
  OpBuilder &b = ctx.getBuilder();
  Location loc = op->getLoc();
  auto global = cast<RankedTensorType>(op->getResult(0).getType());
  RankedTensorType local = ctx.getLocalType(global, ps);
  b.setInsertionPoint(op);
  SmallVector<OpFoldResult> sizes = ctx.getLocalSizes(loc, global, ps);
  auto dynamicSizes = [&]() {
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < local.getRank(); ++d)
      if (local.isDynamicDim(d))
        dyn.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
    return dyn;
  };
  Value repl;
  DenseElementsAttr dense;
  if (isa<tensor::EmptyOp>(op)) {
    repl = tensor::EmptyOp::create(b, loc, local.getShape(),
                                   local.getElementType(), dynamicSizes());
  } else if (auto splat = dyn_cast<tensor::SplatOp>(op)) {
    repl = tensor::SplatOp::create(b, loc, local, splat.getInput(),
                                   dynamicSizes());
  } else if (matchPattern(op->getResult(0), m_Constant(&dense)) &&
             dense.isSplat()) {
    if (local.hasStaticShape()) {
      repl = arith::ConstantOp::create(b, loc, local, dense.resizeSplat(local));
    } else {
      Value init = tensor::EmptyOp::create(
          b, loc, local.getShape(), local.getElementType(), dynamicSizes());
      Value scalar = arith::ConstantOp::create(
          b, loc, local.getElementType(),
          cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      repl = linalg::FillOp::create(b, loc, scalar, init).getResult(0);
    }
  } else {
    // A non-splat created value: every rank builds it whole and keeps its
    // own part.
    if (llvm::any_of(ps, [](Placement p) { return p.isStridedShard(); }))
      return op->emitOpError()
             << "creates a non-splat value with strided placements "
             << placementsToString(ps)
             << ", which partitioning does not support";
    b.setInsertionPointAfter(op);
    SmallVector<OpFoldResult> offsets, strides;
    for (int64_t d = 0; d < global.getRank(); ++d) {
      offsets.push_back(ctx.getExtent(loc, global.getDimSize(d), ps, d).offset);
      strides.push_back(b.getIndexAttr(1));
    }
    auto slice = tensor::ExtractSliceOp::create(b, loc, local, op->getResult(0),
                                                offsets, sizes, strides);
    ctx.replace(op->getResult(0), slice, /*except=*/slice);
    op->removeAttr(DTensorDialect::kSpecsAttrName);
    return success();
  }
  ctx.replace(op->getResult(0), repl);
  op->erase();
  return success();
}

} // namespace dtensor
} // namespace mlir
