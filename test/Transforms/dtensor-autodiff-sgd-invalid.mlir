// The optimizer options of dtensor-autodiff: an unknown optimizer and a
// learning rate that is not finite are errors on the module, exit 1.
// RUN: dtensor-opt %s --dtensor-autodiff=optimizer=adam -verify-diagnostics
// RUN: not dtensor-opt %s --dtensor-autodiff=optimizer=adam 2>&1 | FileCheck %s
// CHECK: error: dtensor-autodiff: unknown optimizer 'adam' (expected none, sgd or adamw)
// RUN: not dtensor-opt %s "--dtensor-autodiff=optimizer=sgd lr=inf" 2>&1 | FileCheck %s --check-prefix=LR
// LR: error: dtensor-autodiff: the learning rate lr=INF of optimizer=sgd is not finite

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
