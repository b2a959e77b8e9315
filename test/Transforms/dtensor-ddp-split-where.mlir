// The DDPOptimizer where layer in its own submodule (Inputs/ddp-split/
// where_model.mlir: Linear, the where layer, Linear; three 4096-byte weights
// at a 3145-byte cap). The 0-d constants that where(tmp < 0.5, 0.3, 0.6)
// reads are created inside the where layer's submodule, with metadata:
// replicated 0-d tensors, broadcast to the S(0) layout of tmp.

// RUN: dtensor-opt %S/Inputs/ddp-split/where_model.mlir --dtensor-ddp-split="bucket-cap-mb=0.003 first-bucket-cap-mb=0.003 report=%t.json" -o %t.split.mlir
// RUN: FileCheck %s < %t.split.mlir
// RUN: %jsonq %t.json \
// RUN:   '[(b["submodule"], b["params"], b["bytes"]) for b in f["buckets"]] == [("where_model_submod_0", ["w0"], 4096), ("where_model_submod_1", ["weight"], 4096), ("where_model_submod_2", ["w2"], 4096)]'
// RUN: dtensor-opt %t.split.mlir --dtensor-fake-report="format=json output=%t.fake.json" -o /dev/null
// RUN: %jsonq %t.fake.json \
// RUN:   '[v["placements"] for v in fn("where_model_submod_1")["values"] if v["op"] == "arith.constant" and v["global_shape"] == []] == [["R"]] * 3' \
// RUN:   'all(v["local_shapes"] == [[]] * 4 for v in fn("where_model_submod_1")["values"] if v["global_shape"] == [])' \
// RUN:   '[v["placements"] for v in fn("where_model_submod_1")["values"] if v["op"] == "linalg.broadcast"] == [["S(0)"]] * 3' \
// RUN:   'all(v["local_shapes"] == [[4, 32]] * 4 for v in fn("where_model_submod_1")["values"] if v["op"] in ("linalg.broadcast", "arith.cmpf", "arith.select", "arith.addf"))' \
// RUN:   '[v["dtype"] for v in fn("where_model_submod_1")["values"] if v["op"] == "arith.cmpf"] == ["i1"]' \
// RUN:   'all(v["op"] != "arith.constant" or v["global_shape"] != [] for v in fn("where_model_submod_0")["values"] + fn("where_model_submod_2")["values"] + fn("where_model")["values"])' \
// RUN:   'all(fn(n)["collectives"] == [] for n in ["where_model", "where_model_submod_0", "where_model_submod_1", "where_model_submod_2"])'

// The where layer's submodule receives the weight and the activation h only.
// CHECK-LABEL: func.func private @where_model_submod_0(
// CHECK-NOT:     select
// CHECK-LABEL: func.func private @where_model_submod_1(
// CHECK-SAME:    %[[W:[^:]+]]: tensor<32x32xf32> {dtensor.param = "weight", dtensor.spec = #dtensor.spec<@mesh, [R]>},
// CHECK-SAME:    %[[H:[^:]+]]: tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
// CHECK-SAME:    -> (tensor<16x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%[[W]]
// CHECK:         %[[TMP:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[H]], %[[WT]]
// CHECK:         %[[HALF:.*]] = arith.constant {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[HALFB:.*]] = linalg.broadcast ins(%[[HALF]] : tensor<f32>) {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK:         %[[LT:.*]] = arith.cmpf olt, %[[TMP]], %[[HALFB]] {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK:         %[[A:.*]] = arith.constant {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} dense<3.000000e-01> : tensor<f32>
// CHECK:         %[[AB:.*]] = linalg.broadcast ins(%[[A]]
// CHECK:         %[[B:.*]] = arith.constant {dtensor.specs = [#dtensor.spec<@mesh, [R]>]} dense<6.000000e-01> : tensor<f32>
// CHECK:         %[[BB:.*]] = linalg.broadcast ins(%[[B]]
// CHECK:         %[[SEL:.*]] = arith.select %[[LT]], %[[AB]], %[[BB]] {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK:         %[[Y:.*]] = arith.addf %[[TMP]], %[[SEL]]
// CHECK:         return %[[Y]]
// CHECK-LABEL: func.func private @where_model_submod_2(
// CHECK-NOT:     dense<
// CHECK-LABEL: func.func @where_model(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<16x32xf32> {dtensor.spec = {{[^}]*}}}, %[[W0:[^:]+]]: tensor<32x32xf32> {dtensor.param = "w0"},
// CHECK-SAME:    %[[W:[^:]+]]: tensor<32x32xf32> {dtensor.param = "weight"}, %[[W2:[^:]+]]: tensor<32x32xf32> {dtensor.param = "w2"})
// CHECK-NEXT:    %[[H:.*]] = call @where_model_submod_0(%[[X]], %[[W0]])
// CHECK-NEXT:    %[[Y:.*]] = call @where_model_submod_1(%[[W]], %[[H]])
// CHECK-NEXT:    %[[OUT:.*]] = call @where_model_submod_2(%[[Y]], %[[W2]])
// CHECK-NEXT:    return %[[OUT]]

// The layer alone (examples/where_layer.mlir) stays one bucket at any
// positive cap: its only parameter is read by its first op, so the bucket
// fills only there and what precedes holds no bytes.
// RUN: dtensor-opt %dtensor_src_root/examples/where_layer.mlir --dtensor-ddp-split="bucket-cap-mb=0.0001 first-bucket-cap-mb=0.0001 report=%t.layer.json" | FileCheck %s --check-prefix=LAYER
// RUN: %jsonq %t.layer.json 'not f["split"]' 'f["buckets"][0]["params"] == ["weight"]'
// LAYER-NOT: call
// LAYER-NOT: submod
