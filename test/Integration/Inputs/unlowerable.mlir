// math.isinf: elementwise for the analysis, but nothing upstream lowers it.
dtensor.mesh @mesh = <["x" = 4]>
func.func @isinf(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16xi1> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %r = math.isinf %x : tensor<16xf32>
  return %r : tensor<16xi1>
}
