//===- RuntimeCalls.cpp - building checked dtrt calls ---------------------===//

#include "dtensor/Conversion/DTensorToRuntime/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include "dtrt/dtrt.h"

using namespace mlir;

func::FuncOp mlir::dtensor::declareRuntimeFunction(OpBuilder &builder,
                                                   ModuleOp module,
                                                   StringRef name,
                                                   FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto fn = func::FuncOp::create(builder, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

void mlir::dtensor::createCheckedRuntimeCall(OpBuilder &builder, Location loc,
                                             func::FuncOp fn, ValueRange args) {
  auto module = fn->getParentOfType<ModuleOp>();
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
  // const char *dtrt_last_error(void); void dtrt_abort(const char *).
  static_assert(sizeof(dtrt_last_error()) == sizeof(int64_t),
                "pointers travel as i64");
  func::FuncOp lastError = declareRuntimeFunction(
      builder, module, "dtrt_last_error", builder.getFunctionType({}, {i64}));
  func::FuncOp abort = declareRuntimeFunction(
      builder, module, "dtrt_abort", builder.getFunctionType({i64}, {}));
  Value status = func::CallOp::create(builder, loc, fn, args).getResult(0);
  Value zero = arith::ConstantIntOp::create(builder, loc, i32, 0);
  Value failed = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                       status, zero);
  scf::IfOp::create(builder, loc, failed, [&](OpBuilder &b, Location l) {
    Value msg =
        func::CallOp::create(b, l, lastError, ValueRange{}).getResult(0);
    func::CallOp::create(b, l, abort, ValueRange{msg});
    scf::YieldOp::create(b, l);
  });
}

Value mlir::dtensor::createBufferAddress(OpBuilder &builder, Location loc,
                                         Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
  auto meta = memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  Value offset = arith::MulIOp::create(
      builder, loc, meta.getOffset(),
      arith::ConstantIndexOp::create(builder, loc, bytes));
  Value address = arith::AddIOp::create(builder, loc, base, offset);
  return arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                    address);
}

std::optional<dtrt_dtype> mlir::dtensor::runtimeDtypeOf(Type t) {
  if (t.isF32())
    return DTRT_F32;
  if (t.isF64())
    return DTRT_F64;
  if (t.isF16())
    return DTRT_F16;
  if (t.isBF16())
    return DTRT_BF16;
  if (t.isInteger(32))
    return DTRT_I32;
  if (t.isInteger(64) || t.isIndex())
    return DTRT_I64;
  if (t.isInteger(16))
    return DTRT_I16;
  if (t.isInteger(8))
    return DTRT_I8;
  if (t.isInteger(1))
    return DTRT_I1;
  return std::nullopt;
}

dtrt_reduce_op mlir::dtensor::runtimeReduceOpOf(ReduceOp kind) {
  switch (kind) {
  case ReduceOp::Sum:
    return DTRT_SUM;
  case ReduceOp::Avg:
    return DTRT_AVG;
  case ReduceOp::Max:
    return DTRT_MAX;
  case ReduceOp::Min:
    return DTRT_MIN;
  }
  llvm_unreachable("unknown reduction");
}

uint64_t mlir::dtensor::runtimeAxesMask(ArrayRef<int64_t> axes) {
  uint64_t mask = 0;
  for (int64_t a : axes)
    mask |= uint64_t(1) << a;
  return mask;
}
