// RUN: dtensor-opt %s --dtensor-gpu-serial-kernels | FileCheck %s

// A loss divided by its count (a 0-d elementwise op) and a full reduction
// over two dims: each the body of a gpu.launch of one block of one thread,
// so that no load or store of them stays in host code. The op with a
// parallel loop is left to the loop path.
#id0 = affine_map<() -> ()>
#in = affine_map<(i, j) -> (i, j)>
#none = affine_map<(i, j) -> ()>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @serial
// CHECK-SAME: (%[[L:.*]]: memref<f32>, %[[A:.*]]: memref<64x32xf32>, %[[S:.*]]: memref<f32>, %[[R:.*]]: memref<64xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) {
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[L]] : memref<f32>)
// CHECK: arith.divf
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK-NEXT: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[A]] : memref<64x32xf32>) outs(%[[S]] : memref<f32>)
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @serial(%loss: memref<f32>, %a: memref<64x32xf32>, %s: memref<f32>, %r: memref<64xf32>) {
  %n = arith.constant 4.0 : f32
  linalg.generic {indexing_maps = [#id0], iterator_types = []} outs(%loss : memref<f32>) {
  ^bb0(%x: f32):
    %d = arith.divf %x, %n : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#in, #none], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<64x32xf32>) outs(%s : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %x, %acc : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x32xf32>) outs(%r : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %t = arith.addf %x, %acc : f32
    linalg.yield %t : f32
  }
  return
}
