// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch -split-input-file | FileCheck %s --check-prefixes=CHECK,PT
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=global -split-input-file | FileCheck %s
//
// Propagation output always reads back, and reading it back changes nothing
// (issue 9, test/Robustness/fixed_repro_5.txt and fixed_repro_6.txt): the
// output of either strategy, propagated again with either strategy, is the
// same text.
//
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch -split-input-file -o %t.pytorch.mlir
// RUN: dtensor-opt %t.pytorch.mlir -dtensor-fake-propagate=strategy=pytorch -split-input-file -o %t.pytorch.pytorch.mlir
// RUN: dtensor-opt %t.pytorch.mlir -dtensor-fake-propagate=strategy=global -split-input-file -o %t.pytorch.global.mlir
// RUN: diff %t.pytorch.mlir %t.pytorch.pytorch.mlir
// RUN: diff %t.pytorch.mlir %t.pytorch.global.mlir
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=global -split-input-file -o %t.global.mlir
// RUN: dtensor-opt %t.global.mlir -dtensor-fake-propagate=strategy=pytorch -split-input-file -o %t.global.pytorch.mlir
// RUN: dtensor-opt %t.global.mlir -dtensor-fake-propagate=strategy=global -split-input-file -o %t.global.global.mlir
// RUN: diff %t.global.mlir %t.global.pytorch.mlir
// RUN: diff %t.global.mlir %t.global.global.mlir

// PyTorch 2.15 refuses the expand (dim 12 sharded over 4 split into 3x4);
// the plan gathers it and the product takes the cheapest pointwise
// strategy, [R, P(avg)] (PyTorch's mul rule [P(avg), R, P(avg)]). Read back,
// the pins are found again. (strategy=global plans these two differently.)
dtensor.mesh @mesh = <["dp" = 4, "tp" = 2]>
// CHECK-LABEL: func.func @pavg_through_mulf
// PT: dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R, R]>
// PT: %[[A:.*]] = dtensor.redistribute %arg1 to #dtensor.spec<@mesh, [R, P(avg)]>
// PT: %[[E:.*]] = tensor.expand_shape
// PT: arith.mulf %[[E]], %[[A]] {dtensor.specs = [#dtensor.spec<@mesh, [R, P(avg)]>]}
// PT-NOT: dtensor.redistribute
// PT: return
func.func @pavg_through_mulf(%a4: tensor<12x12xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1), R]>},
                %a10: tensor<12x3x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1), P(avg)]>})
    -> tensor<12x3x4xf32> {
  %v43 = tensor.expand_shape %a4 [[0], [1, 2]] output_shape [12, 3, 4] : tensor<12x12xf32> into tensor<12x3x4xf32>
  %v44 = arith.mulf %v43, %a10 : tensor<12x3x4xf32>
  return %v44 : tensor<12x3x4xf32>
}

// -----

// PyTorch's pointwise rule accepts an unshardable input only where it
// already holds the placements (allow_uneven_sharding): the dim of 2 is not
// sharded over the 4-way axis, %p is gathered on dp and stays P(sum) on tp
// (PyTorch 2.15's plan, test/Parity).
dtensor.mesh @mesh = <["dp" = 4, "tp" = 2]>
// CHECK-LABEL: func.func @psum_small_dim
// PT: %[[S:.*]] = dtensor.redistribute %arg1 to #dtensor.spec<@mesh, [R, P(sum)]>
// PT: arith.mulf %arg0, %[[S]] {dtensor.specs = [#dtensor.spec<@mesh, [R, P(sum)]>]}
// PT-NOT: dtensor.redistribute
// PT: return
func.func @psum_small_dim(%r: tensor<8x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [R, R]>},
                %p: tensor<8x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1), P(sum)]>})
    -> tensor<8x2xf32> {
  %y = arith.mulf %r, %p : tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

// Pins written by hand, operands already where the pins need them: kept,
// nothing redistributed.
dtensor.mesh @mesh = <["x" = 2]>
// CHECK-LABEL: func.func @pinned_pavg
// CHECK-NOT: dtensor.redistribute
// CHECK: arith.mulf %arg0, %arg1 {dtensor.specs = [#dtensor.spec<@mesh, [P(avg)]>]}
// CHECK-NOT: dtensor.redistribute
// CHECK: return
func.func @pinned_pavg(%r: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
                       %p: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(avg)]>})
    -> tensor<8xf32> {
  %y = arith.mulf %r, %p {dtensor.specs = [#dtensor.spec<@mesh, [P(avg)]>]} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

dtensor.mesh @mesh = <["dp" = 4, "tp" = 2]>
// CHECK-LABEL: func.func @pinned_small_dim
// CHECK-NOT: dtensor.redistribute
// CHECK: arith.mulf %arg0, %arg1 {dtensor.specs = [#dtensor.spec<@mesh, [S(1), P(sum)]>]}
// CHECK-NOT: dtensor.redistribute
// CHECK: return
func.func @pinned_small_dim(%r: tensor<12x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1), R]>},
                            %p: tensor<12x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1), P(sum)]>})
    -> tensor<12x3xf32> {
  %y = arith.mulf %r, %p {dtensor.specs = [#dtensor.spec<@mesh, [S(1), P(sum)]>]} : tensor<12x3xf32>
  return %y : tensor<12x3xf32>
}

// -----

// The same through a linalg.generic (the linalg model); its destination is
// created in P(avg).
#id = affine_map<(d0) -> (d0)>
dtensor.mesh @mesh = <["x" = 2]>
// CHECK-LABEL: func.func @pinned_pavg_generic
// CHECK-NOT: dtensor.redistribute
// CHECK: %[[E:.*]] = tensor.empty() {dtensor.specs = [#dtensor.spec<@mesh, [P(avg)]>]}
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : {{.*}}) outs(%[[E]] : {{.*}}) attrs =  {dtensor.specs = [#dtensor.spec<@mesh, [P(avg)]>]}
// CHECK-NOT: dtensor.redistribute
// CHECK: return
func.func @pinned_pavg_generic(%r: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
                               %p: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(avg)]>})
    -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%r, %p : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>)
      attrs = {dtensor.specs = [#dtensor.spec<@mesh, [P(avg)]>]} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A pinned fill whose users need other placements, its tensor.empty shared
// with another op (test/Robustness/fixed_repro_5.txt). The pin holds in the
// plan (the fill is S(0)); as for any created value, a copy is built in
// each placement its users need, and the S(0) original, now unused, is
// erased. Every copy of the fill gets a destination in its own placements:
// the R copy reads the R empty, the S(1) copy a new S(1) empty, and no
// copy reads the S(0) empty the original fill needed.
dtensor.mesh @mesh = <["tp" = 4]>
// CHECK-LABEL: func.func @pinned_fill_shared_empty
// CHECK-DAG: %[[ER:.*]] = tensor.empty() {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
// CHECK-DAG: %[[FR:.*]] = linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} ins(%{{.*}} : f32) outs(%[[ER]] :
// CHECK-DAG: %[[ES:.*]] = tensor.empty() {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK-DAG: %[[FS:.*]] = linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]} ins(%{{.*}} : f32) outs(%[[ES]] :
// CHECK-NOT: S(0)
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]} ins(%arg0, %arg1 : {{.*}}) outs(%[[FS]] :
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} ins(%arg0, %arg2 : {{.*}}) outs(%[[FR]] :
// CHECK: linalg.add {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} ins(%{{.*}}, %arg3 : {{.*}}) outs(%[[ER]] :
// CHECK-NOT: dtensor.redistribute
// CHECK: return
func.func @pinned_fill_shared_empty(%x: tensor<32x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
             %w1: tensor<64x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
             %w2: tensor<64x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
             %b: tensor<32x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<32x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}, tensor<32x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x128xf32>
  %z = linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%zero : f32) outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y1 = linalg.matmul ins(%x, %w1 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%z : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y2 = linalg.matmul ins(%x, %w2 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%z : tensor<32x128xf32>) -> tensor<32x128xf32>
  %h = linalg.add ins(%y2, %b : tensor<32x128xf32>, tensor<32x128xf32>) outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y1, %h : tensor<32x128xf32>, tensor<32x128xf32>
}

// -----

// A pinned fill with a single user in other placements: the fill takes its
// user's placements (created values are built where they are read), its
// empty follows it, and the output reads back unchanged.
dtensor.mesh @mesh = <["tp" = 4]>
// CHECK-LABEL: func.func @pinned_fill_one_user
// CHECK: %[[E:.*]] = tensor.empty() {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK: %[[F:.*]] = linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]} ins(%{{.*}} : f32) outs(%[[E]] :
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]} ins(%arg0, %arg1 : {{.*}}) outs(%[[F]] :
// CHECK: return
func.func @pinned_fill_one_user(%x: tensor<32x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
             %w1: tensor<64x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>})
    -> (tensor<32x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x128xf32>
  %z = linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%zero : f32) outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  %y1 = linalg.matmul ins(%x, %w1 : tensor<32x64xf32>, tensor<64x128xf32>) outs(%z : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %y1 : tensor<32x128xf32>
}
