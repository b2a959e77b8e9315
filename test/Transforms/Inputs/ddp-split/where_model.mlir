// The DDPOptimizer where layer (examples/where_layer.mlir) between two
// Linear layers, with the scalar constants hoisted to the top as a frontend or
// the canonicalizer leaves them:
//
//   h = x @ w0 ; tmp = h @ weight.T ; y = tmp + where(tmp < 0.5, 0.3, 0.6)
//   out = y @ w2
//
// Each weight is 32x32 fp32 (4096 bytes). At bucket-cap-mb=0.003 (3145 bytes,
// first cap the same) every weight closes a bucket: {x @ w0} . {the where
// layer} . {y @ w2}. The where layer's submodule reads only the activation h
// and its weight: the 0-d constants 0.5, 0.3, 0.6 and their broadcasts are
// recreated inside it, with their metadata (replicated 0-d, broadcast S(0)).
// (The layer alone cannot be split: its only parameter is used by its first
// op, so DDPOptimizer keeps it in one bucket.)

dtensor.mesh @mesh = <["dp" = 4]>

func.func @where_model(%x: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                       %w0: tensor<32x32xf32> {dtensor.param = "w0"},
                       %w: tensor<32x32xf32> {dtensor.param = "weight"},
                       %w2: tensor<32x32xf32> {dtensor.param = "w2"})
    -> (tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant dense<0.5> : tensor<f32>
  %a = arith.constant dense<0.3> : tensor<f32>
  %b = arith.constant dense<0.6> : tensor<f32>
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %h = linalg.matmul ins(%x, %w0 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %et = tensor.empty() : tensor<32x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x32xf32>) outs(%et : tensor<32x32xf32>) permutation = [1, 0]
  %tmp = linalg.matmul ins(%h, %wt : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %halfb = linalg.broadcast ins(%half : tensor<f32>) outs(%e : tensor<16x32xf32>) dimensions = [0, 1]
  %ab = linalg.broadcast ins(%a : tensor<f32>) outs(%e : tensor<16x32xf32>) dimensions = [0, 1]
  %bb = linalg.broadcast ins(%b : tensor<f32>) outs(%e : tensor<16x32xf32>) dimensions = [0, 1]
  %lt = arith.cmpf olt, %tmp, %halfb : tensor<16x32xf32>
  %sel = arith.select %lt, %ab, %bb : tensor<16x32xi1>, tensor<16x32xf32>
  %y = arith.addf %tmp, %sel : tensor<16x32xf32>
  %out = linalg.matmul ins(%y, %w2 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %out : tensor<16x32xf32>
}
