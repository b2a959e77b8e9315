// RUN: dtensor-opt %s --convert-dtensor-to-runtime=backend=nccl -split-input-file | FileCheck %s

// A synchronous all-reduce is an in-place _start on one fresh buffer and an
// immediate dtrt_nccl_wait (the compute stream waits, the host does not);
// the request handle is a host stack slot. Both statuses are checked.
// CHECK-NOT: dtensor.mesh
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xbf16>)
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK: bufferization.materialize_in_destination %[[X]] in writable %[[BUF]]
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<1xi64>
// CHECK: %[[S:.*]] = call @dtrt_nccl_all_reduce_start(%[[P:.*]], %[[P]], %c128_i64, %c8_i32, %c0_i32, %c2_i64, %{{.*}}) : (i64, i64, i64, i32, i32, i64, i64) -> i32
// CHECK: arith.cmpi ne, %[[S]], %c0_i32
// CHECK: func.call @dtrt_abort
// CHECK: %[[REQ:.*]] = memref.load %[[SLOT]][%c0] : memref<1xi64>
// CHECK: %[[W:.*]] = call @dtrt_nccl_wait(%[[REQ]]) : (i64) -> i32
// CHECK: arith.cmpi ne, %[[W]], %c0_i32
// CHECK: bufferization.to_tensor %[[BUF]] restrict writable
// CHECK-NOT: call @dtrt_all_reduce
dtensor.mesh @mesh = <["a" = 2, "b" = 4]>
func.func @all_reduce(%x: tensor<8x16xbf16> {dtensor.spec = #dtensor.spec<@mesh, [R, P(sum)]>}) -> tensor<8x16xbf16> {
  %y = dtensor.all_reduce %x on @mesh axes [1] reduce sum : tensor<8x16xbf16> -> tensor<8x16xbf16>
  return %y : tensor<8x16xbf16>
}

// -----

// An async all-gather on dim 1: the dim moves to the front, the input is
// written into this rank's block of the output (rows [rank * 4, rank * 4 +
// 4)), which NCCL sends in place; the wait stands where dtensor.wait stood,
// after the unrelated op, and the dim moves back after it.
// CHECK-LABEL: func.func @all_gather
// CHECK: linalg.transpose
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<16x8xf32>
// CHECK: %[[R:.*]] = call @dtrt_group_rank(%c1_i64)
// CHECK: %[[BLOCK:.*]] = memref.subview %[[OUT]][%{{.*}}, 0] [4, 8] [1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %[[BLOCK]]
// CHECK: call @dtrt_nccl_all_gather_start(%{{.*}}, %{{.*}}, %c32_i64, %c0_i32, %c1_i64, %{{.*}})
// CHECK-NOT: dtrt_nccl_wait
// CHECK: math.exp
// CHECK: call @dtrt_nccl_wait
// CHECK: bufferization.to_tensor %[[OUT]]
// CHECK: linalg.transpose
dtensor.mesh @mesh = <["a" = 4, "b" = 2]>
func.func @all_gather(%x: tensor<8x4xf32>, %z: tensor<4xf32>) -> (tensor<8x16xf32>, tensor<4xf32>) {
  %r = dtensor.all_gather_start %x on @mesh axes [0] gather_dim 1 : tensor<8x4xf32> -> !dtensor.request<tensor<8x16xf32>>
  %e = math.exp %z : tensor<4xf32>
  %y = dtensor.wait %r : !dtensor.request<tensor<8x16xf32>>
  return %y, %e : tensor<8x16xf32>, tensor<4xf32>
}

// -----

// reduce_scatter receives in place into this rank's block of its input
// buffer; that block is the result. i32 is dtype 2, max is 2.
// CHECK-LABEL: func.func @reduce_scatter
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<32xi32>
// CHECK: %[[BLOCK:.*]] = memref.subview %[[BUF]]
// CHECK: call @dtrt_nccl_reduce_scatter_start(%{{.*}}, %{{.*}}, %c8_i64, %c2_i32, %c2_i32, %c1_i64, %{{.*}})
// CHECK: call @dtrt_nccl_wait
// CHECK: bufferization.to_tensor %[[BLOCK]]
dtensor.mesh @mesh = <["a" = 4]>
func.func @reduce_scatter(%x: tensor<32xi32>) -> tensor<8xi32> {
  %r = dtensor.reduce_scatter_start %x on @mesh axes [0] reduce max scatter_dim 0 : tensor<32xi32> -> !dtensor.request<tensor<8xi32>>
  %y = dtensor.wait %r : !dtensor.request<tensor<8xi32>>
  return %y : tensor<8xi32>
}

// -----

// all_to_all is one grouped send/receive (dtrt_nccl_all_to_all_start, 32
// elements per peer) from the input with the split dim at the front into a
// buffer of the same shape, unpacked after the wait along the concat dim as
// on the CPU; broadcast runs in place on a copy of its input from group
// rank 1 * 4 + 2 = 6, waited for like the others (the host never blocks).
// CHECK-LABEL: func.func @all_to_all
// CHECK: linalg.transpose ins(%{{.*}} : tensor<8x16xi64>) outs(%{{.*}} : tensor<16x8xi64>) permutation = [1, 0]
// CHECK: call @dtrt_nccl_all_to_all_start(%{{.*}}, %{{.*}}, %c32_i64, %c3_i32, %c2_i64, %{{.*}})
// CHECK-NOT: dtrt_nccl_all_gather
// CHECK: call @dtrt_nccl_wait
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [4, 4, 8] : tensor<16x8xi64> into tensor<4x4x8xi64>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x4x8xi64>) outs(%{{.*}} : tensor<4x8x4xi64>) permutation = [0, 2, 1]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<4x8x4xi64> into tensor<32x4xi64>
// CHECK-LABEL: func.func @broadcast
// CHECK: call @dtrt_nccl_broadcast_start(%{{.*}}, %c8_i64, %c1_i32, %c6_i32, %c3_i64, %{{.*}}) : (i64, i64, i32, i32, i64, i64) -> i32
// CHECK: call @dtrt_nccl_wait
// CHECK-NOT: dtrt_nccl_broadcast(
dtensor.mesh @mesh = <["a" = 2, "b" = 4]>
func.func @all_to_all(%x: tensor<8x16xi64>) -> tensor<32x4xi64> {
  %y = dtensor.all_to_all %x on @mesh axes [1] split_dim 1 concat_dim 0 : tensor<8x16xi64> -> tensor<32x4xi64>
  return %y : tensor<32x4xi64>
}
func.func @broadcast(%x: tensor<8xf64>) -> tensor<8xf64> {
  %y = dtensor.broadcast %x on @mesh axes [0, 1] root [1, 2] : tensor<8xf64> -> tensor<8xf64>
  return %y : tensor<8xf64>
}

// -----

// An asynchronous broadcast: the start where broadcast_start stood, the
// wait where dtensor.wait stood, the compute (the negate) in between.
// CHECK-LABEL: func.func @broadcast_async
// CHECK: call @dtrt_nccl_broadcast_start(%{{.*}}, %c16_i64, %c0_i32, %c1_i32, %c1_i64, %{{.*}})
// CHECK-NOT: dtrt_nccl_wait
// CHECK: arith.negf
// CHECK: call @dtrt_nccl_wait
dtensor.mesh @mesh = <["a" = 2]>
func.func @broadcast_async(%x: tensor<16xf32>, %z: tensor<4xf32>) -> (tensor<16xf32>, tensor<4xf32>) {
  %r = dtensor.broadcast_start %x on @mesh axes [0] root [1] : tensor<16xf32> -> !dtensor.request<tensor<16xf32>>
  %n = arith.negf %z : tensor<4xf32>
  %y = dtensor.wait %r : !dtensor.request<tensor<16xf32>>
  return %y, %n : tensor<16xf32>, tensor<4xf32>
}
