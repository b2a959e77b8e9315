// RUN: dtensor-opt %s -split-input-file --dtensor-linalg-to-blas -verify-diagnostics

// A function of the program already named cblas_sgemm, of another type: the
// call cannot be declared (256 x 256 x 256 is past small-gemm-macs: BLAS).
// expected-error @below {{symbol @cblas_sgemm exists but is not the GEMM function '(i32, i32, i32, i32, i32, i32, f32, i64, i32, i64, i32, f32, i64, i32) -> ()'}}
func.func private @cblas_sgemm(i32)

func.func @gemm(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  linalg.matmul ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>)
  return
}

// -----

// The same for the runtime's small-GEMM kernel, which a small product calls.
// expected-error @below {{symbol @dtrt_sgemm_small exists but is not the GEMM function '(i32, i32, i32, i32, i32, i32, f32, i64, i32, i64, i32, f32, i64, i32) -> ()'}}
func.func private @dtrt_sgemm_small(i32)

func.func @small_gemm(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
