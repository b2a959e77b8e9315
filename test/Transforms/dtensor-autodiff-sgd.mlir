// dtensor-autodiff with optimizer=sgd: @f_train_step takes @f's arguments
// and returns the loss and p - lr * grad for each dtensor.param argument,
// in argument order, each with its parameter's dtensor.spec; no @f_grad.
// RUN: dtensor-opt %s --dtensor-autodiff="optimizer=sgd lr=0.25" | FileCheck %s
// optimizer=none (the default) keeps today's @f_grad.
// RUN: dtensor-opt %s --dtensor-autodiff=optimizer=none | FileCheck %s --check-prefix=NONE
// lr defaults to 0.01.
// RUN: dtensor-opt %s --dtensor-autodiff=optimizer=sgd | FileCheck %s --check-prefix=RATE
// An existing @f_train_step is kept (the pass is idempotent).
// RUN: dtensor-opt %s --dtensor-autodiff="optimizer=sgd lr=0.25" | dtensor-opt --dtensor-autodiff="optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=KEPT

dtensor.mesh @mesh = <["dp" = 2]>

// CHECK-LABEL: func.func @f(
// CHECK-NOT: func.func @f_grad
// CHECK-LABEL: func.func @f_train_step(
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %[[W:.*]]: tensor<4x2xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>}, %[[U:.*]]: tensor<2xf32> {dtensor.param = "u", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %[[V:.*]]: tensor<2xf32> {dtensor.param = "v"})
// v has no spec (replicated): its update is requested replicated on the
// mesh the other arguments use, so that it can be fed back as v.
// CHECK-SAME: -> (tensor<f32>, tensor<4x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
// CHECK: %[[L:.*]] = linalg.reduce
// The gradient of w (x^T times the adjoint), then w - 0.25 * dw.
// CHECK: %[[DW:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<8x4xf32>, tensor<8x2xf32>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: %[[LR:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[LRS:.*]] = linalg.fill ins(%[[LR]] : f32) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: %[[STEP:.*]] = linalg.mul ins(%[[LRS]], %[[DW]] : tensor<4x2xf32>, tensor<4x2xf32>)
// CHECK: %[[W2:.*]] = linalg.sub ins(%[[W]], %[[STEP]] : tensor<4x2xf32>, tensor<4x2xf32>)
// u's gradient: the adjoint of the bias-like add, summed over the batch.
// CHECK: linalg.sub ins(%[[U]], %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// v does not reach the loss: its gradient is zero and it is updated by
// 0.25 * 0.
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[ZS:.*]] = linalg.mul ins(%{{.*}}, %[[Z]] : tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[V2:.*]] = linalg.sub ins(%[[V]], %[[ZS]] : tensor<2xf32>, tensor<2xf32>)
// CHECK: return %[[L]], %[[W2]], %{{.*}}, %[[V2]] : tensor<f32>, tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>

// NONE-LABEL: func.func @f_grad(
// NONE-NOT: linalg.sub
// NONE: return
// NONE-NOT: func.func @f_train_step

// RATE-LABEL: func.func @f_train_step(
// RATE: arith.constant 0.00999999977 : f32
// RATE: linalg.sub

// KEPT-COUNT-1: func.func @f_train_step(
// KEPT-NOT: 5.000000e-01
// KEPT-NOT: func.func @f_train_step
func.func @f(%x: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
             %w: tensor<4x2xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>},
             %u: tensor<2xf32> {dtensor.param = "u", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
             %v: tensor<2xf32> {dtensor.param = "v"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x2xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<8x2xf32>) -> tensor<8x2xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x2xf32>) outs(%z : tensor<8x2xf32>) -> tensor<8x2xf32>
  %ub = linalg.broadcast ins(%u : tensor<2xf32>) outs(%e : tensor<8x2xf32>) dimensions = [0]
  %a = linalg.add ins(%m, %ub : tensor<8x2xf32>, tensor<8x2xf32>) outs(%e : tensor<8x2xf32>) -> tensor<8x2xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%a : tensor<8x2xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
