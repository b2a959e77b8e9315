//===- Placement.cpp - PyTorch DTensor placements
//---------------------------===//

#include "dtensor/Dialect/DTensor/Utils/Placement.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir::dtensor;

llvm::StringRef mlir::dtensor::stringifyReduceOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return "sum";
  case ReduceOp::Avg:
    return "avg";
  case ReduceOp::Max:
    return "max";
  case ReduceOp::Min:
    return "min";
  }
  llvm_unreachable("unknown reduce op");
}

std::optional<ReduceOp> mlir::dtensor::parseReduceOp(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ReduceOp>>(name)
      .Case("sum", ReduceOp::Sum)
      .Case("avg", ReduceOp::Avg)
      .Case("max", ReduceOp::Max)
      .Case("min", ReduceOp::Min)
      .Default(std::nullopt);
}

void Placement::print(llvm::raw_ostream &os) const {
  switch (kind) {
  case Kind::Replicate:
    os << "R";
    return;
  case Kind::Shard:
    os << "S(" << dim << ")";
    return;
  case Kind::Partial:
    os << "P(" << stringifyReduceOp(reduce) << ")";
    return;
  }
}

std::string Placement::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

std::string mlir::dtensor::placementsToString(llvm::ArrayRef<Placement> ps) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(ps, os, [&](const Placement &p) { p.print(os); });
  os << "]";
  return s;
}
