dtensor.mesh @world = <["x" = 4]>

// Uneven shards on dim 0 (10 rows over 4 ranks) and a redistribution of %b.
func.func @scaled(%a: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@world, [S(0)]>},
                  %b: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@world, [S(1)]>})
    -> tensor<10x6xf32> {
  %r = dtensor_test.scaled_add %a, %b {scale = 2.0 : f32} : tensor<10x6xf32>
  %e = math.exp %r : tensor<10x6xf32>
  return %e : tensor<10x6xf32>
}
