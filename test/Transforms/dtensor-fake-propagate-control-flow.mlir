// RUN: dtensor-opt %s -dtensor-fake-propagate | FileCheck %s
// RUN: dtensor-opt %s -dtensor-fake-propagate | dtensor-opt -dtensor-fake-propagate | FileCheck %s

// Structured control flow and calls: loop-carried values reach a fixed
// point, branches agree on their results, calls follow the callee's specs.

// CHECK-LABEL: func.func @loop
// CHECK-NOT: dtensor.redistribute
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %arg0)
// CHECK: linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[ACC]],
// CHECK: } {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}

// A carried value that starts replicated becomes S(0) after one round: the
// init is taken in S(0) (a free local chunk) instead of gathering every
// iteration.
// CHECK-LABEL: func.func @loop_converges
// CHECK: %[[I:.*]] = dtensor.redistribute %arg1 to #dtensor.spec<@mesh, [S(0)]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[I]])
// CHECK: arith.addf {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK-NOT: dtensor.redistribute
// CHECK: } {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}

// The else branch is redistributed to the placements of the then branch.
// CHECK-LABEL: func.func @branch
// CHECK: scf.if
// CHECK: arith.negf {{.*}} [S(0)]
// CHECK: } else {
// CHECK: %[[B:.*]] = arith.negf {{.*}} [S(1)]
// CHECK: %[[BR:.*]] = dtensor.redistribute %[[B]] to #dtensor.spec<@mesh, [S(0)]>
// CHECK: scf.yield %[[BR]]
// CHECK: } {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}

// CHECK-LABEL: func.func private @callee
// CHECK: math.exp {{.*}} [S(1)]

// The call operand is moved to the callee's argument spec; the result has
// the placements the callee returns.
// CHECK-LABEL: func.func @caller
// CHECK: %[[A:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [S(1)]>
// CHECK: call @callee(%[[A]]) {dtensor.specs = [#dtensor.spec<@mesh, [S(1)]>]}
// CHECK: arith.addf {{.*}} [S(1)]

dtensor.mesh @mesh = <["x" = 4]>

func.func @loop(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %w: tensor<8x8xf32>) -> tensor<16x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<16x8xf32>) {
    %e = tensor.empty() : tensor<16x8xf32>
    %m = linalg.matmul ins(%acc, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    scf.yield %m : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

// The carried value starts replicated and becomes S(0) after one round.
func.func @loop_converges(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %init: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<16x8xf32>) {
    %s = arith.addf %acc, %x : tensor<16x8xf32>
    scf.yield %s : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

func.func @branch(%p: i1, %x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %y: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<16x8xf32> {
  %r = scf.if %p -> tensor<16x8xf32> {
    %a = arith.negf %x : tensor<16x8xf32>
    scf.yield %a : tensor<16x8xf32>
  } else {
    %b = arith.negf %y : tensor<16x8xf32>
    scf.yield %b : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

func.func private @callee(%a: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<16x8xf32> {
  %b = math.exp %a : tensor<16x8xf32>
  return %b : tensor<16x8xf32>
}

func.func @caller(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<16x8xf32> {
  %r = func.call @callee(%x) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %s = arith.addf %r, %r : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}
