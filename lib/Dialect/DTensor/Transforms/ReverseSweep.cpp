//===- ReverseSweep.cpp - the reverse sweep of dtensor-autodiff -----------===//
//
// The sweep over one block and the reverse of calls. A call's operands get
// their adjoints from the callee's vjp function `@<callee>_vjp` (a copy of
// the callee that recomputes its forward values, then sweeps back from
// adjoint arguments, one per float result, to the adjoint of each float
// argument), built once per callee; a call cycle is an error.
//
//===----------------------------------------------------------------------===//

#include "ReverseSweep.h"

#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::dtensor;

void ReverseSweep::markActive(llvm::ArrayRef<Operation *> ops,
                              llvm::ArrayRef<Value> roots) {
  active.insert(roots.begin(), roots.end());
  for (Operation *op : ops) {
    llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    if (llvm::none_of(used, [&](Value v) { return isActive(v); }))
      continue;
    for (Value r : op->getResults())
      if (isFloatLike(r.getType()))
        active.insert(r);
  }
}

bool ReverseSweep::isActive(Value v) const {
  return active.contains(v) || (outer && outer->isActive(v));
}

void ReverseSweep::accumulate(OpBuilder &b, Value v, Value adjoint) {
  Value &slot = adjoints[v];
  slot = slot ? buildAdjointSum(b, v.getLoc(), slot, adjoint) : adjoint;
}

LogicalResult ReverseSweep::sweep(llvm::ArrayRef<Operation *> ops,
                                  OpBuilder &b) {
  for (Operation *op : llvm::reverse(ops))
    if (failed(reverse(op, b)))
      return failure();
  return success();
}

LogicalResult ReverseSweep::reverse(Operation *op, OpBuilder &b) {
  llvm::SmallVector<Value> resultAdjoints;
  for (Value r : op->getResults())
    resultAdjoints.push_back(adjoints.lookup(r));
  if (llvm::all_of(resultAdjoints, [](Value v) { return !v; }))
    return success();
  if (auto call = dyn_cast<CallOpInterface>(op))
    return reverseCall(call, b, resultAdjoints);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return reverseFor(loop, b, resultAdjoints);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return reverseIf(ifOp, b, resultAdjoints);
  return reverseWithRule(op, b, resultAdjoints);
}

LogicalResult
ReverseSweep::reverseWithRule(Operation *op, OpBuilder &b,
                              llvm::ArrayRef<Value> resultAdjoints) {
  llvm::SmallVector<bool> needed;
  for (Value v : op->getOperands())
    needed.push_back(isActive(v));
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value v : captured)
    if (isActive(v))
      return op->emitOpError()
             << "uses a value that depends on a parameter inside its region; "
                "dtensor-autodiff cannot differentiate through it";
  auto it = llvm::find(needed, true);
  if (it == needed.end())
    return success();
  auto rule = dyn_cast<GradientOpInterface>(op);
  if (!rule)
    return op->emitOpError()
           << "has no gradient rule (GradientOpInterface), but the gradient "
              "of its operand #"
           << (it - needed.begin()) << " is needed";
  llvm::SmallVector<Value> operandAdjoints;
  if (failed(rule.buildOperandAdjoints(b, resultAdjoints, needed,
                                       operandAdjoints)))
    return failure();
  ++ctx.numRules;
  for (auto [v, adj] : llvm::zip(op->getOperands(), operandAdjoints))
    if (adj)
      accumulate(b, v, adj);
  return success();
}

LogicalResult ReverseSweep::reverseCall(CallOpInterface call, OpBuilder &b,
                                        llvm::ArrayRef<Value> resultAdjoints) {
  Operation *op = call.getOperation();
  ValueRange args = call.getArgOperands();
  if (llvm::none_of(args, [&](Value v) { return isActive(v); }))
    return success();
  auto ref = dyn_cast<SymbolRefAttr>(call.getCallableForCallee());
  auto callee = ref ? dyn_cast_or_null<func::FuncOp>(
                          ctx.symbols.lookup(ref.getLeafReference()))
                    : func::FuncOp();
  if (!callee || callee.isExternal())
    return op->emitOpError()
           << "calls a function without a body; dtensor-autodiff "
              "differentiates a call through its callee's body";
  FailureOr<func::FuncOp> vjp = ctx.getVjp(callee, op);
  if (failed(vjp))
    return failure();
  Location loc = op->getLoc();
  llvm::SmallVector<Value> operands(args.begin(), args.end());
  for (auto [r, adj] : llvm::zip(op->getResults(), resultAdjoints))
    if (isFloatLike(r.getType()))
      operands.push_back(adj ? adj : buildZerosLike(b, loc, r));
  auto back = func::CallOp::create(b, loc, *vjp, operands);
  unsigned j = 0;
  for (Value v : args) {
    if (!isFloatLike(v.getType()))
      continue;
    Value adj = back.getResult(j++);
    if (isActive(v))
      accumulate(b, v, adj);
  }
  ++ctx.numRules;
  return success();
}

FailureOr<llvm::SmallVector<Value>> Differentiator::sweepFunction(
    func::FuncOp fn, llvm::ArrayRef<BlockArgument> wrt,
    llvm::function_ref<void(OpBuilder &, ReverseSweep &)> seed) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError()
           << "has " << fn.getBody().getBlocks().size()
           << " blocks; dtensor-autodiff differentiates a single block";
  Block &block = fn.getBody().front();
  llvm::SmallVector<Operation *> forward;
  for (Operation &op : block.without_terminator())
    forward.push_back(&op);
  ReverseSweep sweep(*this);
  sweep.markActive(forward, llvm::SmallVector<Value>(wrt.begin(), wrt.end()));
  OpBuilder b(block.getTerminator());
  seed(b, sweep);
  if (failed(sweep.sweep(forward, b)))
    return failure();
  llvm::SmallVector<Value> out;
  for (BlockArgument arg : wrt)
    out.push_back(sweep.lookup(arg));
  return out;
}

FailureOr<func::FuncOp> Differentiator::getVjp(func::FuncOp callee,
                                               Operation *call) {
  if (func::FuncOp found = vjps.lookup(callee))
    return found;
  if (!inProgress.insert(callee).second)
    return call->emitOpError()
           << "calls @" << callee.getName()
           << " recursively; dtensor-autodiff cannot differentiate a "
              "recursive call";
  func::FuncOp vjp = callee.clone();
  vjp.setName((callee.getName() + "_vjp").str());
  vjp.setPrivate();
  symbols.insert(vjp, std::next(Block::iterator(callee)));
  Location loc = callee.getLoc();
  llvm::SmallVector<BlockArgument> wrt;
  for (BlockArgument arg : vjp.getArguments())
    if (isFloatLike(arg.getType()))
      wrt.push_back(arg);
  Operation *ret = vjp.getBody().front().getTerminator();
  llvm::SmallVector<std::pair<Value, BlockArgument>> seeds;
  for (Value r : ret->getOperands())
    if (isFloatLike(r.getType()))
      seeds.push_back({r, vjp.getBody().front().addArgument(r.getType(), loc)});
  FailureOr<llvm::SmallVector<Value>> grads =
      sweepFunction(vjp, wrt, [&](OpBuilder &b, ReverseSweep &sweep) {
        for (auto [r, adj] : seeds)
          sweep.accumulate(b, r, adj);
      });
  if (failed(grads))
    return failure();
  OpBuilder b(ret);
  for (auto [g, arg] : llvm::zip(*grads, wrt))
    if (!g)
      g = buildZerosLike(b, arg.getLoc(), arg);
  func::ReturnOp::create(b, ret->getLoc(), *grads);
  ret->erase();
  vjp.setFunctionType(b.getFunctionType(
      vjp.getBody().front().getArgumentTypes(), ValueRange(*grads).getTypes()));
  vjp.setAllArgAttrs(llvm::SmallVector<DictionaryAttr>(
      vjp.getNumArguments(), b.getDictionaryAttr({})));
  vjp.setAllResultAttrs(llvm::SmallVector<DictionaryAttr>(
      vjp.getNumResults(), b.getDictionaryAttr({})));
  eraseDeadOps(vjp);
  inProgress.erase(callee);
  vjps[callee] = vjp;
  return vjp;
}

void mlir::dtensor::eraseDeadOps(func::FuncOp fn) {
  llvm::SmallVector<Block *> blocks;
  fn.walk<WalkOrder::PostOrder>([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks)
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
      if (isOpTriviallyDead(&op))
        op.erase();
}
