// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-gpu-flatten-parallel-loops),canonicalize)" | FileCheck %s

// A 3-D nest becomes one loop over the 24 elements; the innermost index is
// the remainder (it varies fastest). A nested loop and a 1-D loop stay.
// CHECK-LABEL: func.func @flatten
// CHECK: scf.parallel (%[[L:.*]]) = (%c0) to (%c24) step (%c1)
// CHECK: %[[K:.*]] = arith.remsi %[[L]], %c4
// CHECK: %[[Q:.*]] = arith.divsi %[[L]], %c4
// CHECK: %[[J:.*]] = arith.remsi %[[Q]], %c3
// CHECK: %[[I:.*]] = arith.divsi %[[Q]], %c3
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c8) step (%c1)
// CHECK-NOT: scf.parallel (%{{.*}}, %{{.*}})
func.func @flatten(%m: memref<2x3x4xf32>, %v: memref<8xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %c3, %c4) step (%c1, %c1, %c1) {
    memref.store %f, %m[%i, %j, %k] : memref<2x3x4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %f, %v[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
