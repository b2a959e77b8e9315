// A P(avg) input read by a nonlinear op and a matmul: PyTorch's plan (and the
// heuristic's) all-reduces it for exp, reduce-scatters it again for the
// matmul and all-reduces the sum (29.5 us); one all_reduce of the input
// serves both (10.5 us), which strategy=exact finds.
dtensor.mesh @mesh = <["x" = 4]>
func.func @f(%x: tensor<64x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(avg)]>}, %w: tensor<64x64xf32>) -> (tensor<64x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<64x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %y = math.exp %x : tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %c0 = arith.constant 0.0 : f32
  %z0 = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = arith.addf %m, %y : tensor<64x64xf32>
  return %s, %y : tensor<64x64xf32>, tensor<64x64xf32>
}
