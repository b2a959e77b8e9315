// Two loss functions: @ok is differentiable, @loop is not (math.sin has
// no rule; the loop and the call do).
// --grad-check --entry ok differentiates @ok only.
func.func @ok(%w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %sq = linalg.mul ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%sq : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}

func.func @loop(%w: tensor<4xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %w) -> tensor<4xf32> {
    %s = math.sin %acc : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  %l = call @ok(%r) : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
