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
