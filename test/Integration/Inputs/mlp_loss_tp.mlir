// The MLP loss of examples/mlp_loss.mlir under Megatron tensor parallelism on
// 2 ranks: x, y R, w1 S(1) and b1 S(0) (column-parallel), w2 S(0)
// (row-parallel), b2 R. Used by autodiff_dp.test.
dtensor.mesh @mesh = <["tp" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>
#scalar = affine_map<() -> ()>

func.func @mlp_loss(
    %x: tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %y: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %w1: tensor<16x32xf32> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %b1: tensor<32xf32> {dtensor.param = "b1", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w2: tensor<32x4xf32> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %b2: tensor<4xf32> {dtensor.param = "b2", dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<f32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %n = arith.constant 32.0 : f32
  // h = relu(x w1 + b1)
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %bb1 = linalg.broadcast ins(%b1 : tensor<32xf32>) outs(%e1 : tensor<8x32xf32>) dimensions = [0]
  %a1 = linalg.add ins(%mm1, %bb1 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a1 : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<8x32xf32>
  // p = h w2 + b2
  %e2 = tensor.empty() : tensor<8x4xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm2 = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x4xf32>) outs(%z2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %bb2 = linalg.broadcast ins(%b2 : tensor<4xf32>) outs(%e2 : tensor<8x4xf32>) dimensions = [0]
  %p = linalg.add ins(%mm2, %bb2 : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  // loss = sum((p - y)^2) / 32
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %sq = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%p, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%pv: f32, %yv: f32, %acc: f32):
    %d = arith.subf %pv, %yv : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%sq : tensor<f32>) outs(%es : tensor<f32>) {
  ^bb0(%s: f32, %o: f32):
    %l = arith.divf %s, %n : f32
    linalg.yield %l : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
