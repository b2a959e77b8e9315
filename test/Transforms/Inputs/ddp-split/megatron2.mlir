// Two Megatron MLP layers (bench/gen_ddp_mlp.py --layers 2 --megatron): w1 S(1),
// w2 S(0), x replicated; each layer ends in a P(sum) value that the next one
// reads replicated. 64 KiB per weight.

dtensor.mesh @mesh = <["dp" = 4]>

func.func @ddp_mlp(
    %x: tensor<32x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %w1_0: tensor<64x256xf32> {dtensor.param = "w1_0", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %w2_0: tensor<256x64xf32> {dtensor.param = "w2_0", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w1_1: tensor<64x256xf32> {dtensor.param = "w1_1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %w2_1: tensor<256x64xf32> {dtensor.param = "w2_1", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %e1_0 = tensor.empty() : tensor<32x256xf32>
  %z1_0 = linalg.fill ins(%c0 : f32) outs(%e1_0 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h_0 = linalg.matmul ins(%x, %w1_0 : tensor<32x64xf32>, tensor<64x256xf32>) outs(%z1_0 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %r_0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h_0 : tensor<32x256xf32>) outs(%e1_0 : tensor<32x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<32x256xf32>
  %e2_0 = tensor.empty() : tensor<32x64xf32>
  %z2_0 = linalg.fill ins(%c0 : f32) outs(%e2_0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y_0 = linalg.matmul ins(%r_0, %w2_0 : tensor<32x256xf32>, tensor<256x64xf32>) outs(%z2_0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e1_1 = tensor.empty() : tensor<32x256xf32>
  %z1_1 = linalg.fill ins(%c0 : f32) outs(%e1_1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h_1 = linalg.matmul ins(%y_0, %w1_1 : tensor<32x64xf32>, tensor<64x256xf32>) outs(%z1_1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %r_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h_1 : tensor<32x256xf32>) outs(%e1_1 : tensor<32x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<32x256xf32>
  %e2_1 = tensor.empty() : tensor<32x64xf32>
  %z2_1 = linalg.fill ins(%c0 : f32) outs(%e2_1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y_1 = linalg.matmul ins(%r_1, %w2_1 : tensor<32x256xf32>, tensor<256x64xf32>) outs(%z2_1 : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %y_1 : tensor<32x64xf32>
}
