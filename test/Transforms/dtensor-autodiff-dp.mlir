// The backward of a data-parallel loss is planned by the fake-tensor
// analysis like any program: with the batch S(0) and the parameters R,
// every weight gradient sums over the sharded batch (P(sum)) and its
// redistribution to R, the spec of its parameter, is DDP's all-reduce.
// PyTorch's op-by-op plan (strategy=pytorch): on these 8-row batches the
// global planner gathers the batch instead (14.4 us against 39.0 us).
// RUN: dtensor-opt %dtensor_src_root/examples/mlp_loss.mlir --dtensor-autodiff --dtensor-fake-propagate=strategy=pytorch | FileCheck %s

// CHECK-LABEL: func.func @mlp_loss_grad(
// CHECK-SAME: -> (tensor<f32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<32xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<32x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<4xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
// The loss: a sum over the sharded batch, all-reduced.
// CHECK: %[[LP:.*]] = linalg.generic {{.*}} iterator_types = []} {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[L:.*]] = dtensor.redistribute %[[LP]] to #dtensor.spec<@mesh, [R]> : tensor<f32>
// The activations' adjoints stay S(0), as the activations.
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %arg1, %{{.*}} : tensor<8x4xf32>, tensor<8x4xf32>, tensor<f32>) {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// One all-reduce (P(sum) -> R) per gradient, in the order the backward
// produces them: b2, w2, b1, w1.
// CHECK: %[[DB2P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>) attrs = {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[DB2:.*]] = dtensor.redistribute %[[DB2P]] to #dtensor.spec<@mesh, [R]> : tensor<4xf32>
// CHECK: %[[DW2P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x4xf32>) attrs = {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[DW2:.*]] = dtensor.redistribute %[[DW2P]] to #dtensor.spec<@mesh, [R]> : tensor<32x4xf32>
// CHECK: %[[DB1P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32xf32>) attrs = {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[DB1:.*]] = dtensor.redistribute %[[DB1P]] to #dtensor.spec<@mesh, [R]> : tensor<32xf32>
// CHECK: %[[DW1P:.*]] = linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<8x16xf32>, tensor<8x32xf32>) outs(%{{.*}} : tensor<16x32xf32>) attrs = {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[DW1:.*]] = dtensor.redistribute %[[DW1P]] to #dtensor.spec<@mesh, [R]> : tensor<16x32xf32>
// CHECK-NOT: dtensor.redistribute
// CHECK: return %[[L]], %[[DW1]], %[[DB1]], %[[DW2]], %[[DB2]]
