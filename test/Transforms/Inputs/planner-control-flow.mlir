// examples/block_tp.mlir in a loop of 3 iterations carrying the residual
// stream (weight-tied layers), and in one branch of an scf.if: the
// planner plans the ops inside the loop and the branch with the rest.

dtensor.mesh @mesh = <["tp" = 4]>

#bthd_q = affine_map<(b, h, i, j, d) -> (b, i, h, d)>
#bthd_k = affine_map<(b, h, i, j, d) -> (b, j, h, d)>
#bhij   = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#pv_p   = affine_map<(b, i, h, d, j) -> (b, h, i, j)>
#pv_v   = affine_map<(b, i, h, d, j) -> (b, j, h, d)>
#pv_o   = affine_map<(b, i, h, d, j) -> (b, i, h, d)>
#id4    = affine_map<(b, h, i, j) -> (b, h, i, j)>
#id2    = affine_map<(m, n) -> (m, n)>

func.func @loop(
    %x0: tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %wq: tensor<512x512xf32> {dtensor.param = "wq", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wk: tensor<512x512xf32> {dtensor.param = "wk", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wv: tensor<512x512xf32> {dtensor.param = "wv", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wo: tensor<512x512xf32> {dtensor.param = "wo", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w1: tensor<512x2048xf32> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %w2: tensor<2048x512xf32> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %x0) -> (tensor<32x128x512xf32>) {
    %zero = arith.constant 0.0 : f32
    %scale = arith.constant 0.125 : f32

    // Projections on the flattened tokens.
    %xf = tensor.collapse_shape %x [[0, 1], [2]] : tensor<32x128x512xf32> into tensor<4096x512xf32>
    %e512 = tensor.empty() : tensor<4096x512xf32>
    %z512 = linalg.fill ins(%zero : f32) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %q = linalg.matmul ins(%xf, %wq : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %k = linalg.matmul ins(%xf, %wk : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %v = linalg.matmul ins(%xf, %wv : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>
    %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>
    %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>

    // scores[b, h, i, j] = sum_d q[b, i, h, d] * k[b, j, h, d]
    %es = tensor.empty() : tensor<32x8x128x128xf32>
    %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<32x8x128x128xf32>) -> tensor<32x8x128x128xf32>
    %s = linalg.generic {indexing_maps = [#bthd_q, #bthd_k, #bhij],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%q4, %k4 : tensor<32x128x8x64xf32>, tensor<32x128x8x64xf32>) outs(%zs : tensor<32x8x128x128xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    } -> tensor<32x8x128x128xf32>
    %ss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%s : tensor<32x8x128x128xf32>) outs(%es : tensor<32x8x128x128xf32>) {
    ^bb0(%a: f32, %out0: f32):
      %m = arith.mulf %a, %scale : f32
      linalg.yield %m : f32
    } -> tensor<32x8x128x128xf32>
    %p = linalg.softmax dimension(3) ins(%ss : tensor<32x8x128x128xf32>) outs(%es : tensor<32x8x128x128xf32>) -> tensor<32x8x128x128xf32>

    // o[b, i, h, d] = sum_j p[b, h, i, j] * v[b, j, h, d]
    %eo = tensor.empty() : tensor<32x128x8x64xf32>
    %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<32x128x8x64xf32>) -> tensor<32x128x8x64xf32>
    %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%p, %v4 : tensor<32x8x128x128xf32>, tensor<32x128x8x64xf32>) outs(%zo : tensor<32x128x8x64xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    } -> tensor<32x128x8x64xf32>
    %of = tensor.collapse_shape %o [[0, 1], [2, 3]] : tensor<32x128x8x64xf32> into tensor<4096x512xf32>
    %attn = linalg.matmul ins(%of, %wo : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %h = linalg.add ins(%attn, %xf : tensor<4096x512xf32>, tensor<4096x512xf32>) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>

    // MLP: relu(h w1) w2, residual.
    %e2048 = tensor.empty() : tensor<4096x2048xf32>
    %z2048 = linalg.fill ins(%zero : f32) outs(%e2048 : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
    %m1 = linalg.matmul ins(%h, %w1 : tensor<4096x512xf32>, tensor<512x2048xf32>) outs(%z2048 : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
    %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%m1 : tensor<4096x2048xf32>) outs(%e2048 : tensor<4096x2048xf32>) {
    ^bb0(%a: f32, %out0: f32):
      %m = arith.maximumf %a, %zero : f32
      linalg.yield %m : f32
    } -> tensor<4096x2048xf32>
    %m2 = linalg.matmul ins(%relu, %w2 : tensor<4096x2048xf32>, tensor<2048x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %out = linalg.add ins(%m2, %h : tensor<4096x512xf32>, tensor<4096x512xf32>) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %y = tensor.expand_shape %out [[0, 1], [2]] output_shape [32, 128, 512] : tensor<4096x512xf32> into tensor<32x128x512xf32>
    scf.yield %y : tensor<32x128x512xf32>
  }
  return %r : tensor<32x128x512xf32>
}

func.func @branch(
    %cond: i1, %x0: tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %wq: tensor<512x512xf32> {dtensor.param = "wq", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wk: tensor<512x512xf32> {dtensor.param = "wk", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wv: tensor<512x512xf32> {dtensor.param = "wv", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %wo: tensor<512x512xf32> {dtensor.param = "wo", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w1: tensor<512x2048xf32> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
    %w2: tensor<2048x512xf32> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %r = scf.if %cond -> (tensor<32x128x512xf32>) {
    %zero = arith.constant 0.0 : f32
    %scale = arith.constant 0.125 : f32

    // Projections on the flattened tokens.
    %xf = tensor.collapse_shape %x0 [[0, 1], [2]] : tensor<32x128x512xf32> into tensor<4096x512xf32>
    %e512 = tensor.empty() : tensor<4096x512xf32>
    %z512 = linalg.fill ins(%zero : f32) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %q = linalg.matmul ins(%xf, %wq : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %k = linalg.matmul ins(%xf, %wk : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %v = linalg.matmul ins(%xf, %wv : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>
    %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>
    %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [32, 128, 8, 64] : tensor<4096x512xf32> into tensor<32x128x8x64xf32>

    // scores[b, h, i, j] = sum_d q[b, i, h, d] * k[b, j, h, d]
    %es = tensor.empty() : tensor<32x8x128x128xf32>
    %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<32x8x128x128xf32>) -> tensor<32x8x128x128xf32>
    %s = linalg.generic {indexing_maps = [#bthd_q, #bthd_k, #bhij],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%q4, %k4 : tensor<32x128x8x64xf32>, tensor<32x128x8x64xf32>) outs(%zs : tensor<32x8x128x128xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    } -> tensor<32x8x128x128xf32>
    %ss = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%s : tensor<32x8x128x128xf32>) outs(%es : tensor<32x8x128x128xf32>) {
    ^bb0(%a: f32, %out0: f32):
      %m = arith.mulf %a, %scale : f32
      linalg.yield %m : f32
    } -> tensor<32x8x128x128xf32>
    %p = linalg.softmax dimension(3) ins(%ss : tensor<32x8x128x128xf32>) outs(%es : tensor<32x8x128x128xf32>) -> tensor<32x8x128x128xf32>

    // o[b, i, h, d] = sum_j p[b, h, i, j] * v[b, j, h, d]
    %eo = tensor.empty() : tensor<32x128x8x64xf32>
    %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<32x128x8x64xf32>) -> tensor<32x128x8x64xf32>
    %o = linalg.generic {indexing_maps = [#pv_p, #pv_v, #pv_o],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%p, %v4 : tensor<32x8x128x128xf32>, tensor<32x128x8x64xf32>) outs(%zo : tensor<32x128x8x64xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %m = arith.mulf %a, %b : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    } -> tensor<32x128x8x64xf32>
    %of = tensor.collapse_shape %o [[0, 1], [2, 3]] : tensor<32x128x8x64xf32> into tensor<4096x512xf32>
    %attn = linalg.matmul ins(%of, %wo : tensor<4096x512xf32>, tensor<512x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %h = linalg.add ins(%attn, %xf : tensor<4096x512xf32>, tensor<4096x512xf32>) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>

    // MLP: relu(h w1) w2, residual.
    %e2048 = tensor.empty() : tensor<4096x2048xf32>
    %z2048 = linalg.fill ins(%zero : f32) outs(%e2048 : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
    %m1 = linalg.matmul ins(%h, %w1 : tensor<4096x512xf32>, tensor<512x2048xf32>) outs(%z2048 : tensor<4096x2048xf32>) -> tensor<4096x2048xf32>
    %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%m1 : tensor<4096x2048xf32>) outs(%e2048 : tensor<4096x2048xf32>) {
    ^bb0(%a: f32, %out0: f32):
      %m = arith.maximumf %a, %zero : f32
      linalg.yield %m : f32
    } -> tensor<4096x2048xf32>
    %m2 = linalg.matmul ins(%relu, %w2 : tensor<4096x2048xf32>, tensor<2048x512xf32>) outs(%z512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %out = linalg.add ins(%m2, %h : tensor<4096x512xf32>, tensor<4096x512xf32>) outs(%e512 : tensor<4096x512xf32>) -> tensor<4096x512xf32>
    %y = tensor.expand_shape %out [[0, 1], [2]] output_shape [32, 128, 512] : tensor<4096x512xf32> into tensor<32x128x512xf32>
    scf.yield %y : tensor<32x128x512xf32>
  } else {
    scf.yield %x0 : tensor<32x128x512xf32>
  }
  return %r : tensor<32x128x512xf32>
}
