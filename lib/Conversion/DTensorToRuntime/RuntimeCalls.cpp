//===- RuntimeCalls.cpp - building checked dtrt calls ---------------------===//

#include "dtensor/Conversion/DTensorToRuntime/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

Value mlir::dtensor::unpackAllToAll(OpBuilder &b, Location loc, Value received,
                                    int64_t concatDim, int64_t splitDim,
                                    int64_t groupSize,
                                    RankedTensorType resultType) {
  // received: [G * c, rest...] (rest: the input's dims but the split dim)
  // -> [G, c, rest...].
  auto type = cast<RankedTensorType>(received.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(b, loc, received);
  OpFoldResult rows = sizes[0];
  OpFoldResult chunk;
  if (std::optional<int64_t> n = getConstantIntValue(rows))
    chunk = b.getIndexAttr(*n / groupSize);
  else
    chunk = arith::DivUIOp::create(
                b, loc, getValueOrCreateConstantIndexOp(b, loc, rows),
                arith::ConstantIndexOp::create(b, loc, groupSize))
                .getResult();
  SmallVector<OpFoldResult> expandedSizes{b.getIndexAttr(groupSize), chunk};
  expandedSizes.append(sizes.begin() + 1, sizes.end());
  SmallVector<ReassociationIndices> expand{{0, 1}};
  for (int64_t d = 2; d <= rank; ++d)
    expand.push_back({d});
  auto [staticSizes, dynamicSizes] = decomposeMixedValues(expandedSizes);
  auto expandedType = RankedTensorType::get(staticSizes, type.getElementType());
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, expandedType, received, expand, expandedSizes);
  // Dims in the result's order, the concat dim as (G, its block): the
  // position in `expanded` of result dim d is 1 for the split dim, else its
  // position among the input's other dims plus 2.
  SmallVector<int64_t> perm;
  SmallVector<ReassociationIndices> collapse;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t source = d == splitDim ? 1 : (d < splitDim ? d : d - 1) + 2;
    ReassociationIndices group;
    if (d == concatDim) {
      group.push_back(perm.size());
      perm.push_back(0);
    }
    group.push_back(perm.size());
    perm.push_back(source);
    collapse.push_back(group);
  }
  SmallVector<OpFoldResult> permutedSizes;
  for (int64_t p : perm)
    permutedSizes.push_back(expandedSizes[p]);
  Value init =
      tensor::EmptyOp::create(b, loc, permutedSizes, type.getElementType());
  Value permuted =
      linalg::TransposeOp::create(b, loc, expanded, init, perm).getResult()[0];
  Value result =
      tensor::CollapseShapeOp::create(b, loc, permuted, collapse).getResult();
  if (result.getType() != resultType)
    result = tensor::CastOp::create(b, loc, resultType, result);
  return result;
}
