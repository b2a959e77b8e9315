// An MLP with everything replicated (928 KiB per rank on 2 ranks); under
// max-bytes-per-rank=900K the plan shards the hidden layer by rows.
dtensor.mesh @mesh = <["x" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x512xf32>, %w2: tensor<512x128xf32>)
    -> (tensor<64x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x128xf32>, tensor<128x512xf32>) outs(%z1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x512xf32>) outs(%e1 : tensor<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%z2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
