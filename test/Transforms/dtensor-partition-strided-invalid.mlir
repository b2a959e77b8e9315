// RUN: dtensor-opt %s --dtensor-partition=strategy=pytorch -split-input-file -verify-diagnostics

// What partitioning does not support for strided shards (`_S(d, sf)`): the
// local indices of a strided dim are not one offset away from the global
// ones, so linalg.index of such a loop cannot be localised by adding an
// offset. (Creating a non-splat value in strided placements has the same
// diagnostic in localizeCreation, but PyTorch's choice never asks for it:
// replicating the strided operand costs nothing by its prices and comes
// first.)

dtensor.mesh @mesh = <["x" = 4]>
func.func @strided_index(%x: tensor<32xf32> {dtensor.spec = #dtensor.spec<@mesh, [_S(0, 4)]>}) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<32xf32>
  // expected-error @+1 {{'linalg.generic' op reads linalg.index 0 of a loop with strided shard _S(0, 4), which partitioning does not support}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %m = arith.addf %a, %f : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}
