//===- Widen.cpp - a module recomputed in f64 -----------------------------===//
//
// A walk, not a conversion pass: element types change in place and nothing
// else does, which is correct for linalg, arith, math and tensor ops (their
// semantics do not depend on the float width) except for the casts between
// float types (removed) and float constants (their attributes retyped).
//
//===----------------------------------------------------------------------===//

#include "Widen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace dtensor_run;

namespace {

Type widen(Type t) {
  MLIRContext *ctx = t.getContext();
  if (isa<Float16Type, BFloat16Type, Float32Type>(t))
    return Float64Type::get(ctx);
  if (auto shaped = dyn_cast<ShapedType>(t)) {
    Type elem = widen(shaped.getElementType());
    if (elem != shaped.getElementType())
      return shaped.clone(elem);
  }
  if (auto fn = dyn_cast<FunctionType>(t)) {
    llvm::SmallVector<Type> ins, outs;
    for (Type i : fn.getInputs())
      ins.push_back(widen(i));
    for (Type o : fn.getResults())
      outs.push_back(widen(o));
    return FunctionType::get(ctx, ins, outs);
  }
  return t;
}

/// The constant's value attribute with f64 elements, or null if unchanged.
TypedAttr widenValue(TypedAttr value) {
  Type type = widen(value.getType());
  if (type == value.getType())
    return nullptr;
  if (auto f = dyn_cast<FloatAttr>(value))
    return FloatAttr::get(type, f.getValueAsDouble());
  auto dense = dyn_cast<DenseFPElementsAttr>(value);
  if (!dense)
    return nullptr;
  llvm::SmallVector<double> values;
  for (llvm::APFloat v : dense.getValues<llvm::APFloat>()) {
    bool lost;
    v.convert(llvm::APFloat::IEEEdouble(),
              llvm::RoundingMode::NearestTiesToEven, &lost);
    values.push_back(v.convertToDouble());
  }
  return DenseElementsAttr::get(cast<ShapedType>(type),
                                llvm::ArrayRef<double>(values));
}

} // namespace

LogicalResult dtensor_run::widenFloatsToF64(ModuleOp module) {
  llvm::SmallVector<Operation *> casts;
  module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(widen(arg.getType()));
    for (OpResult r : op->getResults())
      r.setType(widen(r.getType()));
    if (auto f = dyn_cast<func::FuncOp>(op))
      f.setFunctionType(cast<FunctionType>(widen(f.getFunctionType())));
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      if (TypedAttr v = widenValue(c.getValue()))
        c.setValueAttr(v);
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      casts.push_back(op);
  });
  for (Operation *op : casts) {
    if (op->getOperand(0).getType() != op->getResult(0).getType())
      continue;
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
  return verify(module);
}
