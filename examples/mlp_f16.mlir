// The Megatron tensor-parallel MLP in float16 (IEEE half) on a 1-D mesh of 2, as mixed
// precision trains it: f16 weights and activations, the first matmul
// accumulating in f32 (then relu and rounding to f16), the second one in
// f16, so that its P(sum) result is all-reduced in f16.
// Generated from examples/mlp_bf16.mlir by `sed 's/bf16/f16/g'`.

dtensor.mesh @mesh = <["tp" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%x: tensor<16x256xf16>,
               %w1: tensor<256x512xf16> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
               %w2: tensor<512x256xf16> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16x256xf16> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %b0 = arith.constant 0.0 : f16
  %e1 = tensor.empty() : tensor<16x512xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<16x512xf32>) -> tensor<16x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x256xf16>, tensor<256x512xf16>) outs(%z1 : tensor<16x512xf32>) -> tensor<16x512xf32>
  %eb = tensor.empty() : tensor<16x512xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<16x512xf32>) outs(%eb : tensor<16x512xf16>) {
  ^bb0(%a: f32, %o: f16):
    %m = arith.maximumf %a, %c0 : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x512xf16>
  %e2 = tensor.empty() : tensor<16x256xf16>
  %z2 = linalg.fill ins(%b0 : f16) outs(%e2 : tensor<16x256xf16>) -> tensor<16x256xf16>
  %y = linalg.matmul ins(%r, %w2 : tensor<16x512xf16>, tensor<512x256xf16>) outs(%z2 : tensor<16x256xf16>) -> tensor<16x256xf16>
  return %y : tensor<16x256xf16>
}
