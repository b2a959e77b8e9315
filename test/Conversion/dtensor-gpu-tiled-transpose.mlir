// RUN: dtensor-opt %s --dtensor-gpu-tiled-transpose -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-gpu-tiled-transpose="tile-size=16 block-rows=4 emulate=true" -split-input-file | FileCheck %s --check-prefix=EMU

// A [1, 0] transpose: out[i, j] = a[j, i]. One block per 32 x 32 tile
// (96 / 32 * 64 / 32 = 6 blocks) of 32 x 8 threads. Phase 1: lane tx reads
// a[j0 + ty + k, i0 + tx] (consecutive lanes, consecutive addresses of a)
// into tile[ty + k, tx]; after the barrier lane tx writes
// out[i0 + ty + k, j0 + tx] from tile[tx, ty + k] (consecutive addresses of
// out). Both phases are masked to the buffers' sizes.

// CHECK-LABEL: func.func @transpose_2d
// CHECK-SAME: (%[[A:.*]]: memref<64x96xf32>, %[[O:.*]]: memref<96x64xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C6]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %[[C8]], %{{.*}} = %{{.*}}) workgroup(%[[TILE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[J0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[I0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[ROW:.*]] = arith.addi %[[TY]], %[[K]] : index
// CHECK:   %[[J:.*]] = arith.addi %[[J0]], %[[ROW]] : index
// CHECK:   %[[I:.*]] = arith.addi %[[I0]], %[[TX]] : index
// CHECK:   %[[IN_I:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : index
// CHECK:   %[[IN_J:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK:   %[[IN:.*]] = arith.andi %[[IN_J]], %[[IN_I]] : i1
// CHECK:   scf.if %[[IN]] {
// CHECK:     %[[V:.*]] = memref.load %[[A]][%[[J]], %[[I]]] : memref<64x96xf32>
// CHECK:     memref.store %[[V]], %[[TILE]][%[[ROW]], %[[TX]]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[K2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[ROW2:.*]] = arith.addi %[[TY]], %[[K2]] : index
// CHECK:   %[[I2:.*]] = arith.addi %[[I0]], %[[ROW2]] : index
// CHECK:   %[[J2:.*]] = arith.addi %[[J0]], %[[TX]] : index
// CHECK:   scf.if
// CHECK:     %[[W:.*]] = memref.load %[[TILE]][%[[TX]], %[[ROW2]]]
// CHECK:     memref.store %[[W]], %[[O]][%[[I2]], %[[J2]]] : memref<96x64xf32>
// CHECK: gpu.terminator

// EMU-LABEL: func.func @transpose_2d
// EMU-NOT: gpu.launch
// EMU-NOT: linalg.transpose
// EMU: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// EMU: %[[TILE:.*]] = memref.alloca() : memref<16x17xf32>
// EMU: memref.store %{{.*}}, %[[TILE]]
// EMU-NOT: gpu.barrier
// EMU: memref.load %[[TILE]]
// EMU: memref.store
func.func @transpose_2d(%a: memref<64x96xf32>, %o: memref<96x64xf32>) {
  linalg.transpose ins(%a : memref<64x96xf32>) outs(%o : memref<96x64xf32>) permutation = [1, 0]
  return
}

// -----

// An uneven shard: the block count depends on a dynamic size and may be
// 0, so the launch is guarded. bf16 rows are padded to 34 elements (17
// words: a column's reads fall in distinct banks).
// CHECK-LABEL: func.func @dynamic_bf16
// CHECK: %[[DIM:.*]] = memref.dim
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[DIM]], %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.muli %[[TILES]], %{{.*}} : index
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %[[BLOCKS]], %{{.*}} : index
// CHECK: scf.if %[[ANY]] {
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], {{.*}} workgroup(%{{.*}} : memref<32x34xbf16, #gpu.address_space<workgroup>>)
// CHECK: arith.cmpi ult, %{{.*}}, %[[DIM]] : index
// EMU-LABEL: func.func @dynamic_bf16
// EMU-NOT: scf.if %{{.*}} {
// EMU: memref.alloca() : memref<16x18xbf16>
func.func @dynamic_bf16(%a: memref<?x45xbf16>, %o: memref<45x?xbf16>) {
  linalg.transpose ins(%a : memref<?x45xbf16>) outs(%o : memref<45x?xbf16>) permutation = [1, 0]
  return
}

// -----

// A [0, 2, 1] permutation: one block per tile and per index of the leading
// dim (2 * 3 tiles * 3 = 18 blocks), that index read and written as is.
// CHECK-LABEL: func.func @permute_3d
// CHECK-SAME: (%[[A:.*]]: memref<3x40x70xi8>, %[[O:.*]]: memref<3x70x40xi8>)
// CHECK-DAG: %[[C18:.*]] = arith.constant 18 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C18]], {{.*}} workgroup(%{{.*}} : memref<32x36xi8, #gpu.address_space<workgroup>>)
// CHECK: arith.divui
// CHECK: arith.divui
// CHECK: %[[B:.*]] = arith.remui
// CHECK: memref.load %[[A]][%[[B]], %{{.*}}, %{{.*}}] : memref<3x40x70xi8>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[O]][%[[B]], %{{.*}}, %{{.*}}] : memref<3x70x40xi8>
func.func @permute_3d(%a: memref<3x40x70xi8>, %o: memref<3x70x40xi8>) {
  linalg.transpose ins(%a : memref<3x40x70xi8>) outs(%o : memref<3x70x40xi8>) permutation = [0, 2, 1]
  return
}

// -----

// An elementwise body with one transposed input, one read along the
// output's rows and one broadcast along them: only the transposed input is
// staged; the others are loaded in phase 2 at the output's indices.
#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @mixed
// CHECK-SAME: (%[[X:.*]]: memref<33x65xf32>, %[[Y:.*]]: memref<65x33xf32>, %[[B:.*]]: memref<65xf32>, %[[O:.*]]: memref<65x33xf32>)
// CHECK: gpu.launch {{.*}} workgroup(%[[TILE:[^ ]*]] : memref<32x33xf32, #gpu.address_space<workgroup>>) {
// CHECK: memref.load %[[X]]
// CHECK: gpu.barrier
// CHECK: arith.addi
// CHECK: %[[I:.*]] = arith.addi
// CHECK: %[[J:.*]] = arith.addi
// CHECK: %[[XV:.*]] = memref.load %[[TILE]]
// CHECK: %[[YV:.*]] = memref.load %[[Y]][%[[I]], %[[J]]]
// CHECK: %[[BV:.*]] = memref.load %[[B]][%[[I]]]
// CHECK: %[[M:.*]] = arith.mulf %[[XV]], %[[YV]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[M]], %[[BV]] : f32
// CHECK: memref.store %[[S]], %[[O]][%[[I]], %[[J]]]
func.func @mixed(%x: memref<33x65xf32>, %y: memref<65x33xf32>, %b: memref<65xf32>, %o: memref<65x33xf32>) {
  linalg.generic {indexing_maps = [#tr, #id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y, %b : memref<33x65xf32>, memref<65x33xf32>, memref<65xf32>) outs(%o : memref<65x33xf32>) {
  ^bb0(%u: f32, %v: f32, %w: f32, %out: f32):
    %m = arith.mulf %u, %v : f32
    %s = arith.addf %m, %w : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two transposed inputs: one tile each.
#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
// CHECK-LABEL: func.func @two_staged
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<32x33xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x34xf16, #gpu.address_space<workgroup>>)
func.func @two_staged(%x: memref<40x50xf32>, %y: memref<40x50xf16>, %o: memref<50x40xf32>) {
  linalg.generic {indexing_maps = [#tr, #tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<40x50xf32>, memref<40x50xf16>) outs(%o : memref<50x40xf32>) {
  ^bb0(%u: f32, %v: f16, %out: f32):
    %e = arith.extf %v : f16 to f32
    %s = arith.addf %u, %e : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Ops the pass leaves to the loop path.
#id3 = affine_map<(i, j, k) -> (i, j, k)>
#a = affine_map<(i, j, k) -> (k, j, i)>
#b = affine_map<(i, j, k) -> (i, k, j)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// Why: the innermost dim is kept (a [1, 0, 2] permutation reads along the
// output's rows already).
// CHECK-LABEL: func.func @no_kept_innermost
// CHECK-NOT: gpu.launch
// CHECK: linalg.transpose
func.func @no_kept_innermost(%a: memref<4x5x6xf32>, %o: memref<5x4x6xf32>) {
  linalg.transpose ins(%a : memref<4x5x6xf32>) outs(%o : memref<5x4x6xf32>) permutation = [1, 0, 2]
  return
}

// Why: a reduction.
// CHECK-LABEL: func.func @no_reduction
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @no_reduction(%a: memref<8x100xf32>, %o: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x100xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// Why: the output's innermost dim is strided (no coalesced store to gain).
// CHECK-LABEL: func.func @no_strided_output
// CHECK-NOT: gpu.launch
// CHECK: linalg.transpose
func.func @no_strided_output(%a: memref<32x64xf32>, %o: memref<64x32xf32, strided<[1, 64]>>) {
  linalg.transpose ins(%a : memref<32x64xf32>) outs(%o : memref<64x32xf32, strided<[1, 64]>>) permutation = [1, 0]
  return
}

// Why: two inputs whose innermost dims are different loops do not share a
// square tile.
// CHECK-LABEL: func.func @no_two_across
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @no_two_across(%x: memref<6x5x4xf32>, %y: memref<4x6x5xf32>, %o: memref<4x5x6xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : memref<6x5x4xf32>, memref<4x6x5xf32>) outs(%o : memref<4x5x6xf32>) {
  ^bb0(%u: f32, %v: f32, %out: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  }
  return
}

// Why: index elements have no fixed width for a shared tile.
// CHECK-LABEL: func.func @no_index_elements
// CHECK-NOT: gpu.launch
// CHECK: linalg.transpose
func.func @no_index_elements(%a: memref<32x64xindex>, %o: memref<64x32xindex>) {
  linalg.transpose ins(%a : memref<32x64xindex>) outs(%o : memref<64x32xindex>) permutation = [1, 0]
  return
}
