// RUN: dtensor-opt %s --dtensor-partition -split-input-file | FileCheck %s

// dtensor_test.scaled_add is partitioned by the interface's default local
// rewrite: its operands are local shards and its result takes the local
// type in place.

dtensor.mesh @world = <["x" = 4]>

// CHECK-LABEL: func.func @even
// CHECK-SAME: (%[[A:[^:]+]]: tensor<2x6xf32> {{.*}}, %[[B:[^:]+]]: tensor<2x6xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: %[[R:.*]] = dtensor_test.scaled_add %[[A]], %[[B]] {scale = 2.000000e+00 : f32} : tensor<2x6xf32>
// CHECK: return %[[R]] : tensor<2x6xf32>
func.func @even(%a: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@world, [S(0)]>},
                %b: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@world, [S(0)]>})
    -> tensor<8x6xf32> {
  %r = dtensor_test.scaled_add %a, %b {scale = 2.0 : f32} : tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

dtensor.mesh @world = <["x" = 4]>

// Uneven shards give dynamic local dims; the replicated %b is cut to this
// rank's chunk locally.
// CHECK-LABEL: func.func @uneven
// CHECK-SAME: (%[[A:[^:]+]]: tensor<?x6xf32> {{.*}}, %[[B:[^:]+]]: tensor<10x6xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: %[[CHUNK:.*]] = tensor.extract_slice %[[B]]{{.*}} to tensor<?x6xf32>
// CHECK: %[[R:.*]] = dtensor_test.scaled_add %[[A]], %[[CHUNK]] {scale = 5.000000e-01 : f32} : tensor<?x6xf32>
// CHECK: return %[[R]] : tensor<?x6xf32>
func.func @uneven(%a: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@world, [S(0)]>},
                  %b: tensor<10x6xf32>) -> tensor<10x6xf32> {
  %r = dtensor_test.scaled_add %a, %b {scale = 0.5 : f32} : tensor<10x6xf32>
  return %r : tensor<10x6xf32>
}
