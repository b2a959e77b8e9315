// The optimizer options of dtensor-autodiff: an unknown optimizer and a
// learning rate that is not finite are errors on the module, exit 1.
// RUN: dtensor-opt %s --dtensor-autodiff=optimizer=adam -verify-diagnostics
// RUN: not dtensor-opt %s --dtensor-autodiff=optimizer=adam 2>&1 | FileCheck %s
// CHECK: error: dtensor-autodiff: unknown optimizer 'adam' (expected none, sgd or adamw)
// RUN: not dtensor-opt %s "--dtensor-autodiff=optimizer=sgd lr=inf" 2>&1 | FileCheck %s --check-prefix=LR
// LR: error: dtensor-autodiff: the learning rate lr=INF of optimizer=sgd is not finite
// The AdamW hyper-parameters out of their ranges.
// RUN: not dtensor-opt %s "--dtensor-autodiff=optimizer=adamw lr=nan" 2>&1 | FileCheck %s --check-prefix=ALR
// ALR: error: dtensor-autodiff: the learning rate lr=nan of optimizer=adamw is not finite
// RUN: not dtensor-opt %s "--dtensor-autodiff=optimizer=adamw beta1=1" 2>&1 | FileCheck %s --check-prefix=B1
// B1: error: dtensor-autodiff: beta1=1.000000e+00 of optimizer=adamw is not in [0, 1)
// RUN: not dtensor-opt %s "--dtensor-autodiff=optimizer=adamw beta2=-0.5" 2>&1 | FileCheck %s --check-prefix=B2
// B2: error: dtensor-autodiff: beta2=-5.000000e-01 of optimizer=adamw is not in [0, 1)
// RUN: not dtensor-opt %s "--dtensor-autodiff=optimizer=adamw eps=0" 2>&1 | FileCheck %s --check-prefix=EPS
// EPS: error: dtensor-autodiff: eps=0.000000e+00 of optimizer=adamw is not positive
// RUN: not dtensor-opt %s "--dtensor-autodiff=optimizer=adamw weight-decay=-1" 2>&1 | FileCheck %s --check-prefix=WD
// WD: error: dtensor-autodiff: weight-decay=-1.000000e+00 of optimizer=adamw is not finite and non-negative

// expected-error @below {{dtensor-autodiff: unknown optimizer 'adam' (expected none, sgd or adamw)}}
module {
  func.func @f(%w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
    %c0 = arith.constant 0.0 : f32
    %es = tensor.empty() : tensor<f32>
    %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
    %l = linalg.reduce ins(%w : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
      (%in: f32, %acc: f32) {
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32
      }
    return %l : tensor<f32>
  }
}
