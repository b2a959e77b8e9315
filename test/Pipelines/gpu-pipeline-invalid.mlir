// RUN: dtensor-opt %s --dtensor-gpu-pipeline="partition=false format=isa" -split-input-file -verify-diagnostics

// A scalar read on the host of a value the GPU computes: named, not a
// kernel that reads host memory.
func.func @host_read(%x: tensor<8xf32>, %i: index) -> f32 {
  %e = math.exp %x : tensor<8xf32>
  // expected-error @+1 {{'memref.load' op reads or writes a buffer on the host, which is a device buffer on the GPU; dtensor-gpu-pipeline cannot move it to the GPU}}
  %v = tensor.extract %e[%i] : tensor<8xf32>
  return %v : f32
}
