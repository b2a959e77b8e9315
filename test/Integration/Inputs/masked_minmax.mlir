// Min/max reductions over an uneven shard (a dynamic local dim, so the
// vectorized row is a masked tile) of rows with no zero in range: the lanes
// past the row's end must not take part. checked by vectorize.test.
dtensor.mesh @mesh = <["x" = 2]>

// max of -(x*x + 1) <= -1 per row of 35 columns (18 and 17 per rank).
func.func @max_negative(%x: tensor<4x35xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>})
    -> (tensor<4xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x35xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x35xf32>) outs(%e : tensor<4x35xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    %t = arith.addf %s, %one : f32
    %u = arith.negf %t : f32
    linalg.yield %u : f32
  } -> tensor<4x35xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%n : tensor<4x35xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}

// min of x*x + 1 >= 1 per row of 3 columns (2 and 1 per rank).
func.func @min_positive(%x: tensor<4x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>})
    -> (tensor<4xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %one = arith.constant 1.0 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    %t = arith.addf %s, %one : f32
    linalg.yield %t : f32
  } -> tensor<4x3xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%pinf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%n : tensor<4x3xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}
