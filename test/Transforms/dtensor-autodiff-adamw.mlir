// dtensor-autodiff with optimizer=adamw: @f_train_step takes @f's
// arguments, then m of each parameter, v of each parameter and the step
// count t (dtensor.state names; m and v with their parameter's spec), and
// returns the loss, the updated parameters, m, v and t + 1.
// RUN: dtensor-opt %s "--dtensor-autodiff=optimizer=adamw lr=0.5 beta1=0.75 beta2=0.875 eps=0.25 weight-decay=0.125" | FileCheck %s
// RUN: dtensor-opt %s --dtensor-autodiff=optimizer=adamw | FileCheck %s --check-prefix=DEFAULTS

dtensor.mesh @mesh = <["dp" = 2]>

// CHECK-LABEL: func.func @f_train_step(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
// CHECK-SAME: %[[W:[^:]*]]: tensor<4x2xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>},
// CHECK-SAME: %[[U:[^:]*]]: tensor<2xf32> {dtensor.param = "u"},
// CHECK-SAME: %[[MW:[^:]*]]: tensor<4x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>, dtensor.state = "w.exp_avg"},
// CHECK-SAME: %[[MU:[^:]*]]: tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>, dtensor.state = "u.exp_avg"},
// CHECK-SAME: %[[VW:[^:]*]]: tensor<4x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>, dtensor.state = "w.exp_avg_sq"},
// CHECK-SAME: %[[VU:[^:]*]]: tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>, dtensor.state = "u.exp_avg_sq"},
// CHECK-SAME: %[[T:[^:]*]]: tensor<f32> {dtensor.state = "step"})
// u has no spec (replicated): u', m and v of u are replicated on @mesh.
// CHECK-SAME: -> (tensor<f32>, tensor<4x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<4x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<4x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<f32>)
// CHECK: %[[L:.*]] = linalg.reduce
// CHECK: %[[DW:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<8x4xf32>, tensor<8x2xf32>) outs(%{{.*}} : tensor<4x2xf32>)
// t' = t + 1, lr / (1 - beta1^t'), 1 / sqrt(1 - beta2^t')
// CHECK: %[[S:.*]]:3 = linalg.generic {{.*}} iterator_types = []} ins(%[[T]] : tensor<f32>)
// CHECK: %[[T1:.*]] = arith.addf %{{.*}}, %[[ONE:.*]] : f32
// CHECK: %[[B1:.*]] = arith.constant 7.500000e-01 : f32
// CHECK: math.powf %[[B1]], %[[T1]] : f32
// CHECK: %[[B2:.*]] = arith.constant 8.750000e-01 : f32
// CHECK: math.powf %[[B2]], %[[T1]] : f32
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: math.sqrt
// CHECK: linalg.yield %[[T1]],
// The update of w: m' = m + (1 - b1)(g - m), v' = b2 v + (1 - b2) g g,
// p' = p (1 - lr wd) - step_size m' / (sqrt(v') inv_sqrt_bc2 + eps).
// CHECK: %[[PW:.*]]:3 = linalg.generic {{.*}} ins(%[[W]], %[[DW]], %[[MW]], %[[VW]], %[[S]]#1, %[[S]]#2 : {{.*}}) outs(
// CHECK: ^bb0(%[[P:[^:]*]]: f32, %[[G:[^:]*]]: f32, %[[M:[^:]*]]: f32, %[[V:[^:]*]]: f32, %[[SS:[^:]*]]: f32, %[[IB:[^:]*]]: f32,
// CHECK: %[[GM:.*]] = arith.subf %[[G]], %[[M]] : f32
// CHECK: %[[OMB1:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[STEPM:.*]] = arith.mulf %[[OMB1]], %[[GM]] : f32
// CHECK: %[[M2:.*]] = arith.addf %[[M]], %[[STEPM]] : f32
// CHECK: %[[GG:.*]] = arith.mulf %[[G]], %[[G]] : f32
// CHECK: %[[OMB2:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: %[[NEWV:.*]] = arith.mulf %[[OMB2]], %[[GG]] : f32
// CHECK: %[[OLDV:.*]] = arith.mulf %[[V]], %{{.*}} : f32
// CHECK: %[[V2:.*]] = arith.addf %[[OLDV]], %[[NEWV]] : f32
// 1 - lr * wd = 1 - 0.5 * 0.125
// CHECK: %[[DEC:.*]] = arith.constant 9.375000e-01 : f32
// CHECK: %[[PD:.*]] = arith.mulf %[[P]], %[[DEC]] : f32
// CHECK: %[[EPS:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[SQ:.*]] = math.sqrt %[[V2]] : f32
// CHECK: %[[SC:.*]] = arith.mulf %[[SQ]], %[[IB]] : f32
// CHECK: %[[DEN:.*]] = arith.addf %[[SC]], %[[EPS]] : f32
// CHECK: %[[Q:.*]] = arith.divf %[[M2]], %[[DEN]] : f32
// CHECK: %[[DELTA:.*]] = arith.mulf %[[SS]], %[[Q]] : f32
// CHECK: %[[P2:.*]] = arith.subf %[[PD]], %[[DELTA]] : f32
// CHECK: linalg.yield %[[P2]], %[[M2]], %[[V2]] : f32, f32, f32
// CHECK: %[[PU:.*]]:3 = linalg.generic {{.*}} ins(%[[U]], %{{.*}}, %[[MU]], %[[VU]], %[[S]]#1, %[[S]]#2 :
// CHECK: return %[[L]], %[[PW]]#0, %[[PU]]#0, %[[PW]]#1, %[[PU]]#1, %[[PW]]#2, %[[PU]]#2, %[[S]]#0

// PyTorch's defaults: lr 0.01, beta1 0.9, beta2 0.999, eps 1e-8, weight
// decay 0.01 (1 - lr * wd = 0.9999).
// DEFAULTS-LABEL: func.func @f_train_step(
// DEFAULTS: arith.constant 0.899999976 : f32
// DEFAULTS: arith.constant 9.990000e-01 : f32
// DEFAULTS: arith.constant 0.00999999977 : f32
// DEFAULTS: arith.constant 1.000000e-03 : f32
// DEFAULTS: arith.constant 0.999899983 : f32
// DEFAULTS: arith.constant 9.99999993E-9 : f32
func.func @f(%x: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
             %w: tensor<4x2xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>},
             %u: tensor<2xf32> {dtensor.param = "u"}) -> tensor<f32> {
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
      %s = arith.mulf %in, %in : f32
      %r = arith.addf %s, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}
