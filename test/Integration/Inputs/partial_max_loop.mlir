// A P(max) input that becomes the init of a loop whose carried value is
// P(sum) (a matmul of it): the compiler needs P(max) -> P(sum), which has
// no direct plan, and goes through R (all_reduce max, then divide).
dtensor.mesh @mesh = <["x" = 4]>
func.func @f(%x: tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(max)]>}, %w: tensor<8x8xf32>) -> (tensor<8x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<8x8xf32>) {
    %e = tensor.empty() : tensor<8x8xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m = linalg.matmul ins(%acc, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %m : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
