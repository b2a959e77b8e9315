//===- Autodiff.cpp - reverse-mode gradient functions of losses -----------===//
//
// `dtensor-autodiff`: for each loss function @f, @f_grad = a copy of @f's
// body followed by the reverse sweep over its single block (ReverseSweep.h:
// rules through `GradientOpInterface`, calls through the callee's vjp
// function, scf.for by loop reversal). With optimizer=sgd the function is
// @f_train_step and returns p - lr * grad instead of each gradient; with
// optimizer=adamw it also takes and returns the AdamW state.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "ReverseSweep.h"

#include "dtensor/Dialect/DTensor/Extensions/GradientUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>
#include <cmath>

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
constexpr llvm::StringLiteral kStateAttr = "dtensor.state";

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

/// The all-`R` spec on the mesh the arguments of `fn` use (the placements
/// of an argument without `dtensor.spec`); null when no argument names a
/// mesh.
Attribute replicatedSpec(func::FuncOp fn) {
  for (unsigned j = 0; j < fn.getNumArguments(); ++j)
    if (auto other = dyn_cast_or_null<SpecAttr>(fn.getArgAttr(j, kSpecAttr)))
      return SpecAttr::get(
          fn.getContext(), other.getMesh(),
          llvm::SmallVector<Placement>(other.getPlacements().size(),
                                       Placement::replicate()));
  return Attribute();
}

/// The placements of argument `i` of `fn` as a spec: its `dtensor.spec`,
/// else `replicated` (from `replicatedSpec`).
Attribute paramSpec(func::FuncOp fn, unsigned i, Attribute replicated) {
  Attribute spec = fn.getArgAttr(i, kSpecAttr);
  return spec ? spec : replicated;
}

/// The AdamW hyper-parameters.
struct AdamW {
  double lr, beta1, beta2, eps, weightDecay;
};

/// The optimizer of a training step: none (gradients), SGD or AdamW.
struct Optimizer {
  enum class Kind { None, Sgd, AdamW } kind = Kind::None;
  AdamW hyper{};
};

/// `v` (an f32 scalar) in the float type `to`.
Value castScalar(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  if (to.getIntOrFloatBitWidth() > v.getType().getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// The step count after this step and the two bias-correction factors of
/// AdamW at it, 0-d f32 tensors: t' = t + 1, lr / (1 - beta1^t') and
/// 1 / sqrt(1 - beta2^t').
std::array<Value, 3> buildAdamWScalars(OpBuilder &b, Location loc, Value t,
                                       const AdamW &h) {
  auto type = RankedTensorType::get({}, b.getF32Type());
  auto empty = [&] {
    return tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type())
        .getResult();
  };
  AffineMap scalar = AffineMap::get(b.getContext());
  auto gen = linalg::GenericOp::create(
      b, loc, TypeRange{type, type, type}, ValueRange{t},
      ValueRange{empty(), empty(), empty()},
      llvm::SmallVector<AffineMap>(4, scalar),
      llvm::ArrayRef<utils::IteratorType>{},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto c = [&](double v) {
          return arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(v));
        };
        Value next = arith::AddFOp::create(nb, l, args[0], c(1.0));
        Value bc1 = arith::SubFOp::create(
            nb, l, c(1.0), math::PowFOp::create(nb, l, c(h.beta1), next));
        Value bc2 = arith::SubFOp::create(
            nb, l, c(1.0), math::PowFOp::create(nb, l, c(h.beta2), next));
        Value stepSize = arith::DivFOp::create(nb, l, c(h.lr), bc1);
        Value inv = arith::DivFOp::create(nb, l, c(1.0),
                                          math::SqrtOp::create(nb, l, bc2));
        linalg::YieldOp::create(nb, l, ValueRange{next, stepSize, inv});
      });
  return {gen.getResult(0), gen.getResult(1), gen.getResult(2)};
}

/// One AdamW update of `param` (PyTorch's torch.optim.AdamW, single
/// tensor): returns (p', m', v').
std::array<Value, 3> buildAdamWUpdate(OpBuilder &b, Location loc, Value param,
                                      Value gradient, Value m, Value v,
                                      Value stepSize, Value invBc2,
                                      const AdamW &h) {
  auto type = cast<RankedTensorType>(param.getType());
  Type elem = type.getElementType();
  int64_t rank = type.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  AffineMap scalar = AffineMap::get(rank, 0, b.getContext());
  auto empty = [&] {
    return tensor::EmptyOp::create(b, loc, type.getShape(), elem).getResult();
  };
  auto gen = linalg::GenericOp::create(
      b, loc, TypeRange{type, type, type},
      ValueRange{param, gradient, m, v, stepSize, invBc2},
      ValueRange{empty(), empty(), empty()},
      llvm::ArrayRef<AffineMap>{id, id, id, id, scalar, scalar, id, id, id},
      llvm::SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto c = [&](double x) {
          return arith::ConstantOp::create(nb, l, nb.getFloatAttr(elem, x));
        };
        auto mul = [&](Value x, Value y) -> Value {
          return arith::MulFOp::create(nb, l, x, y);
        };
        auto add = [&](Value x, Value y) -> Value {
          return arith::AddFOp::create(nb, l, x, y);
        };
        Value p = a[0], g = a[1];
        // m.lerp_(g, 1 - beta1); v.mul_(beta2).addcmul_(g, g, 1 - beta2).
        Value m2 = add(
            a[2], mul(c(1.0 - h.beta1), arith::SubFOp::create(nb, l, g, a[2])));
        Value v2 = add(mul(a[3], c(h.beta2)), mul(c(1.0 - h.beta2), mul(g, g)));
        Value decayed = mul(p, c(1.0 - h.lr * h.weightDecay));
        Value denom = add(
            mul(math::SqrtOp::create(nb, l, v2), castScalar(nb, l, a[5], elem)),
            c(h.eps));
        Value delta = mul(castScalar(nb, l, a[4], elem),
                          arith::DivFOp::create(nb, l, m2, denom));
        Value p2 = arith::SubFOp::create(nb, l, decayed, delta);
        linalg::YieldOp::create(nb, l, ValueRange{p2, m2, v2});
      });
  return {gen.getResult(0), gen.getResult(1), gen.getResult(2)};
}

/// Adds the AdamW state arguments of `step` (m of each parameter, v of
/// each parameter, then the step count), in one insertion, and returns
/// them in that order.
llvm::SmallVector<Value> addAdamWState(func::FuncOp step,
                                       llvm::ArrayRef<BlockArgument> params) {
  OpBuilder b(step.getContext());
  Attribute replicated = replicatedSpec(step);
  llvm::SmallVector<Type> types;
  llvm::SmallVector<DictionaryAttr> attrs;
  auto add = [&](Type type, llvm::StringRef name, Attribute spec) {
    llvm::SmallVector<NamedAttribute> named{
        b.getNamedAttr(kStateAttr, b.getStringAttr(name))};
    if (spec)
      named.push_back(b.getNamedAttr(kSpecAttr, spec));
    types.push_back(type);
    attrs.push_back(b.getDictionaryAttr(named));
  };
  for (llvm::StringRef moment : {"exp_avg", "exp_avg_sq"})
    for (BlockArgument p : params) {
      unsigned i = p.getArgNumber();
      auto name = cast<StringAttr>(step.getArgAttr(i, kParamAttr));
      add(p.getType(), (name.getValue() + "." + moment).str(),
          paramSpec(step, i, replicated));
    }
  add(RankedTensorType::get({}, b.getF32Type()), "step", Attribute());
  unsigned first = step.getNumArguments();
  llvm::SmallVector<unsigned> indices(types.size(), first);
  llvm::SmallVector<Location> locs(types.size(), step.getLoc());
  (void)step.insertArguments(indices, types, attrs, locs);
  llvm::SmallVector<Value> state;
  for (unsigned i = first; i < step.getNumArguments(); ++i)
    state.push_back(step.getArgument(i));
  return state;
}

/// Rewrites the return of `fn` (a clone of loss function `f`) into the
/// loss followed by the gradients or, for a training step, the optimizer's
/// updated parameters and state.
void finish(func::FuncOp fn, llvm::ArrayRef<BlockArgument> params,
            llvm::MutableArrayRef<Value> grads, llvm::ArrayRef<Value> state,
            const Optimizer &opt) {
  Operation *ret = fn.getBody().front().getTerminator();
  OpBuilder b(ret);
  Location loc = ret->getLoc();
  auto gradient = [&](unsigned j) {
    // A parameter the loss does not reach: zeros, built where used.
    if (!grads[j])
      grads[j] = buildZerosLike(b, params[j].getLoc(), params[j]);
    return grads[j];
  };
  llvm::SmallVector<Value> results{ret->getOperand(0)};
  llvm::SmallVector<DictionaryAttr> attrs{fn.getResultAttrDict(0)};
  Attribute replicated = replicatedSpec(fn);
  auto specOf = [&](BlockArgument p) {
    llvm::SmallVector<NamedAttribute> spec;
    if (Attribute a = paramSpec(fn, p.getArgNumber(), replicated))
      spec.push_back(b.getNamedAttr(kSpecAttr, a));
    return b.getDictionaryAttr(spec);
  };
  if (opt.kind == Optimizer::Kind::AdamW) {
    size_t n = params.size();
    auto [next, stepSize, invBc2] =
        buildAdamWScalars(b, loc, state.back(), opt.hyper);
    llvm::SmallVector<Value> ms, vs;
    for (auto [j, p] : llvm::enumerate(params)) {
      auto [p2, m2, v2] =
          buildAdamWUpdate(b, p.getLoc(), p, gradient(j), state[j],
                           state[n + j], stepSize, invBc2, opt.hyper);
      results.push_back(p2);
      ms.push_back(m2);
      vs.push_back(v2);
    }
    llvm::append_range(results, ms);
    llvm::append_range(results, vs);
    results.push_back(next);
    for (unsigned k = 0; k < 3; ++k)
      for (BlockArgument p : params)
        attrs.push_back(specOf(p));
    attrs.push_back(b.getDictionaryAttr({}));
  } else {
    for (auto [j, p] : llvm::enumerate(params)) {
      results.push_back(
          opt.kind == Optimizer::Kind::Sgd
              ? buildSgdUpdate(b, p.getLoc(), p, gradient(j), opt.hyper.lr)
              : gradient(j));
      attrs.push_back(specOf(p));
    }
  }
  func::ReturnOp::create(b, loc, results);
  ret->erase();
  fn.setFunctionType(
      b.getFunctionType(fn.getArgumentTypes(), ValueRange(results).getTypes()));
  fn.setAllResultAttrs(attrs);
}

/// Builds the gradient function or training step `fn` (a clone of a loss
/// function) in place.
LogicalResult differentiateLoss(Differentiator &ctx, func::FuncOp fn,
                                const Optimizer &opt) {
  llvm::SmallVector<BlockArgument> params;
  for (BlockArgument arg : fn.getArguments()) {
    if (!fn.getArgAttr(arg.getArgNumber(), kParamAttr))
      continue;
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t || !isa<FloatType>(t.getElementType()))
      return fn.emitOpError()
             << "parameter argument #" << arg.getArgNumber() << " has type "
             << arg.getType() << "; a gradient needs a float tensor";
    params.push_back(arg);
  }
  FailureOr<llvm::SmallVector<Value>> grads =
      ctx.sweepFunction(fn, params, [&](OpBuilder &b, ReverseSweep &sweep) {
        Value loss = fn.getBody().front().getTerminator()->getOperand(0);
        auto type = cast<RankedTensorType>(loss.getType());
        if (sweep.isActive(loss))
          sweep.accumulate(
              b, loss,
              arith::ConstantOp::create(
                  b, loss.getLoc(),
                  DenseElementsAttr::get(
                      type, b.getFloatAttr(type.getElementType(), 1.0))));
      });
  if (failed(grads))
    return failure();
  llvm::SmallVector<Value> state;
  if (opt.kind == Optimizer::Kind::AdamW && !params.empty()) {
    // The state arguments come after the parameters' block arguments are
    // collected; insertArgument keeps those valid.
    state = addAdamWState(fn, params);
  }
  finish(fn, params, *grads, state, opt);
  eraseDeadOps(fn);
  return success();
}

struct AutodiffPass : public dtensor::impl::DTensorAutodiffBase<AutodiffPass> {
  using Base::Base;

  /// The optimizer and its hyper-parameters; fails on an unknown optimizer
  /// or a hyper-parameter out of its range.
  FailureOr<Optimizer> parseOptimizer(ModuleOp module) {
    Optimizer opt;
    opt.hyper = {lr, beta1, beta2, eps, weightDecay};
    if (optimizer == "none")
      return opt;
    if (optimizer != "sgd" && optimizer != "adamw")
      return module.emitError()
             << "dtensor-autodiff: unknown optimizer '" << optimizer
             << "' (expected none, sgd or adamw)";
    opt.kind =
        optimizer == "sgd" ? Optimizer::Kind::Sgd : Optimizer::Kind::AdamW;
    if (!std::isfinite(lr))
      return module.emitError()
             << "dtensor-autodiff: the learning rate lr=" << lr
             << " of optimizer=" << optimizer << " is not finite";
    if (opt.kind == Optimizer::Kind::Sgd)
      return opt;
    auto bad = [&](llvm::StringRef name, double v, llvm::StringRef range) {
      return module.emitError() << "dtensor-autodiff: " << name << "=" << v
                                << " of optimizer=adamw is not " << range;
    };
    for (auto [name, v] : {std::pair{"beta1", beta1.getValue()},
                           std::pair{"beta2", beta2.getValue()}})
      if (!(v >= 0.0 && v < 1.0))
        return bad(name, v, "in [0, 1)");
    if (!(eps > 0.0) || !std::isfinite(eps))
      return bad("eps", eps, "positive");
    if (!(weightDecay >= 0.0) || !std::isfinite(weightDecay))
      return bad("weight-decay", weightDecay, "finite and non-negative");
    return opt;
  }

  /// The loss functions to differentiate; fails on a name in functions=
  /// that is not one.
  FailureOr<llvm::SmallVector<func::FuncOp>> selectLosses(ModuleOp module) {
    llvm::SmallVector<func::FuncOp> losses;
    for (auto f : module.getOps<func::FuncOp>())
      if (isLossFunction(f) &&
          (functions.empty() || llvm::is_contained(functions, f.getName())))
        losses.push_back(f);
    for (const std::string &name : functions) {
      auto f = module.lookupSymbol<func::FuncOp>(name);
      if (!f || !isLossFunction(f))
        return module.emitError()
               << "dtensor-autodiff: @" << name
               << " is not a loss function (a function whose only result is "
                  "a 0-d float tensor, with dtensor.param arguments)";
    }
    return losses;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<Optimizer> opt = parseOptimizer(module);
    if (failed(opt))
      return signalPassFailure();
    FailureOr<llvm::SmallVector<func::FuncOp>> losses = selectLosses(module);
    if (failed(losses))
      return signalPassFailure();
    llvm::StringRef suffix =
        opt->kind == Optimizer::Kind::None ? "_grad" : "_train_step";
    Differentiator ctx(module);
    for (func::FuncOp f : *losses) {
      std::string name = (f.getName() + suffix).str();
      if (ctx.symbols.lookup(name)) {
        ++numKept;
        continue;
      }
      func::FuncOp grad = f.clone();
      grad.setName(name);
      ctx.symbols.insert(grad, std::next(Block::iterator(f)));
      if (failed(differentiateLoss(ctx, grad, *opt)))
        return signalPassFailure();
      ++numGradientFunctions;
    }
    numReverseRules += ctx.numRules;
  }
};

} // namespace
