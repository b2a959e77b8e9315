// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch | FileCheck %s
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=global | FileCheck %s --check-prefix=GLOBAL
// Propagating the output again changes nothing (the explicit steps are
// feasible on their own).
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch | dtensor-opt -dtensor-fake-propagate=strategy=pytorch | FileCheck %s
// RUN: dtensor-opt %s -dtensor-fake-propagate | dtensor-opt -dtensor-fake-propagate | FileCheck %s --check-prefix=GLOBAL
// RUN: dtensor-opt %s -dtensor-fake-report="format=json output=%t.json strategy=pytorch" -o /dev/null
// RUN: %jsonq %t.json "f['redistributions'][0]['steps'] == ['all_reduce', 'local_divide']" "abs(f['totals']['comm_cost_us'] - 30.61) < 0.01"
// RUN: dtensor-opt %s -dtensor-fake-report="format=json output=%t.g.json compare-pytorch=1" -o /dev/null
// RUN: %jsonq %t.g.json "abs(f['totals']['comm_cost_us'] - 20.41) < 0.01" "abs(f['totals']['pytorch_comm_cost_us'] - 30.61) < 0.01" "kinds(f) == ['all_reduce', 'all_reduce']"

// PyTorch: the loop-carried value is P(sum) (a matmul with a P(sum)
// operand keeps it partial by linearity, PyTorch 2.15's [P(sum), P(sum),
// R]), so its P(max) init must become P(sum): no direct step exists
// (PyTorch's cost is infinite), so the compiler reduces to R first and
// divides; the result is reduced after the loop. The global planner plans
// the matmul inside the loop too: the init and %w reduced once before the
// loop, the loop carried replicated, nothing after it (2 all_reduce, not 3).
dtensor.mesh @mesh = <["x" = 4]>
// CHECK-LABEL: func.func @f
// CHECK: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: %[[P:.*]] = dtensor.redistribute %[[R]] to #dtensor.spec<@mesh, [P(sum)]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[P]])
// GLOBAL-LABEL: func.func @f
// GLOBAL: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// GLOBAL-NEXT: %[[W:.*]] = dtensor.redistribute %arg1 to #dtensor.spec<@mesh, [R]>
// GLOBAL: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[R]])
// GLOBAL: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} ins(%[[ACC]], %[[W]] :
// GLOBAL: } {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
// GLOBAL-NEXT: return
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
