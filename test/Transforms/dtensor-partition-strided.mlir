// Partitioning of strided shards (`_S(d, sf)`): the local view of dim d is
// [sf, n/sf] (tensor.expand_shape); R -> _S keeps this rank's chunk of every
// group, _S -> R all-gathers the groups' dim (padded to equal blocks when
// uneven) and collapses back; other moves pass through R.
// RUN: dtensor-opt %s --dtensor-partition -split-input-file | FileCheck %s

dtensor.mesh @mesh = <["x" = 4]>

// 32 elements as _S(0, 4) over 4: local [8] = [4 groups, 2]; gathering dim
// 1 gives [4, 8], the whole tensor.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [_S(0, 4)]>})
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [4, 2] : tensor<8xf32> into tensor<4x2xf32>
// CHECK: %[[G:.*]] = dtensor.all_gather %[[E]] on @mesh axes [0] gather_dim 1 : tensor<4x2xf32> -> tensor<4x8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[G]][0, 0] [4, 8] [1, 1]
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: return %[[R]] : tensor<32xf32>
func.func @gather(%x: tensor<32xf32> {dtensor.spec = #dtensor.spec<@mesh, [_S(0, 4)]>})
    -> (tensor<32xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  return %x : tensor<32xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>

// R -> _S(0, 4): a slice of [4, 8] at this rank's 2 columns.
// CHECK-LABEL: func.func @chunk
// CHECK: %[[C:.*]] = dtensor.process_index on @mesh axes [0] : index
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// CHECK: %[[O:.*]] = arith.muli %[[C]], %{{.*}} : index
// CHECK: %[[S:.*]] = tensor.extract_slice %[[E]][0, %[[O]]] [4, 2] [1, 1] : tensor<4x8xf32> to tensor<4x2xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
// CHECK: return %[[R]] : tensor<8xf32>
func.func @chunk(%x: tensor<32xf32>) -> (tensor<32xf32> {dtensor.spec = #dtensor.spec<@mesh, [_S(0, 4)]>}) {
  return %x : tensor<32xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>

// Uneven: 18 as _S(0, 3) over 4 holds 6, 6, 6, 0 elements (groups of 6,
// chunks 2, 2, 2, 0): each group's chunk is padded to 2 before the gather
// and the 6 elements of each group kept.
// CHECK-LABEL: func.func @gather_uneven
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32> {dtensor.spec = #dtensor.spec<@mesh, [_S(0, 3)]>})
// CHECK: %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1]] output_shape [3, %{{.*}}] : tensor<?xf32> into tensor<3x?xf32>
// CHECK: tensor.pad %[[E]]
// CHECK: } : tensor<3x?xf32> to tensor<3x2xf32>
// CHECK: %[[G:.*]] = dtensor.all_gather %{{.*}} on @mesh axes [0] gather_dim 1 : tensor<3x2xf32> -> tensor<3x8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[G]][0, 0] [3, 6] [1, 1]
// CHECK: tensor.collapse_shape %[[S]] {{\[}}[0, 1]] : tensor<3x6xf32> into tensor<18xf32>
func.func @gather_uneven(%x: tensor<18xf32> {dtensor.spec = #dtensor.spec<@mesh, [_S(0, 3)]>})
    -> (tensor<18xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  return %x : tensor<18xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>

// A merge of a sharded second dim is a local collapse: no collective.
// CHECK-LABEL: func.func @merge
// CHECK-SAME: (%[[X:.*]]: tensor<4x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>})
// CHECK-NOT: dtensor.all_gather
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<4x2xf32> into tensor<8xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: return %[[C]] : tensor<8xf32>
func.func @merge(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<32xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %c : tensor<32xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>

// _S(0, 4) -> S(0): gathered to R, then a plain chunk.
// CHECK-LABEL: func.func @to_shard
// CHECK: dtensor.all_gather %{{.*}} on @mesh axes [0] gather_dim 1 : tensor<4x2xf32> -> tensor<4x8xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape
// CHECK: tensor.extract_slice %[[W]][%{{.*}}] [8] [1] : tensor<32xf32> to tensor<8xf32>
func.func @to_shard(%x: tensor<32xf32> {dtensor.spec = #dtensor.spec<@mesh, [_S(0, 4)]>})
    -> (tensor<32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  return %x : tensor<32xf32>
}
