// Bucketing nodes are source ops: consecutive top-level ops whose locations
// are NameLocs of one name count as one node (dtensor_mlir.from_torch names
// every op after the torch-level call it came from, as DDPOptimizer's node is
// that call). Linear(64, 1020), ReLU, Linear(1020, 256) in fp32: w0 261 120,
// b0 4 080, w1 1 044 480, b1 1 024 bytes. At the 1 MiB first cap
// (1 048 576 bytes) the walk back from the return reaches b1 + w1 = 1 045 504,
// then b0 makes 1 049 584: counted per op, b0's broadcast fills the bucket and
// the matmul reading w0 opens the next one; counted per node, "linear_0"
// reads w0 and b0 together and the whole model is one bucket, as in
// DDPOptimizer (test/Parity/DDP/ddp-compile-frontend.test checks it against
// PyTorch).

// RUN: dtensor-opt %s --dtensor-ddp-split="report=%t.json" -o %t.mlir
// RUN: %jsonq %t.json \
// RUN:   '[b["params"] for b in fn("named")["buckets"]] == [["w0", "b0", "w1", "b1"]]' \
// RUN:   '[b["bytes"] for b in fn("named")["buckets"]] == [1310704]' \
// RUN:   'not fn("named")["split"]' \
// RUN:   '[b["params"] for b in fn("unnamed")["buckets"]] == [["w0"], ["b0", "w1", "b1"]]' \
// RUN:   '[b["bytes"] for b in fn("unnamed")["buckets"]] == [261120, 1049584]' \
// RUN:   '[b["params"] for b in fn("interrupted")["buckets"]] == [["w0"], ["b0", "w1", "b1"]]'
// RUN: FileCheck %s --input-file=%t.mlir

// The named function is not split; the others are, at w0's matmul.
// CHECK-NOT:   @named_submod_
// CHECK-LABEL: func.func private @unnamed_submod_0(
// CHECK-SAME:    {dtensor.param = "w0"
// CHECK:         linalg.matmul
// CHECK-NOT:     linalg.broadcast
// CHECK:         return
// CHECK-LABEL: func.func private @unnamed_submod_1(
// CHECK-SAME:    {dtensor.param = "b0"
// CHECK:         linalg.broadcast
// CHECK-LABEL: func.func @unnamed(
// CHECK:         call @unnamed_submod_0
// CHECK:         call @unnamed_submod_1
// CHECK-LABEL: func.func private @interrupted_submod_0(
// CHECK-LABEL: func.func private @interrupted_submod_1(

dtensor.mesh @mesh = <["dp" = 2]>

func.func @named(%x: tensor<8x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w0: tensor<64x1020xf32> {dtensor.param = "w0"}, %b0: tensor<1020xf32> {dtensor.param = "b0"},
    %w1: tensor<1020x256xf32> {dtensor.param = "w1"}, %b1: tensor<256xf32> {dtensor.param = "b1"})
    -> tensor<8x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x1020xf32> loc("linear_0")
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("linear_0")
  %mm0 = linalg.matmul ins(%x, %w0 : tensor<8x64xf32>, tensor<64x1020xf32>) outs(%z0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("linear_0")
  %bb0 = linalg.broadcast ins(%b0 : tensor<1020xf32>) outs(%e0 : tensor<8x1020xf32>) dimensions = [0] loc("linear_0")
  %y0 = linalg.add ins(%mm0, %bb0 : tensor<8x1020xf32>, tensor<8x1020xf32>) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("linear_0")
  %r0 = linalg.max ins(%y0, %z0 : tensor<8x1020xf32>, tensor<8x1020xf32>) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("relu_0")
  %e1 = tensor.empty() : tensor<8x256xf32> loc("linear_1")
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32> loc("linear_1")
  %mm1 = linalg.matmul ins(%r0, %w1 : tensor<8x1020xf32>, tensor<1020x256xf32>) outs(%z1 : tensor<8x256xf32>) -> tensor<8x256xf32> loc("linear_1")
  %bb1 = linalg.broadcast ins(%b1 : tensor<256xf32>) outs(%e1 : tensor<8x256xf32>) dimensions = [0] loc("linear_1")
  %y1 = linalg.add ins(%mm1, %bb1 : tensor<8x256xf32>, tensor<8x256xf32>) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32> loc("linear_1")
  return %y1 : tensor<8x256xf32>
}

// The same ops without names: one node each.
func.func @unnamed(%x: tensor<8x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w0: tensor<64x1020xf32> {dtensor.param = "w0"}, %b0: tensor<1020xf32> {dtensor.param = "b0"},
    %w1: tensor<1020x256xf32> {dtensor.param = "w1"}, %b1: tensor<256xf32> {dtensor.param = "b1"})
    -> tensor<8x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x1020xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32>
  %mm0 = linalg.matmul ins(%x, %w0 : tensor<8x64xf32>, tensor<64x1020xf32>) outs(%z0 : tensor<8x1020xf32>) -> tensor<8x1020xf32>
  %bb0 = linalg.broadcast ins(%b0 : tensor<1020xf32>) outs(%e0 : tensor<8x1020xf32>) dimensions = [0]
  %y0 = linalg.add ins(%mm0, %bb0 : tensor<8x1020xf32>, tensor<8x1020xf32>) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32>
  %r0 = linalg.max ins(%y0, %z0 : tensor<8x1020xf32>, tensor<8x1020xf32>) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32>
  %e1 = tensor.empty() : tensor<8x256xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %mm1 = linalg.matmul ins(%r0, %w1 : tensor<8x1020xf32>, tensor<1020x256xf32>) outs(%z1 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %bb1 = linalg.broadcast ins(%b1 : tensor<256xf32>) outs(%e1 : tensor<8x256xf32>) dimensions = [0]
  %y1 = linalg.add ins(%mm1, %bb1 : tensor<8x256xf32>, tensor<8x256xf32>) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %y1 : tensor<8x256xf32>
}

// A node is a run of consecutive ops: an op of another name between w0's
// matmul and b0's broadcast ends "linear_0", so they are two nodes.
func.func @interrupted(%x: tensor<8x64xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
    %w0: tensor<64x1020xf32> {dtensor.param = "w0"}, %b0: tensor<1020xf32> {dtensor.param = "b0"},
    %w1: tensor<1020x256xf32> {dtensor.param = "w1"}, %b1: tensor<256xf32> {dtensor.param = "b1"})
    -> tensor<8x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x1020xf32> loc("linear_0")
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("linear_0")
  %mm0 = linalg.matmul ins(%x, %w0 : tensor<8x64xf32>, tensor<64x1020xf32>) outs(%z0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("linear_0")
  %mm0c = linalg.copy ins(%mm0 : tensor<8x1020xf32>) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("copy_0")
  %bb0 = linalg.broadcast ins(%b0 : tensor<1020xf32>) outs(%e0 : tensor<8x1020xf32>) dimensions = [0] loc("linear_0")
  %y0 = linalg.add ins(%mm0c, %bb0 : tensor<8x1020xf32>, tensor<8x1020xf32>) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("linear_0")
  %r0 = linalg.max ins(%y0, %z0 : tensor<8x1020xf32>, tensor<8x1020xf32>) outs(%e0 : tensor<8x1020xf32>) -> tensor<8x1020xf32> loc("relu_0")
  %e1 = tensor.empty() : tensor<8x256xf32> loc("linear_1")
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32> loc("linear_1")
  %mm1 = linalg.matmul ins(%r0, %w1 : tensor<8x1020xf32>, tensor<1020x256xf32>) outs(%z1 : tensor<8x256xf32>) -> tensor<8x256xf32> loc("linear_1")
  %bb1 = linalg.broadcast ins(%b1 : tensor<256xf32>) outs(%e1 : tensor<8x256xf32>) dimensions = [0] loc("linear_1")
  %y1 = linalg.add ins(%mm1, %bb1 : tensor<8x256xf32>, tensor<8x256xf32>) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32> loc("linear_1")
  return %y1 : tensor<8x256xf32>
}
