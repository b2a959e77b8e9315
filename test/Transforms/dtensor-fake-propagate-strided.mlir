// Strided shards (`_S(d, sf)`, PyTorch 2.15's _StridedShard) in propagation:
// reshapes that merge dims with a later merged dim sharded make them without
// communication, ops carry them as PyTorch does, splitting them back gives
// the plain shard. Checked against PyTorch by test/Parity (strided_* cases).
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch -split-input-file | FileCheck %s

dtensor.mesh @mesh = <["x" = 4]>

// [4,8] S(1) -> [32]: _S(0, 4), local [8]; relu keeps it; splitting back
// gives S(1).
// CHECK-LABEL: func.func @merge_and_split
// CHECK-NOT: dtensor.redistribute
// CHECK: tensor.collapse_shape {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [_S(0, 4)]>]}
// CHECK: linalg.generic {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [_S(0, 4)]>]}
// CHECK: tensor.expand_shape {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK-NOT: dtensor.redistribute
// CHECK: return
func.func @merge_and_split(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<4x8xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%c : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %b = tensor.expand_shape %r [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>

// The split factor is the local size of the merged dims before the sharded
// one: [2,3,8] S(2) -> [2,24] is _S(1, 3). A sum over the strided dim is
// P(sum); the requested R result all-reduces it. A softmax over dim 0
// keeps the strided shard.
// CHECK-LABEL: func.func @split_factor
// CHECK: %[[M:.*]] = tensor.collapse_shape {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [_S(1, 3)]>]}
// CHECK: linalg.softmax {dtensor.specs = [#dtensor.spec<@mesh, [_S(1, 3)]>]} dimension(0)
// CHECK: linalg.reduce {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: dtensor.redistribute %{{.*}} to #dtensor.spec<@mesh, [R]> : tensor<2xf32>
func.func @split_factor(%x: tensor<2x3x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(2)]>})
    -> (tensor<2x24xf32>, tensor<2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %m = tensor.collapse_shape %x [[0], [1, 2]] : tensor<2x3x8xf32> into tensor<2x24xf32>
  %e = tensor.empty() : tensor<2x24xf32>
  %s = linalg.softmax dimension(0) ins(%m : tensor<2x24xf32>) outs(%e : tensor<2x24xf32>) -> tensor<2x24xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%m : tensor<2x24xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %a = arith.addf %in, %init : f32
      linalg.yield %a : f32
    }
  return %s, %r : tensor<2x24xf32>, tensor<2xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>

// A strided value added to a replicated one: both candidates cost 0 by
// PyTorch's formula (it has no case for _StridedShard), R comes first, so
// the strided operand is gathered (PyTorch 2.15 does the same).
// CHECK-LABEL: func.func @add_replicated
// CHECK: %[[C:.*]] = tensor.collapse_shape {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [_S(0, 4)]>]}
// CHECK: dtensor.redistribute %[[C]] to #dtensor.spec<@mesh, [R]> : tensor<32xf32>
// CHECK: arith.addf {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
func.func @add_replicated(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                          %y: tensor<32xf32>) -> tensor<32xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %s = arith.addf %c, %y : tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

dtensor.mesh @grid = <["a" = 2, "b" = 2]>

// 2x2: [4,8] [S(0), S(1)] -> [32] is [S(0), _S(0, 2)]; [S(1), S(0)] is
// [_S(0, 4), S(0)] (axes apply left to right on the local tensor).
// CHECK-LABEL: func.func @two_d
// CHECK: tensor.collapse_shape {{.*}} {dtensor.specs = [#dtensor.spec<@grid, [S(0), _S(0, 2)]>]}
// CHECK: tensor.collapse_shape {{.*}} {dtensor.specs = [#dtensor.spec<@grid, [_S(0, 4), S(0)]>]}
func.func @two_d(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(1)]>},
                %y: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@grid, [S(1), S(0)]>}) -> (tensor<32xf32>, tensor<32xf32>) {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %d = tensor.collapse_shape %y [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %c, %d : tensor<32xf32>, tensor<32xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>

// negative_: a shard of a non-last merged dim that is uneven (3 over 4)
// cannot become strided; it is gathered, and PyTorch would refuse.
// CHECK-LABEL: func.func @negative_uneven_inner
// CHECK: dtensor.redistribute %{{.*}} to #dtensor.spec<@mesh, [R]> : tensor<2x3x8xf32>
// CHECK: tensor.collapse_shape {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
func.func @negative_uneven_inner(%x: tensor<2x3x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<48xf32> {
  %c = tensor.collapse_shape %x [[0, 1, 2]] : tensor<2x3x8xf32> into tensor<48xf32>
  return %c : tensor<48xf32>
}
