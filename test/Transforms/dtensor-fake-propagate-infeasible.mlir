// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch | FileCheck %s
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=global | FileCheck %s
// Propagating the output again changes nothing (the explicit steps are
// feasible on their own).
// RUN: dtensor-opt %s -dtensor-fake-propagate | dtensor-opt -dtensor-fake-propagate | FileCheck %s
// RUN: dtensor-opt %s -dtensor-fake-report="format=json output=%t.json compare-pytorch=1" -o /dev/null
// RUN: %jsonq %t.json "f['redistributions'][0]['steps'] == ['all_reduce', 'local_divide']" "abs(f['totals']['comm_cost_us'] - 30.61) < 0.01" "abs(f['totals']['pytorch_comm_cost_us'] - 30.61) < 0.01"

// The loop-carried value is P(sum) (a matmul with a P(sum) operand keeps
// it partial by linearity, PyTorch 2.15's [P(sum), P(sum), R]), so its
// P(max) init must become P(sum): no direct step exists (PyTorch's cost is
// infinite), so the compiler reduces to R first and divides.
dtensor.mesh @mesh = <["x" = 4]>
// CHECK-LABEL: func.func @f
// CHECK: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: %[[P:.*]] = dtensor.redistribute %[[R]] to #dtensor.spec<@mesh, [P(sum)]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[P]])
func.func @f(%x: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(max)]>}, %w: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}) -> (tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<8x8xf32>) {
    %e = tensor.empty() : tensor<8x8xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m = linalg.matmul ins(%acc, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %m : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
