// strategy=pytorch says where PyTorch DTensor 2.15 would refuse the program
// (issue 14 item 5): flattening or unflattening an unevenly sharded dim. The
// plan still works (the dim is gathered first); the report lists the op.
// RUN: dtensor-opt %s --dtensor-fake-propagate="strategy=pytorch" -verify-diagnostics -split-input-file | FileCheck %s
// RUN: dtensor-opt %s --dtensor-fake-report="format=text strategy=pytorch" -split-input-file -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=REPORT
// REPORT: note: PyTorch DTensor refuses tensor.collapse_shape (dtensor-fake-propagate-pytorch-refuses.mlir:{{[0-9]+}}:8): flattening dim 0 (size 10) sharded unevenly over mesh axis 0 (size 4); this plan redistributes instead
// REPORT: note: PyTorch DTensor refuses tensor.expand_shape ({{.*}}): unflattening dim 0 sharded over mesh axis 0 (size 4) into a first dim of size 2; this plan redistributes instead
// REPORT-NOT: note:

dtensor.mesh @mesh = <["x" = 4]>
// CHECK-LABEL: func.func @flatten_uneven
// CHECK: dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: tensor.collapse_shape
func.func @flatten_uneven(%x: tensor<10x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<40xf32> {
  // expected-warning @+1 {{PyTorch DTensor refuses this op (flattening dim 0 (size 10) sharded unevenly over mesh axis 0 (size 4): "Please redistribute the tensor before this operation"); the plan redistributes instead}}
  %y = tensor.collapse_shape %x [[0, 1]] : tensor<10x4xf32> into tensor<40xf32>
  return %y : tensor<40xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>
// CHECK-LABEL: func.func @unflatten_uneven
func.func @unflatten_uneven(%x: tensor<16x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<2x8x4xf32> {
  // expected-warning @+1 {{PyTorch DTensor refuses this op (unflattening dim 0 sharded over mesh axis 0 (size 4) into a first dim of size 2: "Please redistribute the tensor before this operation"); the plan redistributes instead}}
  %y = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 8, 4] : tensor<16x4xf32> into tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>
// Even shards: PyTorch keeps S(0), no warning.
// CHECK-LABEL: func.func @flatten_even
// CHECK-NOT: dtensor.redistribute
func.func @flatten_even(%x: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<32xf32> {
  %y = tensor.collapse_shape %x [[0, 1]] : tensor<8x4xf32> into tensor<32xf32>
  return %y : tensor<32xf32>
}
