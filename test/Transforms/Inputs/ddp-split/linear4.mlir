// Four Linear(1000, 1000) layers with bias (fp32): 4,000,000 + 4,000 bytes
// of parameters each. The batch of 10 is sharded S(0) on a mesh of 4 (local
// rows 3, 3, 3, 1), the parameters are replicated. At bucket-cap-mb=3.5
// (3,670,016 bytes) every layer fills its own bucket: 4 submodules.

dtensor.mesh @mesh = <["dp" = 4]>

func.func @linear4(%x: tensor<10x1000xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w0: tensor<1000x1000xf32> {dtensor.param = "w0", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %b0: tensor<1000xf32> {dtensor.param = "b0", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %w1: tensor<1000x1000xf32> {dtensor.param = "w1", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %b1: tensor<1000xf32> {dtensor.param = "b1", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %w2: tensor<1000x1000xf32> {dtensor.param = "w2", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %b2: tensor<1000xf32> {dtensor.param = "b2", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %w3: tensor<1000x1000xf32> {dtensor.param = "w3", dtensor.spec = #dtensor.spec<@mesh, [R]>},
    %b3: tensor<1000xf32> {dtensor.param = "b3", dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<10x1000xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<10x1000xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %mm0 = linalg.matmul ins(%x, %w0 : tensor<10x1000xf32>, tensor<1000x1000xf32>) outs(%z0 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %bb0 = linalg.broadcast ins(%b0 : tensor<1000xf32>) outs(%e0 : tensor<10x1000xf32>) dimensions = [0]
  %y0 = linalg.add ins(%mm0, %bb0 : tensor<10x1000xf32>, tensor<10x1000xf32>) outs(%e0 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %e1 = tensor.empty() : tensor<10x1000xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %mm1 = linalg.matmul ins(%y0, %w1 : tensor<10x1000xf32>, tensor<1000x1000xf32>) outs(%z1 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %bb1 = linalg.broadcast ins(%b1 : tensor<1000xf32>) outs(%e1 : tensor<10x1000xf32>) dimensions = [0]
  %y1 = linalg.add ins(%mm1, %bb1 : tensor<10x1000xf32>, tensor<10x1000xf32>) outs(%e1 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %e2 = tensor.empty() : tensor<10x1000xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %mm2 = linalg.matmul ins(%y1, %w2 : tensor<10x1000xf32>, tensor<1000x1000xf32>) outs(%z2 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %bb2 = linalg.broadcast ins(%b2 : tensor<1000xf32>) outs(%e2 : tensor<10x1000xf32>) dimensions = [0]
  %y2 = linalg.add ins(%mm2, %bb2 : tensor<10x1000xf32>, tensor<10x1000xf32>) outs(%e2 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %e3 = tensor.empty() : tensor<10x1000xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %mm3 = linalg.matmul ins(%y2, %w3 : tensor<10x1000xf32>, tensor<1000x1000xf32>) outs(%z3 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  %bb3 = linalg.broadcast ins(%b3 : tensor<1000xf32>) outs(%e3 : tensor<10x1000xf32>) dimensions = [0]
  %y3 = linalg.add ins(%mm3, %bb3 : tensor<10x1000xf32>, tensor<10x1000xf32>) outs(%e3 : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  return %y3 : tensor<10x1000xf32>
}
