// max-bytes-per-rank: the plan changes to fit the budget.
// Without a budget everything stays replicated (no communication; 928 KiB
// per rank: both 256 KiB weights, the 128 KiB hidden activation, its fill
// and its empty, the input). Under 900K the hidden layer is sharded by rows
// (the input sliced locally, one all_gather of the output), 720 KiB.
// RUN: dtensor-opt %s --dtensor-fake-propagate | FileCheck %s --check-prefix=FREE
// RUN: dtensor-opt %s --dtensor-fake-propagate="strategy=pytorch max-bytes-per-rank=900K" | FileCheck %s
// RUN: dtensor-opt %s --dtensor-fake-propagate="max-bytes-per-rank=900K" | FileCheck %s
// RUN: dtensor-opt %s --dtensor-fake-propagate="strategy=exact max-bytes-per-rank=900K" | FileCheck %s
// A budget the plan already fits changes nothing.
// RUN: dtensor-opt %s --dtensor-fake-propagate="max-bytes-per-rank=1M" | FileCheck %s --check-prefix=FREE
// The report and the partitioner take the same option.
// RUN: dtensor-opt %s --dtensor-fake-report="format=json output=%t.free.json"
// RUN: %jsonq %t.free.json 'f["totals"]["peak_bytes"] == [950272, 950272]' 'kinds(f) == []'
// RUN: dtensor-opt %s --dtensor-fake-report="format=json output=%t.json max-bytes-per-rank=900K"
// RUN: %jsonq %t.json \
// RUN:   'f["totals"]["peak_bytes"] == [737280, 737280]' \
// RUN:   'all(p <= 900 * 1024 for p in f["totals"]["peak_bytes"])' \
// RUN:   'kinds(f) == ["all_gather"]'
// RUN: dtensor-opt %s --dtensor-partition="max-bytes-per-rank=900K" | FileCheck %s --check-prefix=LOCAL
//
// With strategy=global or exact, the exact planner first solves the whole
// function as one 0-1 program with a row per top-level op bounding the
// bytes live there (an upper bound of the peak); the greedy fit runs too
// and the cheaper plan that fits is kept. On examples/block_tp.mlir with
// strategy=exact (150.6 us, 140 MiB per rank) under 64M: 201.7 us at
// 38 MiB, optimal under the memory model (the greedy fit alone: 234.0 us
// at 54.2 MiB). Under 40M the memory model's plan is dearer (225.8 us) than
// the greedy fit's 201.7 us, which is kept, not claimed optimal.
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp.mlir --dtensor-fake-report="format=json output=%t.tp64.json strategy=exact max-bytes-per-rank=64M" -o /dev/null
// RUN: %jsonq %t.tp64.json \
// RUN:   'abs(f["totals"]["comm_cost_us"] - 201.7) < 0.05' \
// RUN:   'f["planner"]["under_budget"] and f["planner"]["proven_optimal"]' \
// RUN:   'max(f["totals"]["peak_bytes"]) <= 64 * 2**20'
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp.mlir --dtensor-fake-report="format=text strategy=exact max-bytes-per-rank=40M" -o /dev/null | FileCheck %s --check-prefix=TP40
// TP40: totals: collectives=5 comm_cost_us=201.7
// TP40: peak memory/rank: [38.0 MiB, 38.0 MiB, 38.0 MiB, 38.0 MiB]
// TP40-NEXT: planner: exact over 19 ops, not proven optimal: the optimum is at least 150.6 us

dtensor.mesh @mesh = <["x" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>

// FREE-LABEL: func.func @mlp
// FREE-NOT: dtensor.redistribute
// FREE: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
// FREE-NOT: dtensor.redistribute
// CHECK-LABEL: func.func @mlp
// CHECK: %[[X:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [S(0)]>
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[X]], %arg1
// CHECK: %[[Y:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: %[[R:.*]] = dtensor.redistribute %[[Y]] to #dtensor.spec<@mesh, [R]>
// CHECK: return %[[R]]
// LOCAL-LABEL: func.func @mlp
// LOCAL: linalg.matmul {{.*}} -> tensor<32x512xf32>
// LOCAL: %[[Y:.*]] = linalg.matmul {{.*}} -> tensor<32x128xf32>
// LOCAL: dtensor.all_gather{{(_start)?}} %[[Y]] on @mesh axes [0] gather_dim 0 : tensor<32x128xf32> -> tensor<64x128xf32>
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x512xf32>, %w2: tensor<512x128xf32>)
    -> (tensor<64x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x128xf32>, tensor<128x512xf32>) outs(%z1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x512xf32>) outs(%e1 : tensor<64x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x512xf32>, tensor<512x128xf32>) outs(%z2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
