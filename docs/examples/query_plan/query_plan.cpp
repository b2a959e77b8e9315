// Queries the fake-tensor analysis from C++: the placements and per-rank
// local shapes of every value, the redistributions of the plan and its cost.
// Build: see docs/user-guide.md, "Using the C++ API".
#include "dtensor/Dialect/DTensor/Analysis/FakeTensorAnalysis.h"
#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "dtensor/InitAll.h"
#include "dtensor/Support/Placement.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: query_plan FILE.mlir\n";
    return 2;
  }
  DialectRegistry registry;
  // The dialects and the sharding rules (external models on upstream ops).
  dtensor::registerAllDialects(registry);
  dtensor::registerAllExtensions(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &ctx);
  if (!module)
    return 1;

  dtensor::FakeTensorOptions options;
  options.strategy = dtensor::StrategyMode::Global; // or PyTorch
  dtensor::FakeTensorAnalysis analysis(*module, options);
  if (!analysis.succeeded())
    return 1; // the errors were emitted on the offending ops

  for (FunctionOpInterface func : analysis.getFunctions()) {
    const dtensor::FunctionPlan *plan = analysis.getPlan(func);
    llvm::outs() << "@" << func.getName() << " on " << plan->getNumRanks()
                 << " ranks\n";
    for (Value v : plan->getValues()) {
      const dtensor::FakeTensor *t = plan->lookup(v);
      llvm::outs() << "  " << t->type << " "
                   << dtensor::placementsToString(t->placements) << " rank0=";
      llvm::interleave(plan->getLocalShapes(v).front(), llvm::outs(), "x");
      llvm::outs() << "\n";
    }
    for (const dtensor::Redistribution &r : plan->getRedistributions())
      llvm::outs() << "  redistribute "
                   << dtensor::placementsToString(plan->lookup(r.value)->placements)
                   << " -> " << dtensor::placementsToString(r.target)
                   << (r.op ? " (explicit)" : " (required by "
                                                  + std::to_string(r.users.size())
                                                  + " use(s))")
                   << "\n";
    llvm::outs() << "  comm_cost_us=" << plan->computeCommCost()
                 << " pytorch_comm_cost_us=" << plan->getPytorchCommCost()
                 << "\n";
  }
  return 0;
}
