// The cost of a plan is the same whether it is reported from the plan or
// from the propagated program, where every redistribution is an explicit
// dtensor.redistribute (test/Robustness/fixed_repro_7.txt, reduced).
// RUN: dtensor-opt %s --dtensor-fake-report="format=text compare-pytorch=1" -o /dev/null | FileCheck %s --check-prefix=TOTALS
// RUN: dtensor-opt %s --dtensor-fake-propagate | dtensor-opt --dtensor-fake-report="format=text compare-pytorch=1" -o /dev/null | FileCheck %s --check-prefix=TOTALS
// RUN: dtensor-opt %s --dtensor-fake-propagate | FileCheck %s
// RUN: dtensor-opt %s --dtensor-fake-report="format=json output=%t.plan.json" -o /dev/null
// RUN: %jsonq %t.plan.json "abs(f['totals']['comm_cost_us'] - 16.209) < 0.001"
// RUN: dtensor-opt %s --dtensor-fake-propagate | dtensor-opt --dtensor-fake-report="format=json output=%t.prop.json" -o /dev/null
// RUN: %jsonq %t.prop.json "abs(f['totals']['comm_cost_us'] - 16.209) < 0.001"

// %m is [S(0), P(sum)] (batch dim on dp, contraction on tp) and %p is
// [S(1), P(max)]. PyTorch 2.15 takes the cheapest pointwise strategy of the
// subtraction, [S(0), S(2)] (23.8 us). The optimum moves %x's batch shard
// to dim 1 on dp (an all_gather and a local chunk, 8.4), so that the batch
// matmul is [S(1), P(sum)] and splits its work 8 ways as PyTorch's does,
// and moves %p there through R: all_reduce of the P(max) on tp, then the
// local division that makes it P(sum) (7.8), 16.2 us in all. A
// redistribution costs what its steps run, so the explicit redistributions
// of the propagated program (two for the one through R) cost the same.
// TOTALS: totals: collectives=2 comm_cost_us=16.2
// CHECK-LABEL: func.func @through_r
// CHECK: dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [S(1), S(2)]>
// CHECK: %[[R:.*]] = dtensor.redistribute %arg2 to #dtensor.spec<@mesh, [S(1), R]>
// CHECK: %[[P:.*]] = dtensor.redistribute %[[R]] to #dtensor.spec<@mesh, [S(1), P(sum)]>
// CHECK: arith.subf %{{.*}}, %[[P]] {dtensor.specs = [#dtensor.spec<@mesh, [S(1), P(sum)]>]}
dtensor.mesh @mesh = <["dp" = 4, "tp" = 2]>
func.func @through_r(
    %x: tensor<12x4x6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0), S(2)]>},
    %w: tensor<12x6x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R, R]>},
    %p: tensor<12x4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1), P(max)]>})
    -> tensor<12x4x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x4x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<12x4x8xf32>) -> tensor<12x4x8xf32>
  %m = linalg.batch_matmul ins(%x, %w : tensor<12x4x6xf32>, tensor<12x6x8xf32>) outs(%z : tensor<12x4x8xf32>) -> tensor<12x4x8xf32>
  %d = arith.subf %m, %p : tensor<12x4x8xf32>
  return %d : tensor<12x4x8xf32>
}
