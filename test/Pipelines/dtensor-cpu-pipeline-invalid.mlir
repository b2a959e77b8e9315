// RUN: dtensor-opt %s --dtensor-partition=unknown-ops=replicate --dtensor-cpu-pipeline=partition=false -split-input-file -verify-diagnostics

// Ops the analysis accepts but no step of the pipeline lowers stop at its
// first step (dtensor-check-cpu-lowering), named, before any rewriting.

// math.isinf is elementwise (the analysis shards it) but nothing upstream
// lowers it.
dtensor.mesh @mesh = <["x" = 4]>
func.func @isinf(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<16xi1> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  // expected-error @+1 {{'math.isinf' op cannot be lowered by dtensor-cpu-pipeline: no convert-math-to-funcs, convert-math-to-llvm or convert-math-to-libm pattern converts it}}
  %r = math.isinf %x : tensor<16xf32>
  return %r : tensor<16xi1>
}

// -----

// Replicated with unknown-ops=replicate, but not bufferizable.
dtensor.mesh @mesh = <["x" = 4]>
func.func @gather(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %idx: tensor<4x1xindex>) -> tensor<4x1xf32> {
  // expected-warning @+2 {{no sharding rule for 'tensor.gather'; replicating its operands and results}}
  // expected-error @+1 {{'tensor.gather' op cannot be lowered by dtensor-cpu-pipeline: it is not bufferizable (no BufferizableOpInterface) and not elementwise}}
  %r = tensor.gather %x[%idx] gather_dims([0]) unique : (tensor<16xf32>, tensor<4x1xindex>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// A loop body of scalar complex ops: the pipeline lowers no complex op.
#id = affine_map<(d0) -> (d0)>
func.func @complex(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xcomplex<f32>>) outs(%x : tensor<4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %o: complex<f32>):
    // expected-error @+1 {{'complex.exp' op cannot be lowered by dtensor-cpu-pipeline: the pipeline converts no op of the 'complex' dialect to LLVM}}
    %e = complex.exp %a : complex<f32>
    linalg.yield %e : complex<f32>
  } -> tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
}

// -----

// Every unlowerable op is reported, not only the first.
func.func @two(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  // expected-error @+1 {{'math.isinf' op cannot be lowered}}
  %a = math.isinf %x : tensor<4xf32>
  // expected-error @+1 {{'math.isnormal' op cannot be lowered}}
  %b = math.isnormal %x : tensor<4xf32>
  return %a, %b : tensor<4xi1>, tensor<4xi1>
}

// -----

// tosa ops without a tosa-to-linalg conversion.
func.func @custom(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+2 {{no sharding rule for 'tosa.custom'; replicating its operands and results}}
  // expected-error @+1 {{'tosa.custom' op cannot be lowered by dtensor-cpu-pipeline: no tosa-to-linalg, tosa-to-arith, tosa-to-tensor or tosa-to-scf pattern converts it}}
  %r = tosa.custom %x {domain_name = "test", operator_name = "op", implementation_attrs = ""} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
