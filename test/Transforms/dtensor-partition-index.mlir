// RUN: dtensor-opt %s --dtensor-fake-propagate -split-input-file | FileCheck %s --check-prefix=PROP
// RUN: dtensor-opt %s --dtensor-partition -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-partition=strategy=global -split-input-file | FileCheck %s

// linalg.index in a sharded op: the index of a loop that no operand shards
// is already global and stays; the index of a sharded loop becomes index +
// this rank's offset of that loop.

// Argmax over the unsharded dim 1 (the softmax body torch-mlir emits for
// scaled_dot_product_attention); the rows are sharded.
// PROP-LABEL: func.func @argmax_unsharded_dim
// PROP-NOT: dtensor.redistribute
// PROP: linalg.generic {{.*}} attrs = {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>, #dtensor.spec<@mesh, [S(0)]>]}
// CHECK-LABEL: func.func @argmax_unsharded_dim
// CHECK-SAME: tensor<?x6xf32>
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT: arith.index_cast %[[J]] : index to i64
// CHECK-NOT: arith.addi
// CHECK: linalg.yield
dtensor.mesh @mesh = <["x" = 4]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @argmax_unsharded_dim(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
        tensor<10xi64> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<10xf32>
  %e1 = tensor.empty() : tensor<10xi64>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<10xf32>) -> tensor<10xf32>
  %i0 = linalg.fill ins(%z : i64) outs(%e1 : tensor<10xi64>) -> tensor<10xi64>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<10x6xf32>) outs(%m0, %i0 : tensor<10xf32>, tensor<10xi64>) {
  ^bb0(%a: f32, %m: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %m : f32
    %nm = arith.select %gt, %a, %m : f32
    %nk = arith.select %gt, %jj, %k : i64
    linalg.yield %nm, %nk : f32, i64
  } -> (tensor<10xf32>, tensor<10xi64>)
  return %r#0, %r#1 : tensor<10xf32>, tensor<10xi64>
}

// -----

// index(0) * 1.0 + x on 16 rows over 4 (even): the offset is c * 4.
// CHECK-LABEL: func.func @index_sharded_even
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>
// CHECK: %[[C:.*]] = dtensor.process_index on @mesh axes [0] : index
// CHECK: %[[O:.*]] = arith.muli %[[C]], %c4 : index
// CHECK: %[[OFF:.*]] = arith.addi %c0{{.*}}, %[[O]] : index
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<4x6xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: arith.index_cast %[[G]] : index to i64
dtensor.mesh @mesh = <["x" = 4]>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @index_sharded_even(%x: tensor<16x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %one = arith.constant 1.0 : f32
  %o = tensor.empty() : tensor<16x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x6xf32>) outs(%o : tensor<16x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %m = arith.mulf %fi, %one : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<16x6xf32>
  return %r : tensor<16x6xf32>
}

// -----

// The same on 10 rows over 4 (3, 3, 3, 1): the offset is torch.chunk's
// min(ceil(10/4) * c, 10).
// CHECK-LABEL: func.func @index_sharded_uneven
// CHECK-SAME: (%[[X:.*]]: tensor<?x6xf32>
// CHECK: %[[C:.*]] = dtensor.process_index on @mesh axes [0] : index
// CHECK: tensor.empty
// CHECK: %[[FULL:.*]] = arith.ceildivui %c10{{.*}}, %c4{{.*}} : index
// CHECK: %[[START:.*]] = arith.muli %[[FULL]], %[[C]] : index
// CHECK: %[[O:.*]] = arith.minui %[[START]], %c10{{.*}} : index
// CHECK: %[[OFF:.*]] = arith.addi %c0{{.*}}, %[[O]] : index
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<?x6xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: arith.index_cast %[[G]] : index to i64
dtensor.mesh @mesh = <["x" = 4]>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @index_sharded_uneven(%x: tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %one = arith.constant 1.0 : f32
  %o = tensor.empty() : tensor<10x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<10x6xf32>) outs(%o : tensor<10x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %m = arith.mulf %fi, %one : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<10x6xf32>
  return %r : tensor<10x6xf32>
}

// -----

// A sharded reduction loop: sum_k k * x[k] is a P(sum) of the ranks' rows
// at their global indices. Pinned: on 16 elements the global planner would
// rather gather x (an all_gather of 64 bytes costs less than an all_reduce).
// PROP-LABEL: func.func @index_sharded_reduction
// PROP: linalg.generic {{.*}} attrs = {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK-LABEL: func.func @index_sharded_reduction
// CHECK: %[[C:.*]] = dtensor.process_index on @mesh axes [0] : index
// CHECK: %[[O:.*]] = arith.muli %[[C]], %c4 : index
// CHECK: %[[OFF:.*]] = arith.addi %c0{{.*}}, %[[O]] : index
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: %[[K:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[K]], %[[OFF]] : index
// CHECK-NEXT: arith.index_cast %[[G]] : index to i64
// CHECK: dtensor.all_reduce %[[R]] on @mesh axes [0] reduce sum
dtensor.mesh @mesh = <["x" = 4]>
#col = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @index_sharded_reduction(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<f32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#col, #scalar], iterator_types = ["reduction"]} ins(%x : tensor<16xf32>) outs(%z : tensor<f32>) attrs = {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]} {
  ^bb0(%a: f32, %acc: f32):
    %k = linalg.index 0 : index
    %kk = arith.index_cast %k : index to i64
    %fk = arith.sitofp %kk : i64 to f32
    %p = arith.mulf %fk, %a : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Both loops sharded on 2x2, [S(1), S(0)]: each index gets its own offset,
// dim 1 from axis 0 and dim 0 from axis 1.
// CHECK-LABEL: func.func @index_sharded_2d
// CHECK-DAG: %[[C0:.*]] = dtensor.process_index on @g22 axes [0] : index
// CHECK-DAG: %[[C1:.*]] = dtensor.process_index on @g22 axes [1] : index
// CHECK-DAG: %[[OI:.*]] = arith.muli %[[C1]], %c4 : index
// CHECK-DAG: %[[OJ:.*]] = arith.muli %[[C0]], %c3 : index
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: arith.addi %[[I]], %{{.*}} : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT: arith.addi %[[J]], %{{.*}} : index
dtensor.mesh @g22 = <["a" = 2, "b" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @index_sharded_2d(%x: tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(1), S(0)]>})
    -> (tensor<8x6xf32> {dtensor.spec = #dtensor.spec<@g22, [S(1), S(0)]>}) {
  %o = tensor.empty() : tensor<8x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x6xf32>) outs(%o : tensor<8x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ij = arith.muli %i, %j : index
    %ii = arith.index_cast %ij : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %s = arith.addf %f, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// no_offset: a replicated op keeps its indices as they are.
// CHECK-LABEL: func.func @no_offset_replicated
// CHECK-NOT: dtensor.process_index
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: arith.index_cast %[[I]] : index to i64
dtensor.mesh @mesh = <["x" = 4]>
#col = affine_map<(d0) -> (d0)>
func.func @no_offset_replicated(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %o = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#col, #col], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%o : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %s = arith.addf %f, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
