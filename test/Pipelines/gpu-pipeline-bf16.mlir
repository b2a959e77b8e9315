// RUN: dtensor-opt %s --dtensor-gpu-pipeline="partition=false format=isa" -split-input-file | FileCheck %s

// A bf16 elementwise chain: one fused kernel computing exp in f32
// (libdevice inlined, no __nv_ call), rounding once to bf16.
// CHECK-LABEL: llvm.func @ew
// CHECK-COUNT-1: gpu.binary @ew_kernel
// CHECK-NOT: gpu.binary
// CHECK-SAME: cvt.f32.bf16
// CHECK-SAME: cvt.rn.bf16.f32
// CHECK-NOT: __nv_
func.func @ew(%x: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %r = math.exp %x : tensor<64x32xbf16>
  %s = arith.addf %r, %x : tensor<64x32xbf16>
  return %s : tensor<64x32xbf16>
}

// -----

// bf16 x bf16 -> f32 GEMM: in_dtype 8 (DTRT_BF16), out_dtype 0 (f32).
// CHECK-LABEL: llvm.func @gemm
// CHECK-DAG: %[[BF16:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-DAG: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: llvm.call @dtrt_cublaslt_matmul(%[[BF16]], %[[F32]], %[[F32]], %[[F32]],
func.func @gemm(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>) -> tensor<8x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}
