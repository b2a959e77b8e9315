// A tensor-parallel layer written in the global view: y = softmax(x w + b).
dtensor.mesh @mesh = <["tp" = 4]>

func.func @layer(
    // No dtensor.spec: replicated on every rank.
    %x: tensor<16x64xf32>,
    // Trainable parameters, column-parallel: each rank holds 32 of the 128
    // columns of w and 32 of the 128 entries of b.
    %w: tensor<64x128xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %b: tensor<128xf32> {dtensor.param = "b", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    // A result spec is a request: the value is redistributed to it.
    -> (tensor<16x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x128xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
  %h = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x128xf32>)
                     outs(%z : tensor<16x128xf32>) -> tensor<16x128xf32>
  %bb = linalg.broadcast ins(%b : tensor<128xf32>) outs(%e : tensor<16x128xf32>) dimensions = [0]
  %y = arith.addf %h, %bb : tensor<16x128xf32>
  // Softmax over the columns needs them whole: gather them explicitly.
  %r = dtensor.redistribute %y to #dtensor.spec<@mesh, [R]> : tensor<16x128xf32>
  %s = linalg.softmax dimension(1) ins(%r : tensor<16x128xf32>)
                     outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
  return %s : tensor<16x128xf32>
}
