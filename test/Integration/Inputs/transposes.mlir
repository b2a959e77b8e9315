// Ops that read an input across the output's rows, the cases of
// dtensor-gpu-tiled-transpose: a [1, 0] transpose whose sizes are not
// multiples of the 32 x 32 tile (edge tiles masked), the same on an uneven
// shard (dynamic local sizes), a 3-D [0, 2, 1] permutation (one tile per
// index of the leading dim), an add of a transposed and a direct input (only
// the transposed one staged), a [2, 1, 0] permutation and a transpose that
// keeps the innermost dim (not staged: already coalesced).
dtensor.mesh @mesh = <["dp" = 2]>
#id2 = affine_map<(i, j) -> (i, j)>
#tr2 = affine_map<(i, j) -> (j, i)>
func.func @transposes(%a: tensor<37x45xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                      %b: tensor<3x40x70xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                      %c: tensor<33x65xf32>, %d: tensor<65x33xf32>,
                      %e: tensor<5x6x7xf32>, %f: tensor<4x5x6xf32>)
    -> (tensor<45x37xf32>, tensor<3x70x40xf32>, tensor<65x33xf32>,
        tensor<7x6x5xf32>, tensor<5x4x6xf32>) {
  %ea = tensor.empty() : tensor<45x37xf32>
  %ta = linalg.transpose ins(%a : tensor<37x45xf32>) outs(%ea : tensor<45x37xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<3x70x40xf32>
  %tb = linalg.transpose ins(%b : tensor<3x40x70xf32>) outs(%eb : tensor<3x70x40xf32>) permutation = [0, 2, 1]
  %ec = tensor.empty() : tensor<65x33xf32>
  %sc = linalg.generic {indexing_maps = [#tr2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %d : tensor<33x65xf32>, tensor<65x33xf32>) outs(%ec : tensor<65x33xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  } -> tensor<65x33xf32>
  %ee = tensor.empty() : tensor<7x6x5xf32>
  %te = linalg.transpose ins(%e : tensor<5x6x7xf32>) outs(%ee : tensor<7x6x5xf32>) permutation = [2, 1, 0]
  %ef = tensor.empty() : tensor<5x4x6xf32>
  %tf = linalg.transpose ins(%f : tensor<4x5x6xf32>) outs(%ef : tensor<5x4x6xf32>) permutation = [1, 0, 2]
  return %ta, %tb, %sc, %te, %tf : tensor<45x37xf32>, tensor<3x70x40xf32>, tensor<65x33xf32>, tensor<7x6x5xf32>, tensor<5x4x6xf32>
}
