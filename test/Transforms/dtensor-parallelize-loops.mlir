// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-parallelize-loops{threads=4}))" -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-parallelize-loops))" -split-input-file | FileCheck %s --check-prefix=ONE

// A marked loop becomes 4 chunks of ceildiv(n, 4) iterations each, the last
// ones clamped to the upper bound; the body stays in the chunk's loop, so an
// allocation hoisted out of it is per thread.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    (%[[N:.*]]: index, %[[OUT:.*]]: memref<?x4xf32>)
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[SPAN:.*]] = arith.subi %[[N]], %[[LB:.*]] : index
// CHECK:         %[[POS:.*]] = arith.cmpi sgt, %[[SPAN]]
// CHECK:         %[[CLAMP:.*]] = arith.select %[[POS]], %[[SPAN]]
// CHECK:         %[[TRIPS:.*]] = arith.ceildivui %[[CLAMP]], %[[STEP:.*]] : index
// CHECK:         %[[PER:.*]] = arith.ceildivui %[[TRIPS]], %[[C4]]
// CHECK:         %[[CHUNK:.*]] = arith.muli %[[PER]], %[[STEP]]
// CHECK:         scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[C4]]) step (%{{.*}}) {
// CHECK:           %[[OFF:.*]] = arith.muli %[[T]], %[[CHUNK]]
// CHECK:           %[[BEGIN:.*]] = arith.addi %[[LB]], %[[OFF]]
// CHECK:           %[[NEXT:.*]] = arith.addi %[[BEGIN]], %[[CHUNK]]
// CHECK:           %[[END:.*]] = arith.minsi %[[N]], %[[NEXT]]
// CHECK:           scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]] step %[[STEP]] {
// CHECK:             memref.alloc()
// CHECK:             memref.subview %[[OUT]][%[[I]], 0]
// CHECK-NOT:       dtensor.parallel_loop
// CHECK:         return
// ONE-LABEL: func.func @rows
// ONE-NOT:     scf.parallel
// ONE:         scf.for
// ONE-NOT:     dtensor.parallel_loop
func.func @rows(%n: index, %out: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %buf = memref.alloc() : memref<4xf32>
    linalg.fill ins(%cst : f32) outs(%buf : memref<4xf32>)
    %row = memref.subview %out[%i, 0] [1, 4] [1, 1] : memref<?x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    memref.copy %buf, %row : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
    memref.dealloc %buf : memref<4xf32>
  } {dtensor.parallel_loop}
  return
}

// -----

// Only the outermost marked loop of a nest is split; an unmarked loop and a
// loop with loop-carried values stay as they are.
// CHECK-LABEL: func.func @nest
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:         scf.parallel
// CHECK:         scf.for {{.*}} iter_args
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @nest(%out: memref<8x8xf32>, %v: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %cst, %out[%i, %j] : memref<8x8xf32>
    } {dtensor.parallel_loop}
  } {dtensor.parallel_loop}
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %cst) -> f32 {
    %x = memref.load %v[%i] : memref<8xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  } {dtensor.parallel_loop}
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %cst, %v[%i] : memref<8xf32>
  }
  return %s : f32
}

