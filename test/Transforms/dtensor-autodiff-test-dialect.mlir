// A downstream op differentiated through its own external model of
// GradientOpInterface (test/lib/Dialect/Test/TestGradientModel.cpp).
// RUN: dtensor-opt %s --dtensor-autodiff | FileCheck %s
// RUN: dtensor-run %s --grad-check | FileCheck %s --check-prefix=GRAD
// GRAD: grad-check: a [4, 6]: 8 elements
// GRAD: grad-check: b [4, 6]: 8 elements
// GRAD: grad-check: PASS

func.func @scaled(%a: tensor<4x6xf32> {dtensor.param = "a"},
                  %b: tensor<4x6xf32> {dtensor.param = "b"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %r = dtensor_test.scaled_add %a, %b {scale = 3.0 : f32} : tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %sq = linalg.mul ins(%r, %r : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%sq : tensor<4x6xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
// CHECK-LABEL: func.func @scaled_grad(
// CHECK: %[[DR:.*]] = linalg.add ins
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[DB:.*]] = dtensor_test.scaled_add %[[Z]], %[[DR]] {scale = 3.000000e+00 : f32} : tensor<4x6xf32>
// CHECK: return %{{.*}}, %[[DR]], %[[DB]]
