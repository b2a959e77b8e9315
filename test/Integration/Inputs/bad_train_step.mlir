// A hand-written training step that returns the loss but not the updated
// parameter (train_sgd.test's error case): it cannot be fed back.
dtensor.mesh @mesh = <["dp" = 2]>
func.func @f_train_step(%x: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                        %w: tensor<8xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %m = linalg.mul ins(%x, %w : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%m : tensor<8xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
