dtensor.mesh @mesh = <["tp" = 2]>

// A loop whose trip count is an argument: not static, counted once (the
// documented default), and the row says so.
func.func @dynamic(%x: tensor<16x128xf32>, %w: tensor<128x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %n: index)
    -> (tensor<16x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> (tensor<16x128xf32>) {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<16x128xf32>) {
      %e = tensor.empty() : tensor<16x128xf32>
      %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
      %m = linalg.matmul ins(%acc, %w : tensor<16x128xf32>, tensor<128x128xf32>) outs(%z : tensor<16x128xf32>) -> tensor<16x128xf32>
      scf.yield %m : tensor<16x128xf32>
    }
    scf.yield %s : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
