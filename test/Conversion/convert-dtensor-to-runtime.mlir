// RUN: dtensor-opt %s --convert-dtensor-to-runtime -split-input-file | FileCheck %s

// An all-reduce becomes a call on two fresh contiguous buffers; a failing
// status aborts the job with the runtime's message. The mesh and the specs
// are gone afterwards.
// CHECK-NOT: dtensor.mesh
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK: %[[IN:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: bufferization.materialize_in_destination %[[X]] in writable %[[IN]]
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: %[[S:.*]] = call @dtrt_all_reduce(%{{.*}}, %{{.*}}, %c128_i64, %c0_i32, %c0_i32, %c2_i64)
// CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[S]], %c0_i32
// CHECK: scf.if %[[BAD]] {
// CHECK:   %[[M:.*]] = func.call @dtrt_last_error()
// CHECK:   func.call @dtrt_abort(%[[M]])
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
dtensor.mesh @mesh = <["a" = 2, "b" = 4]>
func.func @all_reduce(%x: tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R, P(sum)]>}) -> tensor<8x16xf32> {
  %y = dtensor.all_reduce %x on @mesh axes [1] reduce sum : tensor<8x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// A gather along dim 1 moves the dim to the front, gathers equal blocks and
// moves it back.
// CHECK-LABEL: func.func @gather_dim1
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x4xf32>) {{.*}} permutation = [1, 0]
// CHECK: call @dtrt_all_gather(%{{.*}}, %{{.*}}, %c32_i64, %c0_i32, %c1_i64)
// CHECK: bufferization.to_tensor %{{.*}} : memref<16x8xf32> to tensor<16x8xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<16x8xf32>) {{.*}} permutation = [1, 0]
dtensor.mesh @mesh = <["x" = 4]>
func.func @gather_dim1(%x: tensor<8x4xf32>) -> tensor<8x16xf32> {
  %y = dtensor.all_gather %x on @mesh axes [0] gather_dim 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// The async form becomes the non-blocking call where the `_start` is, with
// the request stored in a one-element buffer; the wait becomes dtrt_wait
// where the wait is, and only then is the output buffer read, so the
// linalg.add in between overlaps the transfer. process_index asks the
// runtime for the group rank.
// CHECK-LABEL: func.func @async_and_index
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8xi32>
// CHECK: %[[SLOT:.*]] = memref.alloc() : memref<i64>
// CHECK: %[[SLOTP:.*]] = memref.extract_aligned_pointer_as_index %[[SLOT]]
// CHECK: %[[P:.*]] = arith.index_cast %[[SLOTP]] : index to i64
// CHECK: call @dtrt_reduce_scatter_start(%{{.*}}, %{{.*}}, %c8_i64, %c2_i32, %c2_i32, %c1_i64, %[[P]])
// CHECK: %[[REQ:.*]] = memref.load %[[SLOT]][] : memref<i64>
// CHECK: linalg.add
// CHECK: call @dtrt_wait(%[[REQ]]) : (i64) -> i32
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NOT: dtensor.wait
// CHECK-NOT: call @dtrt_reduce_scatter(
// CHECK: %[[R:.*]] = call @dtrt_group_rank(%c1_i64) : (i64) -> i32
// CHECK: arith.index_cast %[[R]] : i32 to index
dtensor.mesh @mesh = <["x" = 4]>
func.func @async_and_index(%x: tensor<32xi32>, %a: tensor<16xi32>) -> (tensor<8xi32>, index, tensor<16xi32>) {
  %r = dtensor.reduce_scatter_start %x on @mesh axes [0] reduce max scatter_dim 0 : tensor<32xi32> -> !dtensor.request<tensor<8xi32>>
  %s = linalg.add ins(%a, %a : tensor<16xi32>, tensor<16xi32>) outs(%a : tensor<16xi32>) -> tensor<16xi32>
  %y = dtensor.wait %r : !dtensor.request<tensor<8xi32>>
  %i = dtensor.process_index on @mesh axes [0] : index
  return %y, %i, %s : tensor<8xi32>, index, tensor<16xi32>
}

// -----

// The root coordinates [1, 2] on axes of sizes 2 and 4 are group rank 6; the
// broadcast runs in place on one buffer. f64 is dtype 1.
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<8xf64>
// CHECK: call @dtrt_broadcast(%{{.*}}, %c8_i64, %c1_i32, %c6_i32, %c3_i64) : (i64, i64, i32, i32, i64) -> i32
// CHECK: bufferization.to_tensor %[[BUF]] restrict writable
dtensor.mesh @mesh = <["a" = 2, "b" = 4]>
func.func @broadcast(%x: tensor<8xf64>) -> tensor<8xf64> {
  %y = dtensor.broadcast %x on @mesh axes [0, 1] root [1, 2] : tensor<8xf64> -> tensor<8xf64>
  return %y : tensor<8xf64>
}

// -----

// all_to_all is one dtrt_all_to_all: the split dim moved to the front (the
// chunk for group rank g is block g of the rows: 32 elements each), and at
// the wait each received block [4 rows of dim 1, 8 of dim 0] put back along
// the concat dim as the sender's rows: [4, 4, 8] -> [4, 8, 4] -> [32, 4].
// CHECK-LABEL: func.func @all_to_all
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x16xi64>) outs(%{{.*}} : tensor<16x8xi64>) permutation = [1, 0]
// CHECK: bufferization.materialize_in_destination %[[T]]
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<16x8xi64>
// CHECK: call @dtrt_all_to_all_start(%{{.*}}, %{{.*}}, %c32_i64, %c3_i32, %c2_i64, %{{.*}})
// CHECK-NOT: dtrt_all_gather
// CHECK: call @dtrt_wait
// CHECK: %[[G:.*]] = bufferization.to_tensor %[[OUT]] {{.*}} : memref<16x8xi64> to tensor<16x8xi64>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [4, 4, 8] : tensor<16x8xi64> into tensor<4x4x8xi64>
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<4x4x8xi64>) outs(%{{.*}} : tensor<4x8x4xi64>) permutation = [0, 2, 1]
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1], [2]] : tensor<4x8x4xi64> into tensor<32x4xi64>
// CHECK-NOT: dtensor.wait
// CHECK: return %[[C]]
dtensor.mesh @mesh = <["a" = 2, "b" = 4]>
func.func @all_to_all(%x: tensor<8x16xi64>) -> tensor<32x4xi64> {
  %r = dtensor.all_to_all_start %x on @mesh axes [1] split_dim 1 concat_dim 0 : tensor<8x16xi64> -> !dtensor.request<tensor<32x4xi64>>
  %y = dtensor.wait %r : !dtensor.request<tensor<32x4xi64>>
  return %y : tensor<32x4xi64>
}

// -----

// Segments (dtensor.segment, from dtensor-ddp-split) become compute spans:
// one begins before the first op of a segment, ends where the next segment
// begins (ops without the attribute stay in the open span) and before the
// return; the names are constant globals. A function that is one segment
// (a DDP submodule) is bracketed whole. The attribute is gone afterwards.
// CHECK-DAG: memref.global "private" constant @[[FWD:__dtrt_segment_[0-9]+]] : memref<6xi8> = dense<[102, 95, 102, 119, 100, 0]>
// CHECK-DAG: memref.global "private" constant @[[BWD:__dtrt_segment_[0-9]+]] : memref<6xi8> = dense<[102, 95, 98, 119, 100, 0]>
// CHECK-DAG: memref.global "private" constant @[[SUB:__dtrt_segment_[0-9]+]] : memref<9xi8>
// CHECK-LABEL: func.func private @sub
// CHECK-NEXT: %[[K0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[N0:.*]] = memref.get_global @[[SUB]]
// CHECK: call @dtrt_span_begin(%{{.*}}, %[[K0]])
// CHECK: linalg.add
// CHECK: call @dtrt_span_end()
// CHECK-NEXT: return
// CHECK-LABEL: func.func @segments
// CHECK: memref.get_global @[[FWD]]
// CHECK: call @dtrt_span_begin
// CHECK: linalg.add
// CHECK: linalg.mul
// CHECK: linalg.max
// CHECK: call @dtrt_span_end()
// CHECK: memref.get_global @[[BWD]]
// CHECK: call @dtrt_span_begin
// CHECK: linalg.sub
// CHECK: call @dtrt_span_end()
// CHECK-NEXT: return
// CHECK-NOT: dtensor.segment
func.func private @sub(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dtensor.segment = "f_submod"} {
  %s = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @segments(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = linalg.add {dtensor.segment = "f_fwd"} ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.mul ins(%s, %s : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  %x = linalg.max {dtensor.segment = "f_fwd"} ins(%m, %s : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  %d = linalg.sub {dtensor.segment = "f_bwd"} ins(%x, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// 16-bit floats pass their dtrt codes: bf16 is 8, f16 is 7 (avg included:
// the runtime averages every float type).
// CHECK-LABEL: func.func @half_floats
// CHECK: call @dtrt_all_reduce(%{{.*}}, %{{.*}}, %c8_i64, %c8_i32, %c1_i32, %c1_i64)
// CHECK: call @dtrt_all_gather(%{{.*}}, %{{.*}}, %c8_i64, %c7_i32, %c1_i64)
dtensor.mesh @mesh = <["x" = 4]>
func.func @half_floats(%x: tensor<8xbf16>, %h: tensor<8xf16>) -> (tensor<8xbf16>, tensor<32xf16>) {
  %y = dtensor.all_reduce %x on @mesh axes [0] reduce avg : tensor<8xbf16> -> tensor<8xbf16>
  %g = dtensor.all_gather %h on @mesh axes [0] gather_dim 0 : tensor<8xf16> -> tensor<32xf16>
  return %y, %g : tensor<8xbf16>, tensor<32xf16>
}
