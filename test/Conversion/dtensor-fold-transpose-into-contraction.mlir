// RUN: dtensor-opt %s -split-input-file --dtensor-fold-transpose-into-contraction | FileCheck %s

// Attention scores as torch-mlir writes them: both transposes, both
// collapses and the expand are gone; one 5-D contraction reads q and k as
// they are (b, h, i, j, d): q (b, i, h, d), k (b, j, h, d).
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @torch_attention_scores
// CHECK-SAME: (%[[QA:.*]]: tensor<2x8x4x16xf32>, %[[KA:.*]]: tensor<2x8x4x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x8x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[S]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QA]], %[[KA]] : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>) outs(%[[Z]] : tensor<2x4x8x8xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[R]]
func.func @torch_attention_scores(%q: tensor<2x8x4x16xf32>, %k: tensor<2x8x4x16xf32>) -> tensor<2x4x8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x4x8x16xf32>
  %qt = linalg.transpose ins(%q : tensor<2x8x4x16xf32>) outs(%e0 : tensor<2x4x8x16xf32>) permutation = [0, 2, 1, 3]
  %e1 = tensor.empty() : tensor<2x4x16x8xf32>
  %kt = linalg.transpose ins(%k : tensor<2x8x4x16xf32>) outs(%e1 : tensor<2x4x16x8xf32>) permutation = [0, 2, 3, 1]
  %qc = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
  %e2 = tensor.empty() : tensor<8x8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e2 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<8x8x16xf32>, tensor<8x16x8xf32>) outs(%z : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %r = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xf32> into tensor<2x4x8x8xf32>
  return %r : tensor<2x4x8x8xf32>
}

// -----

// x w^T (torch's linear): the matmul reads w through a (n, k) map.
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @matmul_transposed_weight
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<16x8xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[WT]], #{{.*}}]{{.*}} ins(%{{.*}}, %[[W]] : tensor<4x8xf32>, tensor<16x8xf32>)
// CHECK-NOT: linalg.transpose
func.func @matmul_transposed_weight(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %wt = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A transpose of the result, the init a fill: the contraction writes
// (n, m) into a fill of the transposed shape.
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @transposed_result
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[OUT]]]{{.*}} outs(%[[Z]] : tensor<16x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[R]]
func.func @transposed_result(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<16x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<16x4xf32>
  %t = linalg.transpose ins(%c : tensor<4x16xf32>) outs(%e2 : tensor<16x4xf32>) permutation = [1, 0]
  return %t : tensor<16x4xf32>
}

// -----

// A collapse of a contiguous tensor stays: it is a view after bufferization,
// and expanding it would split the GEMM into smaller ones.
// CHECK-LABEL: func.func @negative_plain_collapse
// CHECK: tensor.collapse_shape
// CHECK: linalg.batch_matmul
func.func @negative_plain_collapse(%a: tensor<2x4x8x16xf32>, %b: tensor<8x16x8xf32>) -> tensor<8x8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %ac = tensor.collapse_shape %a [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
  %e = tensor.empty() : tensor<8x8x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  %s = linalg.batch_matmul ins(%ac, %b : tensor<8x8x16xf32>, tensor<8x16x8xf32>) outs(%z : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
  return %s : tensor<8x8x8xf32>
}

// -----

// The init is a real accumulator in the untransposed layout: kept.
// CHECK-LABEL: func.func @negative_transposed_accumulator
// CHECK: linalg.matmul
// CHECK: linalg.transpose
func.func @negative_transposed_accumulator(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<16x4xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<16x4xf32>
  %t = linalg.transpose ins(%y : tensor<4x16xf32>) outs(%e : tensor<16x4xf32>) permutation = [1, 0]
  return %t : tensor<16x4xf32>
}

// -----

// Why: torch-mlir's output projection reads the heads, transposed ([B, H,
// S, dh] -> [B, S, H, dh]) and collapsed into the model dim, along k:
// expanding the collapse would give two k loops (heads and dh), no GEMM.
// The transpose and the collapse stay; the contraction keeps one k loop.
// CHECK-LABEL: func.func @negative_collapse_along_k
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[T]]
// CHECK-NOT: "reduction", "reduction"
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[C]], %{{.*}} : tensor<16x64xf32>, tensor<64x64xf32>)
func.func @negative_collapse_along_k(%o: tensor<2x4x8x16xf32>, %w: tensor<64x64xf32>) -> tensor<16x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x16xf32>
  %t = linalg.transpose ins(%o : tensor<2x4x8x16xf32>) outs(%e : tensor<2x8x4x16xf32>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<2x8x4x16xf32> into tensor<16x64xf32>
  %i = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%i : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%c, %w : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
