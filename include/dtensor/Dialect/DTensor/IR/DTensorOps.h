//===- DTensorOps.h - dtensor operations ------------------------*- C++ -*-===//

#ifndef DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_H
#define DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_H

#include "dtensor/Dialect/DTensor/IR/DTensorDialect.h"
#include "dtensor/Dialect/DTensor/IR/DTensorOpInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dtensor/Dialect/DTensor/IR/DTensorOps.h.inc"
#include "dtrt/dtrt.h"

namespace mlir {
namespace dtensor {

/// Largest number of devices and of axes a mesh may have: the runtime's
/// limits (runtime/include/dtrt/dtrt.h), stated there once.
constexpr int64_t kMaxMeshDevices = DTRT_MAX_MESH_DEVICES;
constexpr int64_t kMaxMeshAxes = DTRT_MAX_MESH_AXES;

/// Resolves the mesh named by `spec` from `from`, using `symbolTable` as a
/// cache. Returns null if there is no such mesh.
MeshOp lookupMesh(Operation *from, FlatSymbolRefAttr mesh,
                  SymbolTableCollection &symbolTable);

/// Verifies that `axes` are at least one distinct axis of `mesh` (null when
/// `meshRef` names no mesh) and returns the size of their groups through
/// `groupSize`. Errors are reported on `op`.
LogicalResult verifyMeshAxes(Operation *op, FlatSymbolRefAttr meshRef,
                             MeshOp mesh, llvm::ArrayRef<int64_t> axes,
                             int64_t &groupSize);

/// Verifies `spec` against its mesh and a tensor type, reporting errors on
/// `op` with `what` naming the carrier (e.g. "result #0").
LogicalResult verifySpec(Operation *op, SpecAttr spec, ShapedType type,
                         llvm::StringRef what,
                         SymbolTableCollection &symbolTable);

/// Same, but finds the mesh by scanning the enclosing symbol table until it
/// is found instead of building a table. For attribute verifiers, which run
/// once per attribute without a shared cache: building the module's symbol
/// table for each of them is quadratic in the number of functions (a split
/// program has thousands), while meshes are declared before the functions.
LogicalResult verifySpec(Operation *op, SpecAttr spec, ShapedType type,
                         llvm::StringRef what);

} // namespace dtensor
} // namespace mlir

#endif // DTENSOR_DIALECT_DTENSOR_IR_DTENSOROPS_H
