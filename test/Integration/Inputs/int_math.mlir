dtensor.mesh @mesh = <["x" = 4]>

// Integer math on a row-sharded i32 tensor: |x| and x^3 (math.ipowi,
// outlined by convert-math-to-funcs), with the products wrapping.
func.func @absi(%x: tensor<16x8xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16x8xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
        tensor<16x8xi32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c3 = arith.constant dense<3> : tensor<16x8xi32>
  %a = math.absi %x : tensor<16x8xi32>
  %p = math.ipowi %x, %c3 : tensor<16x8xi32>
  return %a, %p : tensor<16x8xi32>, tensor<16x8xi32>
}
