// RUN: dtensor-opt %s --dtensor-gpu-host-buffers | FileCheck %s

// Host allocations, frees and contiguous copies become their gpu forms; a
// strided copy becomes a copy kernel (linalg.copy); a constant is copied to
// a fresh device buffer that is freed before the return. The request slot
// (memref.alloca) and the deallocation lowering's index/i1 bookkeeping stay
// on the host.
// CHECK-LABEL: func.func @buffers
// CHECK-NOT: memref.alloc()
// CHECK: %[[A:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK: gpu.memcpy %[[A]], %{{.*}} : memref<4x8xf32>, memref<4x8xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<4x4xf32, strided<[8, 1]>>) outs(%{{.*}} : memref<4x4xf32>)
// CHECK: %[[G:.*]] = memref.get_global @cst : memref<4xf32>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]]
// CHECK: linalg.copy ins(%[[D]] : memref<4xf32>)
// CHECK: memref.alloca() : memref<1xi64>
// CHECK: %[[K:.*]] = memref.alloc() : memref<2xindex>
// CHECK: memref.store %{{.*}}, %[[K]]
// CHECK: memref.dealloc %[[K]] : memref<2xindex>
// CHECK: gpu.dealloc %[[A]] : memref<4x8xf32>
// CHECK: gpu.dealloc %[[D]] : memref<4xf32>
// CHECK-NEXT: return
memref.global "private" constant @cst : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @buffers(%x: memref<4x8xf32>, %y: memref<4x4xf32>, %z: memref<4xf32>, %i: index) -> memref<4x8xf32> {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  memref.copy %x, %a : memref<4x8xf32> to memref<4x8xf32>
  %b = memref.alloc() : memref<4x8xf32>
  %v = memref.subview %x[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  memref.copy %v, %y : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  %g = memref.get_global @cst : memref<4xf32>
  linalg.copy ins(%g : memref<4xf32>) outs(%z : memref<4xf32>)
  %slot = memref.alloca() : memref<1xi64>
  %c0 = arith.constant 0 : index
  %h = memref.load %slot[%c0] : memref<1xi64>
  %k = memref.alloc() : memref<2xindex>
  memref.store %i, %k[%c0] : memref<2xindex>
  memref.dealloc %k : memref<2xindex>
  memref.dealloc %a : memref<4x8xf32>
  return %b : memref<4x8xf32>
}
