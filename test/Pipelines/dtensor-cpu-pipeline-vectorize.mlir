// RUN: dtensor-opt %s --dtensor-cpu-pipeline="partition=false" -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-cpu-pipeline="partition=false vectorize=false" -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: dtensor-opt %s --dtensor-cpu-pipeline="partition=false vector-size=16" -split-input-file | FileCheck %s --check-prefix=SIZE16

// Softmax on a dynamic batch (uneven shards), one fused pass per row
// (dtensor-fuse-rows): the row buffers allocated once, before the loops;
// in one loop nest over the rows, the row max reduced from a 128-wide vector
// by halves (a tree: no scalar max per lane of the last register), the sum
// as a tree too (reassoc), exp(x - max) as a polynomial on 32-wide
// vectors (no libm, no scalar exp) stored once into the row buffer, the row
// sum of that buffer, then one division per row (before the loop over the
// row's tiles) and a multiplication per element. No other loop over the rows.
// CHECK-LABEL: llvm.func @softmax
// CHECK-NOT: llvm.call @expf
// CHECK-NOT: llvm.intr.exp
// CHECK: llvm.call @malloc
// CHECK: llvm.call @malloc
// CHECK: llvm.call @malloc
// CHECK-NOT: llvm.call @malloc
// CHECK: ^bb1(
// CHECK: ^bb3(
// CHECK: llvm.load {{.*}} -> vector<128xf32>
// CHECK-NOT: llvm.intr.vector.reduce.fmax
// CHECK: llvm.shufflevector {{.*}} : vector<128xf32>
// CHECK: llvm.intr.maxnum({{.*}}) : (vector<64xf32>, vector<64xf32>) -> vector<64xf32>
// CHECK: llvm.intr.maxnum({{.*}}) : (vector<2xf32>, vector<2xf32>) -> vector<2xf32>
// CHECK-NOT: llvm.intr.vector.reduce.fmax
// CHECK: llvm.intr.fma({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK: llvm.store {{.*}} : vector<32xf32>, !llvm.ptr
// CHECK: llvm.intr.vector.reduce.fadd{{.*}}fastmath<reassoc>{{.*}}vector<128xf32>
// CHECK: llvm.fdiv {{.*}} : vector<1xf32>
// CHECK: llvm.cond_br
// CHECK-NOT: llvm.fdiv
// CHECK: llvm.fmul {{.*}} : vector<32xf32>
// CHECK: llvm.store {{.*}} : vector<32xf32>, !llvm.ptr
// CHECK: llvm.br ^bb3(
// CHECK: llvm.br ^bb1(
// CHECK-NOT: llvm.cond_br
// CHECK-NOT: llvm.call @expf
// CHECK-NOT: llvm.intr.exp
// CHECK: llvm.return
// OFF-LABEL: llvm.func @softmax
// OFF-NOT: vector<
// OFF: llvm.intr.exp({{.*}}) : (f32) -> f32
// OFF-NOT: vector<
// OFF: llvm.return
// SIZE16-LABEL: llvm.func @softmax
// SIZE16: llvm.fmul {{.*}} : vector<16xf32>
func.func @softmax(%x: tensor<?x8x128xf32>) -> tensor<?x8x128xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x8x128xf32>
  %e = tensor.empty(%d) : tensor<?x8x128xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<?x8x128xf32>) outs(%e : tensor<?x8x128xf32>) -> tensor<?x8x128xf32>
  return %p : tensor<?x8x128xf32>
}

// -----

// A layer-norm-like chain on a dynamic number of rows: mean and variance
// reduced along the row in vectors of 512, the normalisation fused into one
// elementwise loop (sub, mul) in vectors of 32. The row statistics are read,
// divided by the row length and square-rooted once per row, before the
// loop over the row's tiles (loop-invariant reads hoisted), not per tile.
// CHECK-LABEL: llvm.func @layer_norm
// CHECK: llvm.intr.vector.reduce.fadd{{.*}}vector<512xf32>
// CHECK: llvm.intr.vector.reduce.fadd{{.*}}vector<512xf32>
// CHECK: llvm.intr.sqrt({{.*}}) : (vector<1xf32>) -> vector<1xf32>
// CHECK: llvm.cond_br
// CHECK-NOT: llvm.intr.sqrt
// CHECK-NOT: llvm.fdiv
// CHECK: llvm.fmul {{.*}} : vector<32xf32>
// CHECK-NOT: llvm.intr.sqrt
// CHECK-NOT: llvm.fdiv
// CHECK: llvm.store {{.*}} : vector<32xf32>, !llvm.ptr
// CHECK: llvm.return
// OFF-LABEL: llvm.func @layer_norm
// OFF-NOT: vector<
// OFF: llvm.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @layer_norm(%x: tensor<?x512xf32>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %d = tensor.dim %x, %c0 : tensor<?x512xf32>
  %er = tensor.empty(%d) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x512xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?x512xf32>
  %xc = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x512xf32>, tensor<?xf32>) outs(%e : tensor<?x512xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %c = arith.subf %a, %m : f32
    linalg.yield %c : f32
  } -> tensor<?x512xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xc : tensor<?x512xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %q = arith.mulf %a, %a : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xc, %var : tensor<?x512xf32>, tensor<?xf32>) outs(%e : tensor<?x512xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.divf %v, %n : f32
    %ve = arith.addf %m, %eps : f32
    %r = math.rsqrt %ve : f32
    %t = arith.mulf %a, %r : f32
    linalg.yield %t : f32
  } -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// -----

// A where (i1 mask inside the fused body) and integer ops: vectors of i32
// with a vector compare and select; the i1 mask never reaches memory.
// CHECK-LABEL: llvm.func @where_int
// CHECK: llvm.icmp "slt" {{.*}} : vector<32xi32>
// CHECK: llvm.select {{.*}} : vector<32xi1>, vector<32xi32>
// CHECK: llvm.intr.masked.store {{.*}} : vector<32xi32>, vector<32xi1> into !llvm.ptr
// CHECK: llvm.return
// OFF-LABEL: llvm.func @where_int
// OFF-NOT: vector<
// OFF: llvm.return
func.func @where_int(%x: tensor<?x40xi32>, %y: tensor<?x40xi32>) -> tensor<?x40xi32> {
  %c = arith.cmpi slt, %x, %y : tensor<?x40xi32>
  %m = arith.select %c, %x, %y : tensor<?x40xi1>, tensor<?x40xi32>
  %r = arith.muli %m, %x : tensor<?x40xi32>
  return %r : tensor<?x40xi32>
}
