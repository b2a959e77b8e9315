// Softmax cross-entropy of a linear classifier, written in linalg:
//   z = x w + b, lse_i = m_i + log(sum_c exp(z_ic - m_i)), m_i = max_c z_ic,
//   loss = sum_i (lse_i - sum_c y_ic z_ic) / B   (y one-hot or soft labels)
// Data parallel on a mesh of 2: x and y S(0), w and b R.
//
//   dtensor-run examples/softmax_ce_loss.mlir --grad-check

dtensor.mesh @mesh = <["dp" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>
#to0d = affine_map<(d0) -> ()>

func.func @softmax_ce_loss(
    %x: tensor<8x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %y: tensor<8x10xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w: tensor<16x10xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %b: tensor<10xf32> {dtensor.param = "b", dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<f32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inv_batch = arith.constant dense<0.125> : tensor<f32>
  %e = tensor.empty() : tensor<8x10xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e : tensor<8x10xf32>) -> tensor<8x10xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x10xf32>) outs(%z0 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %bb = linalg.broadcast ins(%b : tensor<10xf32>) outs(%e : tensor<8x10xf32>) dimensions = [0]
  %z = linalg.add ins(%mm, %bb : tensor<8x10xf32>, tensor<8x10xf32>) outs(%e : tensor<8x10xf32>) -> tensor<8x10xf32>
  // m = max over classes
  %er = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.reduce ins(%z : tensor<8x10xf32>) outs(%mi : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  // s = sum_c exp(z - m)
  %si = linalg.fill ins(%c0 : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%z, %m : tensor<8x10xf32>, tensor<8xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%zv: f32, %mv: f32, %acc: f32):
    %d = arith.subf %zv, %mv : f32
    %ex = math.exp %d : f32
    %r = arith.addf %acc, %ex : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  // t_i = sum_c y_ic z_ic
  %t = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y, %z : tensor<8x10xf32>, tensor<8x10xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%yv: f32, %zv: f32, %acc: f32):
    %p = arith.mulf %yv, %zv : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  // loss = sum_i (m_i + log s_i - t_i) / B
  %es = tensor.empty() : tensor<f32>
  %ls = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#vec, #vec, #vec, #to0d], iterator_types = ["reduction"]}
      ins(%m, %s, %t : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%ls : tensor<f32>) {
  ^bb0(%mv: f32, %sv: f32, %tv: f32, %acc: f32):
    %lg = math.log %sv : f32
    %lse = arith.addf %mv, %lg : f32
    %nll = arith.subf %lse, %tv : f32
    %r = arith.addf %acc, %nll : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %loss = linalg.mul ins(%sum, %inv_batch : tensor<f32>, tensor<f32>) outs(%es : tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
