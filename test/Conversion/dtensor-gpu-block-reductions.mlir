// RUN: dtensor-opt %s --dtensor-gpu-block-reductions="block-size=256" | FileCheck %s
// RUN: dtensor-opt %s --dtensor-gpu-block-reductions="block-size=64 emulate=true" | FileCheck %s --check-prefix=EMU

// A row max after a fill of its output: one block per row, threads capped at
// the row length rounded up to a warp (100 -> 128), thread t reads elements
// t, t + 128, ... of its row, gpu.all_reduce combines the partials, thread 0
// combines the fill's value into the result, and the fill is gone.

#in = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>

// CHECK-LABEL: func.func @row_max
// CHECK-SAME: (%[[A:.*]]: memref<8x100xf32>, %[[O:.*]]: memref<8xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ROWS]]{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]],
// CHECK: %[[ROW:.*]] = arith.remui %[[BX]]
// CHECK: %[[PART:.*]] = scf.for %[[J:.*]] = %[[TX]] to %{{.*}} step %[[THREADS]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[COL:.*]] = arith.remui %[[J]]
// CHECK: memref.load %[[A]][%[[ROW]], %[[COL]]]
// CHECK: arith.maximumf %{{.*}}, %[[ACC]]
// CHECK: %[[ALL:.*]] = gpu.all_reduce %[[PART]] uniform
// CHECK: arith.maximumf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}}
// CHECK: scf.if %[[FIRST]]
// CHECK: %[[R:.*]] = arith.maximumf %[[ALL]], %[[NINF]]
// CHECK: memref.store %[[R]], %[[O]][%[[ROW]]]
// CHECK: gpu.terminator

// EMU-LABEL: func.func @row_max
// EMU-NOT: gpu.launch
// EMU-NOT: linalg.fill
// EMU-DAG: %[[THREADS:.*]] = arith.constant 64 : index
// EMU: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}})
// EMU: scf.for %[[T:.*]] = %{{.*}} to %[[THREADS]] step
// EMU: scf.for %{{.*}} = %[[T]] to %{{.*}} step %[[THREADS]]
// EMU: memref.load
// EMU: memref.store
func.func @row_max(%a: memref<8x100xf32>, %o: memref<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%o : memref<8xf32>)
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x100xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// A reduction whose innermost loop is parallel stays a linalg.generic (the
// loop path maps the columns to threads).
// CHECK-LABEL: func.func @col_sum
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// EMU-LABEL: func.func @col_sum
// EMU-NOT: scf.parallel
// EMU: linalg.generic
func.func @col_sum(%a: memref<8x100xf32>, %o: memref<100xf32>) {
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<8x100xf32>) outs(%o : memref<100xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A bf16 row sum of exp: the partials, the all-reduce and the final combine
// are f32 (no 16-bit accumulation); the body's exp stays bf16, extended once
// per element; the result is truncated once, when stored.
// CHECK-LABEL: func.func @row_sum_bf16
// CHECK: gpu.launch
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PART:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK: %[[X:.*]] = memref.load %{{.*}} : memref<4x64xbf16>
// CHECK: %[[E:.*]] = math.exp %[[X]] : bf16
// CHECK: %[[W:.*]] = arith.extf %[[E]] : bf16 to f32
// CHECK: arith.addf %[[W]], %[[ACC]] : f32
// CHECK: %[[ALL:.*]] = gpu.all_reduce %[[PART]] uniform
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: scf.if
// CHECK: %[[OLD:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[ALL]], %[[OLD]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK: memref.store %[[T]]
// CHECK-NOT: arith.addf %{{.*}} : bf16
// EMU-LABEL: func.func @row_sum_bf16
// EMU: scf.for {{.*}} -> (f32)
// EMU: arith.truncf {{.*}} : f32 to bf16
func.func @row_sum_bf16(%a: memref<4x64xbf16>, %o: memref<4xbf16>) {
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%o : memref<4xbf16>)
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x64xbf16>) outs(%o : memref<4xbf16>) {
  ^bb0(%x: bf16, %acc: bf16):
    %e = math.exp %x : bf16
    %s = arith.addf %e, %acc : bf16
    linalg.yield %s : bf16
  }
  return
}
