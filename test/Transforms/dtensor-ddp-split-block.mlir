// The RFC Block (examples/block.mlir: wq, wk, wv, wo 1 MiB, w1, w2 4 MiB)
// at bucket caps of 25, 4 and 1 MB (docs/semantics.md section 6).

// 25 MB: the first bucket closes at 1 MiB with w2, the rest fits in one.
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split="bucket-cap-mb=25 report=%t.25.json" -o /dev/null
// RUN: %jsonq %t.25.json \
// RUN:   'f["name"] == "block" and f["split"]' \
// RUN:   '[b["params"] for b in f["buckets"]] == [["wq", "wk", "wv", "wo", "w1"], ["w2"]]' \
// RUN:   '[b["bytes"] for b in f["buckets"]] == [8388608, 4194304]' \
// RUN:   '[b["submodule"] for b in f["buckets"]] == ["block_submod_0", "block_submod_1"]' \
// RUN:   'sum(b["ops"] for b in f["buckets"]) == 29'

// 4 MB: w1 alone fills a bucket; the ops before wq (no parameters) join the
// first bucket.
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split="bucket-cap-mb=4 report=%t.4.json" -o /dev/null
// RUN: %jsonq %t.4.json \
// RUN:   '[b["params"] for b in f["buckets"]] == [["wq", "wk", "wv", "wo"], ["w1"], ["w2"]]' \
// RUN:   '[b["bytes"] for b in f["buckets"]] == [4194304] * 3' \
// RUN:   '[b["ops"] for b in f["buckets"]] == [24, 2, 3]'
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split="bucket-cap-mb=4 report=- report-format=text" -o /dev/null | FileCheck %s --check-prefix=TEXT
// TEXT:      function @block: 3 buckets (bucket cap 4194304 bytes, first bucket cap 1048576 bytes)
// TEXT-NEXT: bucket  submodule       parameters   bytes    ops
// TEXT-NEXT: 0       block_submod_0  wq wk wv wo  4194304  24
// TEXT-NEXT: 1       block_submod_1  w1           4194304  2
// TEXT-NEXT: 2       block_submod_2  w2           4194304  3

// 1 MB: one weight per bucket.
// RUN: dtensor-opt %dtensor_src_root/examples/block.mlir --dtensor-ddp-split="bucket-cap-mb=1 report=%t.1.json" | FileCheck %s
// RUN: %jsonq %t.1.json \
// RUN:   '[b["params"] for b in f["buckets"]] == [["wq"], ["wk"], ["wv"], ["wo"], ["w1"], ["w2"]]' \
// RUN:   '[b["bytes"] for b in f["buckets"]] == [1048576] * 4 + [4194304] * 2' \
// RUN:   '[b["submodule"] for b in f["buckets"]] == ["block_submod_%d" % i for i in range(6)]'

// The attention core (wv's bucket) reads the flattened input and q from
// bucket 0 and k from bucket 1, and builds its own zero fills and the 1/8
// scale read inside a linalg.generic body.
// CHECK-LABEL: func.func private @block_submod_0(
// CHECK-SAME:    {dtensor.param = "wq"
// CHECK-SAME:    -> (tensor<4096x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, tensor<4096x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
// CHECK:         %[[XF:.*]] = tensor.collapse_shape
// CHECK:         %[[Q:.*]] = linalg.matmul {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[XF]],
// CHECK:         return %[[XF]], %[[Q]]
// CHECK-LABEL: func.func private @block_submod_1(
// CHECK-SAME:    {dtensor.param = "wk"
// CHECK-LABEL: func.func private @block_submod_2(
// CHECK-SAME:    %[[XF:[^:]+]]: tensor<4096x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
// CHECK-SAME:    {dtensor.param = "wv"
// CHECK-NOT:     func.func
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.fill {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]} ins(%[[ZERO]]
// CHECK:         linalg.matmul {{.*}} ins(%[[XF]],
// CHECK:         %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK:         linalg.generic
// CHECK:           arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK:         linalg.softmax {dtensor.specs = [#dtensor.spec<@mesh, [S(0)]>]}
// CHECK-LABEL: func.func private @block_submod_3(
// CHECK-SAME:    {dtensor.param = "wo"
// CHECK-LABEL: func.func private @block_submod_4(
// CHECK-SAME:    {dtensor.param = "w1"
// CHECK-LABEL: func.func private @block_submod_5(
// CHECK-SAME:    {dtensor.param = "w2"
// CHECK-LABEL: func.func @block(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<32x128x512xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %[[WQ:[^:]+]]: tensor<512x512xf32> {dtensor.param = "wq"
// CHECK-NEXT:    %[[B0:.*]]:2 = call @block_submod_0(%[[X]], %[[WQ]])
// CHECK-NEXT:    %[[B1:.*]] = call @block_submod_1(%[[B0]]#0,
// CHECK-NEXT:    %[[B2:.*]] = call @block_submod_2(%[[B0]]#0, %{{[^,]+}}, %[[B0]]#1, %[[B1]])
// CHECK-NEXT:    %[[B3:.*]] = call @block_submod_3(%[[B2]], %{{[^,]+}}, %[[B0]]#0)
// CHECK-NEXT:    %[[B4:.*]] = call @block_submod_4(%[[B3]],
// CHECK-NEXT:    %[[B5:.*]] = call @block_submod_5(%[[B4]], %{{[^,]+}}, %[[B3]])
// CHECK-NEXT:    return %[[B5]]
