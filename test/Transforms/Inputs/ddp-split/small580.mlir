// Linear(22, 5), relu, Linear(5, 5), with bias (fp32): 440 + 20 + 100 + 20 =
// 580 bytes of parameters. At bucket-cap-mb=250 everything is one bucket: no
// split, the IR is unchanged.

dtensor.mesh @mesh = <["dp" = 4]>

#id2 = affine_map<(m, n) -> (m, n)>

func.func @small580(%x: tensor<8x22xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w0: tensor<22x5xf32> {dtensor.param = "w0"},
    %b0: tensor<5xf32> {dtensor.param = "b0"},
    %w1: tensor<5x5xf32> {dtensor.param = "w1"},
    %b1: tensor<5xf32> {dtensor.param = "b1"})
    -> (tensor<8x5xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %mm0 = linalg.matmul ins(%x, %w0 : tensor<8x22xf32>, tensor<22x5xf32>) outs(%z : tensor<8x5xf32>) -> tensor<8x5xf32>
  %bb0 = linalg.broadcast ins(%b0 : tensor<5xf32>) outs(%e : tensor<8x5xf32>) dimensions = [0]
  %y0 = linalg.add ins(%mm0, %bb0 : tensor<8x5xf32>, tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y0 : tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x5xf32>
  %mm1 = linalg.matmul ins(%r, %w1 : tensor<8x5xf32>, tensor<5x5xf32>) outs(%z : tensor<8x5xf32>) -> tensor<8x5xf32>
  %bb1 = linalg.broadcast ins(%b1 : tensor<5xf32>) outs(%e : tensor<8x5xf32>) dimensions = [0]
  %y1 = linalg.add ins(%mm1, %bb1 : tensor<8x5xf32>, tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  return %y1 : tensor<8x5xf32>
}
