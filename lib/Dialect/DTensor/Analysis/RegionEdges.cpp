//===- RegionEdges.cpp - where the tensors of a region op flow ------------===//

#include "dtensor/Dialect/DTensor/Analysis/RegionEdges.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::dtensor;

FailureOr<llvm::SmallVector<RegionEdge>>
mlir::dtensor::getRegionEdges(RegionBranchOpInterface op) {
  llvm::SmallVector<RegionEdge> edges;
  llvm::SmallVector<RegionSuccessor> successors;
  op.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (RegionSuccessor &s : successors) {
    RegionEdge &e = edges.emplace_back();
    OperandRange forwarded = op.getEntrySuccessorOperands(s);
    if (!forwarded.empty())
      for (unsigned i = 0, n = forwarded.size(); i < n; ++i)
        e.operands.push_back(
            &op->getOpOperand(forwarded.getBeginOperandIndex() + i));
    llvm::append_range(e.inputs, s.getSuccessorInputs());
  }
  llvm::DenseSet<Value> reached;
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      Operation *term = block.getTerminator();
      auto branch = dyn_cast<RegionBranchTerminatorOpInterface>(term);
      if (!branch) {
        if (llvm::any_of(term->getOperandTypes(), llvm::IsaPred<TensorType>))
          return failure();
        continue;
      }
      successors.clear();
      op.getSuccessorRegions(RegionBranchPoint(branch), successors);
      for (RegionSuccessor &s : successors) {
        RegionEdge &e = edges.emplace_back();
        e.from = &region;
        for (OpOperand &o : branch.getMutableSuccessorOperands(s))
          e.operands.push_back(&o);
        llvm::append_range(e.inputs, s.getSuccessorInputs());
        reached.insert(e.inputs.begin(), e.inputs.end());
      }
    }
  for (const RegionEdge &e : edges)
    if (e.operands.size() != e.inputs.size())
      return failure();
  for (OpResult r : op->getResults())
    if (isa<TensorType>(r.getType()) && !reached.contains(r))
      return failure();
  return edges;
}
