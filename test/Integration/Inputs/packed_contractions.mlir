// Contractions the GEMM reads only once some operands are packed
// (dtensor-linalg-to-cublaslt): a batch dim innermost in A (sharded
// unevenly: 3 batches on 2 ranks, a dynamic batch), an m group (s, t)
// split by k in A, and an n group (h, d) stored in C as [d, m, h]. Each becomes
// transposes into packed buffers, one GEMM and (for C) a transpose back;
// the last one accumulates into an input (C copied in, beta = 1).
dtensor.mesh @mesh = <["dp" = 2]>
#a1 = affine_map<(b, m, n, k) -> (m, k, b)>
#b1 = affine_map<(b, m, n, k) -> (b, k, n)>
#c1 = affine_map<(b, m, n, k) -> (b, m, n)>
#a2 = affine_map<(s, t, n, k) -> (s, k, t)>
#b2 = affine_map<(s, t, n, k) -> (k, n)>
#c2 = affine_map<(s, t, n, k) -> (s, t, n)>
#a3 = affine_map<(m, h, d, k) -> (m, k)>
#b3 = affine_map<(m, h, d, k) -> (k, h, d)>
#c3 = affine_map<(m, h, d, k) -> (d, m, h)>
func.func @packed(%x1: tensor<4x8x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(2)]>},
                  %y1: tensor<3x8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %x2: tensor<5x12x6xf32>, %y2: tensor<12x10xf32>,
                  %x3: tensor<7x9xf32>, %y3: tensor<9x3x4xf32>,
                  %c4: tensor<4x7x3xf32>)
    -> (tensor<3x4x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
        tensor<5x6x10xf32>, tensor<4x7x3xf32>, tensor<4x7x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<3x4x16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x4x16xf32>) -> tensor<3x4x16xf32>
  %r1 = linalg.generic {indexing_maps = [#a1, #b1, #c1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x1, %y1 : tensor<4x8x3xf32>, tensor<3x8x16xf32>) outs(%z1 : tensor<3x4x16xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x4x16xf32>
  %e2 = tensor.empty() : tensor<5x6x10xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5x6x10xf32>) -> tensor<5x6x10xf32>
  %r2 = linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x2, %y2 : tensor<5x12x6xf32>, tensor<12x10xf32>) outs(%z2 : tensor<5x6x10xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<5x6x10xf32>
  %e3 = tensor.empty() : tensor<4x7x3xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x7x3xf32>) -> tensor<4x7x3xf32>
  %r3 = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x3, %y3 : tensor<7x9xf32>, tensor<9x3x4xf32>) outs(%z3 : tensor<4x7x3xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x7x3xf32>
  %r4 = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x3, %y3 : tensor<7x9xf32>, tensor<9x3x4xf32>) outs(%c4 : tensor<4x7x3xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x7x3xf32>
  return %r1, %r2, %r3, %r4 : tensor<3x4x16xf32>, tensor<5x6x10xf32>, tensor<4x7x3xf32>, tensor<4x7x3xf32>
}
