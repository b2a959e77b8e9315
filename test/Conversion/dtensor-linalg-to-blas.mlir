// RUN: dtensor-opt %s --dtensor-linalg-to-blas | FileCheck %s

// A matmul on row-contiguous f32 buffers calls cblas_sgemm (row major, no
// transposes, C += A B); a column-strided operand stays a linalg.matmul.
// CHECK-LABEL: func.func @sgemm
// CHECK: call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %cst, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %cst, %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.matmul
func.func @sgemm(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// CHECK-LABEL: func.func @negative_strided
// CHECK: linalg.matmul
// CHECK-NOT: cblas
func.func @negative_strided(%a: memref<4x8xf32, strided<[1, 4]>>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[1, 4]>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
