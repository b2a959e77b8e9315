// RUN: dtensor-opt %s --dtensor-autodiff -split-input-file -verify-diagnostics
// Each error stops the pass with exit 1 (the first program: scf.while).
// RUN: sed '/^\/\/ --/q' %s | grep -v -e expected- -e '^// --' > %t.mlir
// RUN: not dtensor-opt %t.mlir --dtensor-autodiff 2>&1 | FileCheck %s
// CHECK-COUNT-1: error: 'scf.while' op has no gradient rule
// CHECK-NOT: error:
// A name in functions= that is not a loss function.
// RUN: not dtensor-opt %t.mlir --dtensor-autodiff=functions=nope 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: error: dtensor-autodiff: @nope is not a loss function (a function whose only result is a 0-d float tensor, with dtensor.param arguments)

// An op without GradientOpInterface on the path from a parameter to the
// loss: one error naming the op and the operand.
func.func @loop(%x: tensor<4xf32>, %w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  // expected-error @below {{'scf.while' op has no gradient rule (GradientOpInterface), but the gradient of its operand #1 is needed}}
  %r:2 = scf.while (%i = %c0, %acc = %w) : (index, tensor<4xf32>) -> (index, tensor<4xf32>) {
    %c3 = arith.constant 3 : index
    %go = arith.cmpi slt, %i, %c3 : index
    scf.condition(%go) %i, %acc : index, tensor<4xf32>
  } do {
  ^bb0(%i: index, %acc: tensor<4xf32>):
    %c1 = arith.constant 1 : index
    %i2 = arith.addi %i, %c1 : index
    %e = tensor.empty() : tensor<4xf32>
    %n = linalg.mul ins(%acc, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %i2, %n : index, tensor<4xf32>
  }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%r#1 : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// -----

// A body op without a derivative rule.
func.func @sin(%w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  // expected-error @below {{'linalg.generic' op has no derivative rule for 'math.sin' in its body (the gradient of operand #0 is needed)}}
  %l = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%w : tensor<4xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = math.sin %in : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A product reduction: neither a sum nor a max/min of the accumulator.
func.func @product(%w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %one = arith.constant 1.0 : f32
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%one : f32) outs(%es : tensor<f32>) -> tensor<f32>
  // expected-error @below {{'linalg.reduce' op has no gradient rule for result #0: its body accumulates over the reduction loops neither as a sum nor as a max/min of the accumulator}}
  %l = linalg.reduce ins(%w : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.mulf %in, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// -----

// An indexing map that is not a projected permutation (a convolution's).
func.func @conv(%x: tensor<6xf32> {dtensor.param = "x"}, %w: tensor<3xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %ze = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{'linalg.generic' op has no gradient rule for operand #0: its indexing map affine_map<(d0, d1) -> (d0 + d1)> is not a projected permutation}}
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<6xf32>, tensor<3xf32>) outs(%ze : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%c : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// -----

// A value that depends on a parameter used inside a region, not as an operand.
func.func @captured(%x: tensor<4xf32>, %w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %s = tensor.extract %w[%c0] : tensor<4xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  // expected-error @below {{'linalg.generic' op uses a value that depends on a parameter inside its region; dtensor-autodiff cannot differentiate through it}}
  %l = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<4xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %p = arith.mulf %in, %s : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The init of a max reduction depends on a parameter.
func.func @max_init(%x: tensor<4x8xf32>, %w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  // expected-error @below {{'linalg.reduce' op has no gradient rule for the init of a max/min reduction (operand #1)}}
  %m = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%w : tensor<4xf32>) dimensions = [1]
    (%in: f32, %a: f32) {
      %r = arith.maximumf %in, %a : f32
      linalg.yield %r : f32
    }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%m : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// -----

// expected-error @below {{'func.func' op parameter argument #0 has type 'tensor<4xi32>'; a gradient needs a float tensor}}
func.func @int_param(%w: tensor<4xi32> {dtensor.param = "w"}) -> tensor<f32> {
  %z = arith.constant dense<0.0> : tensor<f32>
  return %z : tensor<f32>
}

// -----

// Recursion: @even calls @odd calls @even; the vjp of @even would need
// itself (the error is on the call that closes the cycle).
func.func @even(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = call @odd(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @odd(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'func.call' op calls @even recursively; dtensor-autodiff cannot differentiate a recursive call}}
  %y = call @even(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @recursive(%w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %y = call @even(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%y : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// -----

// A callee without a body.
func.func private @opaque(tensor<4xf32>) -> tensor<f32>
func.func @external(%w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  // expected-error @below {{'func.call' op calls a function without a body; dtensor-autodiff differentiates a call through its callee's body}}
  %l = call @opaque(%w) : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An iter_arg that cannot be stored per iteration (a dynamic shape).
func.func @dynamic_iter(%w: tensor<?xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f32
  // expected-error @below {{'scf.for' op has no gradient rule for iter_arg #0 of type 'tensor<?xf32>': storing it per iteration needs a static tensor or a scalar}}
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %w) -> tensor<?xf32> {
    scf.yield %acc : tensor<?xf32>
  }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%r : tensor<?xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
