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

// Not GEMMs: tensors, integer elements, a body that is not a
// multiply-accumulate.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: dtrt_cublaslt_matmul
// CHECK: linalg.matmul ins(%{{.*}} : tensor<4x8xf32>
// CHECK: linalg.matmul ins(%{{.*}} : memref<4x8xi32>
// CHECK: linalg.generic
func.func @negative(%t: tensor<4x8xf32>, %u: tensor<8x16xf32>, %v: tensor<4x16xf32>,
                    %ia: memref<4x8xi32>, %ib: memref<8x16xi32>, %ic: memref<4x16xi32>,
                    %a: memref<4x8xf32>, %b: memref<8x16xf32>, %cs: memref<4x16xf32, strided<[32, 2]>>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%t, %u : tensor<4x8xf32>, tensor<8x16xf32>) outs(%v : tensor<4x16xf32>) -> tensor<4x16xf32>
  linalg.matmul ins(%ia, %ib : memref<4x8xi32>, memref<8x16xi32>) outs(%ic : memref<4x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%cs : memref<4x16xf32, strided<[32, 2]>>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.maxnumf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return %r : tensor<4x16xf32>
}

// -----

// fill 0 + matmul + the in-place bias add and relu of a Linear layer: one
// call with beta = 0, the bias pointer (the aligned pointer of %bias) and
// DTRT_EPILOGUE_BIAS_RELU (3); no fill, no elementwise op left.
// CHECK-LABEL: func.func @bias_relu
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[BIAS_RELU:.*]] = arith.constant 3 : i32
// CHECK: %[[C:.*]] = memref.alloc(){{.*}}: memref<4x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<16xf32>
// CHECK: %[[IB:.*]] = arith.index_cast %[[PB]] : index to i64
// CHECK: call @dtrt_cublaslt_matmul({{.*}}, %[[ONE]], %[[ZERO]], %[[IB]], %[[BIAS_RELU]])
// CHECK-NOT: linalg.generic
// CHECK: return %[[C]]
// EMU-LABEL: func.func @bias_relu
// EMU: %[[VC:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1, 4, 16], strides: [0, 16, 1]
// EMU: linalg.fill ins(%{{.*}} : f32) outs(%[[VC]] :
// EMU: linalg.generic {{.*}} outs(%[[VC]] : {{.*}}) attrs = {__cublaslt_emulation__}
// EMU: linalg.generic {{.*}} ins(%[[VC]], %{{.*}} : {{.*}}, memref<16xf32>) outs(%[[VC]] :
// EMU: arith.addf
// EMU: arith.maximumf
// EMU-NOT: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %bias: memref<16xf32>) -> memref<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%z : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<4x16xf32>, memref<16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %y, %x : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return %c : memref<4x16xf32>
}

// -----

// relu alone (maxnumf, zero first): DTRT_EPILOGUE_RELU (1), no bias
// (null pointer); the output is not zero-filled (a non-zero fill): beta = 1
// and the fill stays.
// CHECK-LABEL: func.func @relu
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NULL:.*]] = arith.constant 0 : i64
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C:.*]] : memref<4x16xf32>)
// CHECK: call @dtrt_cublaslt_matmul({{.*}}, %[[ONE]], %[[ONE]], %[[NULL]], %[[RELU]])
// CHECK-NOT: linalg.generic
// EMU-LABEL: func.func @relu
// EMU: linalg.fill
// EMU: linalg.generic {{.*}} attrs = {__cublaslt_emulation__}
// EMU: linalg.generic
// EMU-NOT: arith.addf
// EMU: arith.maximumf
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%a: memref<4x8xf32>, %b: memref<8x16xf32>) -> memref<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%half : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maxnumf %z, %x : f32
    linalg.yield %r : f32
  }
  return %c : memref<4x16xf32>
}

// -----

// A bias add alone in bf16 (DTRT_EPILOGUE_BIAS, 2), and a zero fill shared
// through a copy (what bufferization makes of one fill feeding several
// GEMMs): beta = 0 and the copy erased (the fill of the source stays: only
// the GEMM's own output is followed).
// CHECK-LABEL: func.func @bias_copy
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[BIAS:.*]] = arith.constant 2 : i32
// CHECK-NOT: memref.copy
// CHECK: call @dtrt_cublaslt_matmul(%c8_i32, %c8_i32, {{.*}}, %[[ZERO]], %{{.*}}, %[[BIAS]])
// CHECK-NOT: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_copy(%a: memref<4x8xbf16>, %b: memref<8x16xbf16>, %bias: memref<16xbf16>) -> memref<4x16xbf16> {
  %z = arith.constant 0.0 : bf16
  %zeros = memref.alloc() : memref<4x16xbf16>
  linalg.fill ins(%z : bf16) outs(%zeros : memref<4x16xbf16>)
  %c = memref.alloc() : memref<4x16xbf16>
  memref.copy %zeros, %c : memref<4x16xbf16> to memref<4x16xbf16>
  linalg.matmul ins(%a, %b : memref<4x8xbf16>, memref<8x16xbf16>) outs(%c : memref<4x16xbf16>)
  linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<4x16xbf16>, memref<16xbf16>) outs(%c : memref<4x16xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %s = arith.addf %x, %y : bf16
    linalg.yield %s : bf16
  }
  memref.dealloc %zeros : memref<4x16xbf16>
  return %c : memref<4x16xbf16>
}

// -----

// No epilogue: the output is a function argument (not a fresh allocation),
// the elementwise op writes another buffer, the output is read in between,
// the body does more than bias + relu. Every call gets epilogue 0 (no
// bias) and beta = 1 (no zero fill), and every elementwise op stays.
// CHECK-LABEL: func.func @no_epilogue
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @dtrt_cublaslt_matmul({{.*}}, %[[ONE]], %[[ONE]], %c0_i64, %c0_i32)
// CHECK: linalg.generic
// CHECK: call @dtrt_cublaslt_matmul({{.*}}, %[[ONE]], %[[ONE]], %c0_i64, %c0_i32)
// CHECK: linalg.generic
// CHECK: call @dtrt_cublaslt_matmul({{.*}}, %[[ONE]], %[[ONE]], %c0_i64, %c0_i32)
// CHECK: memref.copy
// CHECK: linalg.generic
// CHECK: call @dtrt_cublaslt_matmul({{.*}}, %[[ONE]], %[[ONE]], %c0_i64, %c0_i32)
// CHECK: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_epilogue(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %arg: memref<4x16xf32>, %other: memref<4x16xf32>) -> (memref<4x16xf32>, memref<4x16xf32>, memref<4x16xf32>) {
  %z = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%arg : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%arg : memref<4x16xf32>) outs(%arg : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  }
  %c1 = memref.alloc() : memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c1 : memref<4x16xf32>)
  %d1 = memref.alloc() : memref<4x16xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c1 : memref<4x16xf32>) outs(%d1 : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  }
  %c2 = memref.alloc() : memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c2 : memref<4x16xf32>)
  memref.copy %c2, %other : memref<4x16xf32> to memref<4x16xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c2 : memref<4x16xf32>) outs(%c2 : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  }
  %c3 = memref.alloc() : memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c3 : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c3 : memref<4x16xf32>) outs(%c3 : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %two : f32
    %r = arith.maximumf %m, %z : f32
    linalg.yield %r : f32
  }
  return %d1, %c2, %c3 : memref<4x16xf32>, memref<4x16xf32>, memref<4x16xf32>
}

// -----

// Packing: GEMMs but for their buffers' layouts.

// A batch dim innermost in A: A is transposed into a packed [b, m, k]
// copy; the call reads the copy (lda 8, batch stride 32), B and C in
// place; the zero fill of the fresh C gives beta = 0 and goes.
#a = affine_map<(b, m, n, k) -> (m, k, b)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @pack_batch_innermost
// CHECK-SAME: (%[[X:.*]]: memref<4x8x3xf32>, %[[Y:.*]]: memref<3x8x16xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: %[[PA:.*]] = memref.alloc() : memref<3x4x8xf32>
// CHECK: linalg.transpose ins(%[[X]] : memref<4x8x3xf32>) outs(%[[PA]] : memref<3x4x8xf32>) permutation = [2, 0, 1]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[PA]]
// CHECK: %[[IA:.*]] = arith.index_cast %[[PTR]]
// CHECK: call @dtrt_cublaslt_matmul(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c3_i64, %c4_i64, %c16_i64, %c8_i64, %[[IA]], %c8_i64, %c32_i64, %{{.*}}, %c16_i64, %c128_i64, %{{.*}}, %c16_i64, %c64_i64, %[[ONE]], %[[ZERO]],
// CHECK: memref.dealloc %[[PA]]
// CHECK-NOT: linalg.generic
// EMU-LABEL: func.func @pack_batch_innermost
// EMU: linalg.transpose
// EMU: linalg.generic {{.*}} attrs = {__cublaslt_emulation__}
// EMU-NOT: dtrt_cublaslt_matmul
func.func @pack_batch_innermost(%x: memref<4x8x3xf32>, %y: memref<3x8x16xf32>) -> memref<3x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() : memref<3x4x16xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<3x4x16xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<4x8x3xf32>, memref<3x8x16xf32>) outs(%o : memref<3x4x16xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %o : memref<3x4x16xf32>
}

// A C with no contiguous dim, accumulated into: copied into a packed C,
// the call on it with beta = 1, the copy transposed back and freed.
// CHECK-LABEL: func.func @pack_strided_c
// CHECK-SAME: (%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<8x16xf32>, %[[CS:.*]]: memref<4x16xf32, strided<[32, 2]>>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[PC:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK: linalg.transpose ins(%[[CS]] : {{.*}}) outs(%[[PC]] : memref<4x16xf32>) permutation = [0, 1]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[PC]]
// CHECK: %[[IC:.*]] = arith.index_cast %[[PTR]]
// CHECK: call @dtrt_cublaslt_matmul(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c1_i64, %c4_i64, %c16_i64, %c8_i64, %{{.*}}, %c8_i64, %c0_i64, %{{.*}}, %c16_i64, %c0_i64, %[[IC]], %c16_i64, %c0_i64, %[[ONE]], %[[ONE]],
// CHECK: linalg.transpose ins(%[[PC]] : memref<4x16xf32>) outs(%[[CS]] : {{.*}}) permutation = [0, 1]
// CHECK: memref.dealloc %[[PC]]
func.func @pack_strided_c(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %cs: memref<4x16xf32, strided<[32, 2]>>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%cs : memref<4x16xf32, strided<[32, 2]>>)
  return
}

// An n group (h, d) stored in C as [d, m, h], C holding zeros: the packed
// C [m, h, d] is not copied in (beta = 0, no fill left), the result is
// transposed back with the inverse permutation [2, 0, 1] (not a
// self-inverse one).
#a3 = affine_map<(m, h, d, k) -> (m, k)>
#b3 = affine_map<(m, h, d, k) -> (k, h, d)>
#c3 = affine_map<(m, h, d, k) -> (d, m, h)>
// CHECK-LABEL: func.func @pack_c_zero
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: %[[O:.*]] = memref.alloc() : memref<4x7x3xf32>
// CHECK: %[[PC:.*]] = memref.alloc() : memref<7x3x4xf32>
// CHECK-NOT: linalg.transpose
// CHECK: call @dtrt_cublaslt_matmul(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c1_i64, %c7_i64, %c12_i64, %c9_i64, {{.*}}, %[[ONE]], %[[ZERO]],
// CHECK: linalg.transpose ins(%[[PC]] : memref<7x3x4xf32>) outs(%[[O]] : memref<4x7x3xf32>) permutation = [2, 0, 1]
// CHECK: memref.dealloc %[[PC]]
func.func @pack_c_zero(%x: memref<7x9xf32>, %y: memref<9x3x4xf32>) -> memref<4x7x3xf32> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() : memref<4x7x3xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<4x7x3xf32>)
  linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<7x9xf32>, memref<9x3x4xf32>) outs(%o : memref<4x7x3xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %o : memref<4x7x3xf32>
}

// Why: an m group (s, t) split by k with a dynamic size; a packed copy
// would have dynamic strides inside the group: left to the kernel path.
#a2 = affine_map<(s, t, n, k) -> (s, k, t)>
#b2 = affine_map<(s, t, n, k) -> (k, n)>
#c2 = affine_map<(s, t, n, k) -> (s, t, n)>
// CHECK-LABEL: func.func @no_pack_dynamic_group
// CHECK-NOT: dtrt_cublaslt_matmul
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic
func.func @no_pack_dynamic_group(%x: memref<5x12x?xf32>, %y: memref<12x10xf32>, %o: memref<5x?x10xf32>) {
  linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<5x12x?xf32>, memref<12x10xf32>) outs(%o : memref<5x?x10xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
