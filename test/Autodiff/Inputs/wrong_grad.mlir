// loss = sum(x * w * w); its gradient is 2 x w. The hand-written @f_grad
// returns x w (a factor of 2 missing): dtensor-autodiff keeps an existing
// @f_grad, so --grad-check checks this one and must fail. @g has the right
// hand-written gradient and passes.
#id = affine_map<(d0) -> (d0)>
#to0d = affine_map<(d0) -> ()>

func.func @f(%x: tensor<8xf32>, %w: tensor<8xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%z : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [#id, #id, #to0d], iterator_types = ["reduction"]}
      ins(%x, %w : tensor<8xf32>, tensor<8xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %b : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %l : tensor<f32>
}

func.func @f_grad(%x: tensor<8xf32>, %w: tensor<8xf32> {dtensor.param = "w"}) -> (tensor<f32>, tensor<8xf32>) {
  %l = call @f(%x, %w) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.mul ins(%x, %w : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %l, %g : tensor<f32>, tensor<8xf32>
}

func.func @g(%x: tensor<8xf32>, %w: tensor<8xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %l = call @f(%x, %w) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @g_grad(%x: tensor<8xf32>, %w: tensor<8xf32> {dtensor.param = "w"}) -> (tensor<f32>, tensor<8xf32>) {
  %l = call @f(%x, %w) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.mul ins(%x, %w : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %g2 = linalg.add ins(%g, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %l, %g2 : tensor<f32>, tensor<8xf32>
}
