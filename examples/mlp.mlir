// Megatron tensor-parallel MLP on a 1-D mesh of 4: w1 column-parallel S(1),
// w2 row-parallel S(0), x replicated, result requested replicated.
// Expected plan: h and relu(h) stay S(1), the second matmul gives P(sum),
// and exactly one all_reduce of the [32, 512] output returns it as R.

dtensor.mesh @mesh = <["tp" = 4]>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%x: tensor<32x512xf32>,
               %w1: tensor<512x2048xf32> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
               %w2: tensor<2048x512xf32> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x2048xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x512xf32>, tensor<512x2048xf32>) outs(%z1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<32x2048xf32>) outs(%e1 : tensor<32x2048xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<32x2048xf32>
  %e2 = tensor.empty() : tensor<32x512xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<32x2048xf32>, tensor<2048x512xf32>) outs(%z2 : tensor<32x512xf32>) -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}
