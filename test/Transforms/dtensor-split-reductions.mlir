// RUN: dtensor-opt %s --dtensor-split-reductions -split-input-file | FileCheck %s

// A squared error summed over 2048 x 1024: the two reduction loops are
// collapsed, then split into 1024 partials of 2048 contiguous elements
// (zero-filled, one parallel loop) and their sum into the result.
// CHECK-LABEL: func.func @loss
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2048x1024xf32> into tensor<2097152xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1024, 2048] : tensor<2097152xf32> into tensor<1024x2048xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1024xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} outs(%[[Z]] : tensor<1024xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]] : tensor<1024xf32>) outs(%{{.*}} : tensor<f32>)
func.func @loss(%x: tensor<2048x1024xf32>, %y: tensor<2048x1024xf32>, %z: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x, %y : tensor<2048x1024xf32>, tensor<2048x1024xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %q = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Why: fewer than min-size (65536) elements; a prime size (no 8 to 1024
// partials); a reduction read transposed (its loops are not one contiguous
// run of the input); a row reduction (it has a parallel loop).
// CHECK-LABEL: func.func @negative
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @negative(%small: tensor<64x64xf32>, %prime: tensor<65537xf32>, %t: tensor<512x256xf32>, %z: tensor<f32>, %r: tensor<512xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<512xf32>) {
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%small : tensor<64x64xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %b = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%prime : tensor<65537xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%t : tensor<512x256xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<512x256xf32>) outs(%r : tensor<512xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<512xf32>
  return %a, %b, %c, %d : tensor<f32>, tensor<f32>, tensor<f32>, tensor<512xf32>
}
