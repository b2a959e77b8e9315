//===- BufferZeros.cpp - buffers provably holding zeros -------------------===//
//
// Done on buffers, after bufferization, because that is where the zeros
// are visible: a zero fill shared by several contractions on tensors becomes
// one filled buffer copied into each output (memref.copy), which only an
// analysis of the buffers can see through. It is sound because it only
// follows fresh allocations (memref.alloc/alloca, nothing else can alias
// them but their own views) within one block, and stops at any op that may
// write them or whose effects are unknown.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Conversion/Utils/BufferZeros.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

Value dtensor::getRootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

bool dtensor::isFreshAllocation(Value v) {
  auto effects = v.getDefiningOp<MemoryEffectOpInterface>();
  return effects &&
         effects.getEffectOnValue<MemoryEffects::Allocate>(v).has_value();
}

/// True if `v` is known not to alias the fresh allocation `root`.
static bool isDisjointFrom(Value v, Value root) {
  Value other = dtensor::getRootBuffer(v);
  if (other == root)
    return false;
  if (dtensor::isFreshAllocation(other))
    return true;
  // A function argument cannot be a buffer the function allocates.
  auto arg = dyn_cast<BlockArgument>(other);
  return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
}

bool dtensor::mayAccessBuffer(Operation *op, Value root, bool writesOnly) {
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &e : effects) {
      if (isa<MemoryEffects::Allocate>(e.getEffect()) ||
          (writesOnly && isa<MemoryEffects::Read>(e.getEffect())))
        continue;
      if (!e.getValue() || !isDisjointFrom(e.getValue(), root))
        return true;
    }
  } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    return true;
  }
  if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      if (mayAccessBuffer(&nested, root, writesOnly))
        return true;
  return false;
}

/// True if `view` is `base` or a reshape of all of it (expand_shape and
/// collapse_shape views: the same elements).
static bool isWholeReshapeOf(Value view, Value base) {
  while (view != base) {
    if (auto expand = view.getDefiningOp<memref::ExpandShapeOp>())
      view = expand.getSrc();
    else if (auto collapse = view.getDefiningOp<memref::CollapseShapeOp>())
      view = collapse.getSrc();
    else
      return false;
  }
  return true;
}

/// holdsZeros, following at most one copy (`depth` 1 is the copy's source).
static bool holdsZerosAt(Operation *before, Value buffer,
                         const llvm::SetVector<Operation *> &erased,
                         llvm::SetVector<Operation *> &erasable, int depth) {
  Value root = dtensor::getRootBuffer(buffer);
  if (!dtensor::isFreshAllocation(root))
    return false;
  bool read = false;
  for (Operation *op = before->getPrevNode(); op; op = op->getPrevNode()) {
    if (erased.contains(op))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op);
        fill && fill.hasPureBufferSemantics() &&
        isWholeReshapeOf(buffer, fill.getDpsInits()[0])) {
      if (!matchPattern(fill.getDpsInputs()[0], m_AnyZeroFloat()))
        return false;
      if (!read && depth == 0)
        erasable.insert(op);
      return true;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op);
        copy && isWholeReshapeOf(buffer, copy.getTarget())) {
      llvm::SetVector<Operation *> kept;
      if (depth > 0 ||
          !holdsZerosAt(op, copy.getSource(), erased, kept, depth + 1))
        return false;
      if (!read)
        erasable.insert(op);
      return true;
    }
    if (dtensor::mayAccessBuffer(op, root, /*writesOnly=*/true))
      return false;
    read = read || dtensor::mayAccessBuffer(op, root, /*writesOnly=*/false);
  }
  return false;
}

bool dtensor::holdsZeros(Operation *before, Value buffer,
                         const llvm::SetVector<Operation *> &erased,
                         llvm::SetVector<Operation *> &erasable) {
  return holdsZerosAt(before, buffer, erased, erasable, /*depth=*/0);
}
