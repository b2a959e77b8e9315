// RUN: dtensor-opt %s --dtensor-elementwise-to-linalg -split-input-file | FileCheck %s

// An op whose folder builds a constant of its type (x ^ x -> 0) is converted,
// not folded: a dense constant of a dynamically shaped type is invalid.
// CHECK-LABEL: func.func @no_fold_xor_self
// CHECK-SAME: (%[[X:.*]]: tensor<?x10xi32>)
// CHECK-NOT: arith.constant
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[X]] : tensor<?x10xi32>, tensor<?x10xi32>)
// CHECK: arith.xori %{{.*}}, %{{.*}} : i32
// CHECK: return %[[G]] : tensor<?x10xi32>
func.func @no_fold_xor_self(%x: tensor<?x10xi32>) -> tensor<?x10xi32> {
  %r = arith.xori %x, %x : tensor<?x10xi32>
  return %r : tensor<?x10xi32>
}

// -----

// (x - y) - x stays two subtractions (the canonical 0 - y would need a
// constant of the dynamic type); each becomes a linalg.generic.
// CHECK-LABEL: func.func @no_fold_sub_sub
// CHECK-SAME: (%[[X:.*]]: tensor<?x10xi32>, %[[Y:.*]]: tensor<?x10xi32>)
// CHECK-NOT: arith.constant
// CHECK: %[[D:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] :
// CHECK: arith.subi
// CHECK: %[[E:.*]] = linalg.generic
// CHECK-SAME: ins(%[[D]], %[[X]] :
// CHECK: arith.subi
// CHECK: return %[[E]]
func.func @no_fold_sub_sub(%x: tensor<?x10xi32>, %y: tensor<?x10xi32>) -> tensor<?x10xi32> {
  %d = arith.subi %x, %y : tensor<?x10xi32>
  %e = arith.subi %d, %x : tensor<?x10xi32>
  return %e : tensor<?x10xi32>
}

// -----

// Static shapes and math ops are converted the same way; scalar ops stay.
// CHECK-LABEL: func.func @static_and_scalar
// CHECK: linalg.generic
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @static_and_scalar(%x: tensor<4x8xf32>, %a: f32) -> (tensor<4x8xf32>, f32) {
  %r = math.exp %x : tensor<4x8xf32>
  %s = arith.addf %a, %a : f32
  return %r, %s : tensor<4x8xf32>, f32
}
