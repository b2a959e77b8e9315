// Programs of uneven expands and linalg.index in sharded ops, each run on 4
// ranks and compared with one rank (uneven_expand_index.test).
dtensor.mesh @mesh = <["x" = 4]>
dtensor.mesh @g22 = <["a" = 2, "b" = 2]>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// 10 rows over 4 (3, 3, 3, 1) stay sharded through an expand of dim 1.
func.func @expand_uneven_rows(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x2x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [10, 2, 3] : tensor<10x6xf32> into tensor<10x2x3xf32>
  %o = tensor.empty() : tensor<10x2x3xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e : tensor<10x2x3xf32>) outs(%o : tensor<10x2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = math.exp %a : f32
    linalg.yield %m : f32
  } -> tensor<10x2x3xf32>
  return %r : tensor<10x2x3xf32>
}

// The same on 2x2 with [S(0), S(0)]: rows 3, 2, 3, 2.
func.func @expand_uneven_nested(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(0)]>})
    -> (tensor<10x2x3xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(0)]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [10, 2, 3] : tensor<10x6xf32> into tensor<10x2x3xf32>
  return %e : tensor<10x2x3xf32>
}

// Splitting the sharded dim, 12 -> 4x3, where 4 divides by the axis size:
// the shard moves to the outer factor, with no communication.
func.func @expand_split_divides(%x: tensor<12x10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<4x3x10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [4, 3, 10] : tensor<12x10xf32> into tensor<4x3x10xf32>
  return %e : tensor<4x3x10xf32>
}

// Splitting an uneven sharded dim, 6 -> 2x3 over 4 (2, 2, 2, 0): 2 does not
// divide by 4, so the source is gathered first.
func.func @expand_split_uneven(%x: tensor<6x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<2x3x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
  return %e : tensor<2x3x8xf32>
}

// On 2x2, an uneven shard of dim 0 (9 over 2: 5, 4) and a split of the
// sharded dim 1 that does not divide (6 -> 3x2, 3 over 2): dim 1 is
// gathered first, dim 0 stays uneven.
func.func @expand_mixed_2d(%x: tensor<9x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(1)]>})
    -> (tensor<9x3x2xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), R]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [9, 3, 2] : tensor<9x6xf32> into tensor<9x3x2xf32>
  return %e : tensor<9x3x2xf32>
}

// On 2x2, an uneven shard of dim 0 (9 over 2: 5, 4) and a split of the
// sharded dim 1 that divides (8 -> 2x4, 2 over 2): both stay, no
// communication; the local expand is ?x4 -> ?x1x4.
func.func @expand_split_2d(%x: tensor<9x8xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(1)]>})
    -> (tensor<9x2x4xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(1)]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [9, 2, 4] : tensor<9x8xf32> into tensor<9x2x4xf32>
  return %e : tensor<9x2x4xf32>
}

// index(0) + index(1) * 0.5 + x on uneven rows: the row index is global.
func.func @index_sharded(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %h = arith.constant 0.5 : f32
  %o = tensor.empty() : tensor<10x6xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<10x6xf32>) outs(%o : tensor<10x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %hj = arith.mulf %fj, %h : f32
    %s = arith.addf %fi, %hj : f32
    %t = arith.addf %s, %a : f32
    linalg.yield %t : f32
  } -> tensor<10x6xf32>
  return %r : tensor<10x6xf32>
}

// The same with both dims sharded on 2x2, dim 1 unevenly (6 over 2 is even,
// 10 rows over 2 then 5 over 2: 3, 2).
func.func @index_sharded_2d(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(1), S(0)]>})
    -> (tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(1), S(0)]>}) {
  %h = arith.constant 0.5 : f32
  %o = tensor.empty() : tensor<10x6xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<10x6xf32>) outs(%o : tensor<10x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %hj = arith.mulf %fj, %h : f32
    %s = arith.addf %fi, %hj : f32
    %t = arith.addf %s, %a : f32
    linalg.yield %t : f32
  } -> tensor<10x6xf32>
  return %r : tensor<10x6xf32>
}

// Argmax over the unsharded dim 1 of uneven rows (the softmax body that
// torch-mlir emits for scaled_dot_product_attention): index stays local.
func.func @argmax_unsharded(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
        tensor<10xi64> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<10xf32>
  %e1 = tensor.empty() : tensor<10xi64>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<10xf32>) -> tensor<10xf32>
  %i0 = linalg.fill ins(%z : i64) outs(%e1 : tensor<10xi64>) -> tensor<10xi64>
  %r:2 = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<10x6xf32>) outs(%m0, %i0 : tensor<10xf32>, tensor<10xi64>) {
  ^bb0(%a: f32, %m: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %m : f32
    %nm = arith.select %gt, %a, %m : f32
    %nk = arith.select %gt, %jj, %k : i64
    linalg.yield %nm, %nk : f32, i64
  } -> (tensor<10xf32>, tensor<10xi64>)
  return %r#0, %r#1 : tensor<10xf32>, tensor<10xi64>
}

// sum_k k * x[k] over a sharded reduction dim (10 over 4): every rank adds
// its rows with their global indices, a P(sum) all-reduced at the end.
func.func @index_sharded_reduction(%x: tensor<10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<f32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#col, #scalar], iterator_types = ["reduction"]} ins(%x : tensor<10xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %k = linalg.index 0 : index
    %kk = arith.index_cast %k : index to i64
    %fk = arith.sitofp %kk : i64 to f32
    %p = arith.mulf %fk, %a : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
