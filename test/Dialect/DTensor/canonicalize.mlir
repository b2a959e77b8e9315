// RUN: dtensor-opt %s -canonicalize -split-input-file | FileCheck %s

// Redistributing twice to the same placements is one redistribution.
// CHECK-LABEL: func.func @twice_same_spec
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[A:.*]] = dtensor.redistribute %[[X]] to #dtensor.spec<@w, [R, R]>
// CHECK-NOT: dtensor.redistribute
// CHECK: return %[[A]], %[[A]]
dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @twice_same_spec(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %a = dtensor.redistribute %x to #dtensor.spec<@w, [R, R]> : tensor<8x16xf32>
  %b = dtensor.redistribute %a to #dtensor.spec<@w, [R, R]> : tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A chain of equal redistributions folds to its first.
// CHECK-LABEL: func.func @chain_same_spec
// CHECK: %[[A:.*]] = dtensor.redistribute %{{.*}} to #dtensor.spec<@w, [S(0), R]>
// CHECK-NOT: dtensor.redistribute
// CHECK: return %[[A]]
dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @chain_same_spec(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = dtensor.redistribute %x to #dtensor.spec<@w, [S(0), R]> : tensor<8x16xf32>
  %b = dtensor.redistribute %a to #dtensor.spec<@w, [S(0), R]> : tensor<8x16xf32>
  %c = dtensor.redistribute %b to #dtensor.spec<@w, [S(0), R]> : tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// Different target placements are two redistributions: nothing folds.
// CHECK-LABEL: func.func @negative_different_specs
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[A:.*]] = dtensor.redistribute %[[X]] to #dtensor.spec<@w, [S(0), R]>
// CHECK: %[[B:.*]] = dtensor.redistribute %[[A]] to #dtensor.spec<@w, [R, R]>
// CHECK: return %[[B]]
dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @negative_different_specs(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = dtensor.redistribute %x to #dtensor.spec<@w, [S(0), R]> : tensor<8x16xf32>
  %b = dtensor.redistribute %a to #dtensor.spec<@w, [R, R]> : tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// The same placements on another mesh are not the same spec.
// CHECK-LABEL: func.func @negative_other_mesh
// CHECK: %[[A:.*]] = dtensor.redistribute %{{.*}} to #dtensor.spec<@w, [R, R]>
// CHECK: %[[B:.*]] = dtensor.redistribute %[[A]] to #dtensor.spec<@v, [R, R]>
// CHECK: return %[[B]]
dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
dtensor.mesh @v = <["x" = 4, "y" = 2]>
func.func @negative_other_mesh(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = dtensor.redistribute %x to #dtensor.spec<@w, [R, R]> : tensor<8x16xf32>
  %b = dtensor.redistribute %a to #dtensor.spec<@v, [R, R]> : tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// A single redistribution of an argument is a real change of placements
// (the argument's placements are not known to the op): it stays.
// CHECK-LABEL: func.func @no_fold_of_argument
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@w, [R, R]>})
// CHECK: %[[A:.*]] = dtensor.redistribute %[[X]] to #dtensor.spec<@w, [R, R]>
// CHECK: return %[[A]]
dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @no_fold_of_argument(%x: tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@w, [R, R]>}) -> tensor<8x16xf32> {
  %a = dtensor.redistribute %x to #dtensor.spec<@w, [R, R]> : tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

// -----

// The op is pure: an unused redistribution is removed.
// CHECK-LABEL: func.func @unused
// CHECK-NOT: dtensor.redistribute
// CHECK: return
dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @unused(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = dtensor.redistribute %x to #dtensor.spec<@w, [S(0), R]> : tensor<8x16xf32>
  return %x : tensor<8x16xf32>
}
