// The worked picks of docs/semantics.md section 4 are PyTorch parity cases: they run
// in strategy=pytorch; whole-function planning is tested in
// dtensor-fake-propagate-global.mlir.
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch -split-input-file | FileCheck %s
// Propagation is idempotent: a propagated program needs no further change.
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch -split-input-file | dtensor-opt -dtensor-fake-propagate=strategy=pytorch -split-input-file | FileCheck %s

// The worked matmul picks of docs/semantics.md section 4 on a 1-D mesh of 4.

dtensor.mesh @mesh = <["x" = 4]>

// x S(0) @ w R -> S(0), no communication.
// CHECK-LABEL: func.func @mm_s0_r
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK-NOT: dtensor.redistribute
// CHECK: return
func.func @mm_s0_r(%x: tensor<64x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                   %w: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %e = tensor.empty() : tensor<64x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

// x R @ w S(1) -> S(1).
// CHECK-LABEL: func.func @mm_r_s1
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
func.func @mm_r_s1(%x: tensor<64x32xf32>,
                   %w: tensor<32x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<64x16xf32> {
  %e = tensor.empty() : tensor<64x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

// x S(1) @ w S(0) -> P(sum); the destination is created as a partial zero.
// CHECK-LABEL: func.func @mm_s1_s0
// CHECK: %[[E:.*]] = tensor.empty() {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[Z:.*]] = linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]} {{.*}} outs(%[[E]]
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]} {{.*}} outs(%[[Z]]
func.func @mm_s1_s0(%x: tensor<64x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                    %w: tensor<32x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<64x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x16xf32>) outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

// x S(0) @ w S(0) -> S(0) after all-gathering the (small) weight: moving x
// (all-to-all of 2 MiB per rank) would cost more.
// CHECK-LABEL: func.func @mm_s0_s0
// CHECK-SAME: %[[X:[^:]*]]: tensor<4096x512xf32>
// CHECK-SAME: %[[W:[^:]*]]: tensor<512x64xf32>
// CHECK: %[[WR:.*]] = dtensor.redistribute %[[W]] to #dtensor.spec<@mesh, [R]>
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[X]], %[[WR]] :
func.func @mm_s0_s0(%x: tensor<4096x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                    %w: tensor<512x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<4096x64xf32> {
  %e = tensor.empty() : tensor<4096x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4096x512xf32>, tensor<512x64xf32>) outs(%e : tensor<4096x64xf32>) -> tensor<4096x64xf32>
  return %y : tensor<4096x64xf32>
}

// x S(1) @ w R -> P(sum) after taking w's chunk (R -> S(0) is free).
// CHECK-LABEL: func.func @mm_s1_r
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x32xf32>
// CHECK-SAME: %[[W:[^:]*]]: tensor<32x16xf32>
// CHECK: %[[WS:.*]] = dtensor.redistribute %[[W]] to #dtensor.spec<@mesh, [S(0)]>
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]} ins(%[[X]], %[[WS]] :
func.func @mm_s1_r(%x: tensor<64x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                   %w: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x32xf32>, tensor<32x16xf32>) outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

// Batch matmul with all three operands batch-sharded needs nothing.
// CHECK-LABEL: func.func @bmm_batch
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.batch_matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
func.func @bmm_batch(%a: tensor<8x16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                     %b: tensor<8x32x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<8x16x16xf32> {
  %e = tensor.empty() : tensor<8x16x16xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<8x16x32xf32>, tensor<8x32x16xf32>) outs(%e : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  return %y : tensor<8x16x16xf32>
}

// -----

// Elementwise ops follow the input with the most shards.

dtensor.mesh @mesh = <["x" = 4]>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>

// CHECK-LABEL: func.func @add_s0_s0
// CHECK-NOT: dtensor.redistribute
// CHECK: arith.addf {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
func.func @add_s0_s0(%a: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                     %b: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<16x8xf32> {
  %c = arith.addf %a, %b : tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// a[32,128,512] S(0) + b[512] R -> S(0): the broadcast dim stays replicated.
// CHECK-LABEL: func.func @bias_add
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.generic {{.*}} attrs = {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
func.func @bias_add(%a: tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                    %b: tensor<512xf32>) -> tensor<32x128x512xf32> {
  %e = tensor.empty() : tensor<32x128x512xf32>
  %c = linalg.generic {indexing_maps = [#map3, #bias, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<32x128x512xf32>, tensor<512xf32>) outs(%e : tensor<32x128x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x128x512xf32>
  return %c : tensor<32x128x512xf32>
}

// A partial input of a non-linear op is all-reduced first: relu(P) -> R.
// CHECK-LABEL: func.func @relu_partial
// CHECK: %[[MM:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[AR:.*]] = dtensor.redistribute %[[MM]] to #dtensor.spec<@mesh, [R]>
// CHECK: arith.maximumf %[[AR]], {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
func.func @relu_partial(%x: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                        %w: tensor<32x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %zero = arith.constant dense<0.0> : tensor<16x8xf32>
  %r = arith.maximumf %y, %zero : tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// A partial survives linear ops: P + P -> P, P * R -> P.
// CHECK-LABEL: func.func @linear_partial
// CHECK-NOT: dtensor.redistribute {{.*}} [R]
// CHECK: arith.addf {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: arith.mulf {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: dtensor.redistribute {{.*}} to #dtensor.spec<@mesh, [R]>
// CHECK-NEXT: return
func.func @linear_partial(%x: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                          %w: tensor<32x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                          %s: tensor<16x8xf32>)
    -> (tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.empty() : tensor<16x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %y2 = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %sum = arith.addf %y, %y2 : tensor<16x8xf32>
  %scaled = arith.mulf %sum, %s : tensor<16x8xf32>
  return %scaled : tensor<16x8xf32>
}

// where(c, 0.3, 0.6) with c S(0) -> S(0); the 0-d constants stay replicated
// and their broadcasts are created directly as shards.
// CHECK-LABEL: func.func @where_scalars
// CHECK: arith.constant {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} dense<3.000000e-01> : tensor<f32>
// CHECK: arith.constant {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} dense<6.000000e-01> : tensor<f32>
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.broadcast {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: linalg.broadcast {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK-NOT: dtensor.redistribute
// CHECK: arith.select {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
func.func @where_scalars(%c: tensor<16x8xi1> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<16x8xf32> {
  %a = arith.constant dense<0.3> : tensor<f32>
  %b = arith.constant dense<0.6> : tensor<f32>
  %e = tensor.empty() : tensor<16x8xf32>
  %ab = linalg.broadcast ins(%a : tensor<f32>) outs(%e : tensor<16x8xf32>) dimensions = [0, 1]
  %bb = linalg.broadcast ins(%b : tensor<f32>) outs(%e : tensor<16x8xf32>) dimensions = [0, 1]
  %r = arith.select %c, %ab, %bb : tensor<16x8xi1>, tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Softmax, reductions, transposes and reshapes.

dtensor.mesh @mesh = <["x" = 4]>

// [32,8,128,128] S(0) softmax(-1) -> S(0) with no communication.
// CHECK-LABEL: func.func @softmax_batch
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.softmax {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
func.func @softmax_batch(%x: tensor<32x8x128x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<32x8x128x128xf32> {
  %e = tensor.empty() : tensor<32x8x128x128xf32>
  %y = linalg.softmax dimension(3) ins(%x : tensor<32x8x128x128xf32>) outs(%e : tensor<32x8x128x128xf32>) -> tensor<32x8x128x128xf32>
  return %y : tensor<32x8x128x128xf32>
}

// The softmax dim must be whole: S(3) is gathered first.
// CHECK-LABEL: func.func @softmax_sharded_dim
// CHECK: %[[G:.*]] = dtensor.redistribute %{{.*}} to #dtensor.spec<@mesh, [R]>
// CHECK: linalg.softmax {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} dimension(3) ins(%[[G]]
func.func @softmax_sharded_dim(%x: tensor<2x8x16x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(3)]>}) -> tensor<2x8x16x16xf32> {
  %e = tensor.empty() : tensor<2x8x16x16xf32>
  %y = linalg.softmax dimension(3) ins(%x : tensor<2x8x16x16xf32>) outs(%e : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  return %y : tensor<2x8x16x16xf32>
}

// Reducing a sharded dim gives a partial with the combiner of the region.
// CHECK-LABEL: func.func @reduce_sum_max
// CHECK: linalg.reduce {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: linalg.reduce {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(max)]>]}
// CHECK: linalg.reduce {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
func.func @reduce_sum_max(%x: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                          %y: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %s = linalg.reduce ins(%x : tensor<16x32xf32>) outs(%e : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %m = linalg.reduce ins(%x : tensor<16x32xf32>) outs(%e : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.maximumf %in, %acc : f32
      linalg.yield %a : f32
    }
  %r = linalg.reduce ins(%y : tensor<16x32xf32>) outs(%e : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %s, %m, %r : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// A shard moves with its dim through a transpose.
// CHECK-LABEL: func.func @transpose
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.transpose {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
func.func @transpose(%x: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x16xf32>
  %t = linalg.transpose ins(%x : tensor<16x32xf32>) outs(%e : tensor<32x16xf32>) permutation = [1, 0]
  return %t : tensor<32x16xf32>
}

// Merging keeps the shard of the first merged dim when it divides evenly;
// splitting keeps it on the first new dim when that divides.
// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.collapse_shape {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: tensor.expand_shape {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
func.func @reshapes(%x: tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<32x128x8x64xf32> {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<32x128x512xf32> into tensor<4096x512xf32>
  %e = tensor.expand_shape %c [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>
  return %e : tensor<32x128x8x64xf32>
}

// An uneven merged shard (10 rows over 4) is gathered first; a shard of a
// dim that is not the first of its group becomes a strided shard
// (dtensor-fake-propagate-strided.mlir).
// CHECK-LABEL: func.func @reshape_uneven
// CHECK-SAME: (%[[X:[^:]*]]: {{.*}}, %[[Y:[^:]*]]:
// CHECK: %[[XR:.*]] = dtensor.redistribute %[[X]] to #dtensor.spec<@mesh, [R]> : tensor<10x3xf32>
// CHECK-NOT: dtensor.redistribute %[[Y]]
// CHECK: tensor.collapse_shape %[[XR]] {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
// CHECK: tensor.collapse_shape %[[Y]] {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [_S(0, 4)]>]}
func.func @reshape_uneven(%x: tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                          %y: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> (tensor<30xf32>, tensor<32xf32>) {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<10x3xf32> into tensor<30xf32>
  %d = tensor.collapse_shape %y [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %c, %d : tensor<30xf32>, tensor<32xf32>
}

// -----

// The Megatron MLP: w1 column-parallel, w2 row-parallel, x replicated.

dtensor.mesh @mesh = <["tp" = 4]>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Result requested R: exactly one all-reduce of the [B, d] output.
// CHECK-LABEL: func.func @megatron_r
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK: linalg.generic {{.*}} attrs = {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK: %[[Y:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: %[[R:.*]] = dtensor.redistribute %[[Y]] to #dtensor.spec<@mesh, [R]> : tensor<32x512xf32>
// CHECK: return %[[R]]
func.func @megatron_r(%x: tensor<32x512xf32>,
               %w1: tensor<512x2048xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
               %w2: tensor<2048x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x2048xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x512xf32>, tensor<512x2048xf32>) outs(%z1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x2048xf32>) outs(%e1 : tensor<32x2048xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<32x2048xf32>
  %e2 = tensor.empty() : tensor<32x512xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<32x2048xf32>, tensor<2048x512xf32>) outs(%z2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}

// Result requested S(0): one reduce-scatter and nothing else (upstream's
// shard dialect all-gathers both weights here).
// CHECK-LABEL: func.func @megatron_s0
// CHECK-COUNT-1: dtensor.redistribute
// CHECK-NOT: dtensor.redistribute
func.func @megatron_s0(%x: tensor<32x512xf32>,
               %w1: tensor<512x2048xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
               %w2: tensor<2048x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x2048xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x512xf32>, tensor<512x2048xf32>) outs(%z1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x2048xf32>) outs(%e1 : tensor<32x2048xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<32x2048xf32>
  %e2 = tensor.empty() : tensor<32x512xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<32x2048xf32>, tensor<2048x512xf32>) outs(%z2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}

// -----

// Data parallel x tensor parallel on a 2x2 mesh: the hidden activation is
// [S(0), S(1)], the output [S(0), P(sum)], and one all-reduce over the tp
// axis returns it as [S(0), R].
// CHECK-LABEL: func.func @mlp2d
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@grid, [S(0), S(1)]>]}
// CHECK: linalg.generic {{.*}} attrs = {dtensor.specs = [#dtensor.spec<@grid, [S(0), S(1)]>]}
// CHECK: %[[Y:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@grid, [S(0), P(sum)]>]}
// CHECK: %[[R:.*]] = dtensor.redistribute %[[Y]] to #dtensor.spec<@grid, [S(0), R]>
// CHECK-NEXT: return %[[R]]
dtensor.mesh @grid = <["dp" = 2, "tp" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mlp2d(%x: tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), R]>},
               %w1: tensor<512x2048xf32> {dtensor.spec = #dtensor.spec<@grid, [R, S(1)]>},
               %w2: tensor<2048x512xf32> {dtensor.spec = #dtensor.spec<@grid, [R, S(0)]>})
    -> (tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x2048xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x512xf32>, tensor<512x2048xf32>) outs(%z1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<32x2048xf32>) outs(%e1 : tensor<32x2048xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<32x2048xf32>
  %e2 = tensor.empty() : tensor<32x512xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<32x2048xf32>, tensor<2048x512xf32>) outs(%z2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}
