// RUN: dtensor-opt %s -dtensor-fake-propagate="unknown-ops=replicate" -verify-diagnostics | FileCheck %s

// With unknown-ops=replicate an op without a rule gets replicated operands
// and results, and a warning naming it.

dtensor.mesh @mesh = <["x" = 4]>

// CHECK-LABEL: func.func @unknown_replicated
// CHECK: %[[G:.*]] = dtensor.redistribute %arg0 to #dtensor.spec<@mesh, [R]>
// CHECK: tensor.gather %[[G]][%arg1] {{.*}} {dtensor.specs = [#dtensor.spec<@mesh, [R]>]}
func.func @unknown_replicated(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %idx: tensor<4x1xindex>) -> tensor<4x1xf32> {
  // expected-warning @+1 {{no sharding rule for 'tensor.gather'; replicating its operands and results}}
  %r = tensor.gather %x[%idx] gather_dims([0]) unique : (tensor<16xf32>, tensor<4x1xindex>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}
