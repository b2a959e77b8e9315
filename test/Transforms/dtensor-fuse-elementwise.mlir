// RUN: dtensor-opt %s --dtensor-fuse-elementwise=recompute-math=false -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-fuse-elementwise -split-input-file | FileCheck %s --check-prefix=MATH

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A chain of elementwise ops (named and generic, on a dynamic dim) becomes
// one linalg.generic.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[Y:.*]]: tensor<?x64xf32>)
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<?x64xf32>, tensor<?x64xf32>)
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: linalg.yield
// CHECK-NOT: linalg.
// CHECK: return %[[G]]
func.func @chain(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%d) : tensor<?x64xf32>
  %a = linalg.add ins(%x, %y : tensor<?x64xf32>, tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %b = linalg.exp ins(%a : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %x : tensor<?x64xf32>, tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<?x64xf32>
  return %c : tensor<?x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// An elementwise producer with two users (a reduction and an elementwise
// op) is recomputed in both and disappears: sum(-x) and -x / s.
// CHECK-LABEL: func.func @multi_use
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.negf
// CHECK: arith.addf
// CHECK: %[[D:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-SAME: %[[S]]
// CHECK: arith.negf
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @multi_use(%x: tensor<8x64xf32>, %init: tensor<8xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %x1 = linalg.negf ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x1 : tensor<8x64xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x1, %s : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %d : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// With recompute-math=false (the CPU pipeline) a multi-use producer that
// calls a math function (a softmax's exp) is computed once and read by both
// users; by default (the GPU pipeline) it is recomputed in each.
// MATH-LABEL: func.func @no_recompute_math
// MATH: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// MATH: math.exp
// MATH: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// MATH: math.exp
// MATH-NOT: linalg.generic
// MATH: return
// CHECK-LABEL: func.func @no_recompute_math
// CHECK: %[[E:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[E]]
// CHECK-NOT: math.exp
// CHECK: %[[D:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[E]], %[[S]]
// CHECK-NOT: math.exp
// CHECK: return %[[D]]
func.func @no_recompute_math(%x: tensor<8x64xf32>, %init: tensor<8xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %x1 = linalg.exp ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x1 : tensor<8x64xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x1, %s : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %d : tensor<8x64xf32>
}

// -----

// Why: contractions stay named ops for the BLAS lowering; nothing is fused
// into or out of them, and transposes stay linalg.transpose.
// CHECK-LABEL: func.func @negative_contraction
// CHECK: linalg.transpose
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[M]]
// CHECK: arith.maximumf
func.func @negative_contraction(%a: tensor<16x32xf32>, %b: tensor<16x32xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %bt = linalg.transpose ins(%b : tensor<16x32xf32>) outs(%e : tensor<32x16xf32>) permutation = [1, 0]
  %m = linalg.matmul ins(%a, %bt : tensor<16x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<16x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<16x16xf32>) outs(%e2 : tensor<16x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %q = arith.maximumf %p, %z : f32
    linalg.yield %q : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// Why: an elementwise producer of a contraction's operand is not fused into
// the contraction (that would hide the GEMM from the BLAS lowering).
// CHECK-LABEL: func.func @negative_into_contraction
// CHECK: %[[S:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.matmul ins(%[[S]],
func.func @negative_into_contraction(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %k = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%p: f32, %o: f32):
    %q = arith.mulf %p, %k : f32
    linalg.yield %q : f32
  } -> tensor<16x32xf32>
  %m = linalg.matmul ins(%s, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}

// -----

// Why: a 0-d producer that accumulates into its init (the loss seed of a
// gradient) and has another user would, fused into a 2-D loop nest and kept
// as an extra output, be updated once per iteration: it is not fused.
// CHECK-LABEL: func.func @negative_accumulating_producer
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = []
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[S]], %{{.*}} : tensor<f32>, tensor<4x4xf32>)
func.func @negative_accumulating_producer(%x: tensor<4x4xf32>) -> (tensor<f32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %k = arith.constant 0.5 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%z : tensor<f32>) {
  ^bb0(%o: f32):
    %a = arith.addf %o, %k : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<4x4xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s, %x : tensor<f32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %s, %m : tensor<f32>, tensor<4x4xf32>
}
