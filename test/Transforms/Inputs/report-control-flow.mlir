dtensor.mesh @mesh = <["tp" = 2]>

// Two collectives per iteration of a 2-iteration loop, one after it.
func.func @loop(%x: tensor<16x128xf32>, %w: tensor<128x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<16x128xf32>) {
    %e = tensor.empty() : tensor<16x128xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
    %m = linalg.matmul ins(%acc, %w : tensor<16x128xf32>, tensor<128x128xf32>) outs(%z : tensor<16x128xf32>) -> tensor<16x128xf32>
    scf.yield %m : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}

// The callee gathers its column-sharded argument; called in a loop of 3.
func.func private @callee(%a: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> (tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %b = math.exp %a : tensor<16x8xf32>
  return %b : tensor<16x8xf32>
}
func.func @caller(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>})
    -> (tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<16x8xf32>) {
    %y = func.call @callee(%acc) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    scf.yield %y : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

// A branch: the report counts the dearest region (the run takes it).
func.func @branch(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %t = arith.constant true
  %r = scf.if %t -> (tensor<16x8xf32>) {
    %g = dtensor.redistribute %x to #dtensor.spec<@mesh, [R]> : tensor<16x8xf32>
    %s = arith.addf %g, %g : tensor<16x8xf32>
    %b = dtensor.redistribute %s to #dtensor.spec<@mesh, [S(0)]> : tensor<16x8xf32>
    scf.yield %b : tensor<16x8xf32>
  } else {
    scf.yield %x : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

// The same collective in the inner of two nested loops: 2 x 3 runs.
func.func @nested(%x: tensor<16x128xf32>, %w: tensor<128x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> (tensor<16x128xf32>) {
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (tensor<16x128xf32>) {
      %e = tensor.empty() : tensor<16x128xf32>
      %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
      %m = linalg.matmul ins(%acc, %w : tensor<16x128xf32>, tensor<128x128xf32>) outs(%z : tensor<16x128xf32>) -> tensor<16x128xf32>
      scf.yield %m : tensor<16x128xf32>
    }
    scf.yield %s : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
