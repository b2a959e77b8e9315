// RUN: dtensor-opt %s --dtensor-decompose-aggregates -split-input-file | FileCheck %s

// linalg.softmax over a dynamic dim becomes its structured ops: the row max
// (from maxnumf's identity, NaN), exp(x - max), the row sum, the division.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>)
// CHECK-NOT: linalg.softmax
// CHECK: %[[NAN:.*]] = arith.constant 0xFFC00000 : f32
// CHECK: %[[MINIT:.*]] = linalg.fill ins(%[[NAN]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]] : tensor<4x?xf32>) outs(%[[MINIT]] : tensor<4xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<4x?xf32>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[EXP]] : tensor<4x?xf32>)
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<4x?xf32>, tensor<4xf32>)
// CHECK: arith.divf
// CHECK: return %[[Y]]
func.func @softmax(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c1 : tensor<4x?xf32>
  %e = tensor.empty(%d) : tensor<4x?xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x?xf32>) outs(%e : tensor<4x?xf32>) -> tensor<4x?xf32>
  return %s : tensor<4x?xf32>
}

// -----

// Softmax over the leading dim of a 3-D tensor: the reductions drop dim 0.
// CHECK-LABEL: func.func @softmax_dim0
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[ROW:.*]]], iterator_types = ["reduction", "parallel", "parallel"]}
// CHECK: return
func.func @softmax_dim0(%x: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %e = tensor.empty() : tensor<3x4x5xf32>
  %s = linalg.softmax dimension(0) ins(%x : tensor<3x4x5xf32>) outs(%e : tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %s : tensor<3x4x5xf32>
}

// -----

// No aggregate op: nothing changes.
// CHECK-LABEL: func.func @no_aggregate
// CHECK-NEXT: %[[R:.*]] = linalg.exp
// CHECK-NEXT: return %[[R]]
func.func @no_aggregate(%x: tensor<4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.exp ins(%x : tensor<4xf32>) outs(%o : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
