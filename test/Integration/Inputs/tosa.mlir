dtensor.mesh @mesh = <["x" = 4]>

// A batch-sharded layer in tosa: matmul, bias (broadcast), a shift by a
// constant (broadcast sub), relu (maximum with a constant).
func.func @layer(%x: tensor<8x16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                 %w: tensor<8x32x24xf32>, %bias: tensor<1x1x24xf32>)
    -> (tensor<8x16x24xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<8x16x32xf32>, tensor<8x32x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16x24xf32>
  %b = tosa.add %m, %bias : (tensor<8x16x24xf32>, tensor<1x1x24xf32>) -> tensor<8x16x24xf32>
  %s = tosa.sub %b, %half : (tensor<8x16x24xf32>, tensor<1x1x1xf32>) -> tensor<8x16x24xf32>
  %r = tosa.maximum %s, %zero : (tensor<8x16x24xf32>, tensor<1x1x1xf32>) -> tensor<8x16x24xf32>
  return %r : tensor<8x16x24xf32>
}

// The contraction dim sharded: the matmul gives P(sum), reduced before the
// bias is added.
func.func @contract(%x: tensor<1x16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(2)]>},
                    %w: tensor<1x32x24xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                    %bias: tensor<1x1x24xf32>)
    -> (tensor<1x16x24xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x16x32xf32>, tensor<1x32x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x24xf32>
  %b = tosa.add %m, %bias : (tensor<1x16x24xf32>, tensor<1x1x24xf32>) -> tensor<1x16x24xf32>
  return %b : tensor<1x16x24xf32>
}

// The same with 6 batches on 4 ranks (2, 2, 1, 1): local shapes are dynamic.
func.func @uneven_layer(%x: tensor<6x16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                 %w: tensor<6x32x24xf32>, %bias: tensor<1x1x24xf32>)
    -> (tensor<6x16x24xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<6x16x32xf32>, tensor<6x32x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<6x16x24xf32>
  %b = tosa.add %m, %bias : (tensor<6x16x24xf32>, tensor<1x1x24xf32>) -> tensor<6x16x24xf32>
  %s = tosa.sub %b, %half : (tensor<6x16x24xf32>, tensor<1x1x1xf32>) -> tensor<6x16x24xf32>
  %r = tosa.maximum %s, %zero : (tensor<6x16x24xf32>, tensor<1x1x1xf32>) -> tensor<6x16x24xf32>
  return %r : tensor<6x16x24xf32>
}
