// RUN: dtensor-opt %s --dtensor-fake-report="format=json output=%t.uneven.json" -o /dev/null
// RUN: %jsonq %t.uneven.json \
// RUN:   'fn("uneven")["values"][0]["local_shapes"] == [[3, 8], [3, 8], [3, 8], [1, 8]]' \
// RUN:   'fn("uneven")["values"][1]["local_shapes"] == [[2], [2], [1], [0]]' \
// RUN:   'fn("uneven")["values"][0]["bytes"] == [96, 96, 96, 32]' \
// RUN:   'fn("uneven")["returns"][0]["placements"] == ["S(0)"]' \
// RUN:   'fn("uneven")["returns"][0]["local_shapes"] == [[3, 8], [3, 8], [3, 8], [1, 8]]' \
// RUN:   'kinds(fn("uneven")) == []'
// RUN: %jsonq %t.uneven.json \
// RUN:   'fn("seven_over_eight")["values"][0]["local_shapes"] == [[1, 2]] * 7 + [[0, 2]]' \
// RUN:   'fn("seven_over_eight")["mesh"]["shape"] == [8]'
// RUN: %jsonq %t.uneven.json \
// RUN:   'fn("nested")["values"][0]["local_shapes"] == [[3, 3], [2, 3], [3, 3], [2, 3]]' \
// RUN:   'fn("nested")["values"][0]["placements"] == ["S(0)", "S(0)"]' \
// RUN:   'fn("two_axes_dim1")["values"][0]["local_shapes"] == [[2, 2], [2, 1], [2, 1], [2, 1]]' \
// RUN:   'fn("nested")["mesh"] == {"name": "grid", "axis_names": ["dp", "tp"], "shape": [2, 2]}' \
// RUN:   'kinds(fn("gather_2d")) == ["all_gather", "all_gather"]' \
// RUN:   '[c["mesh_axes"] for c in fn("gather_2d")["collectives"]] == [[1], [0]]' \
// RUN:   'fn("gather_2d")["collectives"][0]["bytes"] == [60] * 4' \
// RUN:   'fn("gather_2d")["collectives"][1]["bytes"] == [120] * 4' \
// RUN:   'fn("gather_2d")["totals"]["comm_bytes"] == [180] * 4'
// RUN: dtensor-opt %s --dtensor-fake-report="format=text" -o /dev/null | FileCheck %s --check-prefix=TEXT

// The report of the examples.
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-fake-report="format=json output=%t.block.json" -o /dev/null
// RUN: %jsonq %t.block.json \
// RUN:   'f["name"] == "block"' \
// RUN:   'f["values"][0]["local_shapes"] == [[8, 128, 512]] * 4' \
// RUN:   'all(v["placements"] == ["S(0)"] for v in f["values"] if v["op"] != "block_argument")' \
// RUN:   'all(v["placements"] == ["R"] for v in f["values"][1:7])' \
// RUN:   'f["collectives"] == []' \
// RUN:   'f["totals"]["comm_bytes"] == [0, 0, 0, 0]' \
// RUN:   'f["totals"]["comm_cost_us"] == 0' \
// RUN:   'f["returns"][0]["local_shapes"] == [[8, 128, 512]] * 4' \
// RUN:   'all(p > 0 for p in f["totals"]["peak_bytes"])'
// RUN: dtensor-opt %dtensor_src_root/examples/mlp.mlir --dtensor-fake-report="format=json output=%t.mlp.json" -o /dev/null
// RUN: %jsonq %t.mlp.json \
// RUN:   'kinds(f) == ["all_reduce"]' \
// RUN:   'f["collectives"][0]["mesh_axes"] == [0]' \
// RUN:   'f["collectives"][0]["global_shape"] == [32, 512]' \
// RUN:   'f["collectives"][0]["bytes"] == [65536] * 4' \
// RUN:   'abs(f["totals"]["comm_cost_us"] - 11.2439) < 1e-3' \
// RUN:   'f["returns"][0]["placements"] == ["R"]'
// RUN: dtensor-opt %dtensor_src_root/examples/mlp_reduce_scatter.mlir --dtensor-fake-report="format=json output=%t.rs.json" -o /dev/null
// RUN: %jsonq %t.rs.json \
// RUN:   'kinds(f) == ["reduce_scatter"]' \
// RUN:   'len(f["redistributions"]) == 1' \
// RUN:   'f["returns"][0]["local_shapes"] == [[8, 512]] * 4'
// RUN: dtensor-opt %dtensor_src_root/examples/where_layer.mlir --dtensor-fake-report="format=json output=%t.where.json" -o /dev/null
// RUN: %jsonq %t.where.json \
// RUN:   'kinds(f) == []' \
// RUN:   '[v["placements"] for v in f["values"] if v["op"] == "arith.constant" and v["global_shape"] == []] == [["R"]] * 3' \
// RUN:   'all(v["local_shapes"] == [[]] * 4 for v in f["values"] if v["global_shape"] == [])' \
// RUN:   'all(v["placements"] == ["S(0)"] for v in f["values"] if v["op"] in ("arith.cmpf", "arith.select", "arith.addf", "linalg.broadcast"))' \
// RUN:   '[v["dtype"] for v in f["values"] if v["op"] == "arith.cmpf"] == ["i1"]'

// TEXT-LABEL: function @uneven on mesh @mesh 4 (4 ranks)
// TEXT: value  op              global   placements  local shapes
// TEXT: %arg0  block_argument  10x8xf32  [S(0)]      3x8 3x8 3x8 1x8
// TEXT: collectives: none
// TEXT: totals: collectives=0 comm_cost_us=0.0

// 10 rows over 4 ranks: 3, 3, 3, 1; 5 over 4: 2, 2, 1, 0.
dtensor.mesh @mesh = <["x" = 4]>
func.func @uneven(%x: tensor<10x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %y: tensor<5xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<10x8xf32> {
  %z = arith.addf %x, %x : tensor<10x8xf32>
  return %z : tensor<10x8xf32>
}

// 7 over 8: seven ranks hold one row, the last none.
// (Several meshes in one module: each function uses one.)
dtensor.mesh @m8 = <["x" = 8]>
func.func @seven_over_eight(%x: tensor<7x2xf32> {dtensor.spec = #dtensor.spec<@m8, [S(0)]>}) -> tensor<7x2xf32> {
  return %x : tensor<7x2xf32>
}

// [10, 3] on 2x2 with [S(0), S(0)]: rows 3, 2, 3, 2.
dtensor.mesh @grid = <["dp" = 2, "tp" = 2]>
func.func @nested(%x: tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(0)]>}) -> tensor<10x3xf32> {
  return %x : tensor<10x3xf32>
}
// [2, 5] on 2x2 with [S(1), S(1)]: (2,2), (2,1), (2,1), (2,1).
func.func @two_axes_dim1(%x: tensor<2x5xf32> {dtensor.spec = #dtensor.spec<@grid, [S(1), S(1)]>}) -> tensor<2x5xf32> {
  return %x : tensor<2x5xf32>
}
// [S(0), S(0)] -> [R, R]: all-gather the inner axis first, then the outer.
func.func @gather_2d(%x: tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@grid, [S(0), S(0)]>})
    -> (tensor<10x3xf32> {dtensor.spec = #dtensor.spec<@grid, [R, R]>}) {
  return %x : tensor<10x3xf32>
}
