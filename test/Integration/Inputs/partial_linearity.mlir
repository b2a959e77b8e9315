// Bodies that use a partial input nonlinearly (x * x, a partial
// denominator) next to one that is linear in it (x * w). dtensor-run feeds
// the P(sum) input as random parts, so a plan that kept x partial through
// the square would fail --check.
#id = affine_map<(d0, d1) -> (d0, d1)>
dtensor.mesh @mesh = <["x" = 4]>

func.func @square(%x: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}, %w: tensor<8x6xf32>) -> (tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.empty() : tensor<8x6xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<8x6xf32>
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %w : tensor<8x6xf32>, tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %one = arith.constant 4.0 : f32
    %d = arith.addf %a, %one : f32
    %r = arith.divf %b, %d : f32
    linalg.yield %r : f32
  } -> tensor<8x6xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %w : tensor<8x6xf32>, tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x6xf32>
  return %sq, %q, %s : tensor<8x6xf32>, tensor<8x6xf32>, tensor<8x6xf32>
}
