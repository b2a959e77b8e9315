// Attention as torch-mlir 2.15 writes it (fx.export_and_import, linalg-on-tensors)
// for q, k, v [2, 8, 4, 16] ([batch, seq, heads, head dim]):
// softmax(q^T k) v with transposes, heads collapsed into the batch and
// linalg.batch_matmul, the result transposed back; a mesh of 2 added, all S(0).
dtensor.mesh @mesh = <["dp" = 2]>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
  func.func @attention(%arg0: tensor<2x8x4x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %arg1: tensor<2x8x4x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %arg2: tensor<2x8x4x16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<2x8x4x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %0 = tensor.empty() : tensor<2x4x8x16xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<2x8x4x16xf32>) outs(%0 : tensor<2x4x8x16xf32>) permutation = [0, 2, 1, 3] 
    %transposed_1 = linalg.transpose ins(%arg2 : tensor<2x8x4x16xf32>) outs(%0 : tensor<2x4x8x16xf32>) permutation = [0, 2, 1, 3] 
    %1 = tensor.empty() : tensor<2x4x16x8xf32>
    %transposed_2 = linalg.transpose ins(%arg1 : tensor<2x8x4x16xf32>) outs(%1 : tensor<2x4x16x8xf32>) permutation = [0, 2, 3, 1] 
    %collapsed = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
    %collapsed_3 = tensor.collapse_shape %transposed_2 [[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
    %2 = tensor.empty() : tensor<8x8x8xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
    %4 = linalg.batch_matmul ins(%collapsed, %collapsed_3 : tensor<8x8x16xf32>, tensor<8x16x8xf32>) outs(%3 : tensor<8x8x8xf32>) -> tensor<8x8x8xf32>
    %expanded = tensor.expand_shape %4 [[0, 1], [2], [3]] output_shape [2, 4, 8, 8] : tensor<8x8x8xf32> into tensor<2x4x8x8xf32>
    %5 = tensor.empty() : tensor<2x4x8xi64>
    %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<2x4x8xi64>) -> tensor<2x4x8xi64>
    %7 = tensor.empty() : tensor<2x4x8xf32>
    %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    %9:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded : tensor<2x4x8x8xf32>) outs(%8, %6 : tensor<2x4x8xf32>, tensor<2x4x8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_9: i64):
      %21 = linalg.index 3 : index
      %22 = arith.index_cast %21 : index to i64
      %23 = arith.maximumf %in, %out : f32
      %24 = arith.cmpf ogt, %in, %out : f32
      %25 = arith.select %24, %22, %out_9 : i64
      linalg.yield %23, %25 : f32, i64
    } -> (tensor<2x4x8xf32>, tensor<2x4x8xi64>)
    %expanded_4 = tensor.expand_shape %9#0 [[0], [1], [2, 3]] output_shape [2, 4, 8, 1] : tensor<2x4x8xf32> into tensor<2x4x8x1xf32>
    %10 = tensor.empty() : tensor<2x4x8x8xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_4 : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>) outs(%10 : tensor<2x4x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %21 = arith.subf %in, %in_9 : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x8x8xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<2x4x8x8xf32>) outs(%10 : tensor<2x4x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = math.exp %in : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x8x8xf32>
    %13 = tensor.empty() : tensor<2x4x8x1xf32>
    %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<2x4x8x1xf32>) -> tensor<2x4x8x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12 : tensor<2x4x8x8xf32>) outs(%14 : tensor<2x4x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.addf %in, %out : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x8x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12, %15 : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>) outs(%10 : tensor<2x4x8x8xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %21 = arith.divf %in, %in_9 : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x8x8xf32>
    %collapsed_5 = tensor.collapse_shape %16 [[0, 1], [2], [3]] : tensor<2x4x8x8xf32> into tensor<8x8x8xf32>
    %collapsed_6 = tensor.collapse_shape %transposed_1 [[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
    %17 = tensor.empty() : tensor<8x8x16xf32>
    %18 = linalg.fill ins(%cst : f32) outs(%17 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
    %19 = linalg.batch_matmul ins(%collapsed_5, %collapsed_6 : tensor<8x8x8xf32>, tensor<8x8x16xf32>) outs(%18 : tensor<8x8x16xf32>) -> tensor<8x8x16xf32>
    %expanded_7 = tensor.expand_shape %19 [[0, 1], [2], [3]] output_shape [2, 4, 8, 16] : tensor<8x8x16xf32> into tensor<2x4x8x16xf32>
    %20 = tensor.empty() : tensor<2x8x4x16xf32>
    %transposed_8 = linalg.transpose ins(%expanded_7 : tensor<2x4x8x16xf32>) outs(%20 : tensor<2x8x4x16xf32>) permutation = [0, 2, 1, 3] 
    return %transposed_8 : tensor<2x8x4x16xf32>
  }

