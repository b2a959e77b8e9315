// RUN: dtensor-opt %s --dtensor-cpu-pipeline="partition=false" -split-input-file | FileCheck %s

// Ops the analysis has no rule for (tosa.mul with its shift, reduce_sum,
// reshape of a const_shape) lower without partitioning.
// CHECK-LABEL: llvm.func @mul_reduce
// CHECK-NOT: tosa.
// CHECK: llvm.fmul
// CHECK: {{llvm.fadd|llvm.intr.vector.reduce.fadd}}
// CHECK: llvm.return
func.func @mul_reduce(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>) -> tensor<4xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %x, %y, %shift : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.reduce_sum %m {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %shape = tosa.const_shape {values = dense<4> : tensor<1xindex>} : () -> !tosa.shape<1>
  %f = tosa.reshape %r, %shape : (tensor<4x1xf32>, !tosa.shape<1>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}
