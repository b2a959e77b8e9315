//===- ShardingRules.cpp - per-op sharding strategies ---------------------===//
//
// Most ops are described in a "loop space": every operand and result dim maps
// to a loop (linalg indexing maps, or numpy broadcasting for elementwise ops).
// Three rules work on that description, as in PyTorch DTensor:
//   - pointwise: one candidate that follows the input with the most shards;
//   - reduction (one input): follow the input, a sharded reduction loop makes
//     the result partial with the region's combiner;
//   - contraction (einsum): all-replicate, then per mesh axis one candidate per
//     batch, contracting and free loop, expanded over the mesh axes.
// Reshapes, slices, concatenation, padding and softmax have their own rules.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Analysis/ShardingRules.h"
#include "dtensor/Support/ShardingMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::dtensor;

namespace {

/// How partial values may pass through a pointwise computation.
enum class Linearity {
  None, ///< partial inputs must be reduced first
  Add,  ///< add/sub/neg/copy: P(sum|avg) on every input, R inputs divided
  Mul,  ///< mul: one P(sum|avg) input, the others replicated
  Div,  ///< div: like Mul but only the numerator may be partial
  Max,  ///< max: P(max) on every input
  Min,  ///< min: P(min) on every input
};

/// Operand or result dims mapped to loops; -1 for a broadcast dim.
struct DimMap {
  llvm::SmallVector<int64_t, 4> dimToLoop;
  llvm::ArrayRef<int64_t> shape;
  int64_t loopDim(int64_t d) const { return dimToLoop[d]; }
  /// Position of loop `l` in this operand, or -1.
  int64_t find(int64_t l) const {
    for (auto [i, x] : llvm::enumerate(dimToLoop))
      if (x == l)
        return i;
    return -1;
  }
};

/// An op described as loops over which operands and results are indexed.
struct LoopSpace {
  int64_t numLoops = 0;
  llvm::SmallVector<bool, 4> isReduction;
  /// One per op operand; std::nullopt for non-tensor operands.
  llvm::SmallVector<std::optional<DimMap>, 4> operands;
  llvm::SmallVector<bool, 4> isInit;
  llvm::SmallVector<DimMap, 1> results;
  /// Which result each init feeds (-1 for inputs).
  llvm::SmallVector<int64_t, 4> initResult;
  Linearity linearity = Linearity::None;
  /// Combiner of reduction loops, if it can become a partial placement.
  std::optional<ReduceOp> combiner;
  /// True if the payload reads destination operands.
  bool readsInits = false;
};

} // namespace

//===----------------------------------------------------------------------===//
// Classification of payloads
//===----------------------------------------------------------------------===//

static Linearity classifyScalarOp(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp,
          arith::NegFOp, arith::ExtFOp, arith::TruncFOp, tosa::AddOp,
          tosa::SubOp, tosa::NegateOp>(op))
    return Linearity::Add;
  if (isa<arith::MulFOp, arith::MulIOp, tosa::MulOp>(op))
    return Linearity::Mul;
  if (isa<arith::DivFOp>(op))
    return Linearity::Div;
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

/// Linearity of a linalg payload whose single yielded value is computed by one
/// op directly from block arguments (or is a block argument: a copy).
static Linearity classifyPayload(Block &body) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield->getNumOperands() != 1)
    return Linearity::None;
  Value v = yield->getOperand(0);
  if (isa<BlockArgument>(v))
    return Linearity::Add;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != &body)
    return Linearity::None;
  if (!llvm::all_of(def->getOperands(),
                    [&](Value x) { return isa<BlockArgument>(x); }))
    return Linearity::None;
  // Sub with a partial on the right would need the left divided: that is what
  // R -> P(sum) does, so sub is additive like add.
  return classifyScalarOp(def);
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
static FailureOr<LoopSpace> buildLinalgSpace(linalg::LinalgOp op) {
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
    space.linearity = classifyPayload(*body);
    if (op.getNumDpsInits() == 1 && llvm::is_contained(space.isReduction, true))
      space.combiner = classifyCombiner(*body, body->getArgument(numInputs));
  }
  return space;
}

/// Loop space of an elementwise op with numpy broadcasting (arith/math on
/// tensors of one shape, tosa with size-1 broadcast dims).
static FailureOr<LoopSpace> buildElementwiseSpace(Operation *op) {
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
  return space;
}

//===----------------------------------------------------------------------===//
// Loop-space rules
//===----------------------------------------------------------------------===//

/// Placement of a tensor indexed by `m` when mesh axis shards loop `l`.
static Placement shardLoop(const DimMap &m, int64_t l) {
  int64_t pos = m.find(l);
  return pos < 0 ? Placement::replicate()
                 : Placement::shard(static_cast<int32_t>(pos));
}

/// Per-axis assignment of a candidate: a loop to shard, R, or P(op).
struct AxisChoice {
  enum Kind { Replicate, Loop, Partial } kind = Replicate;
  int64_t loop = -1;
  ReduceOp reduce = ReduceOp::Sum;
  /// For `Partial`: the one input that stays partial (mul-like ops), or -1
  /// when the caller decides.
  int64_t partialOperand = -1;
};

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
            ps.push_back(shardLoop(*m, ch.loop));
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
        ps.push_back(shardLoop(m, ch.loop));
    }
    c.results.push_back(ps);
  }
  return c;
}

/// Index of the operand to follow: the non-init tensor operand with the most
/// shards; ties go to the higher rank, then to the first. Falls back to inits.
static int64_t pickFollowed(const LoopSpace &space,
                            llvm::ArrayRef<int64_t> mesh,
                            llvm::ArrayRef<Placements> current) {
  int64_t best = -1, bestShards = -1, bestRank = -1;
  for (int pass = 0; pass < 2 && best < 0; ++pass) {
    for (auto [i, m] : llvm::enumerate(space.operands)) {
      if (!m || space.isInit[i] != (pass == 1))
        continue;
      int64_t shards = numShards(mesh, current[i]);
      int64_t rank = m->shape.size();
      if (shards > bestShards || (shards == bestShards && rank > bestRank)) {
        best = i;
        bestShards = shards;
        bestRank = rank;
      }
    }
  }
  return best;
}

/// Pointwise rule: the single candidate that follows one input.
static ShardingCandidate
pointwiseCandidate(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                   llvm::ArrayRef<Placements> current) {
  int64_t f = pickFollowed(space, mesh, current);
  llvm::SmallVector<AxisChoice, 2> choices(mesh.size());
  if (f >= 0) {
    const DimMap &fm = *space.operands[f];
    for (auto [axis, p] : llvm::enumerate(current[f])) {
      AxisChoice &ch = choices[axis];
      if (p.isShard()) {
        int64_t loop = fm.loopDim(p.getDim());
        if (loop >= 0 && !space.isReduction[loop]) {
          ch.kind = AxisChoice::Loop;
          ch.loop = loop;
        }
      } else if (p.isPartial()) {
        ReduceOp r = p.getReduceOp();
        bool keep = false;
        switch (space.linearity) {
        case Linearity::Add:
        case Linearity::Mul:
          keep = r == ReduceOp::Sum || r == ReduceOp::Avg;
          break;
        case Linearity::Div:
          keep = (r == ReduceOp::Sum || r == ReduceOp::Avg) &&
                 llvm::count_if(space.isInit, [](bool b) { return !b; }) == 2 &&
                 f == 0;
          break;
        case Linearity::Max:
          keep = r == ReduceOp::Max;
          break;
        case Linearity::Min:
          keep = r == ReduceOp::Min;
          break;
        case Linearity::None:
          break;
        }
        // An input sharded on this axis cannot become partial.
        for (auto [i, m] : llvm::enumerate(space.operands))
          if (m && !space.isInit[i] && current[i][axis].isShard())
            keep = false;
        // Writing a partial into a destination the payload reads would add
        // the destination once per rank.
        if (space.readsInits)
          keep = false;
        if (keep) {
          ch.kind = AxisChoice::Partial;
          ch.reduce = r;
        }
      }
    }
  }
  bool onePartial =
      space.linearity == Linearity::Mul || space.linearity == Linearity::Div;
  return buildCandidate(space, choices, [&](int64_t i, int64_t) {
    return !onePartial || i == f;
  });
}

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
    if (p.isShard()) {
      int64_t loop = im.loopDim(p.getDim());
      if (loop < 0)
        continue;
      if (space.isReduction[loop] && !space.combiner)
        continue;
      ch.kind = AxisChoice::Loop;
      ch.loop = loop;
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

/// Calls `fn` with every assignment of one of `numOptions` options to each
/// of `numAxes` mesh axes, first axis varying slowest (itertools.product).
static void
forEachAxisAssignment(int64_t numAxes, int64_t numOptions,
                      llvm::function_ref<void(llvm::ArrayRef<int64_t>)> fn) {
  llvm::SmallVector<int64_t> idx(numAxes, 0);
  while (true) {
    fn(idx);
    int64_t a = numAxes - 1;
    while (a >= 0 && ++idx[a] == numOptions)
      idx[a--] = 0;
    if (a < 0)
      return;
  }
}

/// Expands per-axis `options` over the mesh axes and keeps the shardable
/// candidates. A `Partial` option with `partialOperand` keeps only that input
/// partial.
static void expandOverMesh(const LoopSpace &space, llvm::ArrayRef<int64_t> mesh,
                           llvm::ArrayRef<AxisChoice> options,
                           llvm::SmallVectorImpl<ShardingCandidate> &out) {
  llvm::SmallVector<AxisChoice, 2> choices(mesh.size());
  forEachAxisAssignment(
      mesh.size(), options.size(), [&](llvm::ArrayRef<int64_t> idx) {
        for (auto [a, i] : llvm::enumerate(idx))
          choices[a] = options[i];
        ShardingCandidate c =
            buildCandidate(space, choices, [&](int64_t i, int64_t axis) {
              int64_t only = choices[axis].partialOperand;
              return only < 0 || only == i;
            });
        for (auto [i, m] : llvm::enumerate(space.operands))
          if (m && !isShardable(m->shape, mesh, c.operands[i]))
            return;
        for (auto [i, m] : llvm::enumerate(space.results))
          if (!isShardable(m.shape, mesh, c.results[i]))
            return;
        out.push_back(std::move(c));
      });
}

/// Einsum rule: all-replicate first, then per axis batch loops, contracting
/// loops and free loops (in the order of the first input using them),
/// expanded over the mesh axes (first axis varies slowest).
static void einsumCandidates(const LoopSpace &space,
                             llvm::ArrayRef<int64_t> mesh,
                             llvm::SmallVectorImpl<ShardingCandidate> &out) {
  llvm::SmallVector<int64_t> inputs;
  for (auto [i, m] : llvm::enumerate(space.operands))
    if (m && !space.isInit[i])
      inputs.push_back(i);
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

  expandOverMesh(space, mesh, options, out);
}

static void loopSpaceCandidates(const LoopSpace &space,
                                llvm::ArrayRef<int64_t> mesh,
                                llvm::ArrayRef<Placements> current,
                                llvm::SmallVectorImpl<ShardingCandidate> &out) {
  bool hasReduction = llvm::is_contained(space.isReduction, true);
  llvm::SmallVector<int64_t> inputs;
  for (auto [i, m] : llvm::enumerate(space.operands))
    if (m && !space.isInit[i])
      inputs.push_back(i);
  if (!hasReduction) {
    out.push_back(pointwiseCandidate(space, mesh, current));
    return;
  }
  if (inputs.size() == 1) {
    out.push_back(reductionCandidate(space, mesh, current, inputs.front()));
    return;
  }
  einsumCandidates(space, mesh, out);
}

//===----------------------------------------------------------------------===//
// Structural rules
//===----------------------------------------------------------------------===//

/// Candidate with every tensor operand and result replicated.
static ShardingCandidate replicatedCandidate(Operation *op, size_t meshRank) {
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
static std::pair<Placements, Placements>
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
static int64_t shardsOnDimUpTo(llvm::ArrayRef<int64_t> mesh,
                               llvm::ArrayRef<Placement> ps, int64_t d,
                               int64_t axis) {
  int64_t n = 1;
  for (int64_t a = 0; a <= axis; ++a)
    if (ps[a].isShard(d))
      n *= mesh[a];
  return n;
}

static ShardingCandidate
unaryCandidate(Operation *op, const std::pair<Placements, Placements> &m) {
  ShardingCandidate c;
  for (Value v : op->getOperands()) {
    c.operands.push_back(v == op->getOperand(0) ? m.first : Placements());
    c.excludedFromCost.push_back(false);
  }
  c.results.push_back(m.second);
  return c;
}

static ShardingCandidate collapseCandidate(tensor::CollapseShapeOp op,
                                           llvm::ArrayRef<int64_t> mesh,
                                           llvm::ArrayRef<Placement> src) {
  auto groups = op.getReassociationIndices();
  llvm::ArrayRef<int64_t> shape = op.getSrcType().getShape();
  auto m = mapPlacements(
      src,
      [&](int64_t axis, int64_t d) -> int64_t {
        for (auto [j, group] : llvm::enumerate(groups)) {
          if (group.front() != d)
            continue;
          // Merging keeps a shard on the first merged dim if it is even.
          if (group.size() > 1 &&
              shape[d] % shardsOnDimUpTo(mesh, src, d, axis) != 0)
            return -1;
          return j;
        }
        return -1;
      },
      /*keepPartial=*/true);
  return unaryCandidate(op, m);
}

static ShardingCandidate expandCandidate(tensor::ExpandShapeOp op,
                                         llvm::ArrayRef<int64_t> mesh,
                                         llvm::ArrayRef<Placement> src) {
  auto groups = op.getReassociationIndices();
  llvm::ArrayRef<int64_t> shape = op.getResultType().getShape();
  auto m = mapPlacements(
      src,
      [&](int64_t axis, int64_t d) -> int64_t {
        int64_t first = groups[d].front();
        // Splitting keeps the shard on the first new dim if it divides.
        if (groups[d].size() > 1 &&
            shape[first] % shardsOnDimUpTo(mesh, src, d, axis) != 0)
          return -1;
        return first;
      },
      /*keepPartial=*/true);
  return unaryCandidate(op, m);
}

/// True if a slice covers source dim `d` completely.
static bool coversDim(OffsetSizeAndStrideOpInterface op, int64_t d,
                      int64_t dimSize) {
  std::optional<int64_t> off = getConstantIntValue(op.getMixedOffsets()[d]);
  std::optional<int64_t> size = getConstantIntValue(op.getMixedSizes()[d]);
  std::optional<int64_t> stride = getConstantIntValue(op.getMixedStrides()[d]);
  return off == 0 && size == dimSize && stride == 1;
}

static ShardingCandidate extractSliceCandidate(tensor::ExtractSliceOp op,
                                               llvm::ArrayRef<Placement> src) {
  llvm::SmallBitVector dropped = op.getDroppedDims();
  auto srcShape = op.getSourceType().getShape();
  auto m = mapPlacements(
      src,
      [&](int64_t, int64_t d) -> int64_t {
        if (dropped.test(d) || !coversDim(op, d, srcShape[d]))
          return -1;
        int64_t j = 0;
        for (int64_t i = 0; i < d; ++i)
          j += dropped.test(i) ? 0 : 1;
        return j;
      },
      /*keepPartial=*/true);
  return unaryCandidate(op, m);
}

static ShardingCandidate insertSliceCandidate(tensor::InsertSliceOp op,
                                              llvm::ArrayRef<Placement> dest) {
  auto destShape = op.getDestType().getShape();
  // Rank-reducing inserts are replicated; otherwise a dest shard survives on
  // the dims the source covers completely, and the source is sharded alike.
  bool sameRank = op.getSourceType().getRank() == op.getDestType().getRank();
  Placements target;
  for (const Placement &p : dest)
    target.push_back(p.isShard() && sameRank &&
                             coversDim(op, p.getDim(), destShape[p.getDim()])
                         ? p
                         : Placement::replicate());
  ShardingCandidate c;
  for (OpOperand &o : op->getOpOperands()) {
    c.operands.push_back(o.getOperandNumber() < 2 ? target : Placements());
    c.excludedFromCost.push_back(false);
  }
  c.results.push_back(target);
  return c;
}

/// Follows the tensor operand among the first `numFollowable` with the most
/// shards (ties: first), forcing R on the axes that shard a dim in `blocked`
/// and on partial axes. All tensor operands and results take the same
/// placements.
static ShardingCandidate
followWithBlockedDims(Operation *op, llvm::ArrayRef<int64_t> mesh,
                      llvm::ArrayRef<Placements> current,
                      llvm::function_ref<bool(int64_t)> blocked,
                      unsigned numFollowable = ~0u) {
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

bool mlir::dtensor::isCreationOp(Operation *op) {
  if (!llvm::all_of(op->getOperandTypes(),
                    [](Type t) { return !isa<TensorType>(t); }))
    return false;
  return op->hasTrait<OpTrait::ConstantLike>() ||
         isa<tensor::EmptyOp, tensor::SplatOp, tensor::FromElementsOp,
             tensor::GenerateOp>(op);
}

/// Structured copies that keep a created value created.
static bool isCreatedCopy(Operation *op) {
  return isa<linalg::FillOp, linalg::BroadcastOp, linalg::TransposeOp>(op) &&
         cast<linalg::LinalgOp>(op).hasPureTensorSemantics();
}

bool mlir::dtensor::isCreatedValue(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return false;
  if (isCreationOp(def))
    return true;
  if (!isCreatedCopy(def))
    return false;
  return llvm::all_of(def->getOperands(), [](Value x) {
    return !isa<TensorType>(x.getType()) || isCreatedValue(x);
  });
}

/// True if a created value is all zeros or undefined.
static bool isZeroOrUndef(Value v) {
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<tensor::EmptyOp>(def))
    return true;
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def))
    return (matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
            matchPattern(fill.getInputs()[0], m_Zero()));
  if (def && isCreatedCopy(def))
    return isZeroOrUndef(def->getOperand(0));
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

bool mlir::dtensor::canCreateIn(Value v, llvm::ArrayRef<Placement> ps) {
  if (!isCreatedValue(v))
    return false;
  // R -> P(sum) divides by the axis size: only zeros (or garbage) stay put.
  bool partialSum = llvm::any_of(ps, [](Placement p) {
    return p.isPartial() && p.getReduceOp() == ReduceOp::Sum;
  });
  return !partialSum || isZeroOrUndef(v);
}

FailureOr<ShardingCandidate>
mlir::dtensor::getCreationCandidate(Operation *op, llvm::ArrayRef<int64_t> mesh,
                                    llvm::ArrayRef<Placement> result) {
  if (op->getNumResults() != 1)
    return failure();
  if (isCreationOp(op)) {
    ShardingCandidate c;
    for (Value v : op->getOperands()) {
      (void)v;
      c.operands.push_back(Placements());
      c.excludedFromCost.push_back(false);
    }
    c.results.push_back(Placements(result.begin(), result.end()));
    return c;
  }
  if (!isCreatedCopy(op))
    return failure();
  FailureOr<LoopSpace> space = buildLinalgSpace(cast<linalg::LinalgOp>(op));
  if (failed(space))
    return failure();
  llvm::SmallVector<AxisChoice, 2> choices(mesh.size());
  for (auto [axis, p] : llvm::enumerate(result)) {
    if (p.isShard()) {
      choices[axis].kind = AxisChoice::Loop;
      choices[axis].loop = space->results.front().loopDim(p.getDim());
    } else if (p.isPartial()) {
      choices[axis].kind = AxisChoice::Partial;
      choices[axis].reduce = p.getReduceOp();
    }
  }
  return buildCandidate(*space, choices,
                        [](int64_t, int64_t) { return false; });
}

LogicalResult mlir::dtensor::getShardingCandidates(
    Operation *op, llvm::ArrayRef<int64_t> mesh,
    llvm::ArrayRef<Placements> current,
    llvm::SmallVectorImpl<ShardingCandidate> &out) {
  size_t meshRank = mesh.size();
  if (isCreationOp(op)) {
    out.push_back(replicatedCandidate(op, meshRank));
    return success();
  }
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    int64_t dim = softmax.getDimension();
    out.push_back(followWithBlockedDims(
        op, mesh, current, [&](int64_t d) { return d == dim; },
        /*numFollowable=*/1));
    return success();
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureTensorSemantics())
      return failure();
    FailureOr<LoopSpace> space = buildLinalgSpace(linalgOp);
    if (failed(space)) {
      // Non-permutation maps (convolutions): replicate.
      out.push_back(replicatedCandidate(op, meshRank));
      return success();
    }
    loopSpaceCandidates(*space, mesh, current, out);
    return success();
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    out.push_back(collapseCandidate(collapse, mesh, current[0]));
    return success();
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    out.push_back(expandCandidate(expand, mesh, current[0]));
    return success();
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    out.push_back(extractSliceCandidate(slice, current[0]));
    return success();
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    out.push_back(insertSliceCandidate(insert, current[1]));
    return success();
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    int64_t dim = concat.getDim();
    out.push_back(followWithBlockedDims(op, mesh, current,
                                        [&](int64_t d) { return d == dim; }));
    return success();
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    auto low = pad.getMixedLowPad(), high = pad.getMixedHighPad();
    out.push_back(followWithBlockedDims(
        op, mesh, current,
        [&](int64_t d) {
          return getConstantIntValue(low[d]) != 0 ||
                 getConstantIntValue(high[d]) != 0;
        },
        /*numFollowable=*/1));
    return success();
  }
  if (isa<tensor::CastOp>(op)) {
    out.push_back(followWithBlockedDims(op, mesh, current,
                                        [](int64_t) { return false; }));
    return success();
  }
  if (isa<tensor::ExtractOp, tensor::InsertOp, tensor::ReshapeOp,
          tensor::BitcastOp>(op)) {
    out.push_back(replicatedCandidate(op, meshRank));
    return success();
  }
  if (isa<tensor::DimOp>(op)) {
    // Reads only the global shape: no requirement on the placements.
    ShardingCandidate c;
    c.operands.push_back(current[0]);
    c.operands.push_back(Placements());
    c.excludedFromCost.assign(2, false);
    c.results.push_back(Placements());
    out.push_back(c);
    return success();
  }
  if (auto tosaMatmul = dyn_cast<tosa::MatMulOp>(op)) {
    // [N, H, C] x [N, C, W] -> [N, H, W]: loops n, h, w, c.
    LoopSpace space;
    space.numLoops = 4;
    space.isReduction = {false, false, false, true};
    auto dm = [](Value v, llvm::ArrayRef<int64_t> loops) {
      DimMap m;
      m.shape = cast<RankedTensorType>(v.getType()).getShape();
      m.dimToLoop.assign(loops.begin(), loops.end());
      return m;
    };
    for (Value v : op->getOperands()) {
      space.isInit.push_back(false);
      space.initResult.push_back(-1);
      if (v == tosaMatmul.getA())
        space.operands.push_back(dm(v, {0, 1, 3}));
      else if (v == tosaMatmul.getB())
        space.operands.push_back(dm(v, {0, 3, 2}));
      else
        space.operands.push_back(std::nullopt);
    }
    // Zero points are replicated scalars tensors; they are not indexed.
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (i >= 2 && isa<RankedTensorType>(v.getType())) {
        DimMap m;
        m.shape = cast<RankedTensorType>(v.getType()).getShape();
        m.dimToLoop.assign(m.shape.size(), -1);
        space.operands[i] = m;
      }
    space.results.push_back(dm(tosaMatmul.getResult(), {0, 1, 2}));
    space.combiner = ReduceOp::Sum;
    einsumCandidates(space, mesh, out);
    return success();
  }
  if (op->hasTrait<OpTrait::Elementwise>() ||
      op->hasTrait<OpTrait::ResultsBroadcastableShape>()) {
    if (op->getNumResults() == 0 || op->getNumRegions() != 0)
      return failure();
    FailureOr<LoopSpace> space = buildElementwiseSpace(op);
    if (failed(space))
      return failure();
    out.push_back(pointwiseCandidate(*space, mesh, current));
    return success();
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Exhaustive candidates (whole-function planning)
//===----------------------------------------------------------------------===//

/// Every strategy of a loop-space op: per mesh axis, replicate, shard one
/// loop (a reduction loop gives a partial with the combiner), or pass partial
/// inputs through a linear payload; expanded over the mesh axes.
static void enumerateLoopSpace(const LoopSpace &space,
                               llvm::ArrayRef<int64_t> mesh,
                               llvm::SmallVectorImpl<ShardingCandidate> &out) {
  llvm::SmallVector<int64_t> inputs;
  for (auto [i, m] : llvm::enumerate(space.operands))
    if (m && !space.isInit[i])
      inputs.push_back(i);
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
  bool pointwise = !llvm::is_contained(space.isReduction, true);
  if (!space.readsInits && (pointwise || space.combiner == ReduceOp::Sum)) {
    switch (pointwise ? space.linearity : Linearity::Add) {
    case Linearity::Add:
      if (pointwise || space.linearity == Linearity::Add)
        options.push_back({AxisChoice::Partial, -1, ReduceOp::Sum, -1});
      break;
    case Linearity::Mul:
      for (int64_t i : inputs)
        options.push_back({AxisChoice::Partial, -1, ReduceOp::Sum, i});
      break;
    case Linearity::Div:
      if (!inputs.empty())
        options.push_back(
            {AxisChoice::Partial, -1, ReduceOp::Sum, inputs.front()});
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
  }
  expandOverMesh(space, mesh, options, out);
}

LogicalResult mlir::dtensor::getAllShardingCandidates(
    Operation *op, llvm::ArrayRef<int64_t> mesh,
    llvm::ArrayRef<Placements> current,
    llvm::SmallVectorImpl<ShardingCandidate> &out) {
  if (isCreationOp(op))
    return getShardingCandidates(op, mesh, current, out);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureTensorSemantics())
      return failure();
    FailureOr<LoopSpace> space = buildLinalgSpace(linalgOp);
    if (failed(space))
      return getShardingCandidates(op, mesh, current, out);
    enumerateLoopSpace(*space, mesh, out);
    return success();
  }
  if ((op->hasTrait<OpTrait::Elementwise>() ||
       op->hasTrait<OpTrait::ResultsBroadcastableShape>()) &&
      op->getNumResults() != 0 && op->getNumRegions() == 0) {
    FailureOr<LoopSpace> space = buildElementwiseSpace(op);
    if (failed(space))
      return failure();
    enumerateLoopSpace(*space, mesh, out);
    return success();
  }
  // Rules that follow an operand: apply them to every placement that operand
  // could have (R, S(d), P(sum) per axis) and keep the distinct candidates.
  int64_t followed = isa<tensor::InsertSliceOp>(op) ? 1 : 0;
  if (op->getNumOperands() <= static_cast<unsigned>(followed))
    return getShardingCandidates(op, mesh, current, out);
  auto type = dyn_cast<RankedTensorType>(op->getOperand(followed).getType());
  if (!type)
    return getShardingCandidates(op, mesh, current, out);
  llvm::SmallVector<Placement> options{Placement::replicate(),
                                       Placement::partial()};
  for (int64_t d = 0; d < type.getRank(); ++d)
    options.push_back(Placement::shard(d));
  bool any = false, failedRule = false;
  forEachAxisAssignment(
      mesh.size(), options.size(), [&](llvm::ArrayRef<int64_t> idx) {
        Placements hyp;
        for (int64_t i : idx)
          hyp.push_back(options[i]);
        if (failedRule || !isShardable(type.getShape(), mesh, hyp))
          return;
        llvm::SmallVector<Placements, 4> cur(current.begin(), current.end());
        for (auto [i, v] : llvm::enumerate(op->getOperands()))
          if (auto t = dyn_cast<RankedTensorType>(v.getType());
              t && t.getRank() == type.getRank())
            cur[i] = hyp;
        llvm::SmallVector<ShardingCandidate, 2> cands;
        if (failed(getShardingCandidates(op, mesh, cur, cands))) {
          failedRule = true;
          return;
        }
        any = true;
        for (ShardingCandidate &c : cands) {
          bool seen = llvm::any_of(out, [&](const ShardingCandidate &o) {
            return o.operands == c.operands && o.results == c.results;
          });
          if (!seen)
            out.push_back(std::move(c));
        }
      });
  if (failedRule)
    return failure();
  return success(any);
}
