// The report counts every execution (PyTorch's plans here; the global
// planner's of loops in dtensor-fake-propagate-loops-planned.mlir): a collective in a loop times the trip
// count (the row names the loop), a callee's collectives once per call, the
// dearest region of a branch. test/Integration/report_vs_trace.test checks
// these counts and bytes against the trace of a real 2-rank run.
// RUN: dtensor-opt %S/Inputs/report-control-flow.mlir --dtensor-fake-report="format=json output=%t.json strategy=pytorch" -o /dev/null
// RUN: dtensor-opt %S/Inputs/report-control-flow.mlir --dtensor-fake-report="format=text strategy=pytorch" -o /dev/null | FileCheck %s
// RUN: %jsonq %t.json \
// RUN:   '[c["executions"] for c in fn("loop")["collectives"]] == [2, 1]' \
// RUN:   'fn("loop")["collectives"][0]["in"] == [{"op": "scf.for", "loc": "report-control-flow.mlir:10:8", "region": 0, "trip_count": 2}]' \
// RUN:   'fn("loop")["totals"]["num_collectives"] == 3 and fn("loop")["totals"]["comm_bytes"] == [24576, 24576]' \
// RUN:   'abs(fn("loop")["totals"]["comm_cost_us"] - (2 * 7.2 + 7.9)) < 0.1' \
// RUN:   '[(c["callee"], c["executions"], c["num_collectives"]) for c in fn("caller")["calls"]] == [("callee", 3, 1)]' \
// RUN:   'fn("caller")["totals"]["num_collectives"] == 4 and fn("caller")["totals"]["comm_bytes"] == [2048, 2048]' \
// RUN:   'fn("branch")["totals"]["num_collectives"] == 1'
// Nested loops: 2 x 3 runs of the inner collective, both loops named.
// RUN: %jsonq %t.json \
// RUN:   '[c["executions"] for c in fn("nested")["collectives"]] == [6, 1]' \
// RUN:   '[(s["loc"], s["trip_count"]) for s in fn("nested")["collectives"][0]["in"]] == [("report-control-flow.mlir:60:10", 3), ("report-control-flow.mlir:59:8", 2)]' \
// RUN:   'fn("nested")["totals"]["num_collectives"] == 7 and fn("nested")["totals"]["comm_bytes"] == [57344, 57344]'
// A loop whose trip count is not static counts once (the documented
// default) and says so; the static loop around it still multiplies.
// RUN: dtensor-opt %S/Inputs/report-dynamic-loop.mlir --dtensor-fake-report="format=json output=%t.dyn.json strategy=pytorch" -o /dev/null
// RUN: dtensor-opt %S/Inputs/report-dynamic-loop.mlir --dtensor-fake-report="format=text strategy=pytorch" -o /dev/null | FileCheck %s --check-prefix=DYN
// RUN: %jsonq %t.dyn.json \
// RUN:   '[c["executions"] for c in f["collectives"]] == [4, 1]' \
// RUN:   '[s["trip_count"] for s in f["collectives"][0]["in"]] == [None, 4]' \
// RUN:   'f["totals"]["num_collectives"] == 5 and f["totals"]["comm_bytes"] == [40960, 40960]'
// DYN: reduce_scatter  tp {{.*}} linalg.matmul (report-dynamic-loop.mlir:15:12)  x4 in scf.for (report-dynamic-loop.mlir:12:10, trip count unknown: counted 1), scf.for (report-dynamic-loop.mlir:11:8)
// DYN: totals: collectives=5

// CHECK-LABEL: function @loop
// CHECK: reduce_scatter  tp {{.*}} linalg.matmul (report-control-flow.mlir:13:10)  x2 in scf.for (report-control-flow.mlir:10:8)
// CHECK-NEXT: all_reduce  tp {{.*}} func.return (report-control-flow.mlir:16:3)     x1
// CHECK: totals: collectives=3 comm_cost_us=22.4 comm_bytes/rank=[24576 24576]
// The planner counts every execution too: no separate plan cost.
// CHECK-NEXT: peak memory/rank:
// CHECK-NOT: plan:
// CHECK-LABEL: function @caller
// CHECK: calls:
// CHECK-NEXT: callee   at {{.*}} runs
// CHECK-NEXT: @callee  report-control-flow.mlir:30:10  1  512 512  7.2  x3 in scf.for (report-control-flow.mlir:29:8)
// CHECK: totals: collectives=4
// The caller's plan leaves the callee's collectives to the callee.
// CHECK: plan: comm_cost_us=7.2 as the planner counts it (every region of a branch, callees apart)
// CHECK-LABEL: function @branch
// CHECK: all_gather {{.*}} x1 in region 0 of scf.if (report-control-flow.mlir:40:8)
// CHECK: totals: collectives=1
// CHECK-LABEL: function @nested
// CHECK: reduce_scatter  tp {{.*}} linalg.matmul (report-control-flow.mlir:63:12)  x6 in scf.for (report-control-flow.mlir:60:10), scf.for (report-control-flow.mlir:59:8)
// CHECK: totals: collectives=7 comm_cost_us=51.3 comm_bytes/rank=[57344 57344]

