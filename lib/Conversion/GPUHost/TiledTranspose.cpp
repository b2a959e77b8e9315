//===- TiledTranspose.cpp - transposes staged through shared memory -------===//
//
// The loop path gives each thread one output element, consecutive threads
// consecutive elements of the output's innermost dim. An input whose
// innermost dim follows another loop (a [1, 0] transpose, a permuted copy
// before a collective) is then read with a stride of a whole row between
// neighbouring threads. Here a block stages a square tile of such inputs in
// shared memory: it reads the tile along the input's innermost dim, and
// writes the output along its own, both coalesced.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORGPUTILEDTRANSPOSE
#include "dtensor/Conversion/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;

namespace {

/// An all-parallel op whose `staged` inputs are read, along the output's
/// innermost loop `inner`, with a stride: their innermost dim is `across`.
struct TransposePlan {
  linalg::LinalgOp op;
  unsigned inner, across;
  SmallVector<OpOperand *> staged;
};

/// True if the innermost dim of `type` has a unit stride.
bool hasContiguousRows(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(memref.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// Matches `op` (see the pass description).
FailureOr<TransposePlan> matchTranspose(linalg::LinalgOp op) {
  unsigned n = op.getNumLoops();
  if (!op.hasPureBufferSemantics() || n < 2 || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != n ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !hasContiguousRows(op.getDpsInits()[0].getType()) ||
      llvm::is_contained(op.getStaticLoopRanges(), 0))
    return failure();
  TransposePlan plan{op, n - 1, n, {}};
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return failure();
    // A 0-d input is one element for every thread: no staging.
    if (map.getNumResults() == 0)
      continue;
    unsigned last = cast<AffineDimExpr>(map.getResults().back()).getPosition();
    // Read along the output's rows already, or the same element for a
    // whole row (a broadcast): no staging.
    if (last == plan.inner || !map.isFunctionOfDim(plan.inner))
      continue;
    // A tile of index or complex elements has no fixed width: loop path.
    if ((plan.across != n && plan.across != last) ||
        !hasContiguousRows(input->get().getType()) ||
        !getElementTypeOrSelf(input->get().getType()).isIntOrFloat())
      return failure();
    plan.across = last;
    plan.staged.push_back(input);
  }
  if (plan.staged.empty())
    return failure();
  return plan;
}

/// Builds the kernel (or its emulation) of one matched op: one block per
/// `tile` x `tile` square of the loops (`across`, `inner`) and per index of
/// the other loops, `tile` x `rows` threads.
class TransposeBuilder {
public:
  TransposeBuilder(RewriterBase &b, const TransposePlan &plan, int64_t tile,
                   int64_t rows)
      : b(b), plan(plan), loc(plan.op->getLoc()), tile(tile), rows(rows) {
    linalg::LinalgOp op = plan.op;
    for (Range r : op.createLoopRanges(b, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
  }

  void build(bool emulate);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value ceilDiv(Value a, int64_t d) {
    return b.createOrFold<arith::CeilDivUIOp>(loc, a, index(d));
  }

  /// The indices of the operand read or written through `map` at `ivs`.
  SmallVector<Value> indices(AffineMap map, ArrayRef<Value> ivs) {
    SmallVector<Value> result;
    for (AffineExpr e : map.getResults())
      result.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
    return result;
  }

  /// The shared tile of each staged input: `tile` rows of `tile` elements
  /// padded to an odd number of 4-byte words (33 f32, 34 f16/bf16, 36 i8),
  /// so that the 32 threads reading one column touch 32 distinct banks.
  SmallVector<Type> tileTypes(Attribute memorySpace) {
    SmallVector<Type> types;
    for (OpOperand *input : plan.staged) {
      Type element = getElementTypeOrSelf(input->get().getType());
      int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
      int64_t pad = bytes < 4 ? 4 / bytes : 1;
      types.push_back(MemRefType::get({tile, tile + pad}, element,
                                      MemRefLayoutAttrInterface(),
                                      memorySpace));
    }
    return types;
  }

  /// Sets `ivs` of the loops other than `across` and `inner` from the
  /// block's index past its tile, and `baseInner`/`baseAcross` to the
  /// tile's first indices.
  void locateTile(Value block, SmallVectorImpl<Value> &ivs);

  /// `fn(tx, ty)` for every thread of the block: the thread ids in the
  /// kernel, loops over them in the emulation.
  void forEachThread(function_ref<void(Value, Value)> fn);

  /// `fn()` at the block's `rows`-strided row `ty + j` of the tile with
  /// `ivs[across] = baseAcross + a` and `ivs[inner] = baseInner + i`, for
  /// the in-bounds elements only.
  void forTileRows(Value ty, SmallVectorImpl<Value> &ivs, bool rowIsInner,
                   Value lane, function_ref<void(Value)> fn);

  /// Phase 1: the staged inputs' tile read along `across` into `tiles`.
  void buildLoad(ArrayRef<Value> tiles, SmallVector<Value> ivs, Value tx,
                 Value ty);
  /// Phase 2: the body at the tile's elements, written along `inner`.
  void buildStore(ArrayRef<Value> tiles, SmallVector<Value> ivs, Value tx,
                  Value ty);

  RewriterBase &b;
  const TransposePlan &plan;
  Location loc;
  int64_t tile, rows;
  SmallVector<Value> sizes;
  Value baseInner, baseAcross;
};

void TransposeBuilder::locateTile(Value block, SmallVectorImpl<Value> &ivs) {
  Value tilesInner = ceilDiv(sizes[plan.inner], tile);
  Value tilesAcross = ceilDiv(sizes[plan.across], tile);
  Value t = block;
  baseInner = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, t, tilesInner), index(tile));
  t = arith::DivUIOp::create(b, loc, t, tilesInner);
  baseAcross = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, t, tilesAcross), index(tile));
  t = arith::DivUIOp::create(b, loc, t, tilesAcross);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (d == plan.inner || d == plan.across)
      continue;
    ivs[d] = b.createOrFold<arith::RemUIOp>(loc, t, sizes[d]);
    t = b.createOrFold<arith::DivUIOp>(loc, t, sizes[d]);
  }
}

void TransposeBuilder::forEachThread(function_ref<void(Value, Value)> fn) {
  OpBuilder::InsertionGuard guard(b);
  Value one = index(1);
  auto ys = scf::ForOp::create(b, loc, index(0), index(rows), one);
  b.setInsertionPointToStart(ys.getBody());
  auto xs = scf::ForOp::create(b, loc, index(0), index(tile), one);
  b.setInsertionPointToStart(xs.getBody());
  fn(xs.getInductionVar(), ys.getInductionVar());
}

void TransposeBuilder::forTileRows(Value ty, SmallVectorImpl<Value> &ivs,
                                   bool rowIsInner, Value lane,
                                   function_ref<void(Value)> fn) {
  OpBuilder::InsertionGuard guard(b);
  auto loop = scf::ForOp::create(b, loc, index(0), index(tile), index(rows));
  b.setInsertionPointToStart(loop.getBody());
  Value row = arith::AddIOp::create(b, loc, ty, loop.getInductionVar());
  unsigned rowDim = rowIsInner ? plan.inner : plan.across;
  unsigned laneDim = rowIsInner ? plan.across : plan.inner;
  ivs[rowDim] = arith::AddIOp::create(
      b, loc, rowIsInner ? baseInner : baseAcross, row);
  ivs[laneDim] = arith::AddIOp::create(
      b, loc, rowIsInner ? baseAcross : baseInner, lane);
  Value inBounds = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ivs[rowDim],
                            sizes[rowDim]),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ivs[laneDim],
                            sizes[laneDim]));
  auto ifIn = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
  b.setInsertionPointToStart(ifIn.thenBlock());
  fn(row);
}

void TransposeBuilder::buildLoad(ArrayRef<Value> tiles, SmallVector<Value> ivs,
                                 Value tx, Value ty) {
  // Lane tx walks the inputs' innermost dim (`across`); the tile is indexed
  // [inner - baseInner][across - baseAcross].
  forTileRows(ty, ivs, /*rowIsInner=*/true, tx, [&](Value row) {
    for (auto [input, t] : llvm::zip_equal(plan.staged, tiles)) {
      Value v = memref::LoadOp::create(
          b, loc, input->get(),
          indices(linalg::LinalgOp(plan.op).getMatchingIndexingMap(input),
                  ivs));
      memref::StoreOp::create(b, loc, v, t, ValueRange{row, tx});
    }
  });
}

void TransposeBuilder::buildStore(ArrayRef<Value> tiles,
                                  SmallVector<Value> ivs, Value tx, Value ty) {
  // Lane tx walks the output's innermost dim (`inner`).
  forTileRows(ty, ivs, /*rowIsInner=*/false, tx, [&](Value row) {
    linalg::LinalgOp op = plan.op;
    Block *body = op.getBlock();
    IRMapping mapping;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = body->getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      auto staged = llvm::find(plan.staged, &operand);
      if (staged != plan.staged.end()) {
        Value t = tiles[staged - plan.staged.begin()];
        mapping.map(arg, memref::LoadOp::create(b, loc, t, ValueRange{tx, row}));
      } else if (isa<MemRefType>(operand.get().getType())) {
        mapping.map(arg, memref::LoadOp::create(
                             b, loc, operand.get(),
                             indices(op.getMatchingIndexingMap(&operand), ivs)));
      } else {
        mapping.map(arg, operand.get());
      }
    }
    for (Operation &nested : body->without_terminator()) {
      if (auto indexOp = dyn_cast<linalg::IndexOp>(nested)) {
        mapping.map(indexOp.getResult(), ivs[indexOp.getDim()]);
        continue;
      }
      b.clone(nested, mapping);
    }
    Value result =
        mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
    memref::StoreOp::create(b, loc, result, op.getDpsInits()[0], ivs);
  });
}

void TransposeBuilder::build(bool emulate) {
  OpBuilder::InsertionGuard guard(b);
  Value blocks = b.createOrFold<arith::MulIOp>(
      loc, ceilDiv(sizes[plan.inner], tile), ceilDiv(sizes[plan.across], tile));
  for (auto [d, size] : llvm::enumerate(sizes))
    if (d != plan.inner && d != plan.across)
      blocks = b.createOrFold<arith::MulIOp>(loc, blocks, size);
  SmallVector<Value> ivs(sizes.size());
  if (emulate) {
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{index(0)},
                                        ValueRange{blocks},
                                        ValueRange{index(1)});
    b.setInsertionPointToStart(loop.getBody());
    locateTile(loop.getInductionVars()[0], ivs);
    SmallVector<Value> tiles;
    for (Type t : tileTypes(Attribute()))
      tiles.push_back(memref::AllocaOp::create(b, loc, cast<MemRefType>(t)));
    // The phases one after the other: the barrier's order.
    forEachThread([&](Value tx, Value ty) { buildLoad(tiles, ivs, tx, ty); });
    forEachThread([&](Value tx, Value ty) { buildStore(tiles, ivs, tx, ty); });
    return;
  }
  // A launch of no blocks is an error: uneven shards may be empty.
  std::optional<int64_t> count = getConstantIntValue(blocks);
  if (!count) {
    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                      blocks, index(0));
    auto ifAny = scf::IfOp::create(b, loc, any, /*withElse=*/false);
    b.setInsertionPointToStart(ifAny.thenBlock());
  }
  Value one = index(1);
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto launch = gpu::LaunchOp::create(
      b, loc, blocks, one, one, index(tile), index(rows), one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, tileTypes(workgroup));
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  locateTile(launch.getBlockIds().x, ivs);
  SmallVector<Value> tiles(launch.getWorkgroupAttributions());
  Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
  buildLoad(tiles, ivs, tx, ty);
  gpu::BarrierOp::create(b, loc);
  buildStore(tiles, ivs, tx, ty);
}

struct TiledTransposePass
    : public dtensor::impl::DTensorGPUTiledTransposeBase<TiledTransposePass> {
  using Base::Base;

  void runOnOperation() override {
    if (tileSize <= 0 || blockRows <= 0 || tileSize % blockRows != 0) {
      getOperation().emitError()
          << "dtensor-gpu-tiled-transpose: tile-size ("
          << static_cast<int64_t>(tileSize)
          << ") must be a positive multiple of block-rows ("
          << static_cast<int64_t>(blockRows)
          << ")";
      return signalPassFailure();
    }
    SmallVector<TransposePlan> plans;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (FailureOr<TransposePlan> plan = matchTranspose(op); succeeded(plan))
        plans.push_back(*plan);
    });
    IRRewriter rewriter(&getContext());
    for (const TransposePlan &plan : plans) {
      rewriter.setInsertionPoint(plan.op);
      TransposeBuilder(rewriter, plan, tileSize, blockRows).build(emulate);
      rewriter.eraseOp(plan.op);
      ++numTiled;
    }
  }
};

} // namespace
