// RUN: dtensor-opt %s --dtensor-cpu-pipeline="vectorize=false" -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-cpu-pipeline -split-input-file | FileCheck %s --check-prefix=VEC

// math ops on tensors reach the LLVM dialect: in scalar loops
// (vectorize=false), LLVM intrinsics where there is one, libm calls for the
// rest, outlined functions for integer powers. Vectorized, exp, tanh and erf
// on f32 (and f16 through f32) vectors are polynomials (fma chains), sqrt an
// intrinsic on vectors, integer powers the outlined function per element.

// VEC-LABEL: llvm.func @integer
// VEC-NOT: math.
// VEC: "llvm.intr.abs"({{.*}}) <{is_int_min_poison = false}> : (vector<8xi32>) -> vector<8xi32>
// VEC: llvm.call @__mlir_math_ipowi_i32
// VEC-NOT: math.
// VEC-LABEL: llvm.func @float
// VEC-NOT: math.
// VEC-NOT: llvm.call @expf
// VEC-NOT: llvm.call @erff
// VEC: llvm.intr.fma({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// VEC: llvm.intr.sqrt({{.*}}) : (vector<8xf32>) -> vector<8xf32>
// VEC-NOT: math.
// VEC-LABEL: llvm.func @widths
// VEC: llvm.call @erf(
// VEC: llvm.fpext {{.*}} : vector<8xf16> to vector<8xf32>
// VEC: llvm.intr.fma
// VEC: llvm.fptrunc {{.*}} : vector<8xf32> to vector<8xf16>
// VEC-NOT: math.

// CHECK-LABEL: llvm.func @integer
// CHECK-NOT: math.
// CHECK: llvm.intr.abs
// CHECK: llvm.call @__mlir_math_ipowi_i32
// CHECK-NOT: math.
// CHECK: llvm.func linkonce_odr @__mlir_math_ipowi_i32
// CHECK-NOT: math.
func.func @integer(%x: tensor<8xi32>, %n: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %a = math.absi %x : tensor<8xi32>
  %p = math.ipowi %x, %n : tensor<8xi32>
  return %a, %p : tensor<8xi32>, tensor<8xi32>
}

// -----

// CHECK-LABEL: llvm.func @float
// CHECK-NOT: math.
// CHECK: llvm.intr.exp
// CHECK: llvm.intr.tanh
// CHECK: llvm.intr.sqrt
// CHECK: llvm.fdiv
// CHECK: llvm.call @erff
// CHECK: llvm.call @__mlir_math_fpowi_f32_i32
// CHECK: llvm.intr.is.fpclass
// CHECK-NOT: math.
func.func @float(%x: tensor<8xf32>, %n: tensor<8xi32>) -> tensor<8xf32> {
  %e = math.exp %x : tensor<8xf32>
  %t = math.tanh %e : tensor<8xf32>
  %r = math.rsqrt %t : tensor<8xf32>
  %f = math.erf %r : tensor<8xf32>
  %p = math.fpowi %f, %n : tensor<8xf32>, tensor<8xi32>
  %nan = math.isnan %p : tensor<8xf32>
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %s = arith.select %nan, %zero, %p : tensor<8xi1>, tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// f64 calls the double functions; f16 goes through f32 for libm.
// CHECK-LABEL: llvm.func @widths
// CHECK: llvm.call @erf(
// CHECK: llvm.fpext {{.*}} : f16 to f32
// CHECK: llvm.call @erff
// CHECK: llvm.fptrunc {{.*}} : f32 to f16
func.func @widths(%x: tensor<8xf64>, %h: tensor<8xf16>) -> (tensor<8xf64>, tensor<8xf16>) {
  %e = math.erf %x : tensor<8xf64>
  %t = math.erf %h : tensor<8xf16>
  return %e, %t : tensor<8xf64>, tensor<8xf16>
}
