// Two Linear(1024, 1024) layers with bias (fp32): 4,198,400 bytes each, at
// bucket-cap-mb=4 (4,194,304 bytes): 2 submodules. No mesh: the program runs
// on one device and carries no placements.

func.func @linear1024x2(%x: tensor<8x1024xf32>,
    %w0: tensor<1024x1024xf32> {dtensor.param = "w0"},
    %b0: tensor<1024xf32> {dtensor.param = "b0"},
    %w1: tensor<1024x1024xf32> {dtensor.param = "w1"},
    %b1: tensor<1024xf32> {dtensor.param = "b1"})
    -> (tensor<8x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x1024xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %mm0 = linalg.matmul ins(%x, %w0 : tensor<8x1024xf32>, tensor<1024x1024xf32>) outs(%z0 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %bb0 = linalg.broadcast ins(%b0 : tensor<1024xf32>) outs(%e0 : tensor<8x1024xf32>) dimensions = [0]
  %y0 = linalg.add ins(%mm0, %bb0 : tensor<8x1024xf32>, tensor<8x1024xf32>) outs(%e0 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %e1 = tensor.empty() : tensor<8x1024xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %mm1 = linalg.matmul ins(%y0, %w1 : tensor<8x1024xf32>, tensor<1024x1024xf32>) outs(%z1 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %bb1 = linalg.broadcast ins(%b1 : tensor<1024xf32>) outs(%e1 : tensor<8x1024xf32>) dimensions = [0]
  %y1 = linalg.add ins(%mm1, %bb1 : tensor<8x1024xf32>, tensor<8x1024xf32>) outs(%e1 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  return %y1 : tensor<8x1024xf32>
}
