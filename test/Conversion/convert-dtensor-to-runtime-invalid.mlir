// RUN: dtensor-opt %s --convert-dtensor-to-runtime -split-input-file -verify-diagnostics

// The runtime has no 8-bit float dtype.
dtensor.mesh @mesh = <["x" = 4]>
func.func @f8(%x: tensor<8xf8E4M3FN>) -> tensor<8xf8E4M3FN> {
  // expected-error @+2 {{'dtensor.all_reduce' op element type 'f8E4M3FN' is not supported by the runtime (it has f32, f64, f16, bf16, i1, i8, i16, i32, i64 and index)}}
  // expected-error @+1 {{failed to legalize operation 'dtensor.all_reduce' that was explicitly marked illegal}}
  %y = dtensor.all_reduce %x on @mesh axes [0] reduce sum : tensor<8xf8E4M3FN> -> tensor<8xf8E4M3FN>
  return %y : tensor<8xf8E4M3FN>
}

// -----

// The async form is checked like the synchronous one.
dtensor.mesh @mesh = <["x" = 4]>
func.func @f8_start(%x: tensor<8xf8E5M2>) -> tensor<32xf8E5M2> {
  // expected-error @+2 {{'dtensor.all_gather_start' op element type 'f8E5M2' is not supported by the runtime (it has f32, f64, f16, bf16, i1, i8, i16, i32, i64 and index)}}
  // expected-error @+1 {{failed to legalize operation 'dtensor.all_gather_start' that was explicitly marked illegal}}
  %r = dtensor.all_gather_start %x on @mesh axes [0] gather_dim 0 : tensor<8xf8E5M2> -> !dtensor.request<tensor<32xf8E5M2>>
  %y = dtensor.wait %r : !dtensor.request<tensor<32xf8E5M2>>
  return %y : tensor<32xf8E5M2>
}

// -----

// The runtime averages floats only.
dtensor.mesh @mesh = <["x" = 4]>
func.func @avg_int(%x: tensor<32xi32>) -> tensor<8xi32> {
  // expected-error @+2 {{'dtensor.reduce_scatter' op reduction avg is defined by the runtime for float element types only, got 'i32'}}
  // expected-error @+1 {{failed to legalize operation 'dtensor.reduce_scatter' that was explicitly marked illegal}}
  %y = dtensor.reduce_scatter %x on @mesh axes [0] reduce avg scatter_dim 0 : tensor<32xi32> -> tensor<8xi32>
  return %y : tensor<8xi32>
}

// -----

// A request that leaves the function cannot be completed by a synchronous
// call at the start.
dtensor.mesh @mesh = <["x" = 4]>
func.func @escaping_request(%x: tensor<8xf32>) -> !dtensor.request<tensor<8xf32>> {
  // expected-error @+2 {{'dtensor.broadcast_start' op request is used by 'func.return'; only dtensor.wait can complete it}}
  // expected-error @+1 {{failed to legalize operation 'dtensor.broadcast_start' that was explicitly marked illegal}}
  %r = dtensor.broadcast_start %x on @mesh axes [0] root [0] : tensor<8xf32> -> !dtensor.request<tensor<8xf32>>
  return %r : !dtensor.request<tensor<8xf32>>
}

// -----

// A wait whose request does not come from a `_start` in the program.
func.func @wait_on_argument(%r: !dtensor.request<tensor<8xf32>>) -> tensor<8xf32> {
  // expected-error @+1 {{failed to legalize operation 'dtensor.wait' that was explicitly marked illegal}}
  %y = dtensor.wait %r : !dtensor.request<tensor<8xf32>>
  return %y : tensor<8xf32>
}

// -----

// The runtime releases a request in its one dtrt_wait.
dtensor.mesh @mesh = <["x" = 2]>
func.func @two_waits(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-error @+2 {{'dtensor.all_reduce_start' op request is waited on 2 times; the runtime completes a request with exactly one dtensor.wait}}
  // expected-error @+1 {{failed to legalize operation 'dtensor.all_reduce_start' that was explicitly marked illegal}}
  %r = dtensor.all_reduce_start %x on @mesh axes [0] reduce sum : tensor<8xf32> -> !dtensor.request<tensor<8xf32>>
  %a = dtensor.wait %r : !dtensor.request<tensor<8xf32>>
  %b = dtensor.wait %r : !dtensor.request<tensor<8xf32>>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
