// RUN: dtensor-opt %s -split-input-file --dtensor-linalg-to-blas -cse | FileCheck %s
// RUN: dtensor-opt %s -split-input-file --dtensor-linalg-to-blas=small-gemm-macs=512 -cse | FileCheck %s --check-prefix=LIMIT
// RUN: dtensor-opt %s -split-input-file --dtensor-linalg-to-blas=small-gemm-macs=511 -cse | FileCheck %s --check-prefix=OVER

// Which GEMMs call the runtime's small-GEMM kernel (dtrt_sgemm_small, the
// arguments of cblas_sgemm) instead of BLAS: f32 products of static sizes
// with at most small-gemm-macs multiply-adds per call (default 2^22).

// 4 x 16 x 8 = 512 multiply-adds: the kernel, with BLAS's arguments; at a
// limit of 512 still the kernel, at 511 BLAS.
// CHECK-LABEL: func.func private @dtrt_sgemm_small(i32, i32, i32, i32, i32, i32, f32, i64, i32, i64, i32, f32, i64, i32)
// CHECK-LABEL: func.func @small
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @dtrt_sgemm_small(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %[[ONE]], %{{.*}}, %c8_i32, %{{.*}}, %c16_i32, %[[ONE]], %{{.*}}, %c16_i32)
// CHECK-NOT: cblas_sgemm
// LIMIT-LABEL: func.func @small
// LIMIT: call @dtrt_sgemm_small(
// OVER-LABEL: func.func @small
// OVER: call @cblas_sgemm(
// OVER-NOT: dtrt_sgemm_small
func.func @small(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// The attention scores per batch and head (128 x 128 x 64 = 2^20): a loop
// of kernel calls on strided views, k transposed (112), beta = 0 after the
// zero fill.
// CHECK-LABEL: func.func @scores
// CHECK: scf.for
// CHECK: scf.for
// CHECK: call @dtrt_sgemm_small(%c101_i32, %c111_i32, %c112_i32, %c128_i32, %c128_i32, %c64_i32, %{{.*}}, %{{.*}}, %c512_i32, %{{.*}}, %c512_i32, %{{.*}}, %{{.*}}, %c128_i32)
// CHECK-NOT: linalg.fill
func.func @scores(%q: memref<2x128x8x64xf32>, %k: memref<2x128x8x64xf32>, %s: memref<2x8x128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2x8x128x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>, affine_map<(b, h, i, j, d) -> (b, j, h, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x128x8x64xf32>, memref<2x128x8x64xf32>) outs(%s : memref<2x8x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Past the limit (256 x 256 x 256 = 2^24), f64, or sizes known only at run
// time: BLAS.
// CHECK-LABEL: func.func @large
// CHECK: call @cblas_sgemm(
// CHECK-NOT: dtrt_sgemm_small
func.func @large(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  linalg.matmul ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @double
// CHECK: call @cblas_dgemm(
// CHECK-NOT: dtrt_sgemm_small
func.func @double(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>) {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  return
}

// -----

// CHECK-LABEL: func.func @dynamic_rows
// CHECK: call @cblas_sgemm(
// CHECK-NOT: dtrt_sgemm_small
func.func @dynamic_rows(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  return
}
