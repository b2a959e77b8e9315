// Integer programs whose results must stay exact: sums that overflow, and
// 64-bit values that a double cannot hold.
dtensor.mesh @m2 = <["x" = 2]>
dtensor.mesh @m4 = <["x" = 4]>

// A partial sum returned as such: the runner sums the ranks' parts.
func.func @psum_i32(%x: tensor<4x8xi32> {dtensor.spec = #dtensor.spec<@m4, [S(0)]>}) -> (tensor<8xi32> {dtensor.spec = #dtensor.spec<@m4, [P(sum)]>}) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  %s = linalg.reduce ins(%x : tensor<4x8xi32>) outs(%z : tensor<8xi32>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %a = arith.addi %in, %acc : i32
      linalg.yield %a : i32
    }
  return %s : tensor<8xi32>
}

// The identity of i64 values above 2^53.
func.func @id_i64(%x: tensor<8xi64> {dtensor.spec = #dtensor.spec<@m2, [R]>}) -> (tensor<8xi64> {dtensor.spec = #dtensor.spec<@m2, [R]>}) {
  return %x : tensor<8xi64>
}

// i64 sums reduced by an all_reduce on 2 ranks.
func.func @sum_i64(%x: tensor<2x8xi64> {dtensor.spec = #dtensor.spec<@m2, [S(0)]>}) -> (tensor<8xi64> {dtensor.spec = #dtensor.spec<@m2, [R]>}) {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<8xi64>
  %z = linalg.fill ins(%c0 : i64) outs(%e : tensor<8xi64>) -> tensor<8xi64>
  %s = linalg.reduce ins(%x : tensor<2x8xi64>) outs(%z : tensor<8xi64>) dimensions = [0]
    (%in: i64, %acc: i64) {
      %a = arith.addi %in, %acc : i64
      linalg.yield %a : i64
    }
  return %s : tensor<8xi64>
}

// i8 and i16 sums of 64 elements and more through the runtime's all_reduce,
// on 2 and 4 ranks.
func.func @sum_i8_2(%x: tensor<2x100xi8> {dtensor.spec = #dtensor.spec<@m2, [S(0)]>}) -> (tensor<100xi8> {dtensor.spec = #dtensor.spec<@m2, [R]>}) {
  %c0 = arith.constant 0 : i8
  %e = tensor.empty() : tensor<100xi8>
  %z = linalg.fill ins(%c0 : i8) outs(%e : tensor<100xi8>) -> tensor<100xi8>
  %s = linalg.reduce ins(%x : tensor<2x100xi8>) outs(%z : tensor<100xi8>) dimensions = [0]
    (%in: i8, %acc: i8) {
      %a = arith.addi %in, %acc : i8
      linalg.yield %a : i8
    }
  return %s : tensor<100xi8>
}
func.func @sum_i8_4(%x: tensor<4x100xi8> {dtensor.spec = #dtensor.spec<@m4, [S(0)]>}) -> (tensor<100xi8> {dtensor.spec = #dtensor.spec<@m4, [R]>}) {
  %c0 = arith.constant 0 : i8
  %e = tensor.empty() : tensor<100xi8>
  %z = linalg.fill ins(%c0 : i8) outs(%e : tensor<100xi8>) -> tensor<100xi8>
  %s = linalg.reduce ins(%x : tensor<4x100xi8>) outs(%z : tensor<100xi8>) dimensions = [0]
    (%in: i8, %acc: i8) {
      %a = arith.addi %in, %acc : i8
      linalg.yield %a : i8
    }
  return %s : tensor<100xi8>
}
func.func @sum_i16_4(%x: tensor<4x100xi16> {dtensor.spec = #dtensor.spec<@m4, [S(0)]>}) -> (tensor<100xi16> {dtensor.spec = #dtensor.spec<@m4, [R]>}) {
  %c0 = arith.constant 0 : i16
  %e = tensor.empty() : tensor<100xi16>
  %z = linalg.fill ins(%c0 : i16) outs(%e : tensor<100xi16>) -> tensor<100xi16>
  %s = linalg.reduce ins(%x : tensor<4x100xi16>) outs(%z : tensor<100xi16>) dimensions = [0]
    (%in: i16, %acc: i16) {
      %a = arith.addi %in, %acc : i16
      linalg.yield %a : i16
    }
  return %s : tensor<100xi16>
}

// NaN and infinities pass through unchanged.
func.func @nan_inf(%x: tensor<4x4xf32> {dtensor.spec = #dtensor.spec<@m2, [S(0)]>}) -> (tensor<4x4xf32> {dtensor.spec = #dtensor.spec<@m2, [R]>}) {
  %e = math.exp %x : tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}

// A tensor of 10^12 elements, far more than the memory of the machine.
func.func @huge(%x: tensor<1000000x1000000xf32> {dtensor.spec = #dtensor.spec<@m2, [S(0)]>}) -> (tensor<1000000x1000000xf32> {dtensor.spec = #dtensor.spec<@m2, [S(0)]>}) {
  return %x : tensor<1000000x1000000xf32>
}

// Uneven rows (3 and 2) read from a .npy, plus one.
func.func @rows(%x: tensor<5x2xf32> {dtensor.spec = #dtensor.spec<@m2, [S(0)]>}) -> (tensor<5x2xf32> {dtensor.spec = #dtensor.spec<@m2, [R]>}) {
  %c1 = arith.constant dense<1.0> : tensor<5x2xf32>
  %y = arith.addf %x, %c1 : tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}
