// Programs with strided shards (`_S(d, sf)`, PyTorch's _StridedShard) in
// their arguments, values and results; see strided.test.
dtensor.mesh @line = <["x" = 4]>
dtensor.mesh @grid = <["a" = 2, "b" = 2]>

// [4,8] S(1) merged: _S(0, 4) without communication; relu keeps it; one
// result leaves strided, one is gathered, one is split back to S(1).
func.func @merge(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@line, [S(1)]>})
    -> (tensor<32xf32>, tensor<32xf32> {dtensor.spec = #dtensor.spec<@line, [R]>}, tensor<4x8xf32>) {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%c : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %b = tensor.expand_shape %r [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %r, %r, %b : tensor<32xf32>, tensor<32xf32>, tensor<4x8xf32>
}

// Strided arguments, uneven (18 = 3 groups of 6 over 4 ranks: 6, 6, 6, 0
// elements), added to a replicated one: the sum stays strided, and is also
// returned as S(0) (gathered, then chunked).
func.func @uneven(%x: tensor<18xf32> {dtensor.spec = #dtensor.spec<@line, [_S(0, 3)]>},
                  %y: tensor<18xf32> {dtensor.spec = #dtensor.spec<@line, [_S(0, 3)]>})
    -> (tensor<18xf32> {dtensor.spec = #dtensor.spec<@line, [_S(0, 3)]>},
        tensor<18xf32> {dtensor.spec = #dtensor.spec<@line, [S(0)]>}) {
  %s = arith.addf %x, %y : tensor<18xf32>
  return %s, %s : tensor<18xf32>, tensor<18xf32>
}

// Replicated in, strided out (a local chunk of each group), and a strided
// argument gathered before a softmax over its dim.
func.func @to_strided(%x: tensor<6x4xf32>, %y: tensor<24x3xf32> {dtensor.spec = #dtensor.spec<@line, [_S(0, 2)]>})
    -> (tensor<6x4xf32> {dtensor.spec = #dtensor.spec<@line, [_S(0, 2)]>}, tensor<24x3xf32>) {
  %e = tensor.empty() : tensor<24x3xf32>
  %s = linalg.softmax dimension(0) ins(%y : tensor<24x3xf32>) outs(%e : tensor<24x3xf32>) -> tensor<24x3xf32>
  return %x, %s : tensor<6x4xf32>, tensor<24x3xf32>
}

// A 2x2 mesh: [4,8] [S(0), S(1)] merged is [S(0), _S(0, 2)]; [2,3,8] S(2)
// over the second axis merged into [2,24] is [R, _S(1, 3)], reduced over
// the strided dim to P(sum), then all-reduced.
func.func @two_d(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(1)]>},
                %y: tensor<2x3x8xf32> {dtensor.spec = #dtensor.spec<@grid, [R, S(2)]>})
    -> (tensor<32xf32>, tensor<32xf32> {dtensor.spec = #dtensor.spec<@grid, [R, R]>},
        tensor<2xf32> {dtensor.spec = #dtensor.spec<@grid, [R, R]>}) {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %d = arith.mulf %c, %c : tensor<32xf32>
  %m = tensor.collapse_shape %y [[0], [1, 2]] : tensor<2x3x8xf32> into tensor<2x24xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.reduce ins(%m : tensor<2x24xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %a = arith.addf %in, %init : f32
      linalg.yield %a : f32
    }
  return %d, %d, %s : tensor<32xf32>, tensor<32xf32>, tensor<2xf32>
}
