// Float min/max row reductions of many lengths (odd ones, powers of two and
// neither): vectorized, each is a tree of half-vector combines
// (dtensor-vectorize); the results must be the scalar loops' exactly.
// Checked by vectorize.test.
dtensor.mesh @mesh = <["x" = 2]>

func.func @rows(%x0: tensor<6x2xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x1: tensor<6x3xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x2: tensor<6x5xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x3: tensor<6x7xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x4: tensor<6x17xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x5: tensor<6x96xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x6: tensor<6x100xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x7: tensor<6x128xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x8: tensor<6x131xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %x9: tensor<6x257xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<6xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %i0_0 = arith.constant 0xFF800000 : f32
  %e0_0 = tensor.empty() : tensor<6xf32>
  %f0_0 = linalg.fill ins(%i0_0 : f32) outs(%e0_0 : tensor<6xf32>) -> tensor<6xf32>
  %r0_0 = linalg.reduce ins(%x0 : tensor<6x2xf32>) outs(%f0_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i0_1 = arith.constant 0x7F800000 : f32
  %e0_1 = tensor.empty() : tensor<6xf32>
  %f0_1 = linalg.fill ins(%i0_1 : f32) outs(%e0_1 : tensor<6xf32>) -> tensor<6xf32>
  %r0_1 = linalg.reduce ins(%x0 : tensor<6x2xf32>) outs(%f0_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i1_0 = arith.constant 0x7F800000 : f32
  %e1_0 = tensor.empty() : tensor<6xf32>
  %f1_0 = linalg.fill ins(%i1_0 : f32) outs(%e1_0 : tensor<6xf32>) -> tensor<6xf32>
  %r1_0 = linalg.reduce ins(%x1 : tensor<6x3xf32>) outs(%f1_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i1_1 = arith.constant 0xFF800000 : f32
  %e1_1 = tensor.empty() : tensor<6xf32>
  %f1_1 = linalg.fill ins(%i1_1 : f32) outs(%e1_1 : tensor<6xf32>) -> tensor<6xf32>
  %r1_1 = linalg.reduce ins(%x1 : tensor<6x3xf32>) outs(%f1_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i2_0 = arith.constant 0xFF800000 : f32
  %e2_0 = tensor.empty() : tensor<6xf32>
  %f2_0 = linalg.fill ins(%i2_0 : f32) outs(%e2_0 : tensor<6xf32>) -> tensor<6xf32>
  %r2_0 = linalg.reduce ins(%x2 : tensor<6x5xf32>) outs(%f2_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i2_1 = arith.constant 0x7F800000 : f32
  %e2_1 = tensor.empty() : tensor<6xf32>
  %f2_1 = linalg.fill ins(%i2_1 : f32) outs(%e2_1 : tensor<6xf32>) -> tensor<6xf32>
  %r2_1 = linalg.reduce ins(%x2 : tensor<6x5xf32>) outs(%f2_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i3_0 = arith.constant 0x7F800000 : f32
  %e3_0 = tensor.empty() : tensor<6xf32>
  %f3_0 = linalg.fill ins(%i3_0 : f32) outs(%e3_0 : tensor<6xf32>) -> tensor<6xf32>
  %r3_0 = linalg.reduce ins(%x3 : tensor<6x7xf32>) outs(%f3_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i3_1 = arith.constant 0xFF800000 : f32
  %e3_1 = tensor.empty() : tensor<6xf32>
  %f3_1 = linalg.fill ins(%i3_1 : f32) outs(%e3_1 : tensor<6xf32>) -> tensor<6xf32>
  %r3_1 = linalg.reduce ins(%x3 : tensor<6x7xf32>) outs(%f3_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i4_0 = arith.constant 0xFF800000 : f32
  %e4_0 = tensor.empty() : tensor<6xf32>
  %f4_0 = linalg.fill ins(%i4_0 : f32) outs(%e4_0 : tensor<6xf32>) -> tensor<6xf32>
  %r4_0 = linalg.reduce ins(%x4 : tensor<6x17xf32>) outs(%f4_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i4_1 = arith.constant 0x7F800000 : f32
  %e4_1 = tensor.empty() : tensor<6xf32>
  %f4_1 = linalg.fill ins(%i4_1 : f32) outs(%e4_1 : tensor<6xf32>) -> tensor<6xf32>
  %r4_1 = linalg.reduce ins(%x4 : tensor<6x17xf32>) outs(%f4_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i5_0 = arith.constant 0x7F800000 : f32
  %e5_0 = tensor.empty() : tensor<6xf32>
  %f5_0 = linalg.fill ins(%i5_0 : f32) outs(%e5_0 : tensor<6xf32>) -> tensor<6xf32>
  %r5_0 = linalg.reduce ins(%x5 : tensor<6x96xf32>) outs(%f5_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i5_1 = arith.constant 0xFF800000 : f32
  %e5_1 = tensor.empty() : tensor<6xf32>
  %f5_1 = linalg.fill ins(%i5_1 : f32) outs(%e5_1 : tensor<6xf32>) -> tensor<6xf32>
  %r5_1 = linalg.reduce ins(%x5 : tensor<6x96xf32>) outs(%f5_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i6_0 = arith.constant 0xFF800000 : f32
  %e6_0 = tensor.empty() : tensor<6xf32>
  %f6_0 = linalg.fill ins(%i6_0 : f32) outs(%e6_0 : tensor<6xf32>) -> tensor<6xf32>
  %r6_0 = linalg.reduce ins(%x6 : tensor<6x100xf32>) outs(%f6_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i6_1 = arith.constant 0x7F800000 : f32
  %e6_1 = tensor.empty() : tensor<6xf32>
  %f6_1 = linalg.fill ins(%i6_1 : f32) outs(%e6_1 : tensor<6xf32>) -> tensor<6xf32>
  %r6_1 = linalg.reduce ins(%x6 : tensor<6x100xf32>) outs(%f6_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i7_0 = arith.constant 0x7F800000 : f32
  %e7_0 = tensor.empty() : tensor<6xf32>
  %f7_0 = linalg.fill ins(%i7_0 : f32) outs(%e7_0 : tensor<6xf32>) -> tensor<6xf32>
  %r7_0 = linalg.reduce ins(%x7 : tensor<6x128xf32>) outs(%f7_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i7_1 = arith.constant 0xFF800000 : f32
  %e7_1 = tensor.empty() : tensor<6xf32>
  %f7_1 = linalg.fill ins(%i7_1 : f32) outs(%e7_1 : tensor<6xf32>) -> tensor<6xf32>
  %r7_1 = linalg.reduce ins(%x7 : tensor<6x128xf32>) outs(%f7_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i8_0 = arith.constant 0xFF800000 : f32
  %e8_0 = tensor.empty() : tensor<6xf32>
  %f8_0 = linalg.fill ins(%i8_0 : f32) outs(%e8_0 : tensor<6xf32>) -> tensor<6xf32>
  %r8_0 = linalg.reduce ins(%x8 : tensor<6x131xf32>) outs(%f8_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i8_1 = arith.constant 0x7F800000 : f32
  %e8_1 = tensor.empty() : tensor<6xf32>
  %f8_1 = linalg.fill ins(%i8_1 : f32) outs(%e8_1 : tensor<6xf32>) -> tensor<6xf32>
  %r8_1 = linalg.reduce ins(%x8 : tensor<6x131xf32>) outs(%f8_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i9_0 = arith.constant 0x7F800000 : f32
  %e9_0 = tensor.empty() : tensor<6xf32>
  %f9_0 = linalg.fill ins(%i9_0 : f32) outs(%e9_0 : tensor<6xf32>) -> tensor<6xf32>
  %r9_0 = linalg.reduce ins(%x9 : tensor<6x257xf32>) outs(%f9_0 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %i9_1 = arith.constant 0xFF800000 : f32
  %e9_1 = tensor.empty() : tensor<6xf32>
  %f9_1 = linalg.fill ins(%i9_1 : f32) outs(%e9_1 : tensor<6xf32>) -> tensor<6xf32>
  %r9_1 = linalg.reduce ins(%x9 : tensor<6x257xf32>) outs(%f9_1 : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r0_0, %r0_1, %r1_0, %r1_1, %r2_0, %r2_1, %r3_0, %r3_1, %r4_0, %r4_1, %r5_0, %r5_1, %r6_0, %r6_1, %r7_0, %r7_1, %r8_0, %r8_1, %r9_0, %r9_1 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
