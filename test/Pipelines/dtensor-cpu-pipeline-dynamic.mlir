// RUN: dtensor-opt %s --dtensor-cpu-pipeline="partition=false" -split-input-file | FileCheck %s

// Local-view elementwise ops on a dynamic dim (uneven shards) whose upstream
// folds build a constant of the operand type ((x - y) - x -> 0 - y,
// x ^ x -> 0) lower to LLVM: they become linalg.generic before any pass
// folds, so no dynamically shaped memref.global is created.
// CHECK-LABEL: llvm.func @sub_sub_dynamic
// CHECK-NOT: memref.global
// CHECK-NOT: llvm.mlir.global
// CHECK: llvm.sub
// CHECK: llvm.return
func.func @sub_sub_dynamic(%x: tensor<?x10xi32>, %y: tensor<?x10xi32>) -> tensor<?x10xi32> {
  %d = arith.subi %x, %y : tensor<?x10xi32>
  %e = arith.subi %d, %x : tensor<?x10xi32>
  return %e : tensor<?x10xi32>
}

// -----

// CHECK-LABEL: llvm.func @xor_self_dynamic
// CHECK-NOT: llvm.mlir.global
// CHECK: llvm.return
func.func @xor_self_dynamic(%x: tensor<?x10xi32>, %y: tensor<?x10xi32>) -> tensor<?x10xi32> {
  %z = arith.xori %x, %x : tensor<?x10xi32>
  %r = arith.addi %z, %y : tensor<?x10xi32>
  return %r : tensor<?x10xi32>
}
