// RUN: dtensor-opt %s --dtensor-cpu-pipeline -split-input-file | FileCheck %s

// tosa goes through tosa-to-linalg after partitioning: every tosa op,
// including the constants, reaches the LLVM dialect.

// A sharded batch: the partitioned tosa ops have local shapes (2 of 8
// batches) when they are converted; tosa.matmul (a linalg.batch_matmul)
// is a loop of GEMM calls (16x32x24 per batch: the runtime's small-GEMM
// kernel), the bias add a loop.
// CHECK-LABEL: llvm.func @matmul_add
// CHECK-NOT: tosa.
// CHECK: llvm.call @dtrt_sgemm_small
// CHECK: {{llvm.fadd|llvm.intr.vector.reduce.fadd|llvm.intr.fmuladd}}
// CHECK: llvm.return
dtensor.mesh @mesh = <["x" = 4]>
func.func @matmul_add(%x: tensor<8x16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                      %w: tensor<8x32x24xf32>, %bias: tensor<1x1x24xf32>)
    -> (tensor<8x16x24xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<8x16x32xf32>, tensor<8x32x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x24xf32>
  %b = tosa.add %m, %bias : (tensor<8x16x24xf32>, tensor<1x1x24xf32>) -> tensor<8x16x24xf32>
  return %b : tensor<8x16x24xf32>
}

// -----

// Broadcasting add, sub and maximum with a non-splat constant (a global;
// its unit dim dropped by linalg-fold-unit-extent-dims).
// CHECK: llvm.mlir.global private constant @{{.*}}(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>)
// CHECK-LABEL: llvm.func @elementwise_broadcast
// CHECK-NOT: tosa.
// CHECK: {{llvm.fadd|llvm.intr.vector.reduce.fadd}}
// CHECK: llvm.fsub
// CHECK: llvm.intr.maximum
func.func @elementwise_broadcast(%x: tensor<3x4xf32>, %y: tensor<3x1xf32>) -> tensor<3x4xf32> {
  %c = "tosa.const"() <{values = dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %a = tosa.add %x, %y : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %s = tosa.sub %a, %c : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %m = tosa.maximum %s, %y : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %m : tensor<3x4xf32>
}
