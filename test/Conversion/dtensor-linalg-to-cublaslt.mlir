// RUN: dtensor-opt %s --dtensor-linalg-to-cublaslt --canonicalize -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-linalg-to-cublaslt=emulate=true --canonicalize -split-input-file | FileCheck %s --check-prefix=EMU

// A row-major matmul: no transposes, batch 1, m n k = 4 16 8, lda ldb ldc =
// 8 16 16, f32 (dtype 0) in and out, alpha = beta = 1, no bias, no
// epilogue; the status is checked.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[S:.*]] = call @dtrt_cublaslt_matmul(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c1_i64, %c4_i64, %c16_i64, %c8_i64, %{{.*}}, %c8_i64, %c0_i64, %{{.*}}, %c16_i64, %c0_i64, %{{.*}}, %c16_i64, %c0_i64, %cst, %cst, %c0_i64, %c0_i32)
// CHECK: arith.cmpi ne, %[[S]], %c0_i32
// CHECK: func.call @dtrt_abort
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Attention scores s[b, h, i, j] = sum_d q[b, i, h, d] k[b, j, h, d] on
// [2, 16, 4, 8] bf16 buffers with an f32 result: the head dim is the GEMM
// batch (strides 8, 8, 256), the batch dim a loop adding 512, 512, 1024
// elements (1024, 1024, 4096 bytes) to the pointers per iteration; k is
// stored n x k (trans_b = 1, ldb = 32); bf16 is dtype 8.
// CHECK-LABEL: func.func @scores
// CHECK: scf.for %[[B:.*]] = %c0 to %c2 step %c1
// CHECK: arith.muli %[[B]], %c1024
// CHECK: arith.muli %[[B]], %c1024
// CHECK: arith.muli %[[B]], %c4096
// CHECK: call @dtrt_cublaslt_matmul(%c8_i32, %c0_i32, %c0_i32, %c1_i32, %c4_i64, %c16_i64, %c16_i64, %c8_i64, %{{.*}}, %c32_i64, %c8_i64, %{{.*}}, %c32_i64, %c8_i64, %{{.*}}, %c16_i64, %c256_i64,
// CHECK-NOT: linalg.generic
// EMU-LABEL: func.func @scores
// EMU: scf.for
// EMU: %[[VA:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [4, 16, 8], strides: [8, 32, 1]
// EMU: %[[VB:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [4, 16, 8], strides: [8, 32, 1]
// EMU: %[[VC:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [4, 16, 16], strides: [256, 16, 1]
// EMU: linalg.generic {{.*}} ins(%[[VA]], %[[VB]] : {{.*}}) outs(%[[VC]] : {{.*}}) attrs = {__cublaslt_emulation__}
// EMU: arith.extf
// EMU-NOT: dtrt_cublaslt_matmul
#q = affine_map<(b, h, i, j, d) -> (b, i, h, d)>
#k = affine_map<(b, h, i, j, d) -> (b, j, h, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
func.func @scores(%q: memref<2x16x4x8xbf16>, %k: memref<2x16x4x8xbf16>, %s: memref<2x4x16x16xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x16x4x8xbf16>, memref<2x16x4x8xbf16>) outs(%s : memref<2x4x16x16xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %x = arith.extf %a : bf16 to f32
    %y = arith.extf %b : bf16 to f32
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A transposed A (the weight gradient x^T dy): A is stored k x m, trans_a.
// CHECK-LABEL: func.func @at_b
// CHECK: call @dtrt_cublaslt_matmul(%c0_i32, %c0_i32, %c1_i32, %c0_i32, %c1_i64, %c16_i64, %c8_i64, %c4_i64, %{{.*}}, %c16_i64, %c0_i64, %{{.*}}, %c8_i64, %c0_i64, %{{.*}}, %c8_i64, %c0_i64,
#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @at_b(%a: memref<4x16xf32>, %b: memref<4x8xf32>, %c: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x16xf32>, memref<4x8xf32>) outs(%c : memref<16x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The backward dh[m, n] = dy[m, k] w[n, k] written with w first: the first
// input holds the output's column dim, so the inputs swap roles (dy is A,
// w is B, stored n x k: trans_b).
// CHECK-LABEL: func.func @swapped
// CHECK: call @dtrt_cublaslt_matmul(%c0_i32, %c0_i32, %c0_i32, %c1_i32, %c1_i64, %c4_i64, %c32_i64, %c8_i64, %[[DY:.*]], %c8_i64, %c0_i64, %[[W:.*]], %c8_i64, %c0_i64, %{{.*}}, %c32_i64, %c0_i64,
func.func @swapped(%w: memref<32x8xf32>, %dy: memref<4x8xf32>, %dh: memref<4x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, k, m) -> (n, k)>, affine_map<(n, k, m) -> (m, k)>, affine_map<(n, k, m) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%w, %dy : memref<32x8xf32>, memref<4x8xf32>) outs(%dh : memref<4x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Not GEMMs: tensors, integer elements, a C with no contiguous dim, a
// body that is not a multiply-accumulate.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: dtrt_cublaslt_matmul
// CHECK: linalg.matmul ins(%{{.*}} : tensor<4x8xf32>
// CHECK: linalg.matmul ins(%{{.*}} : memref<4x8xi32>
// CHECK: linalg.matmul ins(%{{.*}} : memref<4x8xf32>, memref<8x16xf32>) outs(%{{.*}} : memref<4x16xf32, strided<[32, 2]>>)
// CHECK: linalg.generic
func.func @negative(%t: tensor<4x8xf32>, %u: tensor<8x16xf32>, %v: tensor<4x16xf32>,
                    %ia: memref<4x8xi32>, %ib: memref<8x16xi32>, %ic: memref<4x16xi32>,
                    %a: memref<4x8xf32>, %b: memref<8x16xf32>, %cs: memref<4x16xf32, strided<[32, 2]>>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%t, %u : tensor<4x8xf32>, tensor<8x16xf32>) outs(%v : tensor<4x16xf32>) -> tensor<4x16xf32>
  linalg.matmul ins(%ia, %ib : memref<4x8xi32>, memref<8x16xi32>) outs(%ic : memref<4x16xi32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%cs : memref<4x16xf32, strided<[32, 2]>>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%cs : memref<4x16xf32, strided<[32, 2]>>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.maxnumf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return %r : tensor<4x16xf32>
}
