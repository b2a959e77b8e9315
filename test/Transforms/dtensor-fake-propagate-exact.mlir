// strategy=global, the exact planner (strategy=exact is its alias): the
// strategy choice of every top-level op minimising communication plus
// compute, proven by segment tables, enumeration and COIN-OR CBC, against
// PyTorch's op-by-op choice under the same cost model.

// The tensor-parallel RFC Block reaches the 201.7 us plan (attention
// head-sharded, one all_to_all to the batch, three weight gathers and the
// gather of the result), proven optimal: gathering all six weights moves
// less (150.6 us) but computes the whole Block on every rank (4x compute).
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp.mlir --dtensor-fake-report="format=json output=%t.tp.json compare-pytorch=1" -o /dev/null
// RUN: %jsonq %t.tp.json \
// RUN:   'abs(f["totals"]["comm_cost_us"] - 201.7) < 0.05' \
// RUN:   'abs(f["totals"]["pytorch_comm_cost_us"] - 730.3) < 0.5' \
// RUN:   'f["planner"]["exact"] and f["planner"]["proven_optimal"]' \
// RUN:   'abs(f["planner"]["lower_bound_us"] - f["totals"]["comm_cost_us"] - f["planner"]["compute_us"]) < 0.05' \
// RUN:   'f["planner"]["compute_us"] < f["planner"]["pytorch_compute_us"]' \
// RUN:   'kinds(f) == ["all_to_all"] + ["all_gather"] * 4'
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp.mlir --dtensor-fake-report="format=json output=%t.tpx.json strategy=exact" -o /dev/null
// RUN: %jsonq %t.tpx.json 'abs(f["totals"]["comm_cost_us"] - 201.7) < 0.05'

// The same Block with the heads permuted by linalg.transpose and collapsed
// into the batch of batch_matmul, as torch-mlir writes it. Collapsing
// [b, h] into one dim keeps a shard of b only (a shard of h is not a block
// of b*h), so the head-sharded attention of the 201.7 us plan cannot be
// written here; the proven optimum shards the tokens and gathers the six
// weights and the result: 225.8 us at the same compute (PyTorch keeps the
// heads' strided shard `_S(0, 8)` through the batch matmuls: 730.3 us).
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp_transposed.mlir --dtensor-fake-report="format=json output=%t.tr.json compare-pytorch=1" -o /dev/null
// RUN: %jsonq %t.tr.json \
// RUN:   'abs(f["totals"]["comm_cost_us"] - 225.8) < 0.05' \
// RUN:   'f["planner"]["proven_optimal"]' \
// RUN:   'abs(f["planner"]["compute_us"] - 88.4) < 0.05' \
// RUN:   'abs(f["totals"]["pytorch_comm_cost_us"] - 730.3) < 0.1' \
// RUN:   'kinds(f) == ["all_gather"] * 7'

// The 2-D Block (dp x tp) and the small TP Block: equal to PyTorch's plan
// where it is optimal (Megatron's two all_reduce).
// RUN: dtensor-opt %dtensor_src_root/examples/block_2d.mlir --dtensor-fake-report="format=json output=%t.2d.json" -o /dev/null
// RUN: %jsonq %t.2d.json 'abs(f["totals"]["comm_cost_us"] - 94.6) < 0.05' 'f["planner"]["proven_optimal"]'
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp_small.mlir --dtensor-fake-report="format=json output=%t.small.json compare-pytorch=1" -o /dev/null
// RUN: %jsonq %t.small.json 'kinds(f) == ["all_reduce", "all_reduce"]' 'f["planner"]["proven_optimal"]' \
// RUN:   'f["totals"]["comm_cost_us"] == f["totals"]["pytorch_comm_cost_us"]'

// The text report adds a planner line only for a plan not proven optimal.
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp.mlir --dtensor-fake-report="format=text" -o /dev/null | FileCheck %s --check-prefix=TEXT
// TEXT: totals: collectives=5 comm_cost_us=201.7
// TEXT-NOT: planner:

// The propagated plan is a fixed point and partitions.
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp_transposed.mlir --dtensor-fake-propagate -o %t.prop.mlir
// RUN: dtensor-opt %t.prop.mlir --dtensor-fake-propagate | diff %t.prop.mlir -
// RUN: dtensor-opt %t.prop.mlir --dtensor-fake-report="format=json output=%t.prop.json" -o /dev/null
// RUN: %jsonq %t.prop.json 'abs(f["totals"]["comm_cost_us"] - 225.8) < 0.05'
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp_transposed.mlir --dtensor-partition | FileCheck %s --check-prefix=PART
// PART-COUNT-7: dtensor.all_gather
// PART-NOT: dtensor.all_gather
// PART-NOT: dtensor.all_reduce
// PART-NOT: dtensor.all_to_all

// A P(avg) input: one all_reduce (10.5 us) serves both readers (PyTorch:
// 20.9 us in two collectives, PyTorch 2.15 all-reduces x for each reader).
// RUN: dtensor-opt %S/../Integration/Inputs/exact_pavg.mlir --dtensor-fake-report="format=json output=%t.pavg.json compare-pytorch=1" -o /dev/null
// RUN: %jsonq %t.pavg.json \
// RUN:   'kinds(f) == ["all_reduce"]' 'f["collectives"][0]["from"] == "[P(avg)]"' \
// RUN:   'abs(f["totals"]["pytorch_comm_cost_us"] - 20.9) < 0.05' 'f["planner"]["proven_optimal"]' \
// RUN:   'abs(f["totals"]["comm_cost_us"] - 10.5) < 0.05'

// A 1700-layer MLP (5100 planned ops) splits at every layer's activation
// into segments solved once each (identical layers share their solution):
// exact and proven optimal.
// RUN: %python %dtensor_src_root/bench/gen_mlp.py --flavor dtensor --layers 1700 -o %t.mlp.mlir
// RUN: dtensor-opt %t.mlp.mlir --dtensor-fake-report="format=json output=%t.mlp.json" -o /dev/null
// RUN: %jsonq %t.mlp.json 'f["planner"]["planned_ops"] == 5100' 'f["planner"]["exact"]' 'f["planner"]["proven_optimal"]' 'f["planner"]["solved_segments"] < f["planner"]["segments"]'
