//===- Placement.cpp - PyTorch DTensor placements -------------------------===//

#include "dtensor/Support/Placement.h"

#include "llvm/ADT/StringSwitch.h"

#include "dtensor/Support/ReduceOpEnums.cpp.inc"

using namespace mlir::dtensor;

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
  case Kind::StridedShard:
    os << "_S(" << dim << ", " << splitFactor << ")";
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
