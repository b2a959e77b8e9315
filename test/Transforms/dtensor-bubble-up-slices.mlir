// RUN: dtensor-opt %s --dtensor-bubble-up-slices | FileCheck %s

// A replicated bias broadcast to the global batch and read as the rank's
// rows (what dtensor-partition makes of a bias add on a batch-sharded
// activation): the broadcast is made on the slice only, into a 4 x 32
// tensor.empty; no 8 x 32 tensor is left.
// CHECK-LABEL: func.func @bias_rows
// CHECK-SAME: (%[[B:.*]]: tensor<32xf32>, %[[X:.*]]: tensor<4x32xf32>, %[[ROW:.*]]: index)
// CHECK-NOT: tensor<8x32xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x32xf32>
// CHECK: %[[BB:.*]] = linalg.broadcast ins(%[[B]] : tensor<32xf32>) outs(%[[E]] : tensor<4x32xf32>) dimensions = [0]
// CHECK: linalg.add ins(%[[X]], %[[BB]] : tensor<4x32xf32>, tensor<4x32xf32>)
// CHECK-NOT: tensor<8x32xf32>
func.func @bias_rows(%b: tensor<32xf32>, %x: tensor<4x32xf32>, %row: index) -> tensor<4x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %bb = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<8x32xf32>) dimensions = [0]
  %s = tensor.extract_slice %bb[%row, 0] [4, 32] [1, 1] : tensor<8x32xf32> to tensor<4x32xf32>
  %o = tensor.empty() : tensor<4x32xf32>
  %r = linalg.add ins(%x, %s : tensor<4x32xf32>, tensor<4x32xf32>) outs(%o : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %r : tensor<4x32xf32>
}

// A zero fill sliced: the fill is made on the slice.
// CHECK-LABEL: func.func @fill_rows
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK-NOT: tensor<8x16xf32>
func.func @fill_rows(%row: index) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = tensor.extract_slice %f[%row, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// Why: the broadcast has another use (the global value is needed).
// CHECK-LABEL: func.func @no_other_use
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: tensor.extract_slice
func.func @no_other_use(%b: tensor<32xf32>, %row: index) -> (tensor<4x32xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %bb = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<8x32xf32>) dimensions = [0]
  %s = tensor.extract_slice %bb[%row, 0] [4, 32] [1, 1] : tensor<8x32xf32> to tensor<4x32xf32>
  return %s, %bb : tensor<4x32xf32>, tensor<8x32xf32>
}
