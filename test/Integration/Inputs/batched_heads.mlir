// Attention scores and values on [batch, heads, seq, dim] buffers: the
// batch and head dims are one run in every operand, so each contraction is
// one cuBLASLt call with batch = batch x heads (5 x 4 on 2 ranks: 3 and 2
// batches, a dynamic size), not a loop of calls over the batch.
dtensor.mesh @mesh = <["dp" = 2]>
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, d, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, d, j) -> (b, h, j, d)>
#o = affine_map<(b, h, i, d, j) -> (b, h, i, d)>
func.func @heads(%q: tensor<5x4x8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                 %k: tensor<5x4x8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                 %v: tensor<5x4x8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<5x4x8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x4x8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<5x4x8x8xf32>) -> tensor<5x4x8x8xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<5x4x8x16xf32>, tensor<5x4x8x16xf32>) outs(%z : tensor<5x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<5x4x8x8xf32>
  %eo = tensor.empty() : tensor<5x4x8x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<5x4x8x16xf32>) -> tensor<5x4x8x16xf32>
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<5x4x8x8xf32>, tensor<5x4x8x16xf32>) outs(%zo : tensor<5x4x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<5x4x8x16xf32>
  return %o : tensor<5x4x8x16xf32>
}
