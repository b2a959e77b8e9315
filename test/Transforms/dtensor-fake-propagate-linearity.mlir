// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=pytorch -split-input-file | FileCheck %s
// RUN: dtensor-opt %s -dtensor-fake-propagate=strategy=global -split-input-file | FileCheck %s

// Partial values pass through a linalg.generic body only where the body is
// linear in them, counting every use of every block argument
// (docs/semantics.md section 4).

#id = affine_map<(d0) -> (d0)>
dtensor.mesh @mesh = <["x" = 4]>

// (a + b)^2 is not a^2 + b^2: the partial input is reduced first.
// CHECK-LABEL: func.func @square
// CHECK: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: linalg.generic {{.*}} ins(%[[R]] : {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
// CHECK-NOT: dtensor.redistribute
func.func @square(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}) -> (tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
dtensor.mesh @mesh = <["x" = 4]>

// x * w with w replicated stays partial in x: one all_reduce after.
// CHECK-LABEL: func.func @scale
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: dtensor.redistribute %[[G]] to #dtensor.spec<@mesh, [R]>
func.func @scale(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}, %w: tensor<16xf32>) -> (tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %w : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %two = arith.constant 2.0 : f32
    %n = arith.mulf %m, %two : f32
    linalg.yield %n : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
dtensor.mesh @mesh = <["x" = 4]>

// w / x with x partial is not linear in x (the denominator): reduced first.
// CHECK-LABEL: func.func @partial_denominator
// CHECK: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: linalg.generic {{.*}} ins(%[[R]], %arg1 : {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
func.func @partial_denominator(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}, %w: tensor<16xf32>) -> (tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %w : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %q = arith.divf %b, %a : f32
    linalg.yield %q : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
dtensor.mesh @mesh = <["x" = 4]>

// where(c, x, 0) with c replicated is linear in x: x stays partial.
// CHECK-LABEL: func.func @select_zero
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: dtensor.redistribute %[[G]] to #dtensor.spec<@mesh, [R]>
func.func @select_zero(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}, %c: tensor<16xi1>) -> (tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %c : tensor<16xf32>, tensor<16xi1>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %p: i1, %out: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.select %p, %a, %z : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
dtensor.mesh @mesh = <["x" = 4]>

// x + 1 is affine, not linear: the constant would be added once per rank.
// CHECK-LABEL: func.func @plus_one
// CHECK: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: linalg.generic {{.*}} ins(%[[R]] : {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
func.func @plus_one(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}) -> (tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %in, %one : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
dtensor.mesh @mesh = <["x" = 4]>

// Two generics of the same types whose bodies differ: 2x is linear, x*x is
// not. Their rules see different input, so the rule classes that the global
// planner and the propagation's memo share keep them apart: only the
// square reduces its input first, though both results are returned P(sum).
// CHECK-LABEL: func.func @double_and_square
// CHECK: %[[R:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: linalg.generic {{.*}} ins(%arg0 : {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [P(sum)]>]}
// CHECK: linalg.generic {{.*}} ins(%[[R]] : {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
func.func @double_and_square(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}) -> (tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}, tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(sum)]>}) {
  %e = tensor.empty() : tensor<16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %in, %two : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %d, %s : tensor<16xf32>, tensor<16xf32>
}
