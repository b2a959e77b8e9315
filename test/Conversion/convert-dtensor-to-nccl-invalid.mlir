// RUN: dtensor-opt %s --convert-dtensor-to-runtime=backend=nccl -split-input-file -verify-diagnostics
// RUN: not dtensor-opt %s --convert-dtensor-to-runtime=backend=cuda -split-input-file 2>&1 | FileCheck %s --check-prefix=BACKEND
// BACKEND: error: unknown backend 'cuda' (expected mpi or nccl)

dtensor.mesh @mesh = <["a" = 4]>
func.func @i16_sum(%x: tensor<8xi16>) -> tensor<8xi16> {
  // expected-error @+2 {{'dtensor.all_reduce' op NCCL has no sum reduction on 'i16'}}
  // expected-error @+1 {{failed to legalize operation 'dtensor.all_reduce' that was explicitly marked illegal}}
  %y = dtensor.all_reduce %x on @mesh axes [0] reduce sum : tensor<8xi16> -> tensor<8xi16>
  return %y : tensor<8xi16>
}

// -----

dtensor.mesh @mesh = <["a" = 4]>
func.func @two_waits(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-error @+2 {{'dtensor.all_reduce_start' op request must be completed by exactly one dtensor.wait}}
  // expected-error @+1 {{failed to legalize operation 'dtensor.all_reduce_start' that was explicitly marked illegal}}
  %r = dtensor.all_reduce_start %x on @mesh axes [0] reduce sum : tensor<8xf32> -> !dtensor.request<tensor<8xf32>>
  %a = dtensor.wait %r : !dtensor.request<tensor<8xf32>>
  %b = dtensor.wait %r : !dtensor.request<tensor<8xf32>>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
