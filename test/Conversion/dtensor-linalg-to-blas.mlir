// RUN: dtensor-opt %s -split-input-file --dtensor-linalg-to-blas=small-gemm-macs=0 -cse | FileCheck %s
// RUN: dtensor-opt %s -split-input-file --dtensor-linalg-to-blas="fold-zero-fill=false small-gemm-macs=0" -cse | FileCheck %s --check-prefix=NOFOLD

// NOFOLD-LABEL: func.func @beta_zero_fill
// NOFOLD: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// NOFOLD: linalg.fill ins(%[[ZERO]] : f32)
// NOFOLD: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// NOFOLD: call @cblas_sgemm({{.*}}, %c16_i32, %[[ONE]], %{{.*}}, %c16_i32)

// A matmul on row-contiguous buffers: row major (101), no transposes (111),
// M N K = 4 16 8, lda ldb ldc = 8 16 16, alpha = beta = 1 (C += A B).
// CHECK-LABEL: func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, i64, i32, i64, i32, f32, i64, i32)
// CHECK-LABEL: func.func @sgemm
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %[[ONE]], %{{.*}}, %c8_i32, %{{.*}}, %c16_i32, %[[ONE]], %{{.*}}, %c16_i32)
// CHECK-NOT: linalg.matmul
func.func @sgemm(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A read as (k, m): CblasTrans (112) with lda = M = 4, no copy.
// CHECK-LABEL: func.func @matmul_transpose_a
// CHECK-NOT: linalg
// CHECK: call @cblas_sgemm(%c101_i32, %c112_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c4_i32, %{{.*}}, %c16_i32, %{{.*}}, %{{.*}}, %c16_i32)
// CHECK-NOT: linalg
func.func @matmul_transpose_a(%a: memref<8x4xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8x4xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// B read as (n, k): transB with ldb = K = 8.
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK-NOT: linalg
// CHECK: call @cblas_sgemm(%c101_i32, %c111_i32, %c112_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c8_i32, %{{.*}}, %c8_i32, %{{.*}}, %{{.*}}, %c16_i32)
func.func @matmul_transpose_b(%a: memref<4x8xf32>, %b: memref<16x8xf32>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<4x8xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// linalg.contract with A read as (k, m): the same call as matmul_transpose_a.
// CHECK-LABEL: func.func @contract_transpose_a
// CHECK-NOT: linalg
// CHECK: call @cblas_sgemm(%c101_i32, %c112_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c4_i32, %{{.*}}, %c16_i32, %{{.*}}, %{{.*}}, %c16_i32)
// CHECK-NOT: linalg
func.func @contract_transpose_a(%a: memref<8x4xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.contract indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8x4xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// An output contiguous along m: column major (102), the row-major inputs
// then transposed, ldc = 4; f64 calls cblas_dgemm.
// CHECK-LABEL: func.func private @cblas_dgemm(i32, i32, i32, i32, i32, i32, f64, i64, i32, i64, i32, f64, i64, i32)
// CHECK-LABEL: func.func @dgemm_column_major_output
// CHECK: call @cblas_dgemm(%c102_i32, %c112_i32, %c112_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c8_i32, %{{.*}}, %c16_i32, %{{.*}}, %{{.*}}, %c4_i32)
// CHECK-NOT: linalg.matmul
func.func @dgemm_column_major_output(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64, strided<[1, 4]>>) {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64, strided<[1, 4]>>)
  return
}

// -----

// One call per batch in a scf.for, each operand's pointer advanced by its
// batch stride (32, 128, 64 elements of 4 bytes).
// CHECK-LABEL: func.func @batch_matmul
// CHECK: scf.for %[[B:.*]] = %c0 to %c3 step %c1 {
// CHECK:   %[[OA:.*]] = arith.muli %[[B]], %c32 : index
// CHECK:   %[[PA:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK:   arith.muli %[[OA]], %c4 : index
// CHECK:   arith.muli %[[B]], %c128 : index
// CHECK:   arith.muli %[[B]], %c64 : index
// CHECK:   func.call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c8_i32, %{{.*}}, %c16_i32, %{{.*}}, %{{.*}}, %c16_i32)
// CHECK: }
// CHECK-NOT: linalg.batch_matmul
func.func @batch_matmul(%a: memref<3x4x8xf32>, %b: memref<3x8x16xf32>, %c: memref<3x4x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x4x8xf32>, memref<3x8x16xf32>) outs(%c : memref<3x4x16xf32>)
  return
}

// -----

// The Block's scores q k^T per (batch, head) as examples/block.mlir writes
// them: loops over b and h, q untransposed with lda = H*D = 64, k
// transposed (ldb = 64), scores rows of 8.
// CHECK-LABEL: func.func @attention_scores
// CHECK: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK:   scf.for %[[H:.*]] = %c0 to %c4 step %c1 {
// CHECK:     arith.muli %[[B]], %c512 : index
// CHECK:     arith.muli %[[H]], %c16 : index
// CHECK:     arith.muli %[[B]], %c256 : index
// CHECK:     arith.muli %[[H]], %c64 : index
// CHECK:     func.call @cblas_sgemm(%c101_i32, %c111_i32, %c112_i32, %c8_i32, %c8_i32, %c16_i32, %{{.*}}, %{{.*}}, %c64_i32, %{{.*}}, %c64_i32, %{{.*}}, %{{.*}}, %c8_i32)
// CHECK-NOT: linalg.generic
#q = affine_map<(b, h, i, j, d) -> (b, i, h, d)>
#k = affine_map<(b, h, i, j, d) -> (b, j, h, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
func.func @attention_scores(%q: memref<2x8x4x16xf32>, %k: memref<2x8x4x16xf32>, %s: memref<2x4x8x8xf32>) {
  linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x8x4x16xf32>, memref<2x8x4x16xf32>) outs(%s : memref<2x4x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// p v per (batch, head): M N K = 8 16 8, lda = 8, v and o with rows of
// H*D = 64 (the body's operands of addf swapped is still a contraction).
// CHECK-LABEL: func.func @attention_values
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     func.call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c8_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c8_i32, %{{.*}}, %c64_i32, %{{.*}}, %{{.*}}, %c64_i32)
// CHECK-NOT: linalg.generic
#p = affine_map<(b, i, h, d, j) -> (b, h, i, j)>
#v = affine_map<(b, i, h, d, j) -> (b, j, h, d)>
#o = affine_map<(b, i, h, d, j) -> (b, i, h, d)>
func.func @attention_values(%p: memref<2x4x8x8xf32>, %v: memref<2x8x4x16xf32>, %o: memref<2x8x4x16xf32>) {
  linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<2x4x8x8xf32>, memref<2x8x4x16xf32>) outs(%o : memref<2x8x4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %m, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A view with an offset (35 elements = 140 bytes) and rows of 16.
// CHECK-LABEL: func.func @strided_view
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %subview
// CHECK: %[[OFF:.*]] = arith.muli %c35, %c4 : index
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[OFF]] : index
// CHECK: %[[PA:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK: call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %[[PA]], %c16_i32, %{{.*}}, %c16_i32, %{{.*}}, %{{.*}}, %c16_i32)
func.func @strided_view(%big: memref<8x16xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %a = memref.subview %big[2, 3] [4, 8] [1, 1] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 35>>
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[16, 1], offset: 35>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A dynamic M (an uneven shard) is checked to fit BLAS's 32-bit sizes at
// run time, the linalg op as the fallback.
// CHECK-LABEL: func.func @dynamic
// CHECK: %{{.*}}, %{{.*}}, %[[SA:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata %arg0
// CHECK: arith.cmpi sle, %[[SA]]#0, %c2147483647 : index
// CHECK: %{{.*}}, %{{.*}}, %[[SC:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata %arg2
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: scf.if %[[OK]] {
// CHECK:   %[[M:.*]] = arith.index_cast %[[SC]]#0 : index to i32
// CHECK:   func.call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %[[M]], %c16_i32, %c8_i32,
// CHECK: } else {
// CHECK:   linalg.matmul
// CHECK: }
func.func @dynamic(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  return
}

// -----

// A zero-filled fresh output: beta = 0 and no fill left.
// CHECK-LABEL: func.func @beta_zero_fill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %[[ONE]], %{{.*}}, %c8_i32, %{{.*}}, %c16_i32, %[[ZERO]], %{{.*}}, %c16_i32)
// CHECK-NOT: linalg.fill
func.func @beta_zero_fill(%a: memref<4x8xf32>, %b: memref<8x16xf32>) -> memref<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return %c : memref<4x16xf32>
}

// -----

// What bufferization makes of one zero fill shared by several matmuls: a
// filled buffer copied into each output. Every call gets beta = 0; the copies
// and, once they are gone, the fill itself (the last matmul overwrites it)
// are erased.
// CHECK-LABEL: func.func @beta_zero_shared_fill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: call @cblas_sgemm({{.*}}, %[[ZERO]], %{{.*}}, %c16_i32)
// CHECK-NOT: memref.copy
// CHECK: call @cblas_sgemm({{.*}}, %[[ZERO]], %{{.*}}, %c16_i32)
// CHECK: call @cblas_sgemm({{.*}}, %[[ZERO]], %{{.*}}, %c16_i32)
// CHECK-NOT: linalg.fill
func.func @beta_zero_shared_fill(%a: memref<4x8xf32>, %b: memref<8x16xf32>) -> (memref<4x16xf32>, memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x16xf32>)
  %c1 = memref.alloc() : memref<4x16xf32>
  memref.copy %z, %c1 : memref<4x16xf32> to memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c1 : memref<4x16xf32>)
  %c2 = memref.alloc() : memref<4x16xf32>
  memref.copy %z, %c2 : memref<4x16xf32> to memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c2 : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%z : memref<4x16xf32>)
  memref.dealloc %z : memref<4x16xf32>
  return %c1, %c2 : memref<4x16xf32>, memref<4x16xf32>
}

// -----

// The zeros are read before the matmul: beta = 0, the fill stays.
// CHECK-LABEL: func.func @beta_zero_fill_read_before
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32)
// CHECK: memref.copy
// CHECK: call @cblas_sgemm({{.*}}, %[[ZERO]], %{{.*}}, %c16_i32)
func.func @beta_zero_fill_read_before(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %keep: memref<4x16xf32>) -> memref<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  memref.copy %c, %keep : memref<4x16xf32> to memref<4x16xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return %c : memref<4x16xf32>
}

// -----

// A fill with 1: kept, beta = 1.
// CHECK-LABEL: func.func @negative_beta_nonzero_fill
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: call @cblas_sgemm({{.*}}, %c16_i32, %[[ONE]], %{{.*}}, %c16_i32)
func.func @negative_beta_nonzero_fill(%a: memref<4x8xf32>, %b: memref<8x16xf32>) -> memref<4x16xf32> {
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%one : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return %c : memref<4x16xf32>
}

// -----

// A row rewritten between the zero fill and the matmul: beta = 1.
// CHECK-LABEL: func.func @negative_beta_write_between
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32)
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: call @cblas_sgemm({{.*}}, %c16_i32, %[[ONE]], %{{.*}}, %c16_i32)
func.func @negative_beta_write_between(%a: memref<4x8xf32>, %b: memref<8x16xf32>) -> memref<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  %row = memref.subview %c[1, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: 16>>
  linalg.fill ins(%one : f32) outs(%row : memref<16xf32, strided<[1], offset: 16>>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return %c : memref<4x16xf32>
}

// -----

// A zero-filled argument may alias the inputs: beta = 1, fill kept.
// CHECK-LABEL: func.func @negative_beta_argument
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @cblas_sgemm({{.*}}, %c16_i32, %[[ONE]], %{{.*}}, %c16_i32)
func.func @negative_beta_argument(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// No unit stride on either dim of A: A is packed (copied by a
// linalg.transpose into a fresh 4x8 buffer), the call reads the copy (lda
// 8), the copy is freed; B and C are read in place.
// CHECK-LABEL: func.func @pack_inner_stride
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32, strided<[16, 2]>>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK: %[[P:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: linalg.transpose ins(%[[A]] : memref<4x8xf32, strided<[16, 2]>>) outs(%[[P]] : memref<4x8xf32>) permutation = [0, 1]
// CHECK-NOT: linalg.matmul
// CHECK: memref.extract_aligned_pointer_as_index %[[P]]
// CHECK: call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c8_i32,
// CHECK: memref.dealloc %[[P]]
// NOFOLD-LABEL: func.func @pack_inner_stride
// NOFOLD: linalg.transpose
// NOFOLD: call @cblas_sgemm
func.func @pack_inner_stride(%a: memref<4x8xf32, strided<[16, 2]>>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[16, 2]>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A batch dim innermost in A and C: neither has a unit stride on a GEMM
// dim. Both are packed ([b, m, k], [b, m, n]); C holds zeros, so its copy is
// zero-filled (then folded into beta = 0), not copied in, and transposed
// back into C after the calls.
#pa = affine_map<(b, m, n, k) -> (m, k, b)>
#pb = affine_map<(b, m, n, k) -> (b, k, n)>
#pc = affine_map<(b, m, n, k) -> (m, n, b)>
// CHECK-LABEL: func.func @pack_batch_innermost
// CHECK: %[[O:.*]] = memref.alloc() : memref<4x16x3xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[PA:.*]] = memref.alloc() : memref<3x4x8xf32>
// CHECK: linalg.transpose ins(%{{.*}} : memref<4x8x3xf32>) outs(%[[PA]] : memref<3x4x8xf32>) permutation = [2, 0, 1]
// CHECK: %[[PC:.*]] = memref.alloc() : memref<3x4x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: func.call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32, %{{.*}}, %{{.*}}, %c8_i32, %{{.*}}, %c16_i32, %[[ZERO]], %{{.*}}, %c16_i32)
// CHECK: linalg.transpose ins(%[[PC]] : memref<3x4x16xf32>) outs(%[[O]] : memref<4x16x3xf32>) permutation = [1, 2, 0]
// CHECK-DAG: memref.dealloc %[[PA]]
// CHECK-DAG: memref.dealloc %[[PC]]
func.func @pack_batch_innermost(%x: memref<4x8x3xf32>, %y: memref<3x8x16xf32>) -> memref<4x16x3xf32> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() : memref<4x16x3xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<4x16x3xf32>)
  linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<4x8x3xf32>, memref<3x8x16xf32>) outs(%o : memref<4x16x3xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %o : memref<4x16x3xf32>
}

// -----

// 16-bit floats: OpenBLAS has no bf16/f16 GEMM, so the contraction runs as
// an f32 one, rounded once. A and B are extended into f32 copies; C (bf16,
// holding zeros) gets a zero f32 copy (folded into beta = 0), truncated
// back into C after the call.
// CHECK-LABEL: func.func @upcast_bf16
// CHECK-SAME: (%[[A:.*]]: memref<4x8xbf16>, %[[B:.*]]: memref<8x16xbf16>)
// CHECK: %[[C:.*]] = memref.alloc() : memref<4x16xbf16>
// CHECK-NOT: linalg.fill
// CHECK: %[[PA:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4x8xbf16>) outs(%[[PA]] : memref<4x8xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[PB:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: arith.extf
// CHECK: %[[PC:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: call @cblas_sgemm(%c101_i32, %c111_i32, %c111_i32, %c4_i32, %c16_i32, %c8_i32,
// CHECK: linalg.generic {{.*}} ins(%[[PC]] : memref<4x16xf32>) outs(%[[C]] : memref<4x16xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: linalg.matmul
func.func @upcast_bf16(%a: memref<4x8xbf16>, %b: memref<8x16xbf16>) -> memref<4x16xbf16> {
  %zero = arith.constant 0.0 : bf16
  %c = memref.alloc() : memref<4x16xbf16>
  linalg.fill ins(%zero : bf16) outs(%c : memref<4x16xbf16>)
  linalg.matmul ins(%a, %b : memref<4x8xbf16>, memref<8x16xbf16>) outs(%c : memref<4x16xbf16>)
  return %c : memref<4x16xbf16>
}

// f16 inputs extended in the body into an f32 accumulator: only A and B
// are copied; C is the GEMM's output in place (beta = 1: an accumulator).
// CHECK-LABEL: func.func @upcast_f16_f32_acc
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf16>, %[[B:.*]]: memref<8x16xf16>, %[[C:.*]]: memref<4x16xf32>)
// CHECK-COUNT-2: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[IC:.*]] = memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: call @cblas_sgemm
// CHECK-NOT: arith.truncf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @upcast_f16_f32_acc(%a: memref<4x8xf16>, %b: memref<8x16xf16>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf16>, memref<8x16xf16>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @negative_integer
// CHECK: linalg.matmul
// CHECK-NOT: call @cblas
func.func @negative_integer(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %c: memref<4x16xi32>) {
  linalg.matmul ins(%a, %b : memref<4x8xi32>, memref<8x16xi32>) outs(%c : memref<4x16xi32>)
  return
}

// -----

// bf16 inputs with f32 accumulation (linalg.matmul extends them in its
// body): the inputs extended into f32 copies, C the GEMM's output in place.
// CHECK-LABEL: func.func @upcast_mixed_types
// CHECK-NOT: linalg.matmul
// CHECK-COUNT-2: arith.extf %{{.*}} : bf16 to f32
// CHECK: call @cblas_sgemm
// CHECK-NOT: linalg.matmul
func.func @upcast_mixed_types(%a: memref<4x8xbf16>, %b: memref<8x16xbf16>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xbf16>, memref<8x16xbf16>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Two k loops: not one GEMM.
// CHECK-LABEL: func.func @negative_two_reductions
// CHECK: linalg.generic
// CHECK-NOT: cblas
#a2 = affine_map<(m, n, k, l) -> (m, k, l)>
#b2 = affine_map<(m, n, k, l) -> (k, l, n)>
#c2 = affine_map<(m, n, k, l) -> (m, n)>
func.func @negative_two_reductions(%a: memref<4x8x2xf32>, %b: memref<8x2x16xf32>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<4x8x2xf32>, memref<8x2x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A contraction body with a negf (isaContractionOpInterface accepts unary
// ops on the way): not a GEMM.
// CHECK-LABEL: func.func @negative_not_mul_add
// CHECK: linalg.generic
// CHECK-NOT: cblas
#a1 = affine_map<(m, n, k) -> (m, k)>
#b1 = affine_map<(m, n, k) -> (k, n)>
#c1 = affine_map<(m, n, k) -> (m, n)>
func.func @negative_not_mul_add(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#a1, #b1, #c1], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %nx = arith.negf %x : f32
    %m = arith.mulf %nx, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Only buffers.
// CHECK-LABEL: func.func @negative_tensors
// CHECK: linalg.matmul
// CHECK-NOT: cblas
func.func @negative_tensors(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
