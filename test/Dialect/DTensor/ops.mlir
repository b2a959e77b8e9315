// RUN: dtensor-opt %s | dtensor-opt | FileCheck %s
// RUN: dtensor-opt %s --mlir-print-op-generic | dtensor-opt | FileCheck %s

// Round trip of every dtensor op, type and attribute, in custom and generic
// form. The short spec form `<@m, [...]>` is printed back in its full form.

// An alias of a spec is used like the full form; it is printed inline.
#rr = #dtensor.spec<@world, [R, R]>

// CHECK: dtensor.mesh @line = <["x" = 4]>
dtensor.mesh @line = <["x" = 4]>
// CHECK: dtensor.mesh @world = <["dp" = 2, "tp" = 4]>
dtensor.mesh @world = <["dp" = 2, "tp" = 4]>
// CHECK: dtensor.mesh @cube = <["a" = 2, "b" = 3, "c" = 2]>
dtensor.mesh @cube = <["a" = 2, "b" = 3, "c" = 2]>
// Extra attributes on a mesh survive after the axis list.
// CHECK: dtensor.mesh @tagged = <["pp" = 1]> {note = "single stage"}
dtensor.mesh @tagged = <["pp" = 1]> {note = "single stage"}

//===----------------------------------------------------------------------===//
// Function argument and result attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @arg_attrs(
// CHECK-SAME: %{{.*}}: tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@world, [S(0), R]>},
// CHECK-SAME: %{{.*}}: tensor<512x2048xf32> {dtensor.param = "fc.weight", dtensor.spec = #dtensor.spec<@world, [R, S(1)]>},
// CHECK-SAME: %{{.*}}: tensor<2048xf32> {dtensor.ddp_ignored, dtensor.param = "fc.bias"},
// CHECK-SAME: %{{.*}}: i32)
// CHECK-SAME: -> (tensor<32x2048xf32> {dtensor.spec = #dtensor.spec<@world, [S(0), R]>}, tensor<4xf32>)
func.func @arg_attrs(
    %x: tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@world, [S(0), R]>},
    %w: tensor<512x2048xf32> {dtensor.spec = #dtensor.spec<@world, [R, S(1)]>,
                              dtensor.param = "fc.weight"},
    %b: tensor<2048xf32> {dtensor.param = "fc.bias", dtensor.ddp_ignored},
    %n: i32)
    -> (tensor<32x2048xf32> {dtensor.spec = #dtensor.spec<@world, [S(0), R]>},
        tensor<4xf32>) {
  %y = tensor.empty() : tensor<32x2048xf32>
  %z = tensor.empty() : tensor<4xf32>
  return %y, %z : tensor<32x2048xf32>, tensor<4xf32>
}

// Every placement kind, every reduction, on 1-D, 2-D and 3-D meshes.
// CHECK-LABEL: func.func @placements(
// CHECK-SAME: {dtensor.spec = #dtensor.spec<@line, [P(sum)]>}
// CHECK-SAME: {dtensor.spec = #dtensor.spec<@world, [P(avg), P(max)]>}
// CHECK-SAME: {dtensor.spec = #dtensor.spec<@cube, [P(min), S(2), S(2)]>}
// CHECK-SAME: {dtensor.spec = #dtensor.spec<@cube, [R, R, R]>}
// CHECK-SAME: -> (tensor<2xf32> {dtensor.spec = #dtensor.spec<@line, [S(0)]>})
func.func @placements(
    %a: tensor<8xf32> {dtensor.spec = #dtensor.spec<@line, [P(sum)]>},
    %b: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@world, [P(avg), P(max)]>},
    %c: tensor<4x6x12xf32> {dtensor.spec = #dtensor.spec<@cube, [P(min), S(2), S(2)]>},
    %d: tensor<f32> {dtensor.spec = #dtensor.spec<@cube, [R, R, R]>})
    -> (tensor<2xf32> {dtensor.spec = #dtensor.spec<@line, [S(0)]>}) {
  %r = tensor.empty() : tensor<2xf32>
  return %r : tensor<2xf32>
}

// Strided shards print as PyTorch's str() of _StridedShard.
// CHECK-LABEL: func.func @strided_placements(
// CHECK-SAME: {dtensor.spec = #dtensor.spec<@line, [_S(0, 4)]>}
// CHECK-SAME: {dtensor.spec = #dtensor.spec<@world, [S(0), _S(0, 2)]>}
// CHECK: dtensor.redistribute %{{.*}} to #dtensor.spec<@line, [_S(1, 2)]> : tensor<4x8xf32>
func.func @strided_placements(
    %a: tensor<32xf32> {dtensor.spec = #dtensor.spec<@line, [_S(0, 4)]>},
    %b: tensor<32xf32> {dtensor.spec = #dtensor.spec<@world, [S(0), _S(0, 2)]>},
    %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = dtensor.redistribute %c to <@line, [_S(1, 2)]> : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// dtensor.redistribute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @redistribute(
// CHECK-SAME: %[[X:.*]]: tensor<32x2048xf32>
// CHECK: %[[A:.*]] = dtensor.redistribute %[[X]] to #dtensor.spec<@world, [R, R]> : tensor<32x2048xf32>
// CHECK: %[[B:.*]] = dtensor.redistribute %[[A]] to #dtensor.spec<@world, [S(0), S(1)]> : tensor<32x2048xf32>
// CHECK: %[[C:.*]] = dtensor.redistribute %[[B]] to #dtensor.spec<@world, [P(sum), S(0)]> : tensor<32x2048xf32>
// CHECK: %[[D:.*]] = dtensor.redistribute %[[C]] to #dtensor.spec<@world, [P(avg), P(min)]> : tensor<32x2048xf32> {tag = 7 : i64}
// CHECK: %[[E:.*]] = dtensor.redistribute %[[D]] to #dtensor.spec<@cube, [S(1), S(0), P(max)]> : tensor<32x2048xf32>
// CHECK: %[[F:.*]] = dtensor.redistribute %[[E]] to #dtensor.spec<@world, [R, R]> : tensor<32x2048xf32>
// CHECK: %[[G:.*]] = dtensor.redistribute %[[F]] to #dtensor.spec<@world, [S(1), R]> : tensor<32x2048xf32> {tag}
// CHECK: return %[[G]] : tensor<32x2048xf32>
func.func @redistribute(%x: tensor<32x2048xf32>) -> tensor<32x2048xf32> {
  // Full form.
  %a = dtensor.redistribute %x to #dtensor.spec<@world, [R, R]> : tensor<32x2048xf32>
  // Short form.
  %b = dtensor.redistribute %a to <@world, [S(0), S(1)]> : tensor<32x2048xf32>
  %c = dtensor.redistribute %b to #dtensor.spec<@world, [P(sum), S(0)]> : tensor<32x2048xf32>
  %d = dtensor.redistribute %c to <@world, [P(avg), P(min)]> : tensor<32x2048xf32> {tag = 7}
  %e = dtensor.redistribute %d to <@cube, [S(1), S(0), P(max)]> : tensor<32x2048xf32>
  // Through an alias.
  %f = dtensor.redistribute %e to #rr : tensor<32x2048xf32>
  // Full form followed by an attribute dictionary.
  %g = dtensor.redistribute %f to #dtensor.spec<@world, [S(1), R]> : tensor<32x2048xf32> {tag}
  return %g : tensor<32x2048xf32>
}

//===----------------------------------------------------------------------===//
// dtensor.from_local / dtensor.to_local
//===----------------------------------------------------------------------===//

// Even shards: every local dim is static.
// CHECK-LABEL: func.func @local_even(
// CHECK-SAME: %[[L:.*]]: tensor<16x128xf32>
// CHECK: %[[G:.*]] = dtensor.from_local %[[L]] to #dtensor.spec<@world, [S(0), S(1)]> : tensor<16x128xf32> -> tensor<32x512xf32>
// CHECK: %[[L2:.*]] = dtensor.to_local %[[G]] from #dtensor.spec<@world, [S(0), S(1)]> : tensor<32x512xf32> -> tensor<16x128xf32>
// CHECK: %[[G2:.*]] = dtensor.from_local %[[L2]] to #dtensor.spec<@world, [S(0), S(0)]> : tensor<16x128xf32> -> tensor<128x128xf32>
// CHECK: %[[R:.*]] = dtensor.from_local %[[L2]] to #dtensor.spec<@world, [R, R]> : tensor<16x128xf32> -> tensor<16x128xf32>
// CHECK: %[[L3:.*]] = dtensor.to_local %[[G2]] from #dtensor.spec<@line, [R]> : tensor<128x128xf32> -> tensor<128x128xf32>
// CHECK: %[[L4:.*]] = dtensor.to_local %[[G2]] from #dtensor.spec<@world, [P(sum), S(1)]> : tensor<128x128xf32> -> tensor<128x32xf32>
// CHECK: %[[L5:.*]] = dtensor.to_local %[[G2]] from #dtensor.spec<@cube, [S(0), S(1), S(0)]> : tensor<128x128xf32> -> tensor<32x?xf32> {tag}
// CHECK: %{{.*}} = dtensor.from_local %[[L5]] to #dtensor.spec<@cube, [S(0), S(1), S(0)]> : tensor<32x?xf32> -> tensor<128x128xf32> {tag = "full"}
// CHECK: %{{.*}} = dtensor.to_local %[[G2]] from #dtensor.spec<@world, [R, R]> : tensor<128x128xf32> -> tensor<128x128xf32>
func.func @local_even(%l: tensor<16x128xf32>) {
  %g = dtensor.from_local %l to #dtensor.spec<@world, [S(0), S(1)]> : tensor<16x128xf32> -> tensor<32x512xf32>
  %l2 = dtensor.to_local %g from <@world, [S(0), S(1)]> : tensor<32x512xf32> -> tensor<16x128xf32>
  // Two mesh axes sharding the same dim: 128 = 16 * 2 * 4.
  %g2 = dtensor.from_local %l2 to <@world, [S(0), S(0)]> : tensor<16x128xf32> -> tensor<128x128xf32>
  %r = dtensor.from_local %l2 to <@world, [R, R]> : tensor<16x128xf32> -> tensor<16x128xf32>
  %l3 = dtensor.to_local %g2 from #dtensor.spec<@line, [R]> : tensor<128x128xf32> -> tensor<128x128xf32>
  // A partial global keeps its full shape on every rank.
  %l4 = dtensor.to_local %g2 from #dtensor.spec<@world, [P(sum), S(1)]> : tensor<128x128xf32> -> tensor<128x32xf32>
  // 128 over 3 ranks of axis "b" is uneven (43, 43, 42): dim 1 is dynamic.
  %l5 = dtensor.to_local %g2 from <@cube, [S(0), S(1), S(0)]> : tensor<128x128xf32> -> tensor<32x?xf32> {tag}
  %g5 = dtensor.from_local %l5 to #dtensor.spec<@cube, [S(0), S(1), S(0)]> : tensor<32x?xf32> -> tensor<128x128xf32> {tag = "full"}
  %l6 = dtensor.to_local %g2 from #rr : tensor<128x128xf32> -> tensor<128x128xf32>
  return
}

// Uneven shards (torch.chunk sizes): the uneven local dims are dynamic.
// CHECK-LABEL: func.func @local_uneven(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xbf16>, %[[C:.*]]: tensor<?x512xi32>
// CHECK: %[[G:.*]] = dtensor.from_local %[[A]] to #dtensor.spec<@world, [S(0), S(1)]> : tensor<?x?xf32> -> tensor<7x10xf32>
// CHECK: %{{.*}} = dtensor.to_local %[[G]] from #dtensor.spec<@world, [S(0), S(1)]> : tensor<7x10xf32> -> tensor<?x?xf32>
// CHECK: %[[H:.*]] = dtensor.from_local %[[B]] to #dtensor.spec<@line, [S(0)]> : tensor<?xbf16> -> tensor<10xbf16>
// CHECK: %{{.*}} = dtensor.to_local %[[H]] from #dtensor.spec<@line, [S(0)]> : tensor<10xbf16> -> tensor<?xbf16>
// CHECK: %[[I:.*]] = dtensor.from_local %[[C]] to #dtensor.spec<@world, [S(0), S(0)]> : tensor<?x512xi32> -> tensor<6x512xi32>
// CHECK: %{{.*}} = dtensor.to_local %[[I]] from #dtensor.spec<@world, [S(0), S(0)]> : tensor<6x512xi32> -> tensor<?x512xi32>
func.func @local_uneven(%a: tensor<?x?xf32>, %b: tensor<?xbf16>, %c: tensor<?x512xi32>) {
  // 7 over 2 ranks: 4, 3; 10 over 4 ranks: 3, 3, 3, 1.
  %g = dtensor.from_local %a to <@world, [S(0), S(1)]> : tensor<?x?xf32> -> tensor<7x10xf32>
  %ga = dtensor.to_local %g from <@world, [S(0), S(1)]> : tensor<7x10xf32> -> tensor<?x?xf32>
  %h = dtensor.from_local %b to #dtensor.spec<@line, [S(0)]> : tensor<?xbf16> -> tensor<10xbf16>
  %hb = dtensor.to_local %h from #dtensor.spec<@line, [S(0)]> : tensor<10xbf16> -> tensor<?xbf16>
  // 6 over 2 is even (3) but 3 over 4 is not (1, 1, 1, 0).
  %i = dtensor.from_local %c to <@world, [S(0), S(0)]> : tensor<?x512xi32> -> tensor<6x512xi32>
  %ic = dtensor.to_local %i from <@world, [S(0), S(0)]> : tensor<6x512xi32> -> tensor<?x512xi32>
  return
}

//===----------------------------------------------------------------------===//
// Collectives, synchronous
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @collectives(
// CHECK-SAME: %[[X:.*]]: tensor<8x512xf32>, %[[D:.*]]: tensor<?x512xf16>
// CHECK: dtensor.all_reduce %[[X]] on @world axes [1] reduce sum : tensor<8x512xf32> -> tensor<8x512xf32>
// CHECK: dtensor.all_reduce %[[X]] on @world axes [0, 1] reduce avg : tensor<8x512xf32> -> tensor<8x512xf32>
// CHECK: dtensor.all_reduce %[[X]] on @cube axes [2, 0] reduce max : tensor<8x512xf32> -> tensor<8x512xf32>
// CHECK: dtensor.all_reduce %[[D]] on @line axes [0] reduce min : tensor<?x512xf16> -> tensor<?x512xf16>
// CHECK: dtensor.all_gather %[[X]] on @world axes [0] gather_dim 0 : tensor<8x512xf32> -> tensor<16x512xf32>
// CHECK: dtensor.all_gather %[[X]] on @world axes [0, 1] gather_dim 1 : tensor<8x512xf32> -> tensor<8x4096xf32>
// CHECK: dtensor.all_gather %[[D]] on @cube axes [1] gather_dim 0 : tensor<?x512xf16> -> tensor<?x512xf16>
// CHECK: dtensor.reduce_scatter %[[X]] on @world axes [1] reduce sum scatter_dim 1 : tensor<8x512xf32> -> tensor<8x128xf32>
// CHECK: dtensor.reduce_scatter %[[X]] on @world axes [1, 0] reduce avg scatter_dim 0 : tensor<8x512xf32> -> tensor<1x512xf32>
// CHECK: dtensor.reduce_scatter %[[X]] on @line axes [0] reduce max scatter_dim 0 : tensor<8x512xf32> -> tensor<2x512xf32>
// CHECK: dtensor.reduce_scatter %[[D]] on @line axes [0] reduce min scatter_dim 0 : tensor<?x512xf16> -> tensor<?x512xf16>
// CHECK: dtensor.all_to_all %[[X]] on @world axes [1] split_dim 1 concat_dim 0 : tensor<8x512xf32> -> tensor<32x128xf32>
// CHECK: dtensor.all_to_all %[[X]] on @world axes [0] split_dim 0 concat_dim 1 : tensor<8x512xf32> -> tensor<4x1024xf32>
// CHECK: dtensor.all_to_all %[[X]] on @line axes [0] split_dim 1 concat_dim 1 : tensor<8x512xf32> -> tensor<8x512xf32>
// CHECK: dtensor.broadcast %[[X]] on @world axes [0] root [1] : tensor<8x512xf32> -> tensor<8x512xf32>
// CHECK: dtensor.broadcast %[[X]] on @cube axes [0, 1, 2] root [1, 2, 0] {tag} : tensor<8x512xf32> -> tensor<8x512xf32>
func.func @collectives(%x: tensor<8x512xf32>, %d: tensor<?x512xf16>) {
  %0 = dtensor.all_reduce %x on @world axes [1] reduce sum : tensor<8x512xf32> -> tensor<8x512xf32>
  %1 = dtensor.all_reduce %x on @world axes [0, 1] reduce avg : tensor<8x512xf32> -> tensor<8x512xf32>
  // Axes need not be in mesh order.
  %2 = dtensor.all_reduce %x on @cube axes [2, 0] reduce max : tensor<8x512xf32> -> tensor<8x512xf32>
  %3 = dtensor.all_reduce %d on @line axes [0] reduce min : tensor<?x512xf16> -> tensor<?x512xf16>
  %4 = dtensor.all_gather %x on @world axes [0] gather_dim 0 : tensor<8x512xf32> -> tensor<16x512xf32>
  %5 = dtensor.all_gather %x on @world axes [0, 1] gather_dim 1 : tensor<8x512xf32> -> tensor<8x4096xf32>
  // Dynamic dims are not checked.
  %6 = dtensor.all_gather %d on @cube axes [1] gather_dim 0 : tensor<?x512xf16> -> tensor<?x512xf16>
  %7 = dtensor.reduce_scatter %x on @world axes [1] reduce sum scatter_dim 1 : tensor<8x512xf32> -> tensor<8x128xf32>
  %8 = dtensor.reduce_scatter %x on @world axes [1, 0] reduce avg scatter_dim 0 : tensor<8x512xf32> -> tensor<1x512xf32>
  %9 = dtensor.reduce_scatter %x on @line axes [0] reduce max scatter_dim 0 : tensor<8x512xf32> -> tensor<2x512xf32>
  %10 = dtensor.reduce_scatter %d on @line axes [0] reduce min scatter_dim 0 : tensor<?x512xf16> -> tensor<?x512xf16>
  %11 = dtensor.all_to_all %x on @world axes [1] split_dim 1 concat_dim 0 : tensor<8x512xf32> -> tensor<32x128xf32>
  %12 = dtensor.all_to_all %x on @world axes [0] split_dim 0 concat_dim 1 : tensor<8x512xf32> -> tensor<4x1024xf32>
  // Splitting and concatenating the same dim keeps the shape.
  %13 = dtensor.all_to_all %x on @line axes [0] split_dim 1 concat_dim 1 : tensor<8x512xf32> -> tensor<8x512xf32>
  %14 = dtensor.broadcast %x on @world axes [0] root [1] : tensor<8x512xf32> -> tensor<8x512xf32>
  %15 = dtensor.broadcast %x on @cube axes [0, 1, 2] root [1, 2, 0] {tag} : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

//===----------------------------------------------------------------------===//
// Collectives, asynchronous
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @collectives_async(
// CHECK-SAME: %[[X:.*]]: tensor<8x512xf32>
// CHECK: %[[R0:.*]] = dtensor.all_reduce_start %[[X]] on @world axes [1] reduce sum : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
// CHECK: %[[R1:.*]] = dtensor.all_gather_start %[[X]] on @world axes [0] gather_dim 0 : tensor<8x512xf32> -> !dtensor.request<tensor<16x512xf32>>
// CHECK: %[[R2:.*]] = dtensor.reduce_scatter_start %[[X]] on @world axes [1] reduce avg scatter_dim 1 : tensor<8x512xf32> -> !dtensor.request<tensor<8x128xf32>>
// CHECK: %[[R3:.*]] = dtensor.all_to_all_start %[[X]] on @world axes [1] split_dim 1 concat_dim 0 : tensor<8x512xf32> -> !dtensor.request<tensor<32x128xf32>>
// CHECK: %[[R4:.*]] = dtensor.broadcast_start %[[X]] on @cube axes [1] root [2] : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
// CHECK: %[[V0:.*]] = dtensor.wait %[[R0]] : !dtensor.request<tensor<8x512xf32>>
// CHECK: %[[V1:.*]] = dtensor.wait %[[R1]] : !dtensor.request<tensor<16x512xf32>>
// CHECK: %[[V2:.*]] = dtensor.wait %[[R2]] : !dtensor.request<tensor<8x128xf32>>
// CHECK: %[[V3:.*]] = dtensor.wait %[[R3]] : !dtensor.request<tensor<32x128xf32>>
// CHECK: %[[V4:.*]] = dtensor.wait %[[R4]] {tag} : !dtensor.request<tensor<8x512xf32>>
// CHECK: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<8x512xf32>, tensor<16x512xf32>, tensor<8x128xf32>, tensor<32x128xf32>, tensor<8x512xf32>
func.func @collectives_async(%x: tensor<8x512xf32>)
    -> (tensor<8x512xf32>, tensor<16x512xf32>, tensor<8x128xf32>,
        tensor<32x128xf32>, tensor<8x512xf32>) {
  %r0 = dtensor.all_reduce_start %x on @world axes [1] reduce sum : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
  %r1 = dtensor.all_gather_start %x on @world axes [0] gather_dim 0 : tensor<8x512xf32> -> !dtensor.request<tensor<16x512xf32>>
  %r2 = dtensor.reduce_scatter_start %x on @world axes [1] reduce avg scatter_dim 1 : tensor<8x512xf32> -> !dtensor.request<tensor<8x128xf32>>
  %r3 = dtensor.all_to_all_start %x on @world axes [1] split_dim 1 concat_dim 0 : tensor<8x512xf32> -> !dtensor.request<tensor<32x128xf32>>
  %r4 = dtensor.broadcast_start %x on @cube axes [1] root [2] : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
  %v0 = dtensor.wait %r0 : !dtensor.request<tensor<8x512xf32>>
  %v1 = dtensor.wait %r1 : !dtensor.request<tensor<16x512xf32>>
  %v2 = dtensor.wait %r2 : !dtensor.request<tensor<8x128xf32>>
  %v3 = dtensor.wait %r3 : !dtensor.request<tensor<32x128xf32>>
  %v4 = dtensor.wait %r4 {tag} : !dtensor.request<tensor<8x512xf32>>
  return %v0, %v1, %v2, %v3, %v4 : tensor<8x512xf32>, tensor<16x512xf32>, tensor<8x128xf32>, tensor<32x128xf32>, tensor<8x512xf32>
}

// The request type as a function argument and result.
// CHECK-LABEL: func.func @request_type(
// CHECK-SAME: %[[R:.*]]: !dtensor.request<tensor<4x?xi8>>) -> !dtensor.request<tensor<4x?xi8>>
// CHECK: return %[[R]] : !dtensor.request<tensor<4x?xi8>>
func.func @request_type(%r: !dtensor.request<tensor<4x?xi8>>) -> !dtensor.request<tensor<4x?xi8>> {
  return %r : !dtensor.request<tensor<4x?xi8>>
}

//===----------------------------------------------------------------------===//
// dtensor.specs on ops
//===----------------------------------------------------------------------===//

func.func private @pair(tensor<8x512xf32>) -> (tensor<8x512xf32>, i32)

// CHECK-LABEL: func.func @op_specs(
// CHECK-SAME: %[[X:.*]]: tensor<8x512xf32>
// CHECK: %[[A:.*]] = arith.addf %[[X]], %[[X]] {dtensor.specs = [#dtensor.spec<@world, [S(0), R]>]} : tensor<8x512xf32>
// CHECK: %[[B:.*]] = arith.mulf %[[A]], %[[A]] {dtensor.specs = [#dtensor.spec<@cube, [P(sum), S(1), R]>]} : tensor<8x512xf32>
// Non-tensor results carry a unit placeholder.
// CHECK: %{{.*}}:2 = call @pair(%[[B]]) {dtensor.specs = [#dtensor.spec<@line, [S(1)]>, unit]} : (tensor<8x512xf32>) -> (tensor<8x512xf32>, i32)
// An op without results carries an empty list.
// CHECK: return {dtensor.specs = []}
func.func @op_specs(%x: tensor<8x512xf32>) {
  %a = arith.addf %x, %x {dtensor.specs = [#dtensor.spec<@world, [S(0), R]>]} : tensor<8x512xf32>
  %b = arith.mulf %a, %a {dtensor.specs = [#dtensor.spec<@cube, [P(sum), S(1), R]>]} : tensor<8x512xf32>
  %c:2 = func.call @pair(%b) {dtensor.specs = [#dtensor.spec<@line, [S(1)]>, unit]} : (tensor<8x512xf32>) -> (tensor<8x512xf32>, i32)
  func.return {dtensor.specs = []}
}
