dtensor.mesh @mesh = <["tp" = 4]>

// Both operands of the matmul are row-sharded. PyTorch's rule compares its
// strategies by the cost of moving the operands there and picks the
// cheapest: gather the weight (S(0) x R -> S(0)); the runner-up moves the
// input to S(1) by an all-to-all for a partial sum (S(1) x S(0) -> P(sum)).
func.func @pick(%x: tensor<64x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                %w: tensor<64x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// The same transitions written out: their costs are the candidates'.
func.func @gather(%x: tensor<64x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<64x64xf32> {
  %r = dtensor.redistribute %x to #dtensor.spec<@mesh, [R]> : tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
func.func @swap(%x: tensor<64x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<64x64xf32> {
  %r = dtensor.redistribute %x to #dtensor.spec<@mesh, [S(1)]> : tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
