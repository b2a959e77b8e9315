// Contractions with several m, n or k dims, as a program written on 3-D and
// 4-D activations: a 3-D activation times a weight (m = (b, s)), the
// projection to heads (n = (h, d)) and the output projection reading the
// heads (k = (h, d)). On GPUs each is one cuBLASLt GEMM over the collapsed
// dims (contiguous in their buffers), not a naive kernel.
dtensor.mesh @mesh = <["dp" = 2]>
#a3 = affine_map<(b, s, n, k) -> (b, s, k)>
#w2 = affine_map<(b, s, n, k) -> (k, n)>
#c3 = affine_map<(b, s, n, k) -> (b, s, n)>
#xt = affine_map<(t, h, d, k) -> (t, k)>
#wh = affine_map<(t, h, d, k) -> (k, h, d)>
#ch = affine_map<(t, h, d, k) -> (t, h, d)>
#ah = affine_map<(t, n, h, d) -> (t, h, d)>
#wo = affine_map<(t, n, h, d) -> (h, d, n)>
#co = affine_map<(t, n, h, d) -> (t, n)>
func.func @grouped(%x: tensor<4x6x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                   %w: tensor<16x12xf32>, %wq: tensor<12x3x8xf32>,
                   %wout: tensor<3x8x10xf32>)
    -> (tensor<24x10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x6x12xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x6x12xf32>) -> tensor<4x6x12xf32>
  %y = linalg.generic {indexing_maps = [#a3, #w2, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x6x16xf32>, tensor<16x12xf32>) outs(%z1 : tensor<4x6x12xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6x12xf32>
  %t = tensor.collapse_shape %y [[0, 1], [2]] : tensor<4x6x12xf32> into tensor<24x12xf32>
  %e2 = tensor.empty() : tensor<24x3x8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<24x3x8xf32>) -> tensor<24x3x8xf32>
  %q = linalg.generic {indexing_maps = [#xt, #wh, #ch], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%t, %wq : tensor<24x12xf32>, tensor<12x3x8xf32>) outs(%z2 : tensor<24x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<24x3x8xf32>
  %e3 = tensor.empty() : tensor<24x10xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<24x10xf32>) -> tensor<24x10xf32>
  %o = linalg.generic {indexing_maps = [#ah, #wo, #co], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%q, %wout : tensor<24x3x8xf32>, tensor<3x8x10xf32>) outs(%z3 : tensor<24x10xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<24x10xf32>
  return %o : tensor<24x10xf32>
}
