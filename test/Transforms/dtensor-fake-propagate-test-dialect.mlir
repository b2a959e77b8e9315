// RUN: dtensor-opt %s --dtensor-fake-propagate="strategy=pytorch" -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-fake-propagate="strategy=global" -split-input-file | FileCheck %s --check-prefix=GLOBAL

// dtensor_test.scaled_add has no sharding knowledge of its own: its rule
// comes only from the external model in test/lib/Dialect/Test.

dtensor.mesh @world = <["x" = 4]>

// The pointwise rule follows the operand with the most shards.
// CHECK-LABEL: func.func @follow_sharded
// CHECK-SAME: (%[[A:[^:]+]]: tensor<8x6xf32> {{.*}}, %[[B:[^:]+]]: tensor<8x6xf32>
// CHECK: %[[RB:.*]] = dtensor.redistribute %[[B]] to #dtensor.spec<@world, [S(0)]>
// CHECK: dtensor_test.scaled_add %[[A]], %[[RB]] {dtensor.specs = [#dtensor.spec<@world, [S(0)]>]
func.func @follow_sharded(%a: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@world, [S(0)]>},
                          %b: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %r = dtensor_test.scaled_add %a, %b {scale = 2.0 : f32} : tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

dtensor.mesh @world = <["x" = 4]>

// The model says nothing about linearity: a partial input is reduced first.
// CHECK-LABEL: func.func @partial_reduced
// CHECK: %[[R:.*]] = dtensor.redistribute %{{.*}} to #dtensor.spec<@world, [R]>
// CHECK: dtensor_test.scaled_add %[[R]], %{{.*}} {dtensor.specs = [#dtensor.spec<@world, [R]>]
func.func @partial_reduced(%a: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@world, [P(sum)]>},
                           %b: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %r = dtensor_test.scaled_add %a, %b {scale = 2.0 : f32} : tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

dtensor.mesh @world = <["x" = 4]>

// The global planner enumerates the model's strategies: PyTorch follows %a
// (S(0)) and reshards both %b and the result; the global plan computes in
// S(1), which moves %a only.
// CHECK-LABEL: func.func @global_plan
// CHECK: dtensor.redistribute %{{.*}} to #dtensor.spec<@world, [S(0)]>
// CHECK: dtensor_test.scaled_add {{.*}} {dtensor.specs = [#dtensor.spec<@world, [S(0)]>]
// CHECK: dtensor.redistribute %{{.*}} to #dtensor.spec<@world, [S(1)]>
// GLOBAL-LABEL: func.func @global_plan
// GLOBAL-SAME: (%[[A:[^:]+]]: tensor<8x8xf32>
// GLOBAL: %[[RA:.*]] = dtensor.redistribute %[[A]] to #dtensor.spec<@world, [S(1)]>
// GLOBAL: dtensor_test.scaled_add %[[RA]], %{{.*}} {dtensor.specs = [#dtensor.spec<@world, [S(1)]>]
// GLOBAL-NOT: dtensor.redistribute
// GLOBAL: return
func.func @global_plan(%a: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@world, [S(0)]>},
                       %b: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@world, [S(1)]>})
    -> (tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@world, [S(1)]>}) {
  %r = dtensor_test.scaled_add %a, %b {scale = 2.0 : f32} : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
