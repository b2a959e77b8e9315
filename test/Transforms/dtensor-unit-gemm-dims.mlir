// RUN: dtensor-opt %s --dtensor-unit-gemm-dims -split-input-file | FileCheck %s

// A matrix times a vector: a unit n loop appended; x and the output get a
// trailing unit dim, the result is collapsed back.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matvec
// CHECK-SAME: (%[[M:.*]]: tensor<64x32xf32>, %[[X:.*]]: tensor<32xf32>, %[[Z:.*]]: tensor<64xf32>)
// CHECK: %[[X2:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
// CHECK: %[[Z2:.*]] = tensor.expand_shape %[[Z]] {{\[\[}}0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
// CHECK: %[[Y2:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[M]], %[[X2]] : tensor<64x32xf32>, tensor<32x1xf32>) outs(%[[Z2]] : tensor<64x1xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = tensor.collapse_shape %[[Y2]] {{\[\[}}0, 1]] : tensor<64x1xf32> into tensor<64xf32>
// CHECK: return %[[Y]]
func.func @matvec(%m: tensor<64x32xf32>, %x: tensor<32xf32>, %z: tensor<64xf32>) -> tensor<64xf32> {
  %y = linalg.matvec ins(%m, %x : tensor<64x32xf32>, tensor<32xf32>) outs(%z : tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// A dot product: unit m and n loops; the 0-d output becomes 1 x 1.
// CHECK-LABEL: func.func @dot
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "parallel"]
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
func.func @dot(%x: tensor<32xf32>, %y: tensor<32xf32>, %z: tensor<f32>) -> tensor<f32> {
  %d = linalg.dot ins(%x, %y : tensor<32xf32>, tensor<32xf32>) outs(%z : tensor<f32>) -> tensor<f32>
  return %d : tensor<f32>
}

// -----

// A batched matrix-vector product on an uneven (dynamic) batch of rows.
// CHECK-LABEL: func.func @batch_matvec_dynamic
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [%{{.*}}, 32, 1] : tensor<?x32xf32> into tensor<?x32x1xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<?x16x1xf32> into tensor<?x16xf32>
func.func @batch_matvec_dynamic(%a: tensor<?x16x32xf32>, %x: tensor<?x32xf32>, %z: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %y = linalg.batch_matvec ins(%a, %x : tensor<?x16x32xf32>, tensor<?x32xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// Why: already a GEMM (m, n and k loops), on buffers, or no k loop (an
// elementwise product).
// CHECK-LABEL: func.func @negative
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.matmul
// CHECK: linalg.matvec ins(%{{.*}} : memref<8x4xf32>, memref<4xf32>)
// CHECK: linalg.generic
// CHECK-NOT: tensor.expand_shape
func.func @negative(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>,
                    %ma: memref<8x4xf32>, %mx: memref<4xf32>, %my: memref<8xf32>,
                    %u: tensor<8xf32>, %v: tensor<8xf32>) -> (tensor<8x6xf32>, tensor<8xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  linalg.matvec ins(%ma, %mx : memref<8x4xf32>, memref<4xf32>) outs(%my : memref<8xf32>)
  %p = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%u, %v : tensor<8xf32>, tensor<8xf32>) outs(%u : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r, %p : tensor<8x6xf32>, tensor<8xf32>
}
