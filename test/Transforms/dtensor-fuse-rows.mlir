// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-fuse-rows),canonicalize)" -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --pass-pipeline="builtin.module(dtensor-decompose-aggregates,dtensor-fuse-elementwise{recompute-math=false},func.func(dtensor-fuse-rows),canonicalize)" -split-input-file | FileCheck %s --check-prefix=SOFTMAX

// A softmax as dtensor-decompose-aggregates and dtensor-fuse-elementwise
// leave it, on a dynamic number of rows (uneven shards): one loop nest over
// the rows, bounded by the input's dim; in it, on one row, the max, exp(x -
// max) computed once into a row-sized tensor, its sum, and the divide that
// writes the row of the result. Nothing is left outside the loops.
// SOFTMAX-LABEL: func.func @softmax
// SOFTMAX-SAME: (%[[X:.*]]: tensor<?x8x128xf32>)
// SOFTMAX: %[[D:.*]] = tensor.dim %[[X]]
// SOFTMAX-NOT: linalg.
// SOFTMAX: %[[R:.*]] = scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %[[D]]
// SOFTMAX: scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step
// SOFTMAX: %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[I]], %[[J]], 0] [1, 1, 128]
// SOFTMAX: linalg.fill
// SOFTMAX: %[[MAX:.*]] = linalg.generic {{.*}}["parallel", "parallel", "reduction"]{{.*}} ins(%[[ROW]] : tensor<1x1x128xf32>)
// SOFTMAX: arith.maxnumf
// SOFTMAX: %[[EB:.*]] = tensor.empty() : tensor<1x1x128xf32>
// SOFTMAX: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[ROW]], %[[MAX]] : tensor<1x1x128xf32>, tensor<1x1xf32>) outs(%[[EB]] : tensor<1x1x128xf32>)
// SOFTMAX: math.exp
// SOFTMAX: linalg.fill
// SOFTMAX: %[[SUM:.*]] = linalg.generic {{.*}}["parallel", "parallel", "reduction"]{{.*}} ins(%[[EXP]] : tensor<1x1x128xf32>)
// SOFTMAX-NOT: math.exp
// SOFTMAX: linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<1x1x128xf32>, tensor<1x1xf32>)
// SOFTMAX: arith.divf
// SOFTMAX: tensor.insert_slice
// SOFTMAX-NOT: linalg.
// SOFTMAX: return %[[R]]
func.func @softmax(%x: tensor<?x8x128xf32>) -> tensor<?x8x128xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8x128xf32>
  %e = tensor.empty(%d) : tensor<?x8x128xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<?x8x128xf32>) outs(%e : tensor<?x8x128xf32>) -> tensor<?x8x128xf32>
  return %p : tensor<?x8x128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A layer norm (bench/ops.sh's): the two row reductions (sharing one zero
// fill) and the two elementwise steps in one loop over the rows.
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[X:.*]]: tensor<64x512xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.*]] = scf.for %[[I:[a-z0-9_]+]] =
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [1, 512] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[ROW]] : tensor<1x512xf32>)
// CHECK: %[[XC:.*]] = linalg.generic {{.*}} ins(%[[ROW]], %[[SUM]] : tensor<1x512xf32>, tensor<1xf32>)
// CHECK: %[[VAR:.*]] = linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[XC]] : tensor<1x512xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[XC]], %[[VAR]] : tensor<1x512xf32>, tensor<1xf32>)
// CHECK: math.rsqrt
// CHECK: tensor.insert_slice
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @layernorm(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x512xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<64x512xf32>
  %xc = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<64x512xf32>, tensor<64xf32>) outs(%e : tensor<64x512xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %c = arith.subf %a, %m : f32
    linalg.yield %c : f32
  } -> tensor<64x512xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xc : tensor<64x512xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %q = arith.mulf %a, %a : f32
    %r = arith.addf %q, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xc, %var : tensor<64x512xf32>, tensor<64xf32>) outs(%e : tensor<64x512xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.divf %v, %n : f32
    %ve = arith.addf %m, %eps : f32
    %r = math.rsqrt %ve : f32
    %t = arith.mulf %a, %r : f32
    linalg.yield %t : f32
  } -> tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}

// -----

// torch-mlir's keepdim statistics ([N, 1], written through a constant 0
// index, which tiling cannot take): the unit dim is dropped first, then the
// row max and the subtraction are fused into one loop over the rows.
// CHECK-LABEL: func.func @keepdim
// CHECK: scf.for
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%{{.*}} : tensor<1x128xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: arith.subf
// CHECK: tensor.insert_slice
func.func @keepdim(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<16x1xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16x1xf32>) -> tensor<16x1xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x128xf32>) outs(%f : tensor<16x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16x1xf32>
  %e = tensor.empty() : tensor<16x128xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<16x128xf32>, tensor<16x1xf32>) outs(%e : tensor<16x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<16x128xf32>
  return %y : tensor<16x128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Why: a reduction over the outer dim (column sums) read broadcast along
// the rows would be recomputed for every row: nothing is fused.
// CHECK-LABEL: func.func @negative_column_reduction
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}}["reduction", "parallel"]
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK-NOT: scf.for
func.func @negative_column_reduction(%x: tensor<64x128xf32>, %init: tensor<128xf32>) -> tensor<64x128xf32> {
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%init : tensor<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<128xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<64x128xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Why: the row sums are also returned; fused, they would be computed twice
// (once per row in the loop, once whole for the return): nothing is fused.
// CHECK-LABEL: func.func @negative_other_user
// CHECK-NOT: scf.for
// CHECK: %[[S:.*]] = linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: return %[[Y]], %[[S]]
func.func @negative_other_user(%x: tensor<64x128xf32>, %init: tensor<64xf32>) -> (tensor<64x128xf32>, tensor<64xf32>) {
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x128xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<64x128xf32>, tensor<64xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %y, %s : tensor<64x128xf32>, tensor<64xf32>
}

// -----

// Why: a contraction stays whole for BLAS; the elementwise op after it has
// no row reduction in its chain: nothing is tiled.
// CHECK-LABEL: func.func @negative_contraction
// CHECK-NOT: scf.for
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: scf.for
func.func @negative_contraction(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e = tensor.empty() : tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
