//===- Autodiff.cpp - reverse-mode gradient functions of losses -----------===//
//
// `dtensor-autodiff`: for each loss function @f, @f_grad = a copy of @f's
// body followed by the reverse sweep over its single block. Activity: a
// value is active when it depends on a `dtensor.param` argument; only
// active operands of ops whose results carry an adjoint are differentiated,
// and only through `GradientOpInterface`. With optimizer=sgd the function
// is @f_train_step and returns p - lr * grad instead of each gradient.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"
#include "dtensor/Dialect/DTensor/Interfaces/GradientOpInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>
#include <optional>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORAUTODIFF
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;

namespace {

constexpr llvm::StringLiteral kParamAttr = "dtensor.param";
constexpr llvm::StringLiteral kSpecAttr = "dtensor.spec";

/// Whether `f` is a loss function with at least one parameter.
bool isLossFunction(func::FuncOp f) {
  if (f.isExternal() || f.getNumResults() != 1)
    return false;
  auto t = dyn_cast<RankedTensorType>(f.getResultTypes()[0]);
  if (!t || t.getRank() != 0 || !isa<FloatType>(t.getElementType()))
    return false;
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (f.getArgAttr(i, kParamAttr))
      return true;
  return false;
}

/// The reverse sweep over one gradient function.
class ReverseSweep {
public:
  /// With `sgdLr`, the parameters after one SGD step replace the gradients.
  ReverseSweep(func::FuncOp grad, std::optional<double> sgdLr)
      : grad(grad), sgdLr(sgdLr) {}

  /// Builds the sweep and rewrites the return; fails after an error.
  LogicalResult run(unsigned &numRules);

private:
  LogicalResult checkSignature();
  void markActive();
  LogicalResult reverse(Operation *op, OpBuilder &b, unsigned &numRules);
  void accumulate(OpBuilder &b, Value v, Value adjoint);
  void finish(OpBuilder &b);

  func::FuncOp grad;
  std::optional<double> sgdLr;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> adjoints;
};

LogicalResult ReverseSweep::checkSignature() {
  if (!grad.getBody().hasOneBlock())
    return grad.emitOpError()
           << "has " << grad.getBody().getBlocks().size()
           << " blocks; dtensor-autodiff differentiates a single block";
  for (BlockArgument arg : grad.getArguments()) {
    if (!grad.getArgAttr(arg.getArgNumber(), kParamAttr))
      continue;
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t || !isa<FloatType>(t.getElementType()))
      return grad.emitOpError()
             << "parameter argument #" << arg.getArgNumber() << " has type "
             << arg.getType() << "; a gradient needs a float tensor";
  }
  return success();
}

void ReverseSweep::markActive() {
  for (BlockArgument arg : grad.getArguments())
    if (grad.getArgAttr(arg.getArgNumber(), kParamAttr))
      active.insert(arg);
  for (Operation &op : grad.getBody().front()) {
    llvm::SetVector<Value> used(op.operand_begin(), op.operand_end());
    getUsedValuesDefinedAbove(op.getRegions(), used);
    if (llvm::none_of(used, [&](Value v) { return active.contains(v); }))
      continue;
    for (Value r : op.getResults())
      if (isFloatLike(r.getType()))
        active.insert(r);
  }
}

void ReverseSweep::accumulate(OpBuilder &b, Value v, Value adjoint) {
  Value &slot = adjoints[v];
  slot = slot ? buildAdjointSum(b, v.getLoc(), slot, adjoint) : adjoint;
}

LogicalResult ReverseSweep::reverse(Operation *op, OpBuilder &b,
                                    unsigned &numRules) {
  llvm::SmallVector<Value> resultAdjoints;
  for (Value r : op->getResults())
    resultAdjoints.push_back(adjoints.lookup(r));
  if (llvm::all_of(resultAdjoints, [](Value v) { return !v; }))
    return success();
  llvm::SmallVector<bool> needed;
  for (Value v : op->getOperands())
    needed.push_back(active.contains(v));
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value v : captured)
    if (active.contains(v))
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
  ++numRules;
  for (auto [v, adj] : llvm::zip(op->getOperands(), operandAdjoints))
    if (adj)
      accumulate(b, v, adj);
  return success();
}

/// `param - lr * gradient`, elementwise in linalg named ops.
Value buildSgdUpdate(OpBuilder &b, Location loc, Value param, Value gradient,
                     double lr) {
  auto type = cast<RankedTensorType>(param.getType());
  auto empty = [&] {
    return tensor::EmptyOp::create(b, loc, type.getShape(),
                                   type.getElementType())
        .getResult();
  };
  Value rate = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), lr));
  Value rates =
      linalg::FillOp::create(b, loc, ValueRange{rate}, ValueRange{empty()})
          .getResult(0);
  Value step =
      linalg::MulOp::create(b, loc, TypeRange{type},
                            ValueRange{rates, gradient}, ValueRange{empty()})
          ->getResult(0);
  return linalg::SubOp::create(b, loc, TypeRange{type}, ValueRange{param, step},
                               ValueRange{empty()})
      ->getResult(0);
}

void ReverseSweep::finish(OpBuilder &b) {
  Operation *ret = grad.getBody().front().getTerminator();
  llvm::SmallVector<Value> results{ret->getOperand(0)};
  llvm::SmallVector<DictionaryAttr> resultAttrs{grad.getResultAttrDict(0)};
  for (BlockArgument arg : grad.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (!grad.getArgAttr(i, kParamAttr))
      continue;
    Value g = adjoints.lookup(arg);
    if (!g)
      g = buildZerosLike(b, arg.getLoc(), arg);
    results.push_back(sgdLr ? buildSgdUpdate(b, arg.getLoc(), arg, g, *sgdLr)
                            : g);
    llvm::SmallVector<NamedAttribute> attrs;
    if (Attribute spec = grad.getArgAttr(i, kSpecAttr))
      attrs.push_back(b.getNamedAttr(kSpecAttr, spec));
    resultAttrs.push_back(b.getDictionaryAttr(attrs));
  }
  func::ReturnOp::create(b, ret->getLoc(), results);
  ret->erase();
  grad.setFunctionType(b.getFunctionType(grad.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  grad.setAllResultAttrs(resultAttrs);
}

LogicalResult ReverseSweep::run(unsigned &numRules) {
  if (failed(checkSignature()))
    return failure();
  markActive();
  Block &block = grad.getBody().front();
  Operation *ret = block.getTerminator();
  llvm::SmallVector<Operation *> forward;
  for (Operation &op : block.without_terminator())
    forward.push_back(&op);
  OpBuilder b(ret);
  Value loss = ret->getOperand(0);
  auto lossType = cast<RankedTensorType>(loss.getType());
  Value one = arith::ConstantOp::create(
      b, loss.getLoc(),
      DenseElementsAttr::get(lossType,
                             b.getFloatAttr(lossType.getElementType(), 1.0)));
  if (active.contains(loss))
    adjoints[loss] = one;
  for (Operation *op : llvm::reverse(forward))
    if (failed(reverse(op, b, numRules)))
      return failure();
  finish(b);
  // Zeros of adjoints that turned out to be copies, unused seeds.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isOpTriviallyDead(&op))
      op.erase();
  return success();
}

struct AutodiffPass : public dtensor::impl::DTensorAutodiffBase<AutodiffPass> {
  using Base::Base;

  /// The SGD learning rate (none for optimizer=none); fails on an unknown
  /// optimizer or a learning rate that is not finite.
  FailureOr<std::optional<double>> parseOptimizer(ModuleOp module) {
    if (optimizer == "none")
      return std::optional<double>();
    if (optimizer != "sgd")
      return module.emitError() << "dtensor-autodiff: unknown optimizer '"
                                << optimizer << "' (expected none or sgd)";
    if (!std::isfinite(lr))
      return module.emitError()
             << "dtensor-autodiff: the learning rate lr=" << lr
             << " of optimizer=sgd is not finite";
    return std::optional<double>(lr);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::optional<double>> sgdLr = parseOptimizer(module);
    if (failed(sgdLr))
      return signalPassFailure();
    llvm::StringRef suffix = *sgdLr ? "_train_step" : "_grad";
    SymbolTable symbols(module);
    llvm::SmallVector<func::FuncOp> losses;
    for (auto f : module.getOps<func::FuncOp>())
      if (isLossFunction(f) &&
          (functions.empty() || llvm::is_contained(functions, f.getName())))
        losses.push_back(f);
    for (const std::string &name : functions) {
      auto f = symbols.lookup<func::FuncOp>(name);
      if (!f || !isLossFunction(f)) {
        module.emitError() << "dtensor-autodiff: @" << name
                           << " is not a loss function (a function whose only "
                              "result is a 0-d float tensor, with "
                              "dtensor.param arguments)";
        return signalPassFailure();
      }
    }
    for (func::FuncOp f : losses) {
      std::string name = (f.getName() + suffix).str();
      if (symbols.lookup(name)) {
        ++numKept;
        continue;
      }
      func::FuncOp grad = f.clone();
      grad.setName(name);
      symbols.insert(grad, std::next(Block::iterator(f)));
      unsigned rules = 0;
      if (failed(ReverseSweep(grad, *sgdLr).run(rules)))
        return signalPassFailure();
      numReverseRules += rules;
      ++numGradientFunctions;
    }
  }
};

} // namespace
