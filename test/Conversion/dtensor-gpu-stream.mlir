// RUN: dtensor-opt %s --dtensor-gpu-stream | FileCheck %s

// Every GPU op of a host function becomes `async` on the runtime's compute
// stream, fetched once at the entry (status checked) and cast to a token;
// a function without GPU ops is left alone.
// CHECK-LABEL: func.func @step
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<1xi64>
// CHECK: %[[S:.*]] = call @dtrt_cuda_compute_stream(%{{.*}}) : (i64) -> i32
// CHECK: arith.cmpi ne, %[[S]]
// CHECK: func.call @dtrt_abort
// CHECK: %[[P:.*]] = memref.load %[[SLOT]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[P]] : i64 to !llvm.ptr
// CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast %[[PTR]] : !llvm.ptr to !gpu.async.token
// CHECK: gpu.alloc async [%[[T]]] () : memref<256xf32>
// CHECK: gpu.memcpy async [%[[T]]]
// CHECK: gpu.launch_func async [%[[T]]] @kernels::@fill
// CHECK: scf.for
// CHECK:   gpu.launch_func async [%[[T]]] @kernels::@fill
// CHECK: gpu.memset async [%[[T]]]
// CHECK: gpu.dealloc async [%[[T]]]
// CHECK-NOT: gpu.wait
// CHECK-LABEL: func.func @host_only
// CHECK-NOT: dtrt_cuda_compute_stream
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%m: memref<256xf32>) kernel {
      gpu.return
    }
  }
  func.func @step(%x: memref<256xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 0.0 : f32
    %m = gpu.alloc () : memref<256xf32>
    gpu.memcpy %m, %x : memref<256xf32>, memref<256xf32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<256xf32>)
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<256xf32>)
    }
    gpu.memset %m, %f : memref<256xf32>, f32
    gpu.dealloc %m : memref<256xf32>
    return
  }
  func.func @host_only(%x: index) -> index {
    return %x : index
  }
}
