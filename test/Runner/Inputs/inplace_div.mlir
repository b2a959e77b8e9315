// x / w on tensors: bufferized in place, the quotient is written into the
// buffer of x, an argument. Used by iters.test.
func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %d = arith.divf %x, %w : tensor<4xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%d : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}
