dtensor.mesh @mesh = <["x" = 4]>
dtensor.mesh @grid = <["a" = 2, "b" = 4]>
dtensor.mesh @g22 = <["a" = 2, "b" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>

// An uneven batch: 30 rows over 4 ranks (8, 8, 8, 6) through a layer.
func.func @uneven_batch(%x: tensor<30x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %w: tensor<16x8xf32>)
    -> (tensor<30x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<30x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<30x8xf32>) -> tensor<30x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<30x16xf32>, tensor<16x8xf32>) outs(%z : tensor<30x8xf32>) -> tensor<30x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<30x8xf32>) outs(%e : tensor<30x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<30x8xf32>
  return %r : tensor<30x8xf32>
}

// The same, gathered to every rank at the end.
func.func @uneven_batch_r(%x: tensor<30x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %w: tensor<16x8xf32>)
    -> (tensor<30x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<30x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<30x8xf32>) -> tensor<30x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<30x16xf32>, tensor<16x8xf32>) outs(%z : tensor<30x8xf32>) -> tensor<30x8xf32>
  return %y : tensor<30x8xf32>
}

// Large enough that the all-to-all beats gathering under the cost model.
func.func @s0_to_s1(%x: tensor<256x256xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<256x256xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) {
  %y = math.exp %x : tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// Uneven on both dims: falls back to a padded gather and a local chunk.
func.func @uneven_s0_to_s1(%x: tensor<10x7xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x7xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) {
  %y = math.exp %x : tensor<10x7xf32>
  return %y : tensor<10x7xf32>
}

// A partial result reduce-scattered to uneven rows (10 over 4).
func.func @uneven_rs(%x: tensor<10x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}, %w: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x6xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<10x6xf32>) -> tensor<10x6xf32>
  %y = linalg.matmul ins(%x, %w : tensor<10x8xf32>, tensor<8x6xf32>) outs(%z : tensor<10x6xf32>) -> tensor<10x6xf32>
  return %y : tensor<10x6xf32>
}

// [S(0), S(0)] -> [R, R] of 10 rows on 2x2 (3, 2, 3, 2).
func.func @nested_gather(%x: tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(0)]>})
    -> (tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@g22, [R, R]>}) {
  %y = math.exp %x : tensor<10x3xf32>
  return %y : tensor<10x3xf32>
}

// [S(0), S(1)] -> [S(1), S(0)] on 2x4: gather, all-to-all, local chunk.
func.func @swap_2d(%x: tensor<256x512xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(1)]>})
    -> (tensor<256x512xf32> {dtensor.spec = #dtensor.spec<@grid, [S(1), S(0)]>}) {
  %y = math.exp %x : tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

// [P, P] -> [R, R] of 8 MiB on 2x2: reduce-scatter, all-reduce of the half,
// all-gather (cheaper than PyTorch's two all-reduces of the whole).
func.func @partial_2d(%x: tensor<2048x1024xf32> {dtensor.spec = #dtensor.spec<@g22, [P(sum), P(sum)]>})
    -> (tensor<2048x1024xf32> {dtensor.spec = #dtensor.spec<@g22, [R, R]>}) {
  return %x : tensor<2048x1024xf32>
}

// Integer partial sums: R -> P(sum) keeps the value on group rank 0.
func.func @int_partial_bias(%x: tensor<8x4xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}, %w: tensor<4x6xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %b: tensor<8x6xi32>) -> (tensor<8x6xi32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x6xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<8x6xi32>) -> tensor<8x6xi32>
  %y = linalg.matmul ins(%x, %w : tensor<8x4xi32>, tensor<4x6xi32>) outs(%z : tensor<8x6xi32>) -> tensor<8x6xi32>
  %s = arith.addi %y, %b : tensor<8x6xi32>
  return %s : tensor<8x6xi32>
}
func.func @partial_input(%x: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}) -> (tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  return %x : tensor<8x6xf32>
}
// A slice that keeps the sharded dim whole.
func.func @slice_sharded(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> (tensor<16x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %s = tensor.extract_slice %x[0, 2] [16, 3] [1, 1] : tensor<16x8xf32> to tensor<16x3xf32>
  %e = math.exp %s : tensor<16x3xf32>
  return %e : tensor<16x3xf32>
}

// All-to-alls whose concat dim comes before the split dim (S(1) -> S(0)),
// on a 3-D value (S(2) -> S(0) on 4 ranks), and on one axis of a 2-D mesh
// with the other axis sharding a third dim ([S(1), S(2)] -> [S(1), S(0)]
// over "b"): each rank's received blocks go back along the concat dim in
// the senders' order (one dtrt_all_to_all each).
func.func @s1_to_s0(%x: tensor<256x256xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>})
    -> (tensor<256x256xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %y = math.exp %x : tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}
func.func @s2_to_s0_3d(%x: tensor<64x8x256xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(2)]>})
    -> (tensor<64x8x256xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %y = math.exp %x : tensor<64x8x256xf32>
  return %y : tensor<64x8x256xf32>
}
func.func @a2a_sub_axis(%x: tensor<64x8x256xf32> {dtensor.spec = #dtensor.spec<@grid, [S(1), S(2)]>})
    -> (tensor<64x8x256xf32> {dtensor.spec = #dtensor.spec<@grid, [S(1), S(0)]>}) {
  %y = math.exp %x : tensor<64x8x256xf32>
  return %y : tensor<64x8x256xf32>
}
