// RUN: dtensor-opt %s --dtensor-partition -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-partition="async-collectives=false" -split-input-file | FileCheck %s --check-prefix=SYNC

// A collective with compute before its first use becomes its `_start` form
// where it was and a wait right before that use: the linalg.add overlaps
// the all-reduce.
// CHECK-LABEL: func.func @overlap
// CHECK: %[[Q:.*]] = dtensor.all_reduce_start %{{.*}} on @mesh axes [0] reduce sum : tensor<8xf32> -> !dtensor.request<tensor<8xf32>>
// CHECK: %[[A:.*]] = linalg.add
// CHECK-NEXT: %[[W:.*]] = dtensor.wait %[[Q]] : !dtensor.request<tensor<8xf32>>
// CHECK-NEXT: %[[M:.*]] = linalg.mul ins(%[[W]], %[[A]]
// SYNC-LABEL: func.func @overlap
// SYNC-NOT: _start
// SYNC: dtensor.all_reduce %{{.*}} on @mesh axes [0] reduce sum
// SYNC-NOT: dtensor.wait
dtensor.mesh @mesh = <["x" = 2]>
func.func @overlap(%p: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>},
                   %a: tensor<8xf32>) -> tensor<8xf32> {
  %r = dtensor.redistribute %p to #dtensor.spec<@mesh, [R]> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.add ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.mul ins(%r, %s : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// no_room: the first use comes right after (only a tensor.empty between):
// nothing could overlap, the collective stays synchronous.
// CHECK-LABEL: func.func @no_room
// CHECK-NOT: _start
// CHECK: dtensor.all_gather %{{.*}} on @mesh axes [0] gather_dim 0
// CHECK-NOT: dtensor.wait
// CHECK: return
dtensor.mesh @mesh = <["x" = 2]>
func.func @no_room(%s: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<8xf32> {
  %r = dtensor.redistribute %s to #dtensor.spec<@mesh, [R]> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %m = linalg.mul ins(%r, %r : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Inside a loop body the wait goes before the first use in that body; the
// returned value's wait is right before the return, after the loop.
// CHECK-LABEL: func.func @loop_and_return
// CHECK: %[[Q:.*]] = dtensor.all_reduce_start
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: %[[W:.*]] = dtensor.wait %[[Q]]
// CHECK-NEXT: return %[[W]]
dtensor.mesh @mesh = <["x" = 2]>
func.func @loop_and_return(%p: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>},
                           %a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %r = dtensor.redistribute %p to #dtensor.spec<@mesh, [R]> : tensor<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %l = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<8xf32>) {
    %n = linalg.add ins(%acc, %a : tensor<8xf32>, tensor<8xf32>) outs(%acc : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  return %r, %l : tensor<8xf32>, tensor<8xf32>
}
