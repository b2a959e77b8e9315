// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-collapse-contraction-dims))" -split-input-file | FileCheck %s

// The output projection reading heads: k = (h, d) read in order by both
// inputs collapses into one k loop of 24.
// CHECK-LABEL: func.func @k_run
// CHECK-DAG: %[[Q:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2]] : tensor<24x3x8xf32> into tensor<24x24xf32>
// CHECK-DAG: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2]] : tensor<3x8x10xf32> into tensor<24x10xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[Q]], %[[W]] : tensor<24x24xf32>, tensor<24x10xf32>)
#ah = affine_map<(t, n, h, d) -> (t, h, d)>
#wo = affine_map<(t, n, h, d) -> (h, d, n)>
#co = affine_map<(t, n, h, d) -> (t, n)>
func.func @k_run(%q: tensor<24x3x8xf32>, %w: tensor<3x8x10xf32>, %z: tensor<24x10xf32>) -> tensor<24x10xf32> {
  %o = linalg.generic {indexing_maps = [#ah, #wo, #co], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%q, %w : tensor<24x3x8xf32>, tensor<3x8x10xf32>) outs(%z : tensor<24x10xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<24x10xf32>
  return %o : tensor<24x10xf32>
}

// -----

// m = (b, s) of a 3-D activation: one m loop; the result expanded back.
// CHECK-LABEL: func.func @m_run
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<24x16xf32>, tensor<16x12xf32>) outs(%{{.*}} : tensor<24x12xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [4, 6, 12] : tensor<24x12xf32> into tensor<4x6x12xf32>
#a3 = affine_map<(b, s, n, k) -> (b, s, k)>
#w2 = affine_map<(b, s, n, k) -> (k, n)>
#c3 = affine_map<(b, s, n, k) -> (b, s, n)>
func.func @m_run(%x: tensor<4x6x16xf32>, %w: tensor<16x12xf32>, %z: tensor<4x6x12xf32>) -> tensor<4x6x12xf32> {
  %y = linalg.generic {indexing_maps = [#a3, #w2, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x6x16xf32>, tensor<16x12xf32>) outs(%z : tensor<4x6x12xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6x12xf32>
  return %y : tensor<4x6x12xf32>
}

// -----

// The k loops read in opposite orders ((h, d) by one input, (d, h) by the
// other) are no single loop: nothing changes.
// CHECK-LABEL: func.func @k_swapped
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
#ah2 = affine_map<(t, n, h, d) -> (t, h, d)>
#wo2 = affine_map<(t, n, h, d) -> (d, h, n)>
#co2 = affine_map<(t, n, h, d) -> (t, n)>
func.func @k_swapped(%q: tensor<24x3x8xf32>, %w: tensor<8x3x10xf32>, %z: tensor<24x10xf32>) -> tensor<24x10xf32> {
  %o = linalg.generic {indexing_maps = [#ah2, #wo2, #co2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%q, %w : tensor<24x3x8xf32>, tensor<8x3x10xf32>) outs(%z : tensor<24x10xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<24x10xf32>
  return %o : tensor<24x10xf32>
}
