// dtensor-ddp-split on training steps: @f_train_step (sgd) and @f_grad are
// not outlined. Their buckets come from the forward ops alone, the same as
// the loss function's own; in the backward, the gradients of each bucket
// are flattened into one buffer right after the last of them and
// redistributed once (P(sum) -> R: DDP's bucket all-reduce); each reader
// takes its slice back right before its first use. Caps of 104 bytes make
// one bucket per parameter use: {w1} {b1} {w2 b2}.

// DDP's plan (strategy=pytorch): on these 8-row batches the global planner
// gathers the batch instead of all-reducing gradients.
// RUN: dtensor-opt --dtensor-autodiff="optimizer=sgd lr=0.1" %dtensor_src_root/examples/mlp_loss.mlir \
// RUN:   | dtensor-opt --dtensor-ddp-split="bucket-cap-mb=0.0001 first-bucket-cap-mb=0.0001 strategy=pytorch report=%t.json" \
// RUN:   | FileCheck %s --check-prefix=SGD
// The train step's buckets are the loss function's (split into submodules).
// RUN: %jsonq %t.json \
// RUN:   '[b["params"] for b in fn("mlp_loss")["buckets"]] == [["w1"], ["b1"], ["w2", "b2"]]' \
// RUN:   'fn("mlp_loss_train_step")["training_step"] and fn("mlp_loss_train_step")["split"]' \
// RUN:   '[b["params"] for b in fn("mlp_loss_train_step")["buckets"]] == [["w1"], ["b1"], ["w2", "b2"]]' \
// RUN:   '[b["all_reduce_params"] for b in fn("mlp_loss_train_step")["buckets"]] == [["w1"], ["b1"], ["w2", "b2"]]' \
// RUN:   '[b["all_reduce_bytes"] for b in fn("mlp_loss_train_step")["buckets"]] == [2048, 128, 528]' \
// RUN:   '[b["segment"] for b in fn("mlp_loss_train_step")["buckets"]] == ["mlp_loss_train_step_fwd_%d" % i for i in range(3)]' \
// RUN:   '[b["backward_segment"] for b in fn("mlp_loss_train_step")["buckets"]] == ["mlp_loss_train_step_bwd_%d" % i for i in range(3)]' \
// RUN:   'all(b["submodule"] == "mlp_loss_train_step" for b in fn("mlp_loss_train_step")["buckets"])'

// The backward of the last bucket (w2, b2) comes first: its two gradients
// are concatenated and reduced before the backward of layer 1 runs.
// SGD-LABEL: func.func @mlp_loss_train_step(
// SGD: linalg.matmul {{.*}}dtensor.segment = "mlp_loss_train_step_fwd_0"
// SGD: linalg.matmul {{.*}}dtensor.segment = "mlp_loss_train_step_fwd_2"
// SGD: %[[GB2:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<8x4xf32>) outs(%{{.*}} : tensor<4xf32>) attrs = {dtensor.segment = "mlp_loss_train_step_bwd_2"}
// SGD: %[[GW2:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x4xf32>) attrs = {dtensor.segment = "mlp_loss_train_step_bwd_2"}
// SGD: } -> tensor<32x4xf32>
// SGD-NEXT: %[[FW2:.*]] = tensor.collapse_shape %[[GW2]] {{\[\[}}0, 1]] {dtensor.segment = "mlp_loss_train_step_bwd_2"} : tensor<32x4xf32> into tensor<128xf32>
// SGD-NEXT: %[[CAT:.*]] = tensor.concat dim(0) %[[FW2]], %[[GB2]] {dtensor.segment = "mlp_loss_train_step_bwd_2"} : (tensor<128xf32>, tensor<4xf32>) -> tensor<132xf32>
// SGD-NEXT: %[[R2:.*]] = dtensor.redistribute %[[CAT]] to #dtensor.spec<@mesh, [R]> : tensor<132xf32> {dtensor.segment = "mlp_loss_train_step_bwd_2"}
// Then the backward of layer 1 (relu, b1's gradient, w1's gradient).
// SGD-NEXT: arith.constant {dtensor.segment = "mlp_loss_train_step_bwd_1"}
// SGD: %[[GB1:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32xf32>) attrs = {dtensor.segment = "mlp_loss_train_step_bwd_1"}
// SGD: } -> tensor<32xf32>
// SGD-NEXT: %[[R1:.*]] = dtensor.redistribute %[[GB1]] to #dtensor.spec<@mesh, [R]> : tensor<32xf32> {dtensor.segment = "mlp_loss_train_step_bwd_1"}
// SGD: %[[GW1:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<16x32xf32>) attrs = {dtensor.segment = "mlp_loss_train_step_bwd_0"}
// SGD: } -> tensor<16x32xf32>
// SGD-NEXT: %[[FW1:.*]] = tensor.collapse_shape %[[GW1]]
// SGD-NEXT: %[[R0:.*]] = dtensor.redistribute %[[FW1]] to #dtensor.spec<@mesh, [R]> : tensor<512xf32>
// The update reads each gradient's slice, just before its lr * g.
// SGD: %[[S0:.*]] = tensor.extract_slice %[[R0]][0] [512] [1] {dtensor.segment = "mlp_loss_train_step_update"}
// SGD-NEXT: %[[G0:.*]] = tensor.expand_shape %[[S0]] {{\[\[}}0, 1]] output_shape [16, 32]
// SGD-NEXT: linalg.mul {{.*}}ins(%{{.*}}, %[[G0]] :
// SGD: tensor.extract_slice %[[R1]][0] [32] [1]
// SGD: %[[S2:.*]] = tensor.extract_slice %[[R2]][0] [128] [1]
// SGD-NEXT: %[[G2:.*]] = tensor.expand_shape %[[S2]]
// SGD-NEXT: linalg.mul {{.*}}ins(%{{.*}}, %[[G2]] :
// SGD: tensor.extract_slice %[[R2]][128] [4] [1]
// SGD-NOT: dtensor.redistribute
// SGD: return

// @f_grad: the same buckets; the slices feed the return.
// RUN: dtensor-opt --dtensor-autodiff %dtensor_src_root/examples/mlp_loss.mlir \
// RUN:   | dtensor-opt --dtensor-ddp-split="bucket-cap-mb=0.0001 first-bucket-cap-mb=0.0001 strategy=pytorch report=- report-format=text" \
// RUN:   | FileCheck %s --check-prefix=GRAD
// GRAD: function @mlp_loss_grad: 3 buckets (bucket cap 104 bytes, first bucket cap 104 bytes)
// GRAD-NEXT: bucket  segment              parameters  bytes  ops  backward             all-reduce  bytes
// GRAD-NEXT: 0       mlp_loss_grad_fwd_0  w1          2048   5    mlp_loss_grad_bwd_0  w1          2048
// GRAD-NEXT: 1       mlp_loss_grad_fwd_1  b1          128    5    mlp_loss_grad_bwd_1  b1          128
// GRAD-NEXT: 2       mlp_loss_grad_fwd_2  w2 b2       528    7    mlp_loss_grad_bwd_2  w2 b2       528
// GRAD-LABEL: func.func @mlp_loss_grad(
// GRAD: %[[R2:.*]] = dtensor.redistribute %{{.*}} : tensor<132xf32>
// GRAD: %[[R1:.*]] = dtensor.redistribute %{{.*}} : tensor<32xf32>
// GRAD: %[[R0:.*]] = dtensor.redistribute %{{.*}} : tensor<512xf32>
// GRAD-NEXT: %[[S0:.*]] = tensor.extract_slice %[[R0]][0] [512] [1]
// GRAD-NEXT: %[[G0:.*]] = tensor.expand_shape %[[S0]]
// GRAD-NEXT: %[[G1:.*]] = tensor.extract_slice %[[R1]][0] [32] [1]
// GRAD-NEXT: %[[S2:.*]] = tensor.extract_slice %[[R2]][0] [128] [1]
// GRAD-NEXT: %[[G2:.*]] = tensor.expand_shape %[[S2]]
// GRAD-NEXT: %[[G3:.*]] = tensor.extract_slice %[[R2]][128] [4] [1]
// GRAD-NEXT: return %{{.*}}, %[[G0]], %[[G1]], %[[G2]], %[[G3]]

// At the default caps (25 MB, first 1 MB) the whole step is one bucket: one
// all-reduce of all four gradients (676 floats), after the last of them.
// RUN: dtensor-opt --dtensor-autodiff %dtensor_src_root/examples/mlp_loss.mlir \
// RUN:   | dtensor-opt --dtensor-ddp-split=strategy=pytorch | FileCheck %s --check-prefix=ONE
// ONE-LABEL: func.func @mlp_loss_grad(
// ONE: tensor.concat dim(0) {{.*}} -> tensor<676xf32>
// ONE-NEXT: dtensor.redistribute {{.*}} : tensor<676xf32>
// ONE-NOT: dtensor.redistribute
// ONE: return

// Tensor parallelism (weights sharded, their gradients too): no gradient is
// reduced from P(sum) to R, so no bucket buffer is built.
// RUN: dtensor-opt --dtensor-autodiff %dtensor_src_root/test/Integration/Inputs/mlp_loss_tp.mlir \
// RUN:   | dtensor-opt --dtensor-ddp-split="report=%t.tp.json" | FileCheck %s --check-prefix=TP
// RUN: %jsonq %t.tp.json 'all(b["all_reduce_params"] == [] for b in fn("mlp_loss_grad")["buckets"])'
// TP-LABEL: func.func @mlp_loss_grad(
// TP-NOT: tensor.concat
// TP-NOT: tensor.collapse_shape
// TP: return

// The split step partitions into one all_reduce_start per bucket, placed
// where the redistribution was; each wait comes right before the first
// reader of the bucket (the update), after the rest of the backward.
// RUN: dtensor-opt --dtensor-autodiff="optimizer=sgd lr=0.1" %dtensor_src_root/examples/mlp_loss.mlir \
// RUN:   | dtensor-opt --dtensor-ddp-split="bucket-cap-mb=0.0001 first-bucket-cap-mb=0.0001 strategy=pytorch" --dtensor-partition=strategy=pytorch \
// RUN:   | FileCheck %s --check-prefix=PART
// PART-LABEL: func.func @mlp_loss_train_step(
// PART: %[[Q2:.*]] = dtensor.all_reduce_start %{{.*}} on @mesh axes [0] reduce sum : tensor<132xf32>
// PART: linalg.generic
// PART: %[[Q1:.*]] = dtensor.all_reduce_start %{{.*}} : tensor<32xf32>
// PART: linalg.generic
// PART: %[[Q0:.*]] = dtensor.all_reduce_start %{{.*}} : tensor<512xf32>
// PART: linalg.fill
// PART: %[[W0:.*]] = dtensor.wait %[[Q0]]
// PART-NEXT: tensor.extract_slice %[[W0]][0] [512] [1]
// PART: dtensor.wait %[[Q1]]
// PART: dtensor.wait %[[Q2]]
// PART-NOT: dtensor.all_reduce {{.*}}tensor<{{[0-9]+}}xf32>
// PART: return
