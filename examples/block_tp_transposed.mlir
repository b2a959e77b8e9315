// examples/block_tp.mlir with attention written as torch.export + torch-mlir
// write it: the heads are permuted with linalg.transpose and collapsed into
// the batch of linalg.batch_matmul ([b*h, i, d] x [b*h, d, j]) instead of
// staying a parallel dim of 4-D contractions. Same annotations (wq, wk, wv,
// w1 S(1); wo, w2 S(0); x and the result R) on a 1-D mesh of 4, same
// arithmetic, so the plans of block_tp.mlir apply to it unchanged.

dtensor.mesh @mesh = <["tp" = 4]>

#id3    = affine_map<(b, i, j) -> (b, i, j)>
#id2    = affine_map<(m, n) -> (m, n)>

func.func @block(
    %x: tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %wq: tensor<512x512xf32> {dtensor.param = "wq", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wk: tensor<512x512xf32> {dtensor.param = "wk", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wv: tensor<512x512xf32> {dtensor.param = "wv", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wo: tensor<512x512xf32> {dtensor.param = "wo", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w1: tensor<512x2048xf32> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %w2: tensor<2048x512xf32> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32

  // Projections on the flattened tokens.
  %xf = tensor.collapse_shape %x [[0, 1], [2]] : tensor<32x128x512xf32> into tensor<4096x512xf32>
  %e512 = tensor.empty() : tensor<4096x512xf32>
  %z512 = linalg.fill ins(%zero : f32) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %q = linalg.matmul ins(%xf, %wq : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %k = linalg.matmul ins(%xf, %wk : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %v = linalg.matmul ins(%xf, %wv : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>
  %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>

  // q, v: [b, i, h, d] -> [b, h, i, d] -> [b*h, i, d]; k: -> [b, h, d, j].
  %eq = tensor.empty() : tensor<32x8x128x64xf32>
  %qt = linalg.transpose ins(%q4 : tensor<32x128x8x64xf32>) outs(%eq : tensor<32x8x128x64xf32>) permutation = [0, 2, 1, 3]
  %ek = tensor.empty() : tensor<32x8x64x128xf32>
  %kt = linalg.transpose ins(%k4 : tensor<32x128x8x64xf32>) outs(%ek : tensor<32x8x64x128xf32>) permutation = [0, 2, 3, 1]
  %ev = tensor.empty() : tensor<32x8x128x64xf32>
  %vt = linalg.transpose ins(%v4 : tensor<32x128x8x64xf32>) outs(%ev : tensor<32x8x128x64xf32>) permutation = [0, 2, 1, 3]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<32x8x128x64xf32> into tensor<256x128x64xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<32x8x64x128xf32> into tensor<256x64x128xf32>
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<32x8x128x64xf32> into tensor<256x128x64xf32>

  // scores = q k^T, scaled, softmax over the keys.
  %es = tensor.empty() : tensor<256x128x128xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<256x128x128xf32>) -> tensor<256x128x128xf32>
  %s = linalg.batch_matmul ins(%q3, %k3 : tensor<256x128x64xf32>, tensor<256x64x128xf32>) outs(%zs : tensor<256x128x128xf32>) -> tensor<256x128x128xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<256x128x128xf32>) outs(%es : tensor<256x128x128xf32>) {
  ^bb0(%a: f32, %out0: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<256x128x128xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<256x128x128xf32>) outs(%es : tensor<256x128x128xf32>) -> tensor<256x128x128xf32>

  // o = p v, back to [b, i, h, d] and the flattened tokens.
  %eo = tensor.empty() : tensor<256x128x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<256x128x64xf32>) -> tensor<256x128x64xf32>
  %o3 = linalg.batch_matmul ins(%p, %v3 : tensor<256x128x128xf32>, tensor<256x128x64xf32>) outs(%zo : tensor<256x128x64xf32>) -> tensor<256x128x64xf32>
  %o4 = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [32, 8, 128, 64] : tensor<256x128x64xf32> into tensor<32x8x128x64xf32>
  %eot = tensor.empty() : tensor<32x128x8x64xf32>
  %ot = linalg.transpose ins(%o4 : tensor<32x8x128x64xf32>) outs(%eot : tensor<32x128x8x64xf32>) permutation = [0, 2, 1, 3]
  %of = tensor.collapse_shape %ot [[0, 1], [2, 3]] : tensor<32x128x8x64xf32> into tensor<4096x512xf32>
  %attn = linalg.matmul ins(%of, %wo : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %h = linalg.add ins(%attn, %xf : tensor<4096x512xf32>, tensor<4096x512xf32>) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>

  // MLP: relu(h w1) w2, residual.
  %e2048 = tensor.empty() : tensor<4096x2048xf32>
  %z2048 = linalg.fill ins(%zero : f32) outs(%e2048 : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
  %m1 = linalg.matmul ins(%h, %w1 : tensor<4096x512xf32>, tensor<512x2048xf32>) outs(%z2048 : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<4096x2048xf32>) outs(%e2048 : tensor<4096x2048xf32>) {
  ^bb0(%a: f32, %out0: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4096x2048xf32>
  %m2 = linalg.matmul ins(%relu, %w2 : tensor<4096x2048xf32>, tensor<2048x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %out = linalg.add ins(%m2, %h : tensor<4096x512xf32>, tensor<4096x512xf32>) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %y = tensor.expand_shape %out [[0, 1], [2]] output_shape [32, 128, 512] : tensor<4096x512xf32> into tensor<32x128x512xf32>
  return %y : tensor<32x128x512xf32>
}
