// RUN: dtensor-opt %s --dtensor-fake-propagate -split-input-file | FileCheck %s --check-prefix=PROP
// RUN: dtensor-opt %s --dtensor-fake-propagate=strategy=global -split-input-file | FileCheck %s --check-prefix=PROP
// RUN: dtensor-opt %s --dtensor-partition -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-partition=strategy=global -split-input-file | FileCheck %s

// tensor.expand_shape of sharded tensors (docs/semantics.md section 4): a
// split keeps a shard on its first new dim where that dim divides by the
// shards on it, and gathers the dim first otherwise; a dim that is not split
// keeps its shard, even or not. An uneven shard becomes a dynamic local dim
// whose size is read from the local source.

// 10 rows over 4 (3, 3, 3, 1) stay sharded; only dim 1 is split.
// PROP-LABEL: func.func @uneven_unsplit_dim
// PROP-NOT: dtensor.redistribute
// PROP: tensor.expand_shape %arg0 {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} : tensor<10x6xf32> into tensor<10x2x3xf32>
// CHECK-LABEL: func.func @uneven_unsplit_dim
// CHECK-SAME: (%[[X:.*]]: tensor<?x6xf32> {{.*}}) -> (tensor<?x2x3xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %c0 : tensor<?x6xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[D]], 2, 3] : tensor<?x6xf32> into tensor<?x2x3xf32>
// CHECK: return %[[E]]
dtensor.mesh @mesh = <["x" = 4]>
func.func @uneven_unsplit_dim(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x2x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [10, 2, 3] : tensor<10x6xf32> into tensor<10x2x3xf32>
  return %e : tensor<10x2x3xf32>
}

// -----

// 12 -> 4x3 over 4: 4 divides by 4, the shard moves to the outer factor
// with no communication (local 3 rows -> 1x3).
// PROP-LABEL: func.func @split_divides
// PROP-NOT: dtensor.redistribute
// PROP: tensor.expand_shape %arg0 {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK-LABEL: func.func @split_divides
// CHECK-SAME: (%[[X:.*]]: tensor<3x10xf32> {{.*}}) -> (tensor<1x3x10xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [1, 3, 10] : tensor<3x10xf32> into tensor<1x3x10xf32>
dtensor.mesh @mesh = <["x" = 4]>
func.func @split_divides(%x: tensor<12x10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<4x3x10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [4, 3, 10] : tensor<12x10xf32> into tensor<4x3x10xf32>
  return %e : tensor<4x3x10xf32>
}

// -----

// 6 -> 2x3 over 4: the shard (2, 2, 2, 0) is uneven and 2 does not divide
// by 4 (an uneven split never does), so the rows are gathered with padding
// and the expand is replicated.
// PROP-LABEL: func.func @split_uneven
// PROP: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]> : tensor<6x8xf32>
// PROP: tensor.expand_shape %[[R]] {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
// CHECK-LABEL: func.func @split_uneven
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32> {{.*}}) -> tensor<2x3x8xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[X]]
// CHECK: %[[G:.*]] = dtensor.all_gather %[[P]] on @mesh axes [0] gather_dim 0 : tensor<2x8xf32> -> tensor<8x8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[G]][0, 0] [6, 8] [1, 1] : tensor<8x8xf32> to tensor<6x8xf32>
// CHECK: tensor.expand_shape %[[S]] {{\[}}[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
dtensor.mesh @mesh = <["x" = 4]>
func.func @split_uneven(%x: tensor<6x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<2x3x8xf32> {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
  return %e : tensor<2x3x8xf32>
}

// -----

// 8 -> 2x4 over 4: even, but 2 does not divide by 4: gathered first.
// PROP-LABEL: func.func @split_not_divides
// PROP: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]> : tensor<8x4xf32>
// PROP: tensor.expand_shape %[[R]]
// CHECK-LABEL: func.func @split_not_divides
// CHECK: %[[G:.*]] = dtensor.all_gather %{{.*}} on @mesh axes [0] gather_dim 0 : tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK: tensor.expand_shape %[[G]] {{\[}}[0, 1], [2]] output_shape [2, 4, 4] : tensor<8x4xf32> into tensor<2x4x4xf32>
dtensor.mesh @mesh = <["x" = 4]>
func.func @split_not_divides(%x: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<2x4x4xf32> {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 4, 4] : tensor<8x4xf32> into tensor<2x4x4xf32>
  return %e : tensor<2x4x4xf32>
}

// -----

// 2x2, [S(0), S(1)]: dim 0 is uneven (9 over 2: 5, 4) and not split; the
// split 8 -> 2x4 of dim 1 divides (2 over 2): both shards stay, the local
// expand is ?x4 -> ?x1x4.
// PROP-LABEL: func.func @split_2d_divides
// PROP-NOT: dtensor.redistribute
// PROP: tensor.expand_shape %arg0 {{.*}} {dtensor.specs = [#dtensor.spec<@g22, [S(0), S(1)]>]}
// CHECK-LABEL: func.func @split_2d_divides
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32> {{.*}}) -> (tensor<?x1x4xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %c0 : tensor<?x4xf32>
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[D]], 1, 4] : tensor<?x4xf32> into tensor<?x1x4xf32>
dtensor.mesh @g22 = <["a" = 2, "b" = 2]>
func.func @split_2d_divides(%x: tensor<9x8xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(1)]>})
    -> (tensor<9x2x4xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(1)]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [9, 2, 4] : tensor<9x8xf32> into tensor<9x2x4xf32>
  return %e : tensor<9x2x4xf32>
}

// -----

// 2x2, [S(0), S(1)]: the split 6 -> 3x2 of dim 1 does not divide (3 over
// 2): dim 1 is gathered on axis 1 only; the uneven dim 0 stays sharded.
// PROP-LABEL: func.func @split_2d_not_divides
// PROP: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@g22, [S(0), R]> : tensor<9x6xf32>
// PROP: tensor.expand_shape %[[R]] {{.*}} {dtensor.specs = [#dtensor.spec<@g22, [S(0), R]>]}
// CHECK-LABEL: func.func @split_2d_not_divides
// CHECK: %[[G:.*]] = dtensor.all_gather %{{.*}} on @g22 axes [1] gather_dim 1 : tensor<?x3xf32> -> tensor<?x6xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[G]], %c0 : tensor<?x6xf32>
// CHECK: tensor.expand_shape %[[G]] {{\[}}[0], [1, 2]] output_shape [%[[D]], 3, 2] : tensor<?x6xf32> into tensor<?x3x2xf32>
dtensor.mesh @g22 = <["a" = 2, "b" = 2]>
func.func @split_2d_not_divides(%x: tensor<9x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(1)]>})
    -> (tensor<9x3x2xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), R]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [9, 3, 2] : tensor<9x6xf32> into tensor<9x3x2xf32>
  return %e : tensor<9x3x2xf32>
}

// -----

// Nested uneven rows on 2x2, [S(0), S(0)]: 10 rows are 3, 2, 3, 2.
// CHECK-LABEL: func.func @nested_uneven
// CHECK-SAME: (%[[X:.*]]: tensor<?x6xf32> {{.*}}) -> (tensor<?x2x3xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %c0
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [%[[D]], 2, 3]
dtensor.mesh @g22 = <["a" = 2, "b" = 2]>
func.func @nested_uneven(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(0)]>})
    -> (tensor<10x2x3xf32> {dtensor.spec = #dtensor.spec<@g22, [S(0), S(0)]>}) {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [10, 2, 3] : tensor<10x6xf32> into tensor<10x2x3xf32>
  return %e : tensor<10x2x3xf32>
}
