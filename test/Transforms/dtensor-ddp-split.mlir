// The DDP split on the examples of docs/semantics.md section 6 (inputs in
// Inputs/ddp-split) and on small cases of its rules (below, -split-input-file).

// 4 x Linear(1000, 1000) at 3.5 MB: 4 submodules, one layer each. The batch
// is S(0) over 4 ranks (rows 3, 3, 3, 1) and stays so in every submodule.
// RUN: dtensor-opt %S/Inputs/ddp-split/linear4.mlir --dtensor-ddp-split="bucket-cap-mb=3.5 report=%t.lin4.json" | FileCheck %s --check-prefix=LIN4
// RUN: %jsonq %t.lin4.json \
// RUN:   'f["name"] == "linear4" and f["split"]' \
// RUN:   '[b["submodule"] for b in f["buckets"]] == ["linear4_submod_%d" % i for i in range(4)]' \
// RUN:   '[b["params"] for b in f["buckets"]] == [["w0", "b0"], ["w1", "b1"], ["w2", "b2"], ["w3", "b3"]]' \
// RUN:   '[b["bytes"] for b in f["buckets"]] == [4004000] * 4'
// RUN: dtensor-opt %S/Inputs/ddp-split/linear4.mlir --dtensor-ddp-split="bucket-cap-mb=3.5" \
// RUN:   | dtensor-opt --dtensor-fake-report="format=json output=%t.lin4.fake.json" -o /dev/null
// RUN: %jsonq %t.lin4.fake.json \
// RUN:   'all(fn("linear4_submod_%d" % i)["values"][0]["placements"] == ["S(0)"] for i in range(4))' \
// RUN:   'all(fn("linear4_submod_%d" % i)["values"][0]["local_shapes"] == [[3, 1000]] * 3 + [[1, 1000]] for i in range(4))' \
// RUN:   'all(fn("linear4_submod_%d" % i)["returns"][0]["local_shapes"] == [[3, 1000]] * 3 + [[1, 1000]] for i in range(4))' \
// RUN:   'all(v["placements"] == ["S(0)"] and v["local_shapes"][3] == [1, 1000] for i in range(4) for v in fn("linear4_submod_%d" % i)["values"] if v["op"] in ("linalg.matmul", "linalg.add"))' \
// RUN:   'all(fn("linear4_submod_%d" % i)["collectives"] == [] for i in range(4))' \
// RUN:   '[v["op"] for v in fn("linear4")["values"]].count("func.call") == 4'

// LIN4-LABEL: func.func private @linear4_submod_0(
// LIN4-SAME:    %[[X:[^:]+]]: tensor<10x1000xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
// LIN4-SAME:    %[[W:[^:]+]]: tensor<1000x1000xf32> {dtensor.param = "w0", dtensor.spec = #dtensor.spec<@mesh, [R]>},
// LIN4-SAME:    %[[B:[^:]+]]: tensor<1000xf32> {dtensor.param = "b0", dtensor.spec = #dtensor.spec<@mesh, [R]>})
// LIN4-SAME:    -> (tensor<10x1000xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
// LIN4:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// LIN4:         %[[E:.*]] = tensor.empty()
// LIN4:         %[[Z:.*]] = linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[ZERO]] : f32) outs(%[[E]]
// LIN4:         %[[MM:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[Z]]
// LIN4:         %[[BB:.*]] = linalg.broadcast ins(%[[B]]
// LIN4:         %[[Y:.*]] = linalg.add {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[MM]], %[[BB]]
// LIN4:         return %[[Y]] : tensor<10x1000xf32>
// LIN4-LABEL: func.func private @linear4_submod_1(
// LIN4-SAME:    {dtensor.param = "w1"
// LIN4-SAME:    {dtensor.param = "b1"
// LIN4:         arith.constant 0.000000e+00 : f32
// LIN4:         tensor.empty()
// LIN4:         linalg.fill
// LIN4:         linalg.matmul
// LIN4-LABEL: func.func private @linear4_submod_2(
// LIN4-SAME:    {dtensor.param = "w2"
// LIN4:         tensor.empty()
// LIN4-LABEL: func.func private @linear4_submod_3(
// LIN4-SAME:    {dtensor.param = "w3"
// LIN4:         tensor.empty()
// LIN4-LABEL: func.func @linear4(
// LIN4-SAME:    %[[X:[^:]+]]: tensor<10x1000xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
// LIN4-SAME:    %[[W0:[^:]+]]: tensor<1000x1000xf32> {dtensor.param = "w0", {{[^}]*}}}, %[[B0:[^:]+]]: tensor<1000xf32> {dtensor.param = "b0", {{[^}]*}}},
// LIN4-SAME:    %[[W1:[^:]+]]: tensor<1000x1000xf32> {dtensor.param = "w1", {{[^}]*}}}, %[[B1:[^:]+]]: tensor<1000xf32> {dtensor.param = "b1", {{[^}]*}}},
// LIN4-SAME:    %[[W2:[^:]+]]: tensor<1000x1000xf32> {dtensor.param = "w2", {{[^}]*}}}, %[[B2:[^:]+]]: tensor<1000xf32> {dtensor.param = "b2", {{[^}]*}}},
// LIN4-SAME:    %[[W3:[^:]+]]: tensor<1000x1000xf32> {dtensor.param = "w3", {{[^}]*}}}, %[[B3:[^:]+]]: tensor<1000xf32> {dtensor.param = "b3", {{[^}]*}}})
// LIN4-NEXT:    %[[Y0:.*]] = call @linear4_submod_0(%[[X]], %[[W0]], %[[B0]])
// LIN4-NEXT:    %[[Y1:.*]] = call @linear4_submod_1(%[[Y0]], %[[W1]], %[[B1]])
// LIN4-NEXT:    %[[Y2:.*]] = call @linear4_submod_2(%[[Y1]], %[[W2]], %[[B2]])
// LIN4-NEXT:    %[[Y3:.*]] = call @linear4_submod_3(%[[Y2]], %[[W3]], %[[B3]])
// LIN4-NEXT:    return %[[Y3]]
// LIN4-NOT:   submod_4

// 2 x Linear(1024, 1024) at 4 MB: 2 submodules. Without a mesh nothing
// carries placements.
// RUN: dtensor-opt %S/Inputs/ddp-split/linear1024x2.mlir --dtensor-ddp-split="bucket-cap-mb=4 report=%t.lin2.json" | FileCheck %s --check-prefix=LIN2
// RUN: %jsonq %t.lin2.json \
// RUN:   '[(b["submodule"], b["params"], b["bytes"]) for b in f["buckets"]] == [("linear1024x2_submod_0", ["w0", "b0"], 4198400), ("linear1024x2_submod_1", ["w1", "b1"], 4198400)]'

// LIN2-NOT:   dtensor.spec
// LIN2-LABEL: func.func private @linear1024x2_submod_0(
// LIN2-SAME:    %{{[^:]+}}: tensor<8x1024xf32>, %{{[^:]+}}: tensor<1024x1024xf32> {dtensor.param = "w0"}, %{{[^:]+}}: tensor<1024xf32> {dtensor.param = "b0"}) -> tensor<8x1024xf32>
// LIN2-LABEL: func.func private @linear1024x2_submod_1(
// LIN2-SAME:    {dtensor.param = "w1"}
// LIN2-SAME:    {dtensor.param = "b1"}
// LIN2-LABEL: func.func @linear1024x2(
// LIN2:         call @linear1024x2_submod_0
// LIN2-NEXT:    call @linear1024x2_submod_1
// LIN2-NEXT:    return
// LIN2-NOT:   dtensor.spec

// A 580-byte model at 250 MB: one bucket, the IR is unchanged.
// RUN: dtensor-opt %S/Inputs/ddp-split/small580.mlir -o %t.small.orig.mlir
// RUN: dtensor-opt %S/Inputs/ddp-split/small580.mlir --dtensor-ddp-split="bucket-cap-mb=250 report=%t.small.json" -o %t.small.split.mlir
// RUN: diff %t.small.orig.mlir %t.small.split.mlir
// RUN: %jsonq %t.small.json \
// RUN:   'f["name"] == "small580" and not f["split"]' \
// RUN:   'f["buckets"] == [{"submodule": "small580", "params": ["w0", "b0", "w1", "b1"], "bytes": 580, "ops": 10}]'

// The small cases below.
// RUN: dtensor-opt %s --dtensor-ddp-split="bucket-cap-mb=0.001 first-bucket-cap-mb=0.001" -split-input-file | FileCheck %s

// Created values are recreated where they are used, never passed: %cst and
// the fill are built in both submodules; only x, the activation and the
// weights cross.
// CHECK-LABEL: func.func private @recreate_submod_0(
// CHECK-SAME:    %{{[^:]+}}: tensor<4x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %{{[^:]+}}: tensor<32x32xf32> {dtensor.param = "a", dtensor.spec = #dtensor.spec<@mesh, [R]>})
// CHECK:         arith.constant 1.000000e+00 : f32
// CHECK:         tensor.empty
// CHECK:         linalg.fill
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func private @recreate_submod_1(
// CHECK-SAME:    %{{[^:]+}}: tensor<4x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %{{[^:]+}}: tensor<32x32xf32> {dtensor.param = "b", dtensor.spec = #dtensor.spec<@mesh, [R]>})
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK:         linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[ONE]] : f32) outs(%[[E]]
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func @recreate(
// CHECK-NEXT:    call @recreate_submod_0
// CHECK-NEXT:    call @recreate_submod_1
// CHECK-NEXT:    return
dtensor.mesh @mesh = <["dp" = 4]>
func.func @recreate(%x: tensor<4x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                    %a: tensor<32x32xf32> {dtensor.param = "a"},
                    %b: tensor<32x32xf32> {dtensor.param = "b"}) -> tensor<4x32xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %h = linalg.matmul ins(%x, %a : tensor<4x32xf32>, tensor<32x32xf32>) outs(%init : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y = linalg.matmul ins(%h, %b : tensor<4x32xf32>, tensor<32x32xf32>) outs(%init : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// An ignored parameter adds no bytes: the matmuls with a and b share one
// bucket although each weight alone fills one. b keeps its attributes on the
// submodule argument.
// CHECK-LABEL: func.func private @ignored_submod_0(
// CHECK-SAME:    {dtensor.param = "a"
// CHECK-SAME:    {dtensor.ddp_ignored, dtensor.param = "b"
// CHECK:         linalg.matmul
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func private @ignored_submod_1(
// CHECK-SAME:    {dtensor.param = "c"
// CHECK-LABEL: func.func @ignored(
// CHECK-NOT:   submod_2
dtensor.mesh @mesh = <["dp" = 4]>
func.func @ignored(%x: tensor<4x32xf32>,
                   %a: tensor<32x32xf32> {dtensor.param = "a"},
                   %b: tensor<32x32xf32> {dtensor.param = "b", dtensor.ddp_ignored},
                   %c: tensor<32x32xf32> {dtensor.param = "c"}) -> tensor<4x32xf32> {
  %h = arith.addf %x, %x : tensor<4x32xf32>
  %y0 = linalg.matmul ins(%h, %a : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y1 = linalg.matmul ins(%y0, %b : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y2 = linalg.matmul ins(%y1, %c : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y2 : tensor<4x32xf32>
}

// -----

// A value read by a later bucket and by the return crosses once; results are
// in program order; a scalar argument crosses without a spec; a created
// scalar read inside a region is recreated in the region's submodule.
// CHECK-LABEL: func.func private @crossing_submod_0(
// CHECK-SAME:    -> (tensor<4x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}, tensor<4x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
// CHECK:         %[[H:.*]] = arith.mulf
// CHECK:         %[[Y0:.*]] = linalg.matmul
// CHECK:         return %[[H]], %[[Y0]]
// CHECK-LABEL: func.func private @crossing_submod_1(
// CHECK-SAME:    %[[S:[^:]+]]: f32) -> (tensor<4x32xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
// CHECK:         linalg.matmul
// CHECK:         %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK:           arith.addf %{{.*}}, %[[S]] : f32
// CHECK-LABEL: func.func @crossing(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x32xf32>, %[[SC:[^:]+]]: f32,
// CHECK-NEXT:    %[[R:.*]]:2 = call @crossing_submod_0(%[[X]], %{{[^)]+}})
// CHECK-NEXT:    %[[Y:.*]] = call @crossing_submod_1(%[[R]]#1, %{{[^,]+}}, %[[X]], %[[SC]])
// CHECK-NEXT:    return %[[Y]], %[[R]]#0
dtensor.mesh @mesh = <["dp" = 4]>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @crossing(%x: tensor<4x32xf32>, %s: f32,
                    %a: tensor<32x32xf32> {dtensor.param = "a"},
                    %b: tensor<32x32xf32> {dtensor.param = "b"}) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %two = arith.constant 2.0 : f32
  %h = arith.mulf %x, %x : tensor<4x32xf32>
  %y0 = linalg.matmul ins(%h, %a : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y1 = linalg.matmul ins(%y0, %b : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y1 : tensor<4x32xf32>) outs(%x : tensor<4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    %p = arith.addf %m, %s : f32
    linalg.yield %p : f32
  } -> tensor<4x32xf32>
  return %g, %h : tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// A parameter used by two ops counts twice: one use of the tied weight
// (1024 bytes) is below the 1048-byte cap, two uses fill a bucket, so the
// three matmuls split {y0} . {y1, y2} (counted once, they would not split).
// CHECK-LABEL: func.func private @tied_submod_0(
// CHECK-SAME:    {dtensor.param = "tied"
// CHECK:         linalg.matmul
// CHECK-NOT:     linalg.matmul
// CHECK-LABEL: func.func private @tied_submod_1(
// CHECK-SAME:    {dtensor.param = "tied"
// CHECK:         linalg.matmul
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func @tied(
dtensor.mesh @mesh = <["dp" = 4]>
func.func @tied(%x: tensor<4x16xf32>,
                %w: tensor<16x16xf32> {dtensor.param = "tied"}) -> tensor<4x16xf32> {
  %y0 = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%x : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y1 = linalg.matmul ins(%y0, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%x : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y2 = linalg.matmul ins(%y1, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%x : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y2 : tensor<4x16xf32>
}

// -----

// No parameters: one bucket, nothing to split.
// CHECK-LABEL: func.func @no_params(
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    return
// CHECK-NOT:   submod
dtensor.mesh @mesh = <["dp" = 4]>
func.func @no_params(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %y = arith.addf %x, %x : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// An ignored parameter passed to a call is fine: it is not counted.
// CHECK-LABEL: func.func @ignored_to_call(
// CHECK-NEXT:    call @callee
dtensor.mesh @mesh = <["dp" = 4]>
func.func private @callee(tensor<16x16xf32>) -> tensor<16x16xf32>
func.func @ignored_to_call(%w: tensor<16x16xf32> {dtensor.param = "w", dtensor.ddp_ignored}) -> tensor<16x16xf32> {
  %r = call @callee(%w) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// A full bucket whose ops have no user outside it keeps growing: the bucket
// of the unused %dead is full, but nothing in it feeds a later bucket, so %y0
// joins it: {y0, dead} . {y2}, not three buckets.
// CHECK-LABEL: func.func private @keeps_growing_submod_0(
// CHECK-SAME:    {dtensor.param = "a"
// CHECK-SAME:    {dtensor.param = "b"
// CHECK:         linalg.matmul
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func private @keeps_growing_submod_1(
// CHECK-SAME:    {dtensor.param = "c"
// CHECK-LABEL: func.func @keeps_growing(
// CHECK-NEXT:    call @keeps_growing_submod_0
// CHECK-NEXT:    call @keeps_growing_submod_1
// CHECK-NEXT:    return
dtensor.mesh @mesh = <["dp" = 4]>
func.func @keeps_growing(%x: tensor<4x32xf32>,
                         %a: tensor<32x32xf32> {dtensor.param = "a"},
                         %b: tensor<32x32xf32> {dtensor.param = "b"},
                         %c: tensor<32x32xf32> {dtensor.param = "c"}) -> tensor<4x32xf32> {
  %y0 = linalg.matmul ins(%x, %a : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  %dead = linalg.matmul ins(%x, %b : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y2 = linalg.matmul ins(%y0, %c : tensor<4x32xf32>, tensor<32x32xf32>) outs(%x : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y2 : tensor<4x32xf32>
}
