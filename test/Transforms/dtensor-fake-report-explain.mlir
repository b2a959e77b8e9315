// Every collective of the report says why it is there (the op that reads the
// redistributed value, with its location) and names its mesh axis.
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp.mlir --dtensor-fake-report="format=json output=%t.tp.json strategy=pytorch" -o /dev/null
// RUN: %jsonq %t.tp.json \
// RUN:   '[c["needed_by"]["op"] for c in f["collectives"]] == ["linalg.matmul", "linalg.generic", "func.return"]' \
// RUN:   '[c["needed_by"]["loc"] for c in f["collectives"]] == ["block_tp.mlir:77:9", "block_tp.mlir:78:11", "block_tp.mlir:87:3"]' \
// RUN:   'all(c["mesh_axis_names"] == ["tp"] for c in f["collectives"])'
// RUN: dtensor-opt %s --dtensor-fake-report="format=json output=%t.json" -o /dev/null
// RUN: %jsonq %t.json \
// RUN:   '[c["mesh_axis_names"] for c in f["collectives"]] == [["tp"], ["dp"]]' \
// RUN:   '[c["needed_by"]["op"] for c in f["collectives"]] == ["dtensor.redistribute", "dtensor.redistribute"]'
// RUN: dtensor-opt %s --dtensor-fake-report="format=text" -o /dev/null | FileCheck %s
// Each collective's `why`: the op, operand and reason, and for an op with a
// sharding rule the strategy chosen with its cost and the runner-up's. With
// both matmul operands row-sharded PyTorch gathers the weight (8.5 us, the
// cost of @gather's S(0) -> R) over the runner-up all-to-all of the input
// into S(1) for a partial sum (9.4 us, the cost of @swap's S(0) -> S(1)).
// RUN: dtensor-opt %S/Inputs/report-why.mlir --dtensor-fake-report="format=json output=%t.why.json strategy=pytorch" -o /dev/null
// RUN: %jsonq %t.why.json \
// RUN:   'fn("pick")["collectives"][0]["why"]["op"] == "linalg.matmul" and fn("pick")["collectives"][0]["why"]["operand"] == 1' \
// RUN:   'fn("pick")["collectives"][0]["why"]["loc"] == "report-why.mlir:12:8" and fn("pick")["collectives"][0]["why"]["reason"] == "operand"' \
// RUN:   '(fn("pick")["collectives"][0]["why"]["from"], fn("pick")["collectives"][0]["why"]["to"]) == ("[S(0)]", "[R]")' \
// RUN:   'fn("pick")["collectives"][0]["why"]["strategy"]["chosen"]["operands"] == ["[S(0)]", "[R]", "[S(0)]"]' \
// RUN:   'fn("pick")["collectives"][0]["why"]["strategy"]["chosen"]["results"] == ["[S(0)]"]' \
// RUN:   'fn("pick")["collectives"][0]["why"]["strategy"]["runner_up"]["operands"][:2] == ["[S(1)]", "[S(0)]"]' \
// RUN:   'fn("pick")["collectives"][0]["why"]["strategy"]["runner_up"]["results"] == ["[P(sum)]"]' \
// RUN:   'abs(fn("pick")["collectives"][0]["why"]["strategy"]["chosen"]["cost_us"] - fn("gather")["totals"]["comm_cost_us"]) < 1e-9' \
// RUN:   'abs(fn("pick")["collectives"][0]["why"]["strategy"]["runner_up"]["cost_us"] - fn("swap")["totals"]["comm_cost_us"]) < 1e-9' \
// RUN:   'abs(fn("gather")["totals"]["comm_cost_us"] - 8.53) < 0.01 and abs(fn("swap")["totals"]["comm_cost_us"] - 9.43) < 0.01' \
// RUN:   'fn("pick")["collectives"][0]["why"]["strategy"]["num_candidates"] >= 4' \
// RUN:   'fn("gather")["collectives"][0]["why"]["reason"] == "explicit" and "strategy" not in fn("gather")["collectives"][0]["why"]'
// On the TP Block, PyTorch's choice is the cheapest strategy of each op (the
// runner-up costs no less), the result request has no strategy, and the
// global plan takes a locally dearer strategy where it pays later (the
// all-to-all before collapse_shape, 26.1 us where keeping S(2) costs 0).
// RUN: %jsonq %t.tp.json \
// RUN:   'all(c["why"]["strategy"]["chosen"]["cost_us"] <= c["why"]["strategy"]["runner_up"]["cost_us"] for c in f["collectives"] if c["why"].get("strategy") and c["why"]["strategy"]["runner_up"])' \
// RUN:   '[c["why"]["reason"] for c in f["collectives"]] == ["operand", "operand", "result_spec"]' \
// RUN:   'abs(f["collectives"][0]["why"]["strategy"]["chosen"]["cost_us"] - f["collectives"][0]["cost_us"]) < 1e-9'
// RUN: dtensor-opt %dtensor_src_root/examples/block_tp.mlir --dtensor-fake-report="format=json output=%t.global.json strategy=global" -o /dev/null
// RUN: %jsonq %t.global.json \
// RUN:   'f["collectives"][0]["why"]["op"] == "tensor.collapse_shape"' \
// RUN:   'abs(f["collectives"][0]["why"]["strategy"]["chosen"]["cost_us"] - 26.1) < 0.05 and f["collectives"][0]["why"]["strategy"]["runner_up"]["cost_us"] == 0'

// CHECK: kind        axis  value  placements            bytes/rank          cost_us  for
// CHECK-NEXT: all_gather  tp    %arg0  [S(0), S(1)] -> [S(0), R]
// CHECK-SAME: dtensor.redistribute (dtensor-fake-report-explain.mlir:[[@LINE+6]]:8)
// CHECK-NEXT: all_gather  dp    %arg0  [S(0), R] -> [R, R]
// CHECK-SAME: dtensor.redistribute (dtensor-fake-report-explain.mlir:[[@LINE+4]]:8)

dtensor.mesh @grid = <["dp" = 2, "tp" = 2]>
func.func @gather(%x: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(1)]>}) -> tensor<8x8xf32> {
  %r = dtensor.redistribute %x to #dtensor.spec<@grid, [R, R]> : tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
