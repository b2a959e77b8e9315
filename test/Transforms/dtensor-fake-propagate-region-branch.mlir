// RUN: dtensor-opt %S/../Integration/Inputs/region_branch.mlir -dtensor-fake-propagate=strategy=pytorch | FileCheck %s
// RUN: dtensor-opt %S/../Integration/Inputs/region_branch.mlir -dtensor-fake-propagate | FileCheck %s --check-prefix=GLOBAL
// RUN: dtensor-opt %S/../Integration/Inputs/region_branch.mlir -dtensor-fake-propagate -o %t.mlir
// RUN: dtensor-opt %t.mlir -dtensor-fake-propagate | diff %t.mlir -
// RUN: dtensor-opt %S/../Integration/Inputs/region_branch.mlir -dtensor-partition | FileCheck %s --check-prefix=LOCAL

// Control flow reaches the analysis through upstream's RegionBranchOpInterface
// (scf.while, scf.index_switch, scf.execute_region here; scf.for and scf.if in
// dtensor-fake-propagate-control-flow.mlir): the inputs of every successor
// reach a fixed point over the op's edges, and the output is a fixed point of
// propagation.

// The carried value keeps S(0) from the init through scf.condition into the
// body and back; nothing is redistributed.
// CHECK-LABEL: func.func @while_loop
// CHECK-NOT: dtensor.redistribute
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK: } attributes {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>, unit]}
// CHECK-NEXT: return

// The init starts replicated; after one round the body's S(1) is carried and
// the init is taken as a free local chunk.
// CHECK-LABEL: func.func @while_converges
// CHECK: %[[I:.*]] = dtensor.redistribute %arg1 to #dtensor.spec<@mesh, [S(1)]>
// CHECK: scf.while (%{{.*}} = %[[I]],
// CHECK-NOT: dtensor.redistribute
// CHECK: } attributes {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>, unit]}

// The first region (default) defines the result; the cases are redistributed
// to it. The global planner plans the ops of every region with the rest:
// %y moved to S(0) once, before the switch, and every region in S(0).
// GLOBAL-LABEL: func.func @switch
// GLOBAL: %[[Y:.*]] = dtensor.redistribute %arg1 to #dtensor.spec<@mesh, [S(0)]>
// GLOBAL: scf.index_switch {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// GLOBAL-NOT: dtensor.redistribute
// GLOBAL: math.exp %[[Y]] {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// GLOBAL-NOT: dtensor.redistribute
// GLOBAL: return
// CHECK-LABEL: func.func @switch
// CHECK: scf.index_switch {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK: case 0 {
// CHECK: arith.negf {{.*}} [S(0)]
// CHECK: %[[A:.*]] = dtensor.redistribute {{.*}} to #dtensor.spec<@mesh, [S(1)]>
// CHECK: scf.yield %[[A]]
// CHECK: case 1 {
// CHECK: %[[B:.*]] = dtensor.redistribute {{.*}} to #dtensor.spec<@mesh, [S(1)]>
// CHECK: scf.yield %[[B]]
// CHECK: default {
// CHECK-NOT: dtensor.redistribute
// CHECK: math.exp {{.*}} [S(1)]

// CHECK-LABEL: func.func @region
// CHECK: scf.execute_region
// CHECK: math.exp {{.*}} [S(1)]
// CHECK: } {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}

// The partitioned program carries local shards through the regions.
// LOCAL-LABEL: func.func @while_loop
// LOCAL: scf.while ({{.*}}) : (tensor<4x8xf32>, i32) -> (tensor<4x8xf32>, i32)
// LOCAL: ^bb0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: i32):
// LOCAL: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>)
// LOCAL-LABEL: func.func @switch
// LOCAL: scf.index_switch {{.*}} -> tensor<4x8xf32>
// LOCAL-LABEL: func.func @region
// LOCAL: scf.execute_region -> tensor<16x2xf32>
