// A squared-error loss summed to a scalar over a batch sharded on 2 ranks:
// on GPUs dtensor-split-reductions makes it 128 partials of 1024 elements
// per rank (128 blocks), then one block over the partials.
dtensor.mesh @mesh = <["dp" = 2]>
func.func @loss(%x: tensor<256x1024xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %y: tensor<256x1024xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x, %y : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %q = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
