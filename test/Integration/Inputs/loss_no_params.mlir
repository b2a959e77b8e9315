// A loss function without dtensor.param arguments: nothing to train
// (train_sgd.test's error case).
dtensor.mesh @mesh = <["dp" = 2]>
func.func @sum_loss(%x: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%x : tensor<8xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
