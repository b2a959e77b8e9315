//===- DDPSplit.cpp - outline DDP gradient buckets as submodules ----------===//
//
// Buckets the top-level ops of every function with DDPOptimizer's algorithm
// (`computeDDPBuckets`) and outlines each bucket as `<func>_submod_<i>`.
// Created values (constants, empties, fills of them) are recreated where they
// are used; activations and parameters cross the boundaries, annotated with
// the placements the fake-tensor analysis gave them before the split.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "DDPTrainingStep.h"

#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/Analysis/ShardingRules.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h"
#include "dtensor/Dialect/DTensor/IR/Segment.h"
#include "dtensor/Support/Bucketing.h"
#include "dtensor/Support/TextTable.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

namespace mlir {
namespace dtensor {
#define GEN_PASS_DEF_DTENSORDDPSPLIT
#include "dtensor/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace dtensor
} // namespace mlir

using namespace mlir;
using namespace mlir::dtensor;
namespace json = llvm::json;

/// The source op `op` was lowered from, where a front end named it: the name
/// of its `NameLoc` (`dtensor_mlir.from_torch` names every op after the
/// torch-level call of the exported graph it came from, as `"linear_1"`).
static StringAttr getSourceOpName(Operation *op) {
  auto loc = dyn_cast<NameLoc>(op->getLoc());
  return loc ? loc.getName() : StringAttr();
}

namespace {

/// What the report says about one bucket.
struct BucketReport {
  std::string submodule;
  llvm::SmallVector<std::string> params;
  int64_t bytes = 0;
  size_t ops = 0;
  /// Training steps only: the segments of the bucket's forward and backward
  /// ops, the parameters whose gradients its one all-reduce carries and that
  /// buffer's bytes.
  std::string segment;
  std::string backwardSegment;
  llvm::SmallVector<std::string> reduced;
  int64_t reducedBytes = 0;
};

/// What the report says about one function.
struct FunctionReport {
  std::string name;
  bool split = false;
  bool trainingStep = false;
  std::vector<BucketReport> buckets;
};

/// Splits one function along its buckets. The function's top-level ops are
/// the bucketing nodes; values crossing a bucket boundary become arguments
/// and results of the submodules, created values are cloned where used.
class FunctionSplitter {
public:
  FunctionSplitter(func::FuncOp func, const FunctionPlan &plan,
                   SymbolTable &symbolTable)
      : func(func), plan(plan), symbolTable(symbolTable),
        body(func.getBody().front()) {}

  /// Computes the buckets of the function with caps in bytes.
  void computeBuckets(int64_t capBytes, int64_t firstCapBytes);

  /// Outlines the buckets (needs at least two). Returns the names of the
  /// submodules in forward order.
  llvm::SmallVector<std::string> outline();

  llvm::ArrayRef<Bucket> getBuckets() const { return buckets; }
  /// The `dtensor.param` name of argument `argNumber`.
  StringRef getParamName(unsigned argNumber) {
    return func
        .getArgAttrOfType<StringAttr>(argNumber, DTensorDialect::kParamAttrName)
        .getValue();
  }

  /// Number of created values cloned into submodules or the caller.
  int64_t numRecreated = 0;

private:
  /// Program-order index of the top-level op holding `op` (the number of
  /// ops for the terminator).
  size_t topLevelIndex(Operation *op) const {
    Operation *top = body.findAncestorOpInBlock(*op);
    assert(top && "use outside the function body");
    auto it = index.find(top);
    return it == index.end() ? ops.size() : it->second;
  }
  /// True if `v` is defined at the function's top level (an argument or a
  /// result of a top-level op), not inside a nested region.
  bool isTopLevel(Value v) const {
    return v.getParentRegion() == body.getParent();
  }
  /// Records that consumer `consumer` (a bucket, or `buckets.size()` for the
  /// return) reads `v`: a value from another bucket or an argument becomes
  /// an input, a created value is recreated (and its own operands read).
  void collect(Value v, size_t consumer, llvm::SetVector<Value> &inputs,
               llvm::DenseSet<Operation *> &createdOps);
  /// Calls `collect` on every value `op` (with its regions) reads from the
  /// top level.
  void collectOperands(Operation *op, size_t consumer,
                       llvm::SetVector<Value> &inputs,
                       llvm::DenseSet<Operation *> &createdOps);
  /// Clones the created value `v` (and the created values it is built from)
  /// at `b`'s insertion point unless `mapping` already has it.
  void recreate(OpBuilder &b, Value v, IRMapping &mapping);
  /// Recreates every created value `op` reads that `mapping` lacks.
  void recreateOperands(OpBuilder &b, Operation *op, IRMapping &mapping);
  /// `dtensor.specs` of `op`'s results as the analysis gave them to the
  /// results of `original` (null when it has no tensor result or no mesh).
  ArrayAttr getSpecs(Operation *original) const;
  /// `dtensor.specs` for values standing for `values` (null when none is a
  /// tensor or there is no mesh).
  ArrayAttr getSpecs(ValueRange values) const;
  /// The `dtensor.spec` of `v` as a one-entry attribute list.
  NamedAttrList getSpecAttrs(Value v) const;
  /// Computes the inputs of every bucket and of the return (consumer
  /// `buckets.size()`), and the outputs of every bucket: the values of it
  /// that a later consumer reads, in program order.
  void
  computeBoundaries(llvm::SmallVectorImpl<llvm::SetVector<Value>> &inputs,
                    llvm::SmallVectorImpl<llvm::SmallVector<Value>> &outputs);
  /// Declares the empty submodule of bucket `k` taking `ins` and returning
  /// `outs`: every argument and result carries the placements of its value,
  /// parameters keep their attributes.
  func::FuncOp createSubmodule(size_t k, llvm::ArrayRef<Value> ins,
                               llvm::ArrayRef<Value> outs);
  /// Replaces bucket `k` in the caller by a call of `sub`, mapping its
  /// outputs to the call's results in `caller`.
  void emitCall(OpBuilder &b, size_t k, func::FuncOp sub,
                llvm::ArrayRef<Value> ins, llvm::ArrayRef<Value> outs,
                IRMapping &caller);
  /// Moves the ops of bucket `k` into `sub`, recreating the created values
  /// they read, and returns `outs`.
  void moveBucket(OpBuilder &b, size_t k, func::FuncOp sub,
                  llvm::ArrayRef<Value> ins, llvm::ArrayRef<Value> outs);
  /// Rewires the return to the call results, arguments and recreated values,
  /// and erases the original created values.
  void finishCaller(OpBuilder &b, IRMapping &caller);

  func::FuncOp func;
  const FunctionPlan &plan;
  SymbolTable &symbolTable;
  Block &body;

  /// Top-level ops in program order, without the terminator.
  llvm::SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, size_t> index;
  /// Per op: true if it creates its value from nothing.
  llvm::SmallVector<bool> created;
  llvm::SmallVector<Bucket> buckets;
  /// Per op: its bucket.
  llvm::SmallVector<unsigned> bucketOf;
};

} // namespace

void FunctionSplitter::computeBuckets(int64_t capBytes, int64_t firstCapBytes) {
  for (Operation &op : body.without_terminator()) {
    index[&op] = ops.size();
    ops.push_back(&op);
    created.push_back(op.getNumResults() == 1 &&
                      isCreatedValue(op.getResult(0)));
  }

  // Global bytes of every counted parameter, by argument number.
  llvm::SmallVector<int64_t> paramBytes(func.getNumArguments(), -1);
  for (BlockArgument arg : body.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (!func.getArgAttr(i, DTensorDialect::kParamAttrName) ||
        func.getArgAttr(i, DTensorDialect::kDdpIgnoredAttrName))
      continue;
    const FakeTensor *t = plan.lookup(arg);
    assert(t && "parameters are ranked tensors (verified)");
    paramBytes[i] = getTensorByteSize(t->type);
  }

  // The bucketing nodes: runs of consecutive ops lowered from one source op
  // (one node of DDPOptimizer's graph, as F.linear reading a weight and a
  // bias), else single ops.
  llvm::SmallVector<size_t> nodeOf(ops.size());
  llvm::SmallVector<size_t> nodeBegin;
  for (auto [i, op] : llvm::enumerate(ops)) {
    StringAttr source = getSourceOpName(op);
    if (i == 0 || !source || source != getSourceOpName(ops[i - 1]))
      nodeBegin.push_back(i);
    nodeOf[i] = nodeBegin.size() - 1;
  }
  size_t numNodes = nodeBegin.size();
  nodeBegin.push_back(ops.size());

  llvm::SmallVector<BucketNode> nodes(numNodes);
  for (auto [i, op] : llvm::enumerate(ops)) {
    BucketNode &node = nodes[nodeOf[i]];
    // Parameters the node (an op of it, or an op nested in one) reads, once
    // each per node.
    op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        auto arg = dyn_cast<BlockArgument>(v);
        if (!arg || arg.getOwner() != &body ||
            paramBytes[arg.getArgNumber()] < 0)
          continue;
        unsigned id = arg.getArgNumber();
        if (llvm::none_of(node.params,
                          [&](const BucketParam &p) { return p.id == id; }))
          node.params.push_back({id, paramBytes[id]});
      }
    });
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers()) {
        size_t u = topLevelIndex(user);
        if (u == ops.size())
          node.usedByOutput = true;
        else if (nodeOf[u] != nodeOf[i])
          node.users.push_back(nodeOf[u]);
      }
  }
  buckets = computeDDPBuckets(nodes, capBytes, firstCapBytes);
  bucketOf.resize(ops.size());
  for (auto [b, bucket] : llvm::enumerate(buckets)) {
    bucket.begin = nodeBegin[bucket.begin];
    bucket.end = nodeBegin[bucket.end];
    for (size_t i = bucket.begin; i < bucket.end; ++i)
      bucketOf[i] = b;
  }
}

void FunctionSplitter::collect(Value v, size_t consumer,
                               llvm::SetVector<Value> &inputs,
                               llvm::DenseSet<Operation *> &createdOps) {
  if (!isTopLevel(v))
    return;
  Operation *def = v.getDefiningOp();
  if (!def) {
    inputs.insert(v);
    return;
  }
  size_t i = index.lookup(def);
  if (created[i]) {
    if (createdOps.insert(def).second)
      collectOperands(def, consumer, inputs, createdOps);
    return;
  }
  if (bucketOf[i] != consumer)
    inputs.insert(v);
}

void FunctionSplitter::collectOperands(
    Operation *op, size_t consumer, llvm::SetVector<Value> &inputs,
    llvm::DenseSet<Operation *> &createdOps) {
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    for (Value v : nested->getOperands())
      collect(v, consumer, inputs, createdOps);
  });
}

void FunctionSplitter::recreate(OpBuilder &b, Value v, IRMapping &mapping) {
  if (mapping.contains(v) || !isTopLevel(v))
    return;
  Operation *def = v.getDefiningOp();
  if (!def || !created[index.lookup(def)])
    return;
  recreateOperands(b, def, mapping);
  Operation *copy = b.clone(*def, mapping);
  if (ArrayAttr specs = getSpecs(def))
    copy->setAttr(DTensorDialect::kSpecsAttrName, specs);
  ++numRecreated;
}

void FunctionSplitter::recreateOperands(OpBuilder &b, Operation *op,
                                        IRMapping &mapping) {
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    for (Value v : nested->getOperands())
      recreate(b, v, mapping);
  });
}

ArrayAttr FunctionSplitter::getSpecs(Operation *original) const {
  if (isa<DTensorDialect>(original->getDialect()))
    return {};
  return getSpecs(original->getResults());
}

ArrayAttr FunctionSplitter::getSpecs(ValueRange values) const {
  if (!plan.getMesh() || values.empty())
    return {};
  MLIRContext *ctx = body.getParentOp()->getContext();
  SmallVector<Attribute> specs;
  bool any = false;
  for (Value r : values) {
    const FakeTensor *t = plan.lookup(r);
    specs.push_back(t ? Attribute(plan.getSpecAttr(t->placements))
                      : Attribute(UnitAttr::get(ctx)));
    any |= t != nullptr;
  }
  return any ? ArrayAttr::get(ctx, specs) : ArrayAttr();
}

NamedAttrList FunctionSplitter::getSpecAttrs(Value v) const {
  NamedAttrList attrs;
  if (const FakeTensor *t = plan.lookup(v))
    if (SpecAttr spec = plan.getSpecAttr(t->placements))
      attrs.set(DTensorDialect::kSpecAttrName, spec);
  return attrs;
}

void FunctionSplitter::computeBoundaries(
    llvm::SmallVectorImpl<llvm::SetVector<Value>> &inputs,
    llvm::SmallVectorImpl<llvm::SmallVector<Value>> &outputs) {
  size_t numBuckets = buckets.size();
  inputs.resize(numBuckets + 1);
  outputs.resize(numBuckets);
  llvm::DenseSet<Value> isOutput;
  for (size_t b = 0; b <= numBuckets; ++b) {
    llvm::DenseSet<Operation *> createdOps;
    if (b == numBuckets) {
      for (Value v : body.getTerminator()->getOperands())
        collect(v, b, inputs[b], createdOps);
    } else {
      for (size_t i = buckets[b].begin; i < buckets[b].end; ++i)
        if (!created[i])
          collectOperands(ops[i], b, inputs[b], createdOps);
    }
    for (Value v : inputs[b])
      if (Operation *def = v.getDefiningOp())
        if (isOutput.insert(v).second)
          outputs[bucketOf[index.lookup(def)]].push_back(v);
  }
  // Results in program order.
  for (llvm::SmallVector<Value> &outs : outputs)
    llvm::sort(outs, [&](Value a, Value b) {
      Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
      if (da != db)
        return index.lookup(da) < index.lookup(db);
      return cast<OpResult>(a).getResultNumber() <
             cast<OpResult>(b).getResultNumber();
    });
}

func::FuncOp FunctionSplitter::createSubmodule(size_t k,
                                               llvm::ArrayRef<Value> ins,
                                               llvm::ArrayRef<Value> outs) {
  MLIRContext *ctx = func.getContext();
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  for (Value v : ins) {
    argTypes.push_back(v.getType());
    NamedAttrList attrs = getSpecAttrs(v);
    if (auto arg = dyn_cast<BlockArgument>(v))
      for (StringRef name : {DTensorDialect::kParamAttrName,
                             DTensorDialect::kDdpIgnoredAttrName})
        if (Attribute a = func.getArgAttr(arg.getArgNumber(), name))
          attrs.set(name, a);
    argAttrs.push_back(attrs.getDictionary(ctx));
  }
  for (Value v : outs) {
    resultTypes.push_back(v.getType());
    resultAttrs.push_back(getSpecAttrs(v).getDictionary(ctx));
  }
  auto sub =
      func::FuncOp::create(ops[buckets[k].begin]->getLoc(),
                           (func.getName() + "_submod_" + Twine(k)).str(),
                           FunctionType::get(ctx, argTypes, resultTypes));
  sub.setPrivate();
  // Its body is one segment: traces show a compute span named after it.
  sub->setAttr(kSegmentAttrName, StringAttr::get(ctx, sub.getName()));
  sub.setAllArgAttrs(argAttrs);
  sub.setAllResultAttrs(resultAttrs);
  symbolTable.insert(sub, Block::iterator(func));
  return sub;
}

void FunctionSplitter::emitCall(OpBuilder &b, size_t k, func::FuncOp sub,
                                llvm::ArrayRef<Value> ins,
                                llvm::ArrayRef<Value> outs, IRMapping &caller) {
  Operation *first = ops[buckets[k].begin];
  b.setInsertionPoint(first);
  SmallVector<Value> operands;
  for (Value v : ins)
    operands.push_back(caller.lookupOrDefault(v));
  auto call = func::CallOp::create(b, first->getLoc(), sub, operands);
  for (auto [v, r] : llvm::zip_equal(outs, call.getResults()))
    caller.map(v, r);
  // The call's results have the placements of the values they stand for,
  // annotated as `dtensor-fake-propagate` would.
  if (ArrayAttr specs = getSpecs(outs))
    call->setAttr(DTensorDialect::kSpecsAttrName, specs);
}

void FunctionSplitter::moveBucket(OpBuilder &b, size_t k, func::FuncOp sub,
                                  llvm::ArrayRef<Value> ins,
                                  llvm::ArrayRef<Value> outs) {
  Block *entry = sub.addEntryBlock();
  IRMapping mapping;
  for (auto [v, arg] : llvm::zip_equal(ins, entry->getArguments()))
    mapping.map(v, arg);
  b.setInsertionPointToEnd(entry);
  for (size_t i = buckets[k].begin; i < buckets[k].end; ++i) {
    if (created[i])
      continue;
    Operation *op = ops[i];
    recreateOperands(b, op, mapping);
    op->moveBefore(entry, entry->end());
    op->walk([&](Operation *nested) {
      for (OpOperand &o : nested->getOpOperands())
        if (Value to = mapping.lookupOrNull(o.get()))
          o.set(to);
      if (ArrayAttr specs = getSpecs(nested))
        nested->setAttr(DTensorDialect::kSpecsAttrName, specs);
    });
  }
  func::ReturnOp::create(b, func.getLoc(), outs);
}

void FunctionSplitter::finishCaller(OpBuilder &b, IRMapping &caller) {
  Operation *ret = body.getTerminator();
  b.setInsertionPoint(ret);
  recreateOperands(b, ret, caller);
  for (OpOperand &o : ret->getOpOperands())
    if (Value to = caller.lookupOrNull(o.get()))
      o.set(to);

  // The original created values are now unused.
  for (auto [op, isCreated] : llvm::reverse(llvm::zip_equal(ops, created))) {
    if (!isCreated)
      continue;
    assert(op->use_empty() && "a created value is still used");
    op->erase();
  }
}

llvm::SmallVector<std::string> FunctionSplitter::outline() {
  assert(buckets.size() > 1 && "nothing to outline");
  llvm::SmallVector<llvm::SetVector<Value>> inputs;
  llvm::SmallVector<llvm::SmallVector<Value>> outputs;
  computeBoundaries(inputs, outputs);

  // The value that stands for an original value in the caller.
  IRMapping caller;
  OpBuilder b(func.getContext());
  llvm::SmallVector<std::string> names;
  for (size_t k = 0, e = buckets.size(); k < e; ++k) {
    llvm::ArrayRef<Value> ins = inputs[k].getArrayRef();
    llvm::ArrayRef<Value> outs = outputs[k];
    func::FuncOp sub = createSubmodule(k, ins, outs);
    names.push_back(sub.getName().str());
    emitCall(b, k, sub, ins, outs, caller);
    moveBucket(b, k, sub, ins, outs);
  }
  finishCaller(b, caller);
  return names;
}

namespace {

/// Writes the report as JSON.
void printJson(llvm::raw_ostream &os, llvm::ArrayRef<FunctionReport> reports) {
  json::Array functions;
  for (const FunctionReport &f : reports) {
    json::Array buckets;
    for (const BucketReport &b : f.buckets) {
      json::Array params;
      for (const std::string &p : b.params)
        params.push_back(p);
      json::Object bucket{{"submodule", b.submodule},
                          {"params", std::move(params)},
                          {"bytes", b.bytes},
                          {"ops", static_cast<int64_t>(b.ops)}};
      if (f.trainingStep) {
        json::Array reduced;
        for (const std::string &p : b.reduced)
          reduced.push_back(p);
        bucket["segment"] = b.segment;
        bucket["backward_segment"] = b.backwardSegment;
        bucket["all_reduce_params"] = std::move(reduced);
        bucket["all_reduce_bytes"] = b.reducedBytes;
      }
      buckets.push_back(std::move(bucket));
    }
    json::Object function{
        {"name", f.name}, {"split", f.split}, {"buckets", std::move(buckets)}};
    if (f.trainingStep)
      function["training_step"] = true;
    functions.push_back(std::move(function));
  }
  os << llvm::formatv("{0:2}", json::Value(json::Object{
                                   {"functions", std::move(functions)}}))
     << "\n";
}

/// Writes the report as one aligned table per function.
void printText(llvm::raw_ostream &os, llvm::ArrayRef<FunctionReport> reports,
               int64_t capBytes, int64_t firstCapBytes) {
  for (const FunctionReport &f : reports) {
    os << "function @" << f.name << ": " << f.buckets.size()
       << (f.buckets.size() == 1 ? " bucket" : " buckets")
       << (f.split ? "" : ", not split") << " (bucket cap " << capBytes
       << " bytes, first bucket cap " << firstCapBytes << " bytes)\n";
    auto list = [](llvm::ArrayRef<std::string> names) {
      return names.empty() ? std::string("-") : llvm::join(names, " ");
    };
    if (f.trainingStep) {
      TextTable table({"bucket", "segment", "parameters", "bytes", "ops",
                       "backward", "all-reduce", "bytes"});
      for (auto [i, b] : llvm::enumerate(f.buckets))
        table.addRow({std::to_string(i), b.segment, list(b.params),
                      std::to_string(b.bytes), std::to_string(b.ops),
                      b.backwardSegment, list(b.reduced),
                      std::to_string(b.reducedBytes)});
      table.print(os);
      os << "\n";
      continue;
    }
    TextTable table({"bucket", "submodule", "parameters", "bytes", "ops"});
    for (auto [i, b] : llvm::enumerate(f.buckets))
      table.addRow({std::to_string(i), b.submodule, list(b.params),
                    std::to_string(b.bytes), std::to_string(b.ops)});
    table.print(os);
    os << "\n";
  }
}

/// Splits the training step `func` and describes it; counts its gradient
/// all-reduces in `numAllReduces`.
FunctionReport splitStep(func::FuncOp func, const FunctionPlan &plan,
                         int64_t capBytes, int64_t firstCapBytes,
                         llvm::Statistic &numAllReduces) {
  FunctionReport rep;
  rep.name = func.getName().str();
  rep.trainingStep = true;
  auto name = [&](unsigned arg) {
    return func
        .getArgAttrOfType<StringAttr>(arg, DTensorDialect::kParamAttrName)
        .getValue()
        .str();
  };
  for (const TrainingStepBucket &b :
       splitTrainingStep(func, plan, capBytes, firstCapBytes)) {
    BucketReport br;
    br.submodule = rep.name;
    br.segment = b.forwardSegment;
    br.backwardSegment = b.backwardSegment;
    br.bytes = b.bytes;
    br.ops = b.ops;
    br.reducedBytes = b.reducedBytes;
    for (unsigned p : b.params)
      br.params.push_back(name(p));
    for (unsigned p : b.reduced)
      br.reduced.push_back(name(p));
    numAllReduces += !b.reduced.empty();
    rep.buckets.push_back(std::move(br));
  }
  rep.split = rep.buckets.size() > 1;
  return rep;
}

struct DDPSplitPass : public dtensor::impl::DTensorDDPSplitBase<DDPSplitPass> {
  using Base::Base;

  void runOnOperation() override;

  /// Emits an error for every call that receives a counted parameter.
  LogicalResult checkCalls(func::FuncOp func);
  /// Emits an error, at the argument, for every counted parameter that is
  /// not a ranked tensor (the dialect also allows memrefs).
  LogicalResult checkParams(func::FuncOp func);
};

} // namespace

LogicalResult DDPSplitPass::checkCalls(func::FuncOp func) {
  Block &body = func.getBody().front();
  bool ok = true;
  func.walk([&](CallOpInterface call) {
    for (Value v : call.getArgOperands()) {
      auto arg = dyn_cast<BlockArgument>(v);
      if (!arg || arg.getOwner() != &body)
        continue;
      unsigned i = arg.getArgNumber();
      auto name =
          func.getArgAttrOfType<StringAttr>(i, DTensorDialect::kParamAttrName);
      if (!name || func.getArgAttr(i, DTensorDialect::kDdpIgnoredAttrName))
        continue;
      InFlightDiagnostic d = call->emitOpError() << "passes parameter '"
                                                 << name.getValue() << "' to ";
      if (auto sym = dyn_cast<SymbolRefAttr>(call.getCallableForCallee()))
        d << sym;
      else
        d << "an indirect callee";
      d << "; dtensor-ddp-split counts the parameters each op uses directly "
           "and cannot see into a call (inline it first)";
      ok = false;
      return;
    }
  });
  return success(ok);
}

LogicalResult DDPSplitPass::checkParams(func::FuncOp func) {
  bool ok = true;
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto name =
        func.getArgAttrOfType<StringAttr>(i, DTensorDialect::kParamAttrName);
    if (!name || func.getArgAttr(i, DTensorDialect::kDdpIgnoredAttrName) ||
        isa<RankedTensorType>(arg.getType()))
      continue;
    emitError(arg.getLoc())
        << "parameter '" << name.getValue() << "' (argument #" << i << " of @"
        << func.getName() << ") has type " << arg.getType()
        << "; dtensor-ddp-split buckets tensor parameters (split before "
           "bufferizing)";
    ok = false;
  }
  return success(ok);
}

void DDPSplitPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Errors of the options concern no op: at the module's location, without
  // the module printed after them.
  auto fail = [&](const Twine &msg) {
    emitError(module.getLoc()) << "dtensor-ddp-split: " << msg;
    signalPassFailure();
  };
  // Sizes as written on the command line (%g), not in exponent form.
  auto mb = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", v);
    return std::string(buf);
  };
  if (bucketCapMb < 0 || firstBucketCapMb < 0)
    return fail(llvm::formatv("bucket caps must not be negative, got "
                              "bucket-cap-mb={0} first-bucket-cap-mb={1}",
                              mb(bucketCapMb), mb(firstBucketCapMb))
                    .str());
  int64_t capBytes = bucketCapBytes(bucketCapMb);
  int64_t firstCapBytes = bucketCapBytes(firstBucketCapMb);
  if (capBytes < firstCapBytes)
    return fail(llvm::formatv("bucket-cap-mb={0} ({1} bytes) is below "
                              "first-bucket-cap-mb={2} ({3} bytes)",
                              mb(bucketCapMb), capBytes, mb(firstBucketCapMb),
                              firstCapBytes)
                    .str());
  if (reportFormat != "json" && reportFormat != "text")
    return fail("report-format must be json or text, got '" + reportFormat +
                "'");

  llvm::SmallVector<func::FuncOp> funcs;
  bool ok = true;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    funcs.push_back(func);
    ok &= succeeded(checkParams(func));
    ok &= succeeded(checkCalls(func));
  }
  if (!ok)
    return signalPassFailure();

  const FakeTensorAnalysis &analysis =
      getAnalysis<FakeTensorAnalysisCache>().get(
          makeFakeTensorOptions(unknownOps));
  if (!analysis.succeeded())
    return signalPassFailure();

  SymbolTable symbolTable(module);
  std::vector<FunctionReport> reports;
  for (func::FuncOp func : funcs) {
    const FunctionPlan *plan = analysis.getPlan(func);
    assert(plan && "every defined function has a plan");
    if (isTrainingStep(func)) {
      reports.push_back(
          splitStep(func, *plan, capBytes, firstCapBytes, numGradientBuckets));
      continue;
    }
    FunctionSplitter splitter(func, *plan, symbolTable);
    splitter.computeBuckets(capBytes, firstCapBytes);

    FunctionReport rep;
    rep.name = func.getName().str();
    llvm::ArrayRef<Bucket> buckets = splitter.getBuckets();
    for (const Bucket &bucket : buckets) {
      BucketReport br;
      br.submodule = rep.name;
      br.bytes = bucket.bytes;
      br.ops = bucket.size();
      for (const BucketParam &p : bucket.params)
        br.params.push_back(splitter.getParamName(p.id).str());
      rep.buckets.push_back(std::move(br));
    }
    if (buckets.size() > 1) {
      llvm::SmallVector<std::string> names = splitter.outline();
      for (auto [br, name] : llvm::zip_equal(rep.buckets, names))
        br.submodule = name;
      rep.split = true;
      ++numSplitFunctions;
      numSubmodules += names.size();
      numRecreated += splitter.numRecreated;
    }
    reports.push_back(std::move(rep));
  }

  if (report.empty())
    return;
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(report, &error);
  if (!file)
    return fail(error);
  if (reportFormat == "json")
    printJson(file->os(), reports);
  else
    printText(file->os(), reports, capBytes, firstCapBytes);
  file->keep();
}
