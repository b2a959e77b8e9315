// The layer of the DDPOptimizer fake-tensor fix (pytorch/pytorch#...):
//   tmp = x @ w.T ; return tmp + where(tmp < 0.5, 0.3, 0.6)
// The scalars become 0-d tensor constants broadcast into the ops: values the
// program creates itself, which must get fake-tensor metadata like any other.
// x is a data-parallel batch S(0) on a mesh of 4; w is a replicated parameter.

dtensor.mesh @mesh = <["dp" = 4]>

func.func @where_layer(%x: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                       %w: tensor<32x32xf32> {dtensor.param = "weight"})
    -> (tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<32x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x32xf32>) outs(%et : tensor<32x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %tmp = linalg.matmul ins(%x, %wt : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %a = arith.constant dense<0.3> : tensor<f32>
  %b = arith.constant dense<0.6> : tensor<f32>
  %halfb = linalg.broadcast ins(%half : tensor<f32>) outs(%e : tensor<16x32xf32>) dimensions = [0, 1]
  %ab = linalg.broadcast ins(%a : tensor<f32>) outs(%e : tensor<16x32xf32>) dimensions = [0, 1]
  %bb = linalg.broadcast ins(%b : tensor<f32>) outs(%e : tensor<16x32xf32>) dimensions = [0, 1]
  %lt = arith.cmpf olt, %tmp, %halfb : tensor<16x32xf32>
  %sel = arith.select %lt, %ab, %bb : tensor<16x32xi1>, tensor<16x32xf32>
  %y = arith.addf %tmp, %sel : tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
