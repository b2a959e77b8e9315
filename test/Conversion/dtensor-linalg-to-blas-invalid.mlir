// RUN: dtensor-opt %s -split-input-file --dtensor-linalg-to-blas -verify-diagnostics

// A function of the program already named cblas_sgemm, of another type: the
// call cannot be declared.
// expected-error @below {{symbol @cblas_sgemm exists but is not the CBLAS function '(i32, i32, i32, i32, i32, i32, f32, i64, i32, i64, i32, f32, i64, i32) -> ()'}}
func.func private @cblas_sgemm(i32)

func.func @gemm(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
