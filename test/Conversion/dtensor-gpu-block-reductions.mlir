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

// Softmax over rows of 100: max, sum of exp, divide in ONE kernel of one
// block per row. Each row's max and sum are all-reduced, stored by thread 0
// and kept as values (the later bodies do not load them); every thread
// then writes its elements t, t + 128, ... of the row; the fills are gone.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<8x100xf32>, %[[Y:.*]]: memref<8x100xf32>)
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c8{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128,
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: %[[MAXALL:.*]] = gpu.all_reduce
// CHECK: %[[MAX:.*]] = arith.maximumf %[[MAXALL]]
// CHECK: scf.if
// CHECK: memref.store %[[MAX]], %{{.*}}[%{{.*}}] : memref<8xf32>
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: memref.load %{{.*}} : memref<8xf32>
// CHECK: arith.subf %{{.*}}, %[[MAX]]
// CHECK: math.exp
// CHECK: %[[SUMALL:.*]] = gpu.all_reduce
// CHECK: %[[SUM:.*]] = arith.addf %[[SUMALL]]
// CHECK: memref.store %[[SUM]]
// CHECK: scf.for %[[J:.*]] = %[[TX]] to %{{.*}} step %c128
// CHECK: %[[V:.*]] = memref.load %[[X]][%{{.*}}, %[[J]]]
// CHECK: arith.subf %[[V]], %[[MAX]]
// CHECK: arith.divf %{{.*}}, %[[SUM]]
// CHECK: memref.store %{{.*}}, %[[Y]][%{{.*}}, %[[J]]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
// EMU-LABEL: func.func @softmax
// EMU-NOT: gpu.launch
// EMU: scf.parallel
// EMU: scf.for
// EMU: scf.for
// EMU: memref.store
// EMU: scf.for
// EMU: scf.for
// EMU: memref.store
// EMU: scf.for
// EMU: arith.divf
// EMU: memref.store
// EMU-NOT: scf.parallel
// RUN: dtensor-opt %s --dtensor-gpu-block-reductions="fuse-rows=false" | FileCheck %s --check-prefix=NOFUSE
// NOFUSE-LABEL: func.func @softmax
// NOFUSE-COUNT-2: gpu.launch
// NOFUSE: linalg.generic
func.func @softmax(%x: memref<8x100xf32>, %y: memref<8x100xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<8xf32>
  %s = memref.alloc() : memref<8xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<8xf32>)
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x100xf32>) outs(%m : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : memref<8x100xf32>, memref<8xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %mx: f32, %acc: f32):
    %d = arith.subf %a, %mx : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#in, #row, #row, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s : memref<8x100xf32>, memref<8xf32>, memref<8xf32>) outs(%y : memref<8x100xf32>) {
  ^bb0(%a: f32, %mx: f32, %sum: f32, %o: f32):
    %d = arith.subf %a, %mx : f32
    %e = math.exp %d : f32
    %r = arith.divf %e, %sum : f32
    linalg.yield %r : f32
  }
  memref.dealloc %m : memref<8xf32>
  memref.dealloc %s : memref<8xf32>
  return
}

// A reduction to a scalar over two dims written as linalg.reduce (the loss
// of a training step): generalized, then one block of threads that each
// accumulate elements t, t + 256, ... of the flattened 4096 x 1024 input,
// combined by gpu.all_reduce (not one thread over the 4M elements).
// CHECK-LABEL: func.func @full_reduce
// CHECK-NOT: linalg.reduce
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c256,
// CHECK: scf.for {{.*}} to %c4194304 step %c256
// CHECK: gpu.all_reduce
// EMU-LABEL: func.func @full_reduce
// EMU-NOT: linalg.reduce
// EMU: scf.parallel
func.func @full_reduce(%a: memref<4096x1024xf32>, %s: memref<f32>) {
  linalg.reduce ins(%a : memref<4096x1024xf32>) outs(%s : memref<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %t = arith.addf %x, %acc : f32
      linalg.yield %t : f32
    }
  return
}
