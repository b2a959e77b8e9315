// dtensor.redistribute is the identity of the global view: its adjoint
// passes through unchanged, and the analysis places the backward.
// RUN: dtensor-opt %s --dtensor-autodiff | FileCheck %s
// RUN: dtensor-run %s --grad-check --grad-samples 16 | FileCheck %s --check-prefix=GRAD
// GRAD: grad-check: PASS

dtensor.mesh @mesh = <["dp" = 2]>

func.func @gathered(%x: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                    %w: tensor<4x4xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<f32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %g = dtensor.redistribute %h to #dtensor.spec<@mesh, [R]> : tensor<8x4xf32>
  %t = math.tanh %g : tensor<8x4xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%t : tensor<8x4xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}
// CHECK-LABEL: func.func @gathered_grad(
// CHECK-SAME: %[[X:.*]]: tensor<8x4xf32> {{.*}}, %[[W:.*]]: tensor<4x4xf32>
// CHECK: %[[G:.*]] = dtensor.redistribute
// CHECK: %[[T:.*]] = math.tanh %[[G]]
// tanh: (1 - t t) adj
// CHECK: %[[TT:.*]] = arith.mulf %[[T]], %[[T]] : tensor<8x4xf32>
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %[[TT]] : tensor<8x4xf32>
// CHECK: %[[DG:.*]] = arith.mulf %{{.*}}, %[[D]] : tensor<8x4xf32>
// The matmul reads the redistribute's adjoint as it is.
// CHECK-NOT: dtensor.redistribute
// CHECK: %[[DW:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[DG]] :
// CHECK: return %{{.*}}, %[[DW]]
