//===- RuleEquivalence.cpp - ops whose sharding rules see the same input --===//

#include "dtensor/Dialect/DTensor/Analysis/RuleEquivalence.h"
#include "dtensor/Dialect/DTensor/Interfaces/ShardingRuleOpInterface.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace {
/// A hash of `op` that is equal for ops `isSameRuleInput` finds equal: its
/// name, attributes and result types, its tensor operands by type and its
/// other operands by identity (locations ignored).
llvm::hash_code hashRuleInput(Operation *op) {
  return OperationEquivalence::computeHash(
      op,
      [](Value v) {
        return isa<TensorType>(v.getType()) ? hash_value(v.getType())
                                            : hash_value(v);
      },
      OperationEquivalence::ignoreHashValue,
      OperationEquivalence::IgnoreLocations);
}

/// True if `a` and `b` are in one rule class (`RuleClasses`).
bool isSameRuleInput(Operation *a, Operation *b) {
  // Values of the regions found equivalent so far (a few: no allocation).
  llvm::SmallDenseMap<Value, Value, 8> inner;
  auto sameOperand = [&](Value x, Value y) {
    if (x == y || inner.lookup(x) == y)
      return success();
    for (auto [u, v] : llvm::zip(a->getOperands(), b->getOperands()))
      if (u == x && v == y)
        return success(isa<TensorType>(x.getType()) &&
                       x.getType() == y.getType());
    // A value captured by a region must be the same one.
    return failure();
  };
  auto markSame = [&](Value x, Value y) { inner.try_emplace(x, y); };
  return a->getNumOperands() == b->getNumOperands() &&
         OperationEquivalence::isEquivalentTo(
             a, b, sameOperand, markSame,
             OperationEquivalence::IgnoreLocations);
}
} // namespace

mlir::dtensor::RuleClasses::RuleClasses(Region &region) {
  // A long program repeats a few ops (its layers): one representative each.
  llvm::DenseMap<llvm::hash_code,
                 llvm::SmallVector<std::pair<Operation *, int>, 1>>
      byHash;
  region.walk([&](Operation *op) {
    if (llvm::none_of(op->getResultTypes(),
                      [](Type t) { return isa<TensorType>(t); }) ||
        !isa<ShardingRuleOpInterface>(op))
      return;
    auto &bucket = byHash[hashRuleInput(op)];
    auto known = llvm::find_if(bucket, [&](const auto &entry) {
      return isSameRuleInput(op, entry.first);
    });
    int id = known != bucket.end() ? known->second : numClasses++;
    if (known == bucket.end())
      bucket.push_back({op, id});
    classOf[op] = id;
  });
}
