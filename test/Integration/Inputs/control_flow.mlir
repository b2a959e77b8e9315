dtensor.mesh @mesh = <["x" = 4]>

// A loop-carried value through a matmul, batch-sharded.
func.func @loop(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %w: tensor<8x8xf32>)
    -> (tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<16x8xf32>) {
    %e = tensor.empty() : tensor<16x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    %m = linalg.matmul ins(%acc, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%z : tensor<16x8xf32>) -> tensor<16x8xf32>
    scf.yield %m : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

// A call whose callee wants its argument column-sharded.
func.func private @callee(%a: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<16x8xf32> {
  %b = math.exp %a : tensor<16x8xf32>
  return %b : tensor<16x8xf32>
}
func.func @caller(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %r = func.call @callee(%x) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %s = arith.addf %r, %r : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}
