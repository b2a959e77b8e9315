// RUN: dtensor-opt %s --dtensor-ddp-split -split-input-file -verify-diagnostics

// Errors of the options, on any module (exit status 1, never a crash), at
// the module's location and without the module printed after them.
// RUN: not dtensor-opt %S/Inputs/ddp-split/small580.mlir --dtensor-ddp-split=bucket-cap-mb=0.5 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAP
// CAP: small580.mlir:0:0: error: dtensor-ddp-split: bucket-cap-mb=0.5 (524288 bytes) is below first-bucket-cap-mb=1 (1048576 bytes)
// CAP-NOT: see current operation
// RUN: not dtensor-opt %S/Inputs/ddp-split/small580.mlir --dtensor-ddp-split="bucket-cap-mb=-1 first-bucket-cap-mb=-2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: dtensor-ddp-split: bucket caps must not be negative, got bucket-cap-mb=-1 first-bucket-cap-mb=-2
// RUN: not dtensor-opt %S/Inputs/ddp-split/small580.mlir --dtensor-ddp-split="report=- report-format=yaml" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMT
// FMT: error: dtensor-ddp-split: report-format must be json or text, got 'yaml'
// RUN: not dtensor-opt %S/Inputs/ddp-split/small580.mlir --dtensor-ddp-split="report=%t.missing/dir/report.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILE
// FILE: error: dtensor-ddp-split: cannot open output file '{{.*}}report.json'
// FILE-NOT: see current operation

// A parameter must be a ranked tensor (the dialect verifier rejects it).
dtensor.mesh @mesh = <["dp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.param' on argument #1 requires a ranked tensor or memref, got 'f32'}}
func.func @scalar_param(%x: tensor<4x16xf32>, %s: f32 {dtensor.param = "s"}) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}

// -----

// The dialect allows a memref parameter, but the pass buckets tensors: the
// error is at the argument and names the parameter and the function.
dtensor.mesh @mesh = <["dp" = 4]>
// expected-error @+1 {{parameter 'w' (argument #1 of @memref_param) has type 'memref<16x16xf32>'; dtensor-ddp-split buckets tensor parameters (split before bufferizing)}}
func.func @memref_param(%x: tensor<4x16xf32>, %w: memref<16x16xf32> {dtensor.param = "w"}) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}

// -----

// An ignored memref parameter is not counted.
dtensor.mesh @mesh = <["dp" = 4]>
func.func @no_error_ignored_memref(%x: tensor<4x16xf32>, %w: memref<16x16xf32> {dtensor.param = "w", dtensor.ddp_ignored}) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}

// -----

// The pass counts the parameters each op reads; a callee's ops are out of
// sight.
dtensor.mesh @mesh = <["dp" = 4]>
func.func private @layer(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> tensor<4x16xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%x : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
func.func @param_to_call(%x: tensor<4x16xf32>, %w: tensor<16x16xf32> {dtensor.param = "w"}) -> tensor<4x16xf32> {
  // expected-error @+1 {{'func.call' op passes parameter 'w' to @layer; dtensor-ddp-split counts the parameters each op uses directly and cannot see into a call (inline it first)}}
  %y = func.call @layer(%x, %w) : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Also when the call is nested in a region, or indirect.
dtensor.mesh @mesh = <["dp" = 4]>
func.func private @update(%w: tensor<16x16xf32>) -> tensor<16x16xf32>
func.func @param_to_nested_call(%w: tensor<16x16xf32> {dtensor.param = "w"}, %c: i1) -> tensor<16x16xf32> {
  %r = scf.if %c -> tensor<16x16xf32> {
    // expected-error @+1 {{'func.call' op passes parameter 'w' to @update; dtensor-ddp-split counts the parameters each op uses directly and cannot see into a call (inline it first)}}
    %u = func.call @update(%w) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %u : tensor<16x16xf32>
  } else {
    scf.yield %w : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}
func.func @param_to_indirect_call(%w: tensor<16x16xf32> {dtensor.param = "w2"}) -> tensor<16x16xf32> {
  %f = func.constant @update : (tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{'func.call_indirect' op passes parameter 'w2' to an indirect callee; dtensor-ddp-split counts the parameters each op uses directly and cannot see into a call (inline it first)}}
  %u = func.call_indirect %f(%w) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %u : tensor<16x16xf32>
}

// -----

// The fake-tensor analysis runs first; its errors stop the pass.
dtensor.mesh @mesh = <["x" = 4]>
func.func @unknown_op(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                      %w: tensor<16xf32> {dtensor.param = "w"},
                      %idx: tensor<4x1xindex>) -> tensor<4x1xf32> {
  %y = arith.addf %x, %w : tensor<16xf32>
  // expected-error @+1 {{no sharding rule for 'tensor.gather'; pass unknown-ops=replicate to replicate its operands and results}}
  %r = tensor.gather %y[%idx] gather_dims([0]) unique : (tensor<16xf32>, tensor<4x1xindex>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}
