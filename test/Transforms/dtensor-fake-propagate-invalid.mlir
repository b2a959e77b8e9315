// RUN: dtensor-opt %s -dtensor-fake-propagate -split-input-file -verify-diagnostics

dtensor.mesh @mesh = <["x" = 4]>
func.func @unknown_op(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}, %idx: tensor<4x1xindex>) -> tensor<4x1xf32> {
  // expected-error @+1 {{no sharding rule for 'tensor.gather'; pass unknown-ops=replicate to replicate its operands and results}}
  %r = tensor.gather %x[%idx] gather_dims([0]) unique : (tensor<16xf32>, tensor<4x1xindex>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>
func.func @shard_to_partial(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<16xf32> {
  // expected-error @+1 {{cannot redistribute from [S(0)] to [P(sum)]: cannot redistribute S(0) to P(sum)}}
  %r = dtensor.redistribute %x to #dtensor.spec<@mesh, [P(sum)]> : tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

dtensor.mesh @a = <["x" = 4]>
dtensor.mesh @b = <["x" = 2]>
// expected-note @+1 {{mesh @a first used here}}
func.func @mixed_meshes(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@a, [S(0)]>}) -> tensor<16xf32> {
  // expected-error @+1 {{uses mesh @b but the function 'mixed_meshes' already uses mesh @a; different meshes never mix}}
  %r = dtensor.redistribute %x to #dtensor.spec<@b, [R]> : tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>
func.func @impossible_pin(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'dtensor.specs' asks for results [P(max)] but no sharding strategy of this op produces them}}
  %r = math.exp %x {dtensor.specs = [#dtensor.spec<@mesh, [P(max)]>]} : tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Pins are checked against every strategy a propagation may have chosen
// (test/Transforms/dtensor-fake-propagate-pinned.mlir), P(avg) and small
// shards included, and no more: exp is not linear, and a product with a
// replicated operand is not max-linear.
dtensor.mesh @mesh = <["x" = 2]>
func.func @impossible_avg_pin(%avg: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(avg)]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'dtensor.specs' asks for results [P(avg)] but no sharding strategy of this op produces them}}
  %e = math.exp %avg {dtensor.specs = [#dtensor.spec<@mesh, [P(avg)]>]} : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 2]>
func.func @impossible_max_pin(%r: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [R]>},
                              %max: tensor<8xf32> {dtensor.spec = #dtensor.spec<@mesh, [P(max)]>})
    -> tensor<8xf32> {
  // expected-error @+1 {{'dtensor.specs' asks for results [P(max)] but no sharding strategy of this op produces them}}
  %m = arith.mulf %r, %max {dtensor.specs = [#dtensor.spec<@mesh, [P(max)]>]} : tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>
// expected-error @+1 {{value of type 'tensor<?x8xf32>' has a dynamic shape; the global view needs static shapes}}
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>
// expected-error @+1 {{recursive call of 'rec' is not supported}}
func.func @rec(%x: tensor<16xf32>) -> tensor<16xf32> {
  %r = func.call @rec(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

dtensor.mesh @mesh = <["x" = 4]>
func.func @multi_block(%x: tensor<16xf32>) -> tensor<16xf32> {
// expected-error @-1 {{functions with more than one block are not supported; use structured control flow (scf)}}
  cf.br ^bb1
^bb1:
  return %x : tensor<16xf32>
}

// -----

// Byte counts overflow 64 bits: rejected instead of wrapping.
dtensor.mesh @mesh = <["x" = 4]>
// expected-error @+1 {{value of type 'tensor<9223372036854775807xf32>' is too large: its size in bytes does not fit in 64 bits}}
func.func @too_large(%x: tensor<9223372036854775807xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<9223372036854775807xf32> {
  return %x : tensor<9223372036854775807xf32>
}

// -----

// A cast to an unranked tensor has a rule (casts follow their operand), but
// no placement describes an unranked tensor.
dtensor.mesh @mesh = <["x" = 4]>
func.func @cast_to_unranked(%x: tensor<16xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) -> tensor<*xf32> {
  // expected-error @+1 {{unranked tensors are not supported}}
  %c = tensor.cast %x : tensor<16xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}
