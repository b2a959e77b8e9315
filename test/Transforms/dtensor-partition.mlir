// RUN: dtensor-opt %s --dtensor-partition -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-partition -split-input-file | dtensor-opt -split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// ROUNDTRIP-LABEL: func.func @uneven_gather

// Uneven shards are padded to equal blocks around the collective and the
// padding is sliced off: 30 rows over 4 ranks (8, 8, 8, 6) are gathered as
// 4 blocks of 8 and the first 30 rows kept.
// CHECK-LABEL: func.func @uneven_gather
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
// CHECK-SAME: -> (tensor<30x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
// CHECK: %[[E:.*]] = math.exp %[[X]] : tensor<?x16xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[E]]
// CHECK: } : tensor<?x16xf32> to tensor<8x16xf32>
// CHECK: %[[G:.*]] = dtensor.all_gather %[[P]] on @mesh axes [0] gather_dim 0 : tensor<8x16xf32> -> tensor<32x16xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[G]][0, 0] [30, 16] [1, 1]
// CHECK: return %[[S]]

// S(0) -> S(1) is one all-to-all.
// CHECK-LABEL: func.func @s0_to_s1
// CHECK-SAME: tensor<64x512xf32>
// CHECK: dtensor.all_to_all %{{.*}} on @mesh axes [0] split_dim 1 concat_dim 0 : tensor<64x512xf32> -> tensor<256x128xf32>

// [S(0), S(1)] -> [S(1), S(0)] on 2x4, the cheapest plan: gather dim 0 over
// the 2-rank axis, all-to-all on the 4-rank axis, then take this rank's
// chunk of dim 1 on the 2-rank axis (PyTorch gathers over the 4-rank axis).
// CHECK-LABEL: func.func @two_d
// CHECK-SAME: tensor<128x128xf32>
// CHECK: %[[C:.*]] = dtensor.process_index on @grid axes [0] : index
// CHECK: %[[G:.*]] = dtensor.all_gather %{{.*}} on @grid axes [0] gather_dim 0 : tensor<128x128xf32> -> tensor<256x128xf32>
// CHECK: %[[A:.*]] = dtensor.all_to_all %[[G]] on @grid axes [1] split_dim 0 concat_dim 1 : tensor<256x128xf32> -> tensor<64x512xf32>
// CHECK: %[[O:.*]] = arith.muli %[[C]], %c256
// CHECK: tensor.extract_slice %[[A]][0, %[[O]]] [64, 256] [1, 1] : tensor<64x512xf32> to tensor<64x256xf32>

// [S(0), S(0)] -> [R, R] of 10 rows on 2x2 (3, 2, 3, 2): the inner axis is
// gathered first (blocks of 3, keep 5), then the outer one.
// CHECK-LABEL: func.func @nested_gather
// CHECK-SAME: tensor<?x3xf32>
// CHECK: } : tensor<?x3xf32> to tensor<3x3xf32>
// CHECK: %[[G1:.*]] = dtensor.all_gather %{{.*}} on @g22 axes [1] gather_dim 0 : tensor<3x3xf32> -> tensor<6x3xf32>
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[G1]][0, 0] [5, 3] [1, 1] : tensor<6x3xf32> to tensor<5x3xf32>
// CHECK: dtensor.all_gather %[[S1]] on @g22 axes [0] gather_dim 0 : tensor<5x3xf32> -> tensor<10x3xf32>

// A partial result reduce-scattered to uneven rows (10 over 4: 3, 3, 3, 1):
// padded to 12, scattered in blocks of 3, and each rank keeps its chunk.
// CHECK-LABEL: func.func @uneven_rs
// CHECK-SAME: -> (tensor<?x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<10x2xf32>, tensor<2x6xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[MM]]
// CHECK: } : tensor<10x6xf32> to tensor<12x6xf32>
// CHECK: %[[RS:.*]] = dtensor.reduce_scatter %[[P]] on @mesh axes [0] reduce sum scatter_dim 0 : tensor<12x6xf32> -> tensor<3x6xf32>
// CHECK: tensor.extract_slice %[[RS]][0, 0] [%{{.*}}, 6] [1, 1] : tensor<3x6xf32> to tensor<?x6xf32>

dtensor.mesh @mesh = <["x" = 4]>
dtensor.mesh @grid = <["a" = 2, "b" = 4]>
dtensor.mesh @g22 = <["a" = 2, "b" = 2]>

// 30 rows over 4: 8, 8, 8, 6.
func.func @uneven_gather(%x: tensor<30x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<30x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %y = math.exp %x : tensor<30x16xf32>
  return %y : tensor<30x16xf32>
}

func.func @s0_to_s1(%x: tensor<256x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<256x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) {
  return %x : tensor<256x512xf32>
}

func.func @two_d(%x: tensor<256x512xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(1)]>})
    -> (tensor<256x512xf32> {dtensor.spec = #dtensor.spec<@grid, [S(1), S(0)]>}) {
  return %x : tensor<256x512xf32>
}

func.func @nested_gather(%x: tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(0)]>})
    -> (tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@g22, [R, R]>}) {
  return %x : tensor<10x3xf32>
}

func.func @uneven_rs(%x: tensor<10x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}, %w: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x6xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<10x6xf32>) -> tensor<10x6xf32>
  %y = linalg.matmul ins(%x, %w : tensor<10x8xf32>, tensor<8x6xf32>) outs(%z : tensor<10x6xf32>) -> tensor<10x6xf32>
  return %y : tensor<10x6xf32>
}

// -----

// The examples: the Megatron MLP needs exactly one all-reduce of the local
// [32, 512] output; the local weights are [512, 512] shards.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: tensor<32x512xf32>, %{{.*}}: tensor<512x512xf32> {{.*}}, %{{.*}}: tensor<512x512xf32>
// CHECK-COUNT-1: dtensor.all_reduce
// CHECK-SAME: on @mesh axes [0] reduce sum : tensor<32x512xf32> -> tensor<32x512xf32>
// CHECK-NOT: dtensor.all_
// CHECK: return
dtensor.mesh @mesh = <["tp" = 4]>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%x: tensor<32x512xf32>,
               %w1: tensor<512x2048xf32> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
               %w2: tensor<2048x512xf32> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x2048xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x512xf32>, tensor<512x2048xf32>) outs(%z1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<32x2048xf32>) outs(%e1 : tensor<32x2048xf32>) {
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

// from_local wraps the rank's local tensor; gathering it is one all_gather.
dtensor.mesh @mesh = <["x" = 4]>
// CHECK-LABEL: func.func @from_local_gather
// CHECK-SAME: (%[[L:.*]]: tensor<4x8xf32>) -> (tensor<16x8xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[L]] : tensor<4x8xf32> to tensor<4x8xf32>
// CHECK: dtensor.all_gather %[[C]] on @mesh axes [0] gather_dim 0 : tensor<4x8xf32> -> tensor<16x8xf32>
func.func @from_local_gather(%l: tensor<4x8xf32>) -> (tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %g = dtensor.from_local %l to #dtensor.spec<@mesh, [S(0)]> : tensor<4x8xf32> -> tensor<16x8xf32>
  return %g : tensor<16x8xf32>
}
