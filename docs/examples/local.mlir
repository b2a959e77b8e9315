// dtensor.to_local / dtensor.from_local: leave the global view for a part of
// the program that works on each rank's shard, then come back.
dtensor.mesh @mesh = <["dp" = 4]>

func.func @local_exp(%x: tensor<32x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  // Each rank's [8, 16] block of the [32, 16] batch.
  %l = dtensor.to_local %x from #dtensor.spec<@mesh, [S(0)]> : tensor<32x16xf32> -> tensor<8x16xf32>
  %e = math.exp %l : tensor<8x16xf32>
  // The blocks form a global [32, 16] tensor sharded S(0) again.
  %g = dtensor.from_local %e to #dtensor.spec<@mesh, [S(0)]> : tensor<8x16xf32> -> tensor<32x16xf32>
  return %g : tensor<32x16xf32>
}
