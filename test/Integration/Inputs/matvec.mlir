// Contractions with no n or no m loop: a matrix times a vector (its rows
// sharded unevenly: 37 rows on 2 ranks), a dot product, a vector times a
// matrix and a batched matrix-vector product. dtensor-unit-gemm-dims gives
// each a unit loop: one GEMM with n or m = 1 on the CPU (cblas_sgemm) and
// the GPU (cuBLASLt), the zero fills folded into beta = 0.
dtensor.mesh @mesh = <["dp" = 2]>
func.func @matvec(%a: tensor<37x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %x: tensor<32xf32>, %y: tensor<32xf32>, %w: tensor<32x48xf32>,
                  %ba: tensor<3x16x32xf32>, %bx: tensor<3x32xf32>)
    -> (tensor<37xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
        tensor<f32>, tensor<48xf32>, tensor<3x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<37xf32>) -> tensor<37xf32>
  %r = linalg.matvec ins(%a, %x : tensor<37x32xf32>, tensor<32xf32>) outs(%z : tensor<37xf32>) -> tensor<37xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%x, %y : tensor<32xf32>, tensor<32xf32>) outs(%z0 : tensor<f32>) -> tensor<f32>
  %e1 = tensor.empty() : tensor<48xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<48xf32>) -> tensor<48xf32>
  %v = linalg.vecmat ins(%x, %w : tensor<32xf32>, tensor<32x48xf32>) outs(%z1 : tensor<48xf32>) -> tensor<48xf32>
  %e2 = tensor.empty() : tensor<3x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x16xf32>) -> tensor<3x16xf32>
  %b = linalg.batch_matvec ins(%ba, %bx : tensor<3x16x32xf32>, tensor<3x32xf32>) outs(%z2 : tensor<3x16xf32>) -> tensor<3x16xf32>
  return %r, %d, %v, %b : tensor<37xf32>, tensor<f32>, tensor<48xf32>, tensor<3x16xf32>
}
