// Results that are an argument, a constant and one value twice: the CPU
// pipeline returns each as a buffer of its own (or one buffer twice),
// which dtensor-run frees after each call.
dtensor.mesh @mesh = <["dp" = 1]>
func.func @f(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
        tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
        tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
        tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c = arith.constant dense<2.0> : tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.add ins(%x, %c : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %x, %c, %s, %s : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
