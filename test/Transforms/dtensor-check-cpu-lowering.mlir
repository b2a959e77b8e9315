// RUN: dtensor-opt %s --dtensor-check-cpu-lowering -split-input-file -verify-diagnostics | FileCheck %s

// A program the pipeline lowers is left as it is: collectives, tosa
// (constants and shapes included), bufferizable tensor ops, elementwise ops
// whose scalar form has a lowering, integer powers.
// CHECK-LABEL: func.func @no_error
// CHECK: tosa.matmul
// CHECK: dtensor.all_reduce
// CHECK: tosa.reshape
// CHECK: tensor.extract_slice
// CHECK: math.ipowi
// CHECK: math.absi
dtensor.mesh @mesh = <["x" = 4]>
func.func @no_error(%x: tensor<1x4x8xf32>, %w: tensor<1x8x4xf32>, %n: tensor<4xi32>) -> (tensor<4x4xf32>, tensor<2xi32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  %r = dtensor.all_reduce %m on @mesh axes [0] reduce sum : tensor<1x4x4xf32> -> tensor<1x4x4xf32>
  %shape = tosa.const_shape {values = dense<4> : tensor<2xindex>} : () -> !tosa.shape<2>
  %f = tosa.reshape %r, %shape : (tensor<1x4x4xf32>, !tosa.shape<2>) -> tensor<4x4xf32>
  %s = tensor.extract_slice %n[0] [2] [1] : tensor<4xi32> to tensor<2xi32>
  %p = math.ipowi %s, %s : tensor<2xi32>
  %a = math.absi %p : tensor<2xi32>
  return %f, %a : tensor<4x4xf32>, tensor<2xi32>
}

// -----

// Every op the pipeline cannot lower is reported.
func.func @errors(%x: tensor<16xf32>, %idx: tensor<4x1xindex>) -> (tensor<4x1xf32>, tensor<16xi1>) {
  // expected-error @+1 {{'tensor.gather' op cannot be lowered by dtensor-cpu-pipeline: it is not bufferizable (no BufferizableOpInterface) and not elementwise}}
  %g = tensor.gather %x[%idx] gather_dims([0]) unique : (tensor<16xf32>, tensor<4x1xindex>) -> tensor<4x1xf32>
  // expected-error @+1 {{'math.isnormal' op cannot be lowered by dtensor-cpu-pipeline: no convert-math-to-funcs, convert-math-to-llvm or convert-math-to-libm pattern converts it}}
  %n = math.isnormal %x : tensor<16xf32>
  return %g, %n : tensor<4x1xf32>, tensor<16xi1>
}
