// RUN: dtensor-opt %s --dtensor-gpu-parallel-loops-first -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-gpu-parallel-loops-first --convert-linalg-to-parallel-loops -split-input-file | FileCheck %s --check-prefix=LOOPS

// A bias gradient: the sum over the rows of a batch (iterators [reduction,
// parallel]). The loops are interchanged: the column loop first, so that
// the op becomes one scf.parallel over the columns around the row loop
// (one kernel), not an scf.for of scf.parallel (a launch per row).
#in = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
// CHECK-LABEL: func.func @column_sum
// CHECK: linalg.generic {indexing_maps = [#[[IN:.*]], #[[COL:.*]]], iterator_types = ["parallel", "reduction"]}
// CHECK-DAG: #[[IN]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[COL]] = affine_map<(d0, d1) -> (d0)>
// LOOPS-LABEL: func.func @column_sum
// LOOPS: scf.parallel (%[[J:.*]]) =
// LOOPS: scf.for %[[I:.*]] =
// LOOPS: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<2048x1024xf32>
// LOOPS-NOT: scf.parallel
// LOOPS: return
func.func @column_sum(%g: memref<2048x1024xf32>, %db: memref<1024xf32>) {
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%g : memref<2048x1024xf32>) outs(%db : memref<1024xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A named op (linalg.reduce over dim 0) is generalized first.
// CHECK-LABEL: func.func @named_reduce
// CHECK-NOT: linalg.reduce
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
func.func @named_reduce(%g: memref<64x32xf32>, %db: memref<32xf32>) {
  linalg.reduce ins(%g : memref<64x32xf32>) outs(%db : memref<32xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Why: the parallel loops already come first (a row sum), or there is no
// parallel loop (a full reduction: dtensor-gpu-serial-kernels' case).
#in = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#none = affine_map<(i, j) -> ()>
// CHECK-LABEL: func.func @no_row_sum
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : memref<8x100xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
func.func @no_row_sum(%a: memref<8x100xf32>, %o: memref<8xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x100xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#in, #none], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<8x100xf32>) outs(%s : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}
