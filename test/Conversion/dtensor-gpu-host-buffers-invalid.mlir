// RUN: dtensor-opt %s --dtensor-gpu-host-buffers -split-input-file -verify-diagnostics

func.func @host_load(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op reads or writes a buffer on the host, which is a device buffer on the GPU; dtensor-gpu-pipeline cannot move it to the GPU}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}

// -----

func.func @big_alloca() {
  // expected-error @+1 {{'memref.alloca' op is a host stack buffer of more than one element; dtensor-gpu-pipeline cannot move it to the GPU}}
  %a = memref.alloca() : memref<16xf32>
  return
}
