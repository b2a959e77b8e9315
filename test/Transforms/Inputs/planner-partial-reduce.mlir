dtensor.mesh @mesh = <["dp" = 2, "tp" = 2]>

// seed 81 of test/Property/gen_random.py: PyTorch keeps the P(sum) of %a5
// through the sum reduction (linearity)
// features: dtype-i64 int-overflow nonlinear-on-partial pmin-arg psum-arg repeated-operand uneven-expand
func.func @prog(
    %a0: tensor<8x10xi64>,
    %a1: tensor<10x32xi64>,
    %a2: tensor<6x5xi64> {dtensor.spec = #dtensor.spec<@mesh, [R, S(1)]>},
    %a3: tensor<10x8xi64> {dtensor.spec = #dtensor.spec<@mesh, [R, R]>},
    %a4: tensor<5x5xi64>,
    %a5: tensor<2x4x4xi64> {dtensor.spec = #dtensor.spec<@mesh, [S(0), P(sum)]>},
    %a6: tensor<2x5x5xi64> {dtensor.spec = #dtensor.spec<@mesh, [S(2), P(min)]>},
    %a7: tensor<4x4xi64>,
    %a8: tensor<5x12xi64> {dtensor.spec = #dtensor.spec<@mesh, [R, S(1)]>})
    -> (tensor<6x12xi64> {dtensor.spec = #dtensor.spec<@mesh, [R, S(0)]>}) {
  %c0 = arith.constant 0 : i64
  %cmin = arith.constant -9223372036854775808 : i64
  %cbigmul = arith.constant 3037000499 : i64
  %cbigadd = arith.constant 9007199254740993 : i64
  %e1 = tensor.empty() : tensor<32x10xi64>
  %v2 = linalg.transpose ins(%a1 : tensor<10x32xi64>) outs(%e1 : tensor<32x10xi64>) permutation = [1, 0]
  %v3 = arith.maxsi %v2, %v2 : tensor<32x10xi64>
  %e4 = tensor.empty() : tensor<32x8xi64>
  %z5 = linalg.fill ins(%c0 : i64) outs(%e4 : tensor<32x8xi64>) -> tensor<32x8xi64>
  %v6 = linalg.matmul ins(%v3, %a3 : tensor<32x10xi64>, tensor<10x8xi64>) outs(%z5 : tensor<32x8xi64>) -> tensor<32x8xi64>
  %e7 = tensor.empty() : tensor<6x5xi64>
  %z8 = linalg.fill ins(%c0 : i64) outs(%e7 : tensor<6x5xi64>) -> tensor<6x5xi64>
  %v9 = linalg.matmul ins(%a2, %a4 : tensor<6x5xi64>, tensor<5x5xi64>) outs(%z8 : tensor<6x5xi64>) -> tensor<6x5xi64>
  %e10 = tensor.empty() : tensor<6x5xi64>
  %v11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v9 : tensor<6x5xi64>) outs(%e10 : tensor<6x5xi64>) {  // cube
  ^bb0(%in: i64, %out: i64):
    %b1 = arith.muli %in, %in : i64
    %b2 = arith.muli %b1, %in : i64
    linalg.yield %b2 : i64
  } -> tensor<6x5xi64>
  %e12 = tensor.empty() : tensor<6x5xi64>
  %z13 = linalg.fill ins(%c0 : i64) outs(%e12 : tensor<6x5xi64>) -> tensor<6x5xi64>
  %v14 = linalg.matmul ins(%v11, %a4 : tensor<6x5xi64>, tensor<5x5xi64>) outs(%z13 : tensor<6x5xi64>) -> tensor<6x5xi64>
  %e15 = tensor.empty() : tensor<5x6xi64>
  %v16 = linalg.transpose ins(%v14 : tensor<6x5xi64>) outs(%e15 : tensor<5x6xi64>) permutation = [1, 0]
  %v17 = tensor.expand_shape %v11 [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xi64> into tensor<2x3x5xi64>
  %e18 = tensor.empty() : tensor<5x6xi64>
  %v19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v16 : tensor<5x6xi64>) outs(%e18 : tensor<5x6xi64>) {
  ^bb0(%in: i64, %out: i64):
    %m = arith.maxsi %in, %c0 : i64
    linalg.yield %m : i64
  } -> tensor<5x6xi64>
  %e20 = tensor.empty() : tensor<5x5xi64>
  %z21 = linalg.fill ins(%c0 : i64) outs(%e20 : tensor<5x5xi64>) -> tensor<5x5xi64>
  %v22 = linalg.matmul ins(%v19, %v14 : tensor<5x6xi64>, tensor<6x5xi64>) outs(%z21 : tensor<5x5xi64>) -> tensor<5x5xi64>
  %v23 = tensor.collapse_shape %v19 [[0, 1]] : tensor<5x6xi64> into tensor<30xi64>
  %e24 = tensor.empty() : tensor<5x5xi64>
  %v25 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v22, %v22 : tensor<5x5xi64>, tensor<5x5xi64>) outs(%e24 : tensor<5x5xi64>) {  // max2
  ^bb0(%in: i64, %in2: i64, %out: i64):
    %b1 = arith.maxsi %in, %in2 : i64
    linalg.yield %b1 : i64
  } -> tensor<5x5xi64>
  %e26 = tensor.empty() : tensor<6x5xi64>
  %v27 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v14 : tensor<6x5xi64>) outs(%e26 : tensor<6x5xi64>) {  // mul-big
  ^bb0(%in: i64, %out: i64):
    %b1 = arith.muli %in, %cbigmul : i64
    linalg.yield %b1 : i64
  } -> tensor<6x5xi64>
  %e28 = tensor.empty() : tensor<5xi64>
  %z29 = linalg.fill ins(%cmin : i64) outs(%e28 : tensor<5xi64>) -> tensor<5xi64>
  %v30 = linalg.reduce ins(%v25 : tensor<5x5xi64>) outs(%z29 : tensor<5xi64>) dimensions = [1]
    (%in: i64, %acc: i64) {
      %s = arith.maxsi %in, %acc : i64
      linalg.yield %s : i64
    }
  %e31 = tensor.empty() : tensor<5x5xi64>
  %v32 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v25 : tensor<5x5xi64>) outs(%e31 : tensor<5x5xi64>) {  // relu
  ^bb0(%in: i64, %out: i64):
    %b1 = arith.maxsi %in, %c0 : i64
    linalg.yield %b1 : i64
  } -> tensor<5x5xi64>
  %e33 = tensor.empty() : tensor<5x5xi64>
  %v34 = linalg.transpose ins(%v22 : tensor<5x5xi64>) outs(%e33 : tensor<5x5xi64>) permutation = [1, 0]
  %e35 = tensor.empty() : tensor<4x4xi64>
  %z36 = linalg.fill ins(%c0 : i64) outs(%e35 : tensor<4x4xi64>) -> tensor<4x4xi64>
  %v37 = linalg.reduce ins(%a5 : tensor<2x4x4xi64>) outs(%z36 : tensor<4x4xi64>) dimensions = [0]
    (%in: i64, %acc: i64) {
      %s = arith.addi %in, %acc : i64
      linalg.yield %s : i64
    }
  %e38 = tensor.empty() : tensor<2x3x5xi64>
  %z39 = linalg.fill ins(%c0 : i64) outs(%e38 : tensor<2x3x5xi64>) -> tensor<2x3x5xi64>
  %v40 = linalg.batch_matmul ins(%v17, %a6 : tensor<2x3x5xi64>, tensor<2x5x5xi64>) outs(%z39 : tensor<2x3x5xi64>) -> tensor<2x3x5xi64>
  %v41 = arith.subi %a7, %v37 : tensor<4x4xi64>
  %e42 = tensor.empty() : tensor<6x5xi64>
  %v43 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v27 : tensor<6x5xi64>) outs(%e42 : tensor<6x5xi64>) {  // double
  ^bb0(%in: i64, %out: i64):
    %b1 = arith.addi %in, %in : i64
    linalg.yield %b1 : i64
  } -> tensor<6x5xi64>
  %e44 = tensor.empty() : tensor<5x5xi64>
  %v45 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v34 : tensor<5x5xi64>) outs(%e44 : tensor<5x5xi64>) {  // add-big
  ^bb0(%in: i64, %out: i64):
    %b1 = arith.addi %in, %cbigadd : i64
    linalg.yield %b1 : i64
  } -> tensor<5x5xi64>
  %e46 = tensor.empty() : tensor<6x5xi64>
  %v47 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v14 : tensor<6x5xi64>) outs(%e46 : tensor<6x5xi64>) {
  ^bb0(%in: i64, %out: i64):
    %m = arith.maxsi %in, %c0 : i64
    linalg.yield %m : i64
  } -> tensor<6x5xi64>
  %e48 = tensor.empty() : tensor<6x12xi64>
  %z49 = linalg.fill ins(%c0 : i64) outs(%e48 : tensor<6x12xi64>) -> tensor<6x12xi64>
  %v50 = linalg.matmul ins(%v47, %a8 : tensor<6x5xi64>, tensor<5x12xi64>) outs(%z49 : tensor<6x12xi64>) -> tensor<6x12xi64>
  return %v50 : tensor<6x12xi64>
}
