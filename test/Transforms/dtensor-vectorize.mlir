// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-vectorize,canonicalize,cse))" -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-vectorize{vector-size=8}))" -split-input-file | FileCheck %s --check-prefix=SIZE8

// An elementwise op with a dynamic dim (uneven shard) and an inner dim not
// divisible by the vector size: one row at a time, 32 elements per vector,
// the last tile of each row masked.
// CHECK-LABEL: func.func @elementwise_dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?x100xf32>, %[[Y:.*]]: memref<?x100xf32>, %[[O:.*]]: memref<?x100xf32>)
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : index
// CHECK: %[[D:.*]] = memref.dim %[[X]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[D]] step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[C100]] step %[[C32]] {
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[M:.*]] = vector.create_mask %[[N]] : vector<32xi1>
// CHECK: %[[A:.*]] = vector.transfer_read %{{.*}}, %[[M]] {{.*}} vector<32xf32>
// CHECK: %[[B:.*]] = vector.transfer_read %{{.*}}, %[[M]] {{.*}} vector<32xf32>
// CHECK: %[[S:.*]] = arith.addf {{%[0-9]+, %[0-9]+}} : vector<32xf32>
// CHECK: vector.transfer_write %[[S]], %{{.*}}, %[[M]] {{.*}} : vector<32xf32>
// CHECK-NOT: linalg.generic
// SIZE8-LABEL: func.func @elementwise_dynamic
// SIZE8: vector.create_mask %{{.*}} : vector<8xi1>
// SIZE8: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @elementwise_dynamic(%x: memref<?x100xf32>, %y: memref<?x100xf32>, %o: memref<?x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<?x100xf32>, memref<?x100xf32>) outs(%o : memref<?x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A static innermost reduction of up to max-reduction-size elements is
// reduced whole in vector registers, one row per iteration.
// CHECK-LABEL: func.func @reduce_rows
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: %[[V:.*]] = vector.transfer_read {{.*}} vector<512xf32>
// CHECK: vector.reduction <add>, %[[V]], %{{.*}} : vector<512xf32> into f32
// CHECK-NOT: linalg.generic
func.func @reduce_rows(%x: memref<?x512xf32>, %o: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x512xf32>) outs(%o : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An outer reduction (a column sum, as in bias gradients): the reduced loop
// tiled by one, each step an elementwise vector add into the accumulator
// (no vector.reduction, no multi_reduction left).
// CHECK-LABEL: func.func @reduce_columns
// CHECK: scf.for
// CHECK: %[[A:.*]] = vector.transfer_read {{.*}} vector<32xf32>
// CHECK: %[[B:.*]] = vector.transfer_read {{.*}} vector<32xf32>
// CHECK: %[[S:.*]] = arith.addf {{%[0-9]+, %[0-9]+}} : vector<32xf32>
// CHECK: vector.transfer_write %[[S]]
// CHECK-NOT: vector.multi_reduction
// CHECK-NOT: vector.reduction
func.func @reduce_columns(%x: memref<4x32xf32>, %o: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4x32xf32>) outs(%o : memref<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A dynamic innermost reduction is tiled; in each tile the lanes past the
// row's end are set to the identity of the max (-inf) before an unmasked
// reduction (they were read as poison; the masked reduction's lowering let
// them take part).
// CHECK-LABEL: func.func @reduce_dynamic
// CHECK: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<32xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[M:.*]] = vector.create_mask %{{.*}} : vector<32xi1>
// CHECK: %[[R:.*]] = vector.transfer_read %{{.*}}, %[[M]]
// CHECK: %[[S:.*]] = arith.select %[[M]], %[[R]], %[[NEG]] : vector<32xi1>, vector<32xf32>
// CHECK-NOT: vector.mask
// CHECK: vector.shuffle %[[S]], %[[S]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
func.func @reduce_dynamic(%x: memref<8x?xf32>, %o: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x?xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maxnumf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A float max over a row of 2^k lanes is a tree of halves (log2 steps of
// whole-vector maxnumf), then the accumulator: no vector.reduction is left,
// whose LLVM lowering ends in one scalar max per lane of the last register.
// CHECK-LABEL: func.func @max_rows_tree
// CHECK: %[[V:.*]] = vector.transfer_read {{.*}} : memref<{{.*}}>, vector<128xf32>
// CHECK: %[[LO:.*]] = vector.shuffle %[[V]], %[[V]] [0, 1, {{.*}}, 63] : vector<128xf32>, vector<128xf32>
// CHECK: %[[HI:.*]] = vector.shuffle %[[V]], %[[V]] [64, 65, {{.*}}, 127] : vector<128xf32>, vector<128xf32>
// CHECK: %[[M64:.*]] = arith.maximumf %[[LO]], %[[HI]] : vector<64xf32>
// CHECK: arith.maximumf %{{.*}} : vector<32xf32>
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK: arith.maximumf %{{.*}} : vector<4xf32>
// CHECK: %[[M2:.*]] = arith.maximumf %{{.*}} : vector<2xf32>
// CHECK: %[[A:.*]] = vector.extract %[[M2]][0]
// CHECK: %[[B:.*]] = vector.extract %[[M2]][1]
// CHECK: %[[M1:.*]] = arith.maximumf %[[A]], %[[B]] : f32
// CHECK: arith.maximumf %[[M1]], %{{.*}} : f32
// CHECK-NOT: vector.reduction
// CHECK: return
// Of an odd number of lanes, the two halves share the middle one.
// CHECK-LABEL: func.func @min_rows_tree_uneven
// CHECK: vector.shuffle %{{.*}} [0, 1, {{.*}}, 47] : vector<96xf32>, vector<96xf32>
// CHECK: vector.shuffle %{{.*}} [48, 49, {{.*}}, 95] : vector<96xf32>, vector<96xf32>
// CHECK: arith.minnumf %{{.*}} : vector<48xf32>
// CHECK: arith.minnumf %{{.*}} : vector<24xf32>
// CHECK: arith.minnumf %{{.*}} : vector<12xf32>
// CHECK: arith.minnumf %{{.*}} : vector<6xf32>
// CHECK: %[[L3:.*]] = vector.shuffle %[[V6:.*]], %[[V6]] [0, 1, 2] : vector<6xf32>, vector<6xf32>
// CHECK: %[[H3:.*]] = vector.shuffle %[[V6]], %[[V6]] [3, 4, 5] : vector<6xf32>, vector<6xf32>
// CHECK: %[[M3:.*]] = arith.minnumf %[[L3]], %[[H3]] : vector<3xf32>
// CHECK: vector.shuffle %[[M3]], %[[M3]] [0, 1] : vector<3xf32>, vector<3xf32>
// CHECK: vector.shuffle %[[M3]], %[[M3]] [1, 2] : vector<3xf32>, vector<3xf32>
// CHECK: arith.minnumf %{{.*}} : vector<2xf32>
// CHECK-NOT: vector.reduction
// CHECK: return
func.func @max_rows_tree(%x: memref<4x128xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @min_rows_tree_uneven(%x: memref<4x96xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x96xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.minnumf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transpose moves the innermost dim: 16x16 blocks, each read by rows,
// transposed in registers by shuffles (unpack lo/hi of lane pairs first) and
// written by rows; no strided element gathers, no linalg op left.
// CHECK-LABEL: func.func @transpose_blocks
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C16:.*]] {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C16]] {
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%[[J]], %[[I]]] [16, 16] [1, 1]
// CHECK: %[[OUT:.*]] = memref.subview %{{.*}}[%[[I]], %[[J]]] [16, 16] [1, 1]
// CHECK: vector.transfer_read %[[IN]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true]} : memref<16x16xf32, strided<[64, 1], offset: ?>>, vector<16x16xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xf32>, vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<16x16xf32>
// CHECK-NOT: linalg.transpose
func.func @transpose_blocks(%x: memref<48x64xf32>, %o: memref<64x48xf32>) {
  linalg.transpose ins(%x : memref<48x64xf32>) outs(%o : memref<64x48xf32>) permutation = [1, 0]
  return
}

// -----

// A permutation with a loop between the two blocked ones (tiled by one): the
// block is read from the rank-reduced view (rows of the input), not through
// a transposing map over the unit dim; partial blocks masked.
// CHECK-LABEL: func.func @transpose_unit_between
// CHECK: %[[V:.*]] = memref.subview %{{.*}} : memref<?x1x?xf32, strided<[532, 28, 1], offset: ?>> to memref<?x?xf32, strided<[532, 1], offset: ?>>
// CHECK: vector.transfer_read %[[V]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} {in_bounds = [true, true]} : memref<?x?xf32, strided<[532, 1], offset: ?>>, vector<16x16xf32>
// CHECK-NOT: permutation_map
// CHECK: vector.transfer_write
func.func @transpose_unit_between(%x: memref<29x19x28xf32>, %o: memref<19x28x29xf32>) {
  linalg.transpose ins(%x : memref<29x19x28xf32>) outs(%o : memref<19x28x29xf32>) permutation = [1, 2, 0]
  return
}

// -----

// x^T + y: only x is read by blocks; y and the output by rows of the block.
// CHECK-LABEL: func.func @transposed_plus_direct
// CHECK-NOT: linalg.generic
// CHECK: vector.transfer_read %{{.*}} : memref<16x16xf32, strided<[48, 1], offset: ?>>, vector<16x16xf32>
// CHECK: vector.transfer_read %{{.*}} : memref<16x16xf32, strided<[32, 1], offset: ?>>, vector<16x16xf32>
// CHECK: arith.addf %{{.*}} : vector<16x16xf32>
func.func @transposed_plus_direct(%x: memref<32x48xf32>, %y: memref<48x32xf32>, %o: memref<48x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<32x48xf32>, memref<48x32xf32>) outs(%o : memref<48x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A permutation that keeps the innermost dim moves rows: no blocks.
// CHECK-LABEL: func.func @no_blocks_rows_kept
// CHECK-NOT: vector<16x16xf32>
// CHECK: vector.transfer_read {{.*}} vector<32xf32>
// CHECK-NOT: vector<16x16xf32>
func.func @no_blocks_rows_kept(%x: memref<4x5x64xf32>, %o: memref<5x4x64xf32>) {
  linalg.transpose ins(%x : memref<4x5x64xf32>) outs(%o : memref<5x4x64xf32>) permutation = [1, 0, 2]
  return
}

// -----

// A whole bf16 row of 8k+1 elements is 8(k+1) lanes, masked: LLVM 22's X86
// backend aborts on loads and stores of <9 x bfloat> for AVX-512 BF16 CPUs.
// CHECK-LABEL: func.func @bf16_row_of_nine
// CHECK: %[[M:.*]] = vector.constant_mask [9] : vector<16xi1>
// CHECK: vector.transfer_read %{{.*}}, %{{.*}}, %[[M]] {in_bounds = [true]} : memref<1x9xbf16, strided<[9, 1], offset: ?>>, vector<16xbf16>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}, %[[M]] {in_bounds = [true]} : vector<16xbf16>
// CHECK-NOT: vector<9xbf16>
func.func @bf16_row_of_nine(%x: memref<4x9xbf16>, %o: memref<4x9xbf16>) {
  linalg.negf ins(%x : memref<4x9xbf16>) outs(%o : memref<4x9xbf16>)
  return
}

// -----

// exp on f32 vectors becomes a polynomial (no math.exp, no libm call):
// upstream's reduction and coefficients, with k = roundeven(x log2 e) (one
// multiplication, not an fma and a floor) clamped above only.
// CHECK-LABEL: func.func @exp
// CHECK-NOT: math.exp
// CHECK-NOT: math.floor
// CHECK: %[[LOG2E:.*]] = arith.constant dense<1.44269502> : vector<32xf32>
// CHECK: %[[T:.*]] = arith.mulf %{{.*}}, %[[LOG2E]] : vector<32xf32>
// CHECK: math.roundeven %[[T]] : vector<32xf32>
// CHECK: math.fma {{.*}} : vector<32xf32>
// CHECK: arith.shli {{.*}} : vector<32xi32>
// CHECK-NOT: math.exp
// CHECK-NOT: math.floor
func.func @exp(%x: memref<4x64xf32>, %o: memref<4x64xf32>) {
  linalg.exp ins(%x : memref<4x64xf32>) outs(%o : memref<4x64xf32>)
  return
}

// -----

// Integers: compare, select and truncation on vectors.
// CHECK-LABEL: func.func @integers
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : vector<32xi32>
// CHECK: arith.select %{{.*}} : vector<32xi1>, vector<32xi32>
// CHECK: arith.trunci %{{.*}} : vector<32xi32> to vector<32xi8>
func.func @integers(%x: memref<?x40xi32>, %y: memref<?x40xi32>, %o: memref<?x40xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<?x40xi32>, memref<?x40xi32>) outs(%o : memref<?x40xi8>) {
  ^bb0(%a: i32, %b: i32, %c: i8):
    %p = arith.cmpi slt, %a, %b : i32
    %m = arith.select %p, %a, %b : i32
    %t = arith.trunci %m : i32 to i8
    linalg.yield %t : i8
  }
  return
}

// -----

// Why: a vector of i1 is bit-packed, a memref of i1 holds a byte per
// element; i1 ops stay linalg ops (loops later).
// CHECK-LABEL: func.func @negative_i1
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @negative_i1(%x: memref<64xi1>, %y: memref<64xi1>, %o: memref<64xi1>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x, %y : memref<64xi1>, memref<64xi1>) outs(%o : memref<64xi1>) {
  ^bb0(%a: i1, %b: i1, %c: i1):
    %s = arith.xori %a, %b : i1
    linalg.yield %s : i1
  }
  return
}

// -----

// Why: a matmul off BLAS reads B[k, n] with a stride along its innermost
// loop k; gathered one element at a time it would be slower than loops.
// CHECK-LABEL: func.func @negative_matmul_strided
// CHECK-NOT: vector.
// CHECK: linalg.matmul
func.func @negative_matmul_strided(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// Why: an output written across the innermost loop (here a weight gradient
// x^T dy whose result is indexed (d2, d1)) is not vectorized; it becomes
// loops later.
// CHECK-LABEL: func.func @negative_transposed_output
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @negative_transposed_output(%a: memref<4x32xf32>, %b: memref<4x4xf32>, %o: memref<32x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%a, %b : memref<4x32xf32>, memref<4x4xf32>) outs(%o : memref<32x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %y, %x : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A contraction whose operands are contiguous along the reduced innermost
// loop (the attention scores q k^T per row): vectorized, the reduction
// whole in a vector.
// CHECK-LABEL: func.func @dot_rows
// CHECK: %[[A:.*]] = vector.transfer_read {{.*}} vector<64xf32>
// CHECK: %[[B:.*]] = vector.transfer_read {{.*}} vector<64xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : vector<64xf32>
// CHECK: vector.reduction <add>, %[[P]], %{{.*}} : vector<64xf32> into f32
func.func @dot_rows(%q: memref<16x64xf32>, %k: memref<16x64xf32>, %s: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<16x64xf32>, memref<16x64xf32>) outs(%s : memref<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A row statistic broadcast along the row: its read, the division and the
// rsqrt on it run once per row, before the loop over the row's tiles (the
// loop does not write %s: it writes only %o, a fresh buffer). Only the
// input tile is read in that loop.
// CHECK-LABEL: func.func @hoist_row_statistic
// CHECK: scf.for
// CHECK: %[[S:.*]] = vector.transfer_read {{.*}} vector<f32>
// CHECK: %[[D:.*]] = arith.divf %[[S]]
// CHECK: %[[R:.*]] = math.rsqrt %[[D]] : vector<f32>
// CHECK: %[[B:.*]] = vector.broadcast %[[R]] : vector<f32> to vector<32xf32>
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} vector<32xf32>
// CHECK-NOT: vector.transfer_read
// CHECK-NOT: math.rsqrt
// CHECK: arith.mulf %{{.*}}, %[[B]] : vector<32xf32>
func.func @hoist_row_statistic(%x: memref<8x100xf32>, %s: memref<8xf32>) -> memref<8x100xf32> {
  %o = memref.alloc() : memref<8x100xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<8x100xf32>, memref<8xf32>) outs(%o : memref<8x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %n = arith.constant 100.0 : f32
    %m = arith.divf %b, %n : f32
    %r = math.rsqrt %m : f32
    %t = arith.mulf %a, %r : f32
    linalg.yield %t : f32
  }
  return %o : memref<8x100xf32>
}

// -----

// The same with the output a function argument: it may alias %s, so the
// statistic is read in the tile loop, after each tile's write.
// CHECK-LABEL: func.func @no_hoist_may_alias
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} vector<f32>
// CHECK: math.rsqrt
// CHECK: vector.transfer_write
func.func @no_hoist_may_alias(%x: memref<8x100xf32>, %s: memref<8xf32>, %o: memref<8x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<8x100xf32>, memref<8xf32>) outs(%o : memref<8x100xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = math.rsqrt %b : f32
    %t = arith.mulf %a, %r : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A buffer the loop writes through a linalg op that is not vectorized (a
// matmul whose B is read across its rows, whose effects are declared on the
// op, not in its region): the reduction's read of it stays after the write,
// in the loop (generated program seed 14 of check_run.py read the buffer
// once, before the loop, and reduced stale data; that op was a strided
// transpose, vectorized since).
// CHECK-LABEL: func.func @no_hoist_written_by_linalg
// CHECK: scf.for
// CHECK: linalg.matmul
// CHECK: vector.transfer_read {{.*}} vector<4xi32>
// CHECK: vector.reduction <maxsi>
func.func @no_hoist_written_by_linalg(%x: memref<5x3xi32>, %w: memref<3x4xi32>, %o: memref<5xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %buf = memref.alloc() : memref<1x4xi32>
  scf.for %i = %c0 to %c5 step %c1 {
    %row = memref.subview %x[%i, 0] [1, 3] [1, 1] : memref<5x3xi32> to memref<1x3xi32, strided<[3, 1], offset: ?>>
    linalg.matmul ins(%row, %w : memref<1x3xi32, strided<[3, 1], offset: ?>>, memref<3x4xi32>) outs(%buf : memref<1x4xi32>)
    %oi = memref.subview %o[%i] [1] [1] : memref<5xi32> to memref<1xi32, strided<[1], offset: ?>>
    linalg.reduce ins(%buf : memref<1x4xi32>) outs(%oi : memref<1xi32, strided<[1], offset: ?>>) dimensions = [1]
      (%in: i32, %init: i32) {
        %m = arith.maxsi %in, %init : i32
        linalg.yield %m : i32
      }
  }
  memref.dealloc %buf : memref<1x4xi32>
  return
}
