//===- Program.h - the program a run executes -------------------*- C++ -*-===//
//
// Parses the input, finds the entry function and reads from the fake-tensor
// analysis the global types and placements of its arguments and results.
//
//===----------------------------------------------------------------------===//

#ifndef DTENSOR_TOOLS_DTENSOR_RUN_PROGRAM_H
#define DTENSOR_TOOLS_DTENSOR_RUN_PROGRAM_H

#include "HostArray.h"
#include "Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <vector>

namespace dtensor_run {

/// Metadata of one argument or result of the entry function.
struct TensorInfo {
  mlir::RankedTensorType type;
  TensorLayout layout;
};

/// Everything the runner needs to know about the program.
struct ProgramInfo {
  mlir::func::FuncOp entry;
  /// The entry's name.
  std::string entryName;
  /// The entry's mesh; [1] for a function without a mesh.
  std::vector<int64_t> mesh;
  /// The mesh's axis names (empty without a mesh), for the trace.
  std::vector<std::string> axisNames;
  std::vector<TensorInfo> args, results;
  double commCostUs = 0;
  size_t numCollectives = 0;

  std::vector<TensorLayout> argLayouts() const;
  std::vector<TensorLayout> resultLayouts() const;
};

/// Registers every dialect, extension and translation the runner needs.
void registerEverything(mlir::DialectRegistry &registry);

/// Parses `options.inputFile`; exits with an error when it does not parse.
mlir::OwningOpRef<mlir::ModuleOp> parseProgram(mlir::MLIRContext &ctx,
                                               const Options &options);

/// Finds the entry and analyses the program; exits with an error when the
/// analysis fails or an argument or result is not supported.
ProgramInfo analyzeProgram(mlir::ModuleOp module, const Options &options);

/// Whether the program uses dtensor.from_local/to_local (local-view ops whose
/// shapes depend on the ranks).
bool usesLocalViewOps(mlir::ModuleOp module);

} // namespace dtensor_run

#endif // DTENSOR_TOOLS_DTENSOR_RUN_PROGRAM_H
