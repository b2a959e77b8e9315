// Loops and branches the global planner plans through (strategy=global):
// checked against one rank by test/Integration/planner_loops.test.
dtensor.mesh @mesh = <["x" = 2]>

// PyTorch keeps the loop-carried value partial (a matmul with a row-sharded
// weight, then linearity) and reduces it after the loop; the planner
// gathers %w once before the loop and carries the value replicated.
func.func @loop(%x: tensor<8x16xf32>, %w: tensor<16x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<8x16xf32>) {
    %e = tensor.empty() : tensor<8x16xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %m = linalg.matmul ins(%acc, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
    %t = math.tanh %m : tensor<8x16xf32>
    scf.yield %t : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// The then-branch defines the result; the else-branch's value is moved to
// it. Both branches are planned.
func.func @branch(%x: tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                  %w: tensor<16x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %cond = arith.constant true
  %zero = arith.constant 0.0 : f32
  %r = scf.if %cond -> (tensor<8x16xf32>) {
    %e = tensor.empty() : tensor<8x16xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
    %t = math.tanh %m : tensor<8x16xf32>
    scf.yield %t : tensor<8x16xf32>
  } else {
    %n = arith.negf %x : tensor<8x16xf32>
    scf.yield %n : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// Nested loops carrying two values, one through a branch.
func.func @nested(%x: tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %y: tensor<8x16xf32>,
                  %w: tensor<16x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>})
    -> (tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
        tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x, %b = %y) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (tensor<8x16xf32>) {
      %e = tensor.empty() : tensor<8x16xf32>
      %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
      %m = linalg.matmul ins(%acc, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
      %t = math.tanh %m : tensor<8x16xf32>
      scf.yield %t : tensor<8x16xf32>
    }
    %odd = arith.cmpi eq, %i, %c1 : index
    %u = scf.if %odd -> (tensor<8x16xf32>) {
      %p = arith.addf %b, %s : tensor<8x16xf32>
      scf.yield %p : tensor<8x16xf32>
    } else {
      %q = arith.mulf %b, %s : tensor<8x16xf32>
      scf.yield %q : tensor<8x16xf32>
    }
    scf.yield %s, %u : tensor<8x16xf32>, tensor<8x16xf32>
  }
  return %r#0, %r#1 : tensor<8x16xf32>, tensor<8x16xf32>
}

// Carried values through each other (swapped every iteration: both take the
// placements of the tanh that ends the chain, after the analysis's rounds),
// a carried value passed through unchanged next to one made from a fill,
// and an inner loop whose init is the outer loop's carried value.
func.func @swap(%x: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x, %b = %y) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
    %n = math.tanh %a : tensor<8x8xf32>
    scf.yield %b, %n : tensor<8x8xf32>, tensor<8x8xf32>
  }
  return %r#0, %r#1 : tensor<8x8xf32>, tensor<8x8xf32>
}
func.func @created(%x: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}, %w: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> (tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x, %keep = %w) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
    %e = tensor.empty() : tensor<8x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m = linalg.matmul ins(%a, %keep : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %s = arith.addf %m, %f : tensor<8x8xf32>
    scf.yield %s, %keep : tensor<8x8xf32>, tensor<8x8xf32>
  }
  return %r#0 : tensor<8x8xf32>
}
func.func @nested_init(%x: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}, %w: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> (tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> (tensor<8x8xf32>) {
    %s = scf.for %j = %c0 to %c2 step %c1 iter_args(%b = %a) -> (tensor<8x8xf32>) {
      %e = tensor.empty() : tensor<8x8xf32>
      %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
      %m = linalg.matmul ins(%b, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
      scf.yield %b : tensor<8x8xf32>
    }
    %t = math.tanh %s : tensor<8x8xf32>
    scf.yield %t : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
