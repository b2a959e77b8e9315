// Uneven (torch.chunk) shards: 10 rows over 4 ranks are 3, 3, 3, 1.
dtensor.mesh @mesh = <["x" = 4]>
dtensor.mesh @grid = <["a" = 2, "b" = 2]>

// S(0) -> R: every rank pads its rows to 3, all-gathers 12 rows and keeps 10.
func.func @gather(%x: tensor<10x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %y = math.exp %x : tensor<10x8xf32>
  return %y : tensor<10x8xf32>
}

// R -> S(0): no communication, each rank slices its chunk; the offset and
// size come from the rank's coordinate (dtensor.process_index).
func.func @chunk(%x: tensor<10x8xf32>)
    -> (tensor<10x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %y = math.exp %x : tensor<10x8xf32>
  return %y : tensor<10x8xf32>
}

// Two mesh axes sharding the same dim: rows 3, 2, 3, 2 at offsets 0, 3, 5, 8.
// Going to [R, R] takes two steps, the inner axis (b) first.
func.func @nested(%x: tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(0)]>})
    -> (tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@grid, [R, R]>}) {
  return %x : tensor<10x3xf32>
}
