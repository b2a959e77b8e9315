// RUN: dtensor-opt %s --dtensor-gpu-tiled-transpose="tile-size=30 block-rows=8" -verify-diagnostics

// expected-error@+1 {{dtensor-gpu-tiled-transpose: tile-size (30) must be a positive multiple of block-rows (8)}}
func.func @bad_tile(%a: memref<64x96xf32>, %o: memref<96x64xf32>) {
  linalg.transpose ins(%a : memref<64x96xf32>) outs(%o : memref<96x64xf32>) permutation = [1, 0]
  return
}
