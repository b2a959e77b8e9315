// RUN: dtensor-opt %s -dtensor-fake-propagate | FileCheck %s

// Tensor ops (slices, concat, pad, splat) and tosa elementwise and matmul.

// A slice keeps the shards of the dims it takes whole; a dim cut by the
// slice must be replicated first. Concat replicates its dim; pad the padded
// dims; a splat is created directly in the placements its user needs.
// CHECK-LABEL: func.func @slices
// CHECK-SAME: (%[[X:[^:]*]]: {{.*}}, %[[Y:[^:]*]]:
// CHECK-DAG: %[[XR:.*]] = dtensor.redistribute %[[X]] to #dtensor.spec<@mesh, [R]>
// CHECK-DAG: %[[YS:.*]] = dtensor.redistribute %[[Y]] to #dtensor.spec<@mesh, [S(0)]>
// CHECK: tensor.extract_slice %[[X]][0, 0] [16, 4] [1, 1] {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: tensor.extract_slice %[[XR]][0, 0] [8, 8] [1, 1] {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
// CHECK: tensor.concat dim(1) %[[X]], %[[YS]] {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: tensor.pad %[[X]] low[0, 2] high[0, 2]
// CHECK: } {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: %[[SP:.*]] = tensor.splat {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: tensor.insert_slice %[[SP]] into %[[X]][0, 0] [16, 4] [1, 1] {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: tensor.extract_slice %[[X]][0, 3] [16, 1] [1, 1] {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} : tensor<16x8xf32> to tensor<16xf32>

// tosa.matmul is a batched contraction; tosa.add broadcasts size-1 dims.
// CHECK-LABEL: func.func @tosa
// CHECK: %[[B:.*]] = dtensor.redistribute %arg1 to #dtensor.spec<@mesh, [S(0)]>
// CHECK: tosa.matmul %arg0, %[[B]], {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: tosa.add {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK-NOT: dtensor.redistribute

dtensor.mesh @mesh = <["x" = 4]>
func.func @slices(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %y: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> (tensor<16x4xf32>, tensor<8x8xf32>, tensor<16x16xf32>, tensor<16x12xf32>, tensor<16x8xf32>, tensor<16xf32>) {
  %a = tensor.extract_slice %x[0, 0] [16, 4] [1, 1] : tensor<16x8xf32> to tensor<16x4xf32>
  %b = tensor.extract_slice %x[0, 0] [8, 8] [1, 1] : tensor<16x8xf32> to tensor<8x8xf32>
  %c = tensor.concat dim(1) %x, %y : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>
  %cst = arith.constant 0.0 : f32
  %d = tensor.pad %x low[0, 2] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<16x8xf32> to tensor<16x12xf32>
  %s = tensor.splat %cst : tensor<16x4xf32>
  %e = tensor.insert_slice %s into %x[0, 0] [16, 4] [1, 1] : tensor<16x4xf32> into tensor<16x8xf32>
  %f = tensor.extract_slice %x[0, 3] [16, 1] [1, 1] : tensor<16x8xf32> to tensor<16xf32>
  return %a, %b, %c, %d, %e, %f : tensor<16x4xf32>, tensor<8x8xf32>, tensor<16x16xf32>, tensor<16x12xf32>, tensor<16x8xf32>, tensor<16xf32>
}
func.func @tosa(%a: tensor<4x16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %b: tensor<4x8x32xf32>, %bias: tensor<1x1x32xf32>) -> tensor<4x16x32xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<4x16x8xf32>, tensor<4x8x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x32xf32>
  %r = tosa.add %m, %bias : (tensor<4x16x32xf32>, tensor<1x1x32xf32>) -> tensor<4x16x32xf32>
  return %r : tensor<4x16x32xf32>
}
