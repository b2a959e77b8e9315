// The per-rank peak of dtensor-fake-report: a liveness analysis of the
// partitioned program, with the buffers of redistributions (collective
// outputs, padded uneven shards) and loops.
// RUN: dtensor-opt %s --dtensor-fake-report="format=json output=%t.json" -o /dev/null
// Uneven: rank 0 holds its 3x4 shard (48 B), pads it (48 B), gathers 12x4
// (192 B) and slices 10x4 (160 B): 48 + 192 + 160 = 400 while the gathered
// block and the slice are live; rank 3's shard is 1x4 (16 B): 368.
// RUN: %jsonq %t.json \
// RUN:   'fn("gather_uneven")["totals"]["peak_bytes"] == [400, 400, 400, 368]' \
// RUN:   'fn("gather_uneven")["totals"]["peak_values"][0] == {"value": "all_gather buffers of %%arg0", "bytes": 192}' \
// RUN:   'fn("gather_even")["totals"]["peak_bytes"] == [160] * 4' \
// RUN:   'fn("gather_even")["totals"]["peak_values"][3] == {"value": "%%arg0 redistributed", "bytes": 128}' \
// RUN:   'fn("loop")["totals"]["peak_bytes"] == [8960, 8960]' \
// RUN:   'fn("loop")["totals"]["peak_values"][1]["bytes"] == 4096'
// RUN: dtensor-opt %s --dtensor-fake-report="format=text" -o /dev/null | FileCheck %s

dtensor.mesh @mesh = <["x" = 4]>
dtensor.mesh @pair = <["x" = 2]>

// 10 rows over 4 ranks (3, 3, 3, 1) gathered for the result: each rank pads
// its shard to 3 rows, gathers 12 and slices 10 back.
// CHECK-LABEL: function @gather_uneven
// CHECK: peak_bytes/rank=[400 400 400 368]
// CHECK-NEXT: peak memory/rank: [400 B, 400 B, 400 B, 368 B]; largest live at the peak of rank 0: all_gather buffers of %arg0 (192 B)
func.func @gather_uneven(%x: tensor<10x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<10x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  return %x : tensor<10x4xf32>
}

// 8 rows over 4: no padding, the gather writes its output only.
// CHECK-LABEL: function @gather_even
// CHECK: peak memory/rank: [160 B, 160 B, 160 B, 160 B]; largest live at the peak of rank 0: %arg0 redistributed (128 B)
func.func @gather_even(%x: tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<8x4xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  return %x : tensor<8x4xf32>
}

// %a is read by the loop's first op only, but every iteration reads it: it
// stays live while the loop's 4 KiB buffer is: %a, %e, %t (256 B each), the
// empty and the filled 4 KiB (%acc is dead by then): 8960 B.
// CHECK-LABEL: function @loop
// CHECK: peak memory/rank: [8.8 KiB, 8.8 KiB]; largest live at the peak of rank 0: %{{[0-9]+}} (4.0 KiB)
func.func @loop(%a: tensor<64xf32> {dtensor.spec = #dtensor.spec<@pair, [R]>}) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %a) -> (tensor<64xf32>) {
    %e = tensor.empty() : tensor<64xf32>
    %t = linalg.add ins(%acc, %a : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    %big = tensor.empty() : tensor<1024xf32>
    %f = linalg.fill ins(%cst : f32) outs(%big : tensor<1024xf32>) -> tensor<1024xf32>
    %s = tensor.extract_slice %f[0] [64] [1] : tensor<1024xf32> to tensor<64xf32>
    %u = linalg.add ins(%t, %s : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %u : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
