// RUN: dtensor-opt %s --dtensor-fake-propagate="max-bytes-per-rank=600K" -split-input-file -verify-diagnostics
// RUN: dtensor-opt %s --dtensor-fake-propagate="strategy=pytorch max-bytes-per-rank=600K" -split-input-file -verify-diagnostics
// RUN: not dtensor-opt %s --dtensor-fake-report="max-bytes-per-rank=12X" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not dtensor-opt %s --dtensor-partition="max-bytes-per-rank=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not dtensor-opt %s --dtensor-fake-propagate="max-bytes-per-rank=99999999999G" -split-input-file 2>&1 | FileCheck %s --check-prefix=HUGE
// BAD: error: max-bytes-per-rank: expected a positive byte count such as 512M (suffix K, M or G), got '12X'
// ZERO: error: max-bytes-per-rank: expected a positive byte count such as 512M (suffix K, M or G), got '0'
// HUGE: error: max-bytes-per-rank: byte count '99999999999G' is too large

// The two replicated 256 KiB weights are arguments (the caller's placements):
// no plan gets below 672 KiB.
dtensor.mesh @mesh = <["x" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>
// expected-error @+1 {{no plan fits max-bytes-per-rank=614400 (600.0 KiB); the smallest peak reached is 672.0 KiB (688128 bytes) on rank 0}}
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x512xf32>, %w2: tensor<512x128xf32>)
    -> (tensor<64x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x128xf32>, tensor<128x512xf32>) outs(%z1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x512xf32>) outs(%e1 : tensor<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%z2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// An argument shard alone is over the budget: 1 MiB of the 2 MiB input.
dtensor.mesh @mesh = <["x" = 2]>
// expected-error @+1 {{no plan fits max-bytes-per-rank=614400 (600.0 KiB); the smallest peak reached is 1.0 MiB (1048576 bytes) on rank 0}}
func.func @too_big(%x: tensor<1024x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<1024x512xf32> {
  return %x : tensor<1024x512xf32>
}
