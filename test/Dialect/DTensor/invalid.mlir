// RUN: dtensor-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic the dtensor dialect emits: parse errors of the
// placements and specs, the mesh verifier, spec checks on every carrier
// (function arguments and results, `dtensor.specs`, ops), the local/global
// shape rule of from_local/to_local, and the collective verifiers.

//===----------------------------------------------------------------------===//
// Placement and spec parsing
//===----------------------------------------------------------------------===//

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @unknown_placement_short(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{custom op 'dtensor.redistribute' expected placement S(<dim>), R, P(<op>) or _S(<dim>, <split factor>), got 'Q'}}
  %0 = dtensor.redistribute %x to <@w, [Q, R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// The full form is parsed by the attribute parser, without the op prefix.
// expected-error @+1 {{expected placement S(<dim>), R, P(<op>) or _S(<dim>, <split factor>), got 'shard'}}
func.func @unknown_placement_full(%x: tensor<8x512xf32> {dtensor.spec = #dtensor.spec<@w, [shard, R]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @bad_partial_reduction(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{expected partial reduction sum, avg, max or min, got 'bad'}}
  %0 = dtensor.redistribute %x to #dtensor.spec<@w, [P(bad), R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @bad_partial_reduction_short(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{custom op 'dtensor.redistribute' expected partial reduction sum, avg, max or min, got 'prod'}}
  %0 = dtensor.redistribute %x to <@w, [R, P(prod)]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @negative_shard_dim(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{shard dim must be non-negative, got -1}}
  %0 = dtensor.redistribute %x to #dtensor.spec<@w, [S(-1), R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// A dim past INT32_MAX is rejected by the same check; the text (which calls a
// positive dim negative) is a known defect of parsePlacement.
func.func @huge_shard_dim(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{shard dim 4294967296 is too large (max 2147483647)}}
  %0 = dtensor.redistribute %x to <@w, [S(4294967296), R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @not_a_spec(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{custom op 'dtensor.redistribute' expected #dtensor.spec, got unit}}
  %0 = dtensor.redistribute %x to unit : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @not_a_spec_symbol(%x: tensor<16x512xf32>) {
  // expected-error @+1 {{custom op 'dtensor.to_local' expected #dtensor.spec, got @w}}
  %0 = dtensor.to_local %x from @w : tensor<16x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @bad_reduce_kind(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{custom op 'dtensor.all_reduce' expected string or keyword containing one of the following enum values for attribute 'reduce' [sum, avg, max, min]}}
  %0 = dtensor.all_reduce %x on @w axes [1] reduce prod : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.mesh
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'dtensor.mesh' op duplicate axis name "dp"}}
dtensor.mesh @w = <["dp" = 2, "tp" = 2, "dp" = 4]>

// -----

// expected-error @+1 {{'dtensor.mesh' op axis "tp" must have a positive size, got 0}}
dtensor.mesh @w = <["dp" = 2, "tp" = 0]>

// -----

// expected-error @+1 {{'dtensor.mesh' op axis "dp" must have a positive size, got -3}}
dtensor.mesh @w = <["dp" = -3]>

// -----

// expected-error @+1 {{'dtensor.mesh' op must have at least one axis}}
dtensor.mesh @w = <[]>

// -----

// expected-error @+1 {{'dtensor.mesh' op axis names must not be empty}}
dtensor.mesh @w = <["dp" = 2, "" = 4]>

// -----

// Only reachable through the generic form.
// expected-error @+1 {{'dtensor.mesh' op has 2 axis names but 1 axis sizes}}
"dtensor.mesh"() <{axis_names = ["dp", "tp"], shape = array<i64: 4>, sym_name = "w"}> : () -> ()

// -----

// expected-error @+1 {{'dtensor.mesh' op attribute 'axis_names' failed to satisfy constraint: string array attribute}}
"dtensor.mesh"() <{axis_names = [1], shape = array<i64: 4>, sym_name = "w"}> : () -> ()

// -----

func.func @mesh_in_function() {
  // expected-error @+1 {{'dtensor.mesh' op symbol's parent must have the SymbolTable trait}}
  dtensor.mesh @w = <["dp" = 2]>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.redistribute: spec against mesh and tensor
//===----------------------------------------------------------------------===//

// -----

func.func @redistribute_unknown_mesh(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.redistribute' op spec of the target refers to unknown mesh @nope}}
  %0 = dtensor.redistribute %x to <@nope, [R, R]> : tensor<8x512xf32>
  return
}

// -----

// A symbol that exists but is not a mesh.
func.func private @notmesh()
func.func @redistribute_not_a_mesh(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.redistribute' op spec of the target refers to unknown mesh @notmesh}}
  %0 = dtensor.redistribute %x to <@notmesh, [R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @redistribute_too_few_placements(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.redistribute' op spec #dtensor.spec<@w, [S(0)]> of the target: expected 2 placements (one per mesh axis) but got 1}}
  %0 = dtensor.redistribute %x to <@w, [S(0)]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @redistribute_too_many_placements(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.redistribute' op spec #dtensor.spec<@w, [R, R, R]> of the target: expected 2 placements (one per mesh axis) but got 3}}
  %0 = dtensor.redistribute %x to #dtensor.spec<@w, [R, R, R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @redistribute_shard_dim_out_of_range(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.redistribute' op spec #dtensor.spec<@w, [R, S(2)]> of the target: placement S(2) shards dim 2 but the tensor has rank 2}}
  %0 = dtensor.redistribute %x to <@w, [R, S(2)]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @redistribute_type_change(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.redistribute' op requires the same type for all operands and results}}
  %0 = "dtensor.redistribute"(%x) <{spec = #dtensor.spec<@w, [R, R]>}> : (tensor<8x512xf32>) -> tensor<8x512xf16>
  return
}

//===----------------------------------------------------------------------===//
// Function argument and result attributes
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.spec' on argument #1 must be a #dtensor.spec, got 3 : i64}}
func.func @arg_spec_not_a_spec(%a: tensor<4xf32>, %x: tensor<4xf32> {dtensor.spec = 3}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.spec' on argument #0 requires a ranked tensor or memref, got 'i32'}}
func.func @arg_spec_on_scalar(%x: i32 {dtensor.spec = #dtensor.spec<@w, [R, R]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.spec' on argument #0 requires a ranked tensor or memref, got 'tensor<*xf32>'}}
func.func @arg_spec_on_unranked(%x: tensor<*xf32> {dtensor.spec = #dtensor.spec<@w, [R, R]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.spec' on result #0 requires a ranked tensor or memref, got 'i32'}}
func.func private @result_spec_on_scalar() -> (i32 {dtensor.spec = #dtensor.spec<@w, [R, R]>})

// -----

// expected-error @+1 {{'func.func' op spec of argument #0 refers to unknown mesh @nope}}
func.func @arg_spec_unknown_mesh(%x: tensor<4xf32> {dtensor.spec = #dtensor.spec<@nope, [R]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op spec #dtensor.spec<@w, [R]> of argument #0: expected 2 placements (one per mesh axis) but got 1}}
func.func @arg_spec_placement_count(%x: tensor<4xf32> {dtensor.spec = #dtensor.spec<@w, [R]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op spec #dtensor.spec<@w, [S(0), S(1)]> of argument #0: placement S(1) shards dim 1 but the tensor has rank 1}}
func.func @arg_spec_shard_dim(%x: tensor<4xf32> {dtensor.spec = #dtensor.spec<@w, [S(0), S(1)]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op spec #dtensor.spec<@w, [S(0), S(3)]> of result #1: placement S(3) shards dim 3 but the tensor has rank 2}}
func.func private @result_spec_shard_dim() -> (tensor<4xf32>, tensor<4x4xf32> {dtensor.spec = #dtensor.spec<@w, [S(0), S(3)]>})

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.param' on argument #0 must be a string}}
func.func @param_not_a_string(%x: tensor<4xf32> {dtensor.param = 1}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.param' on argument #0 requires a ranked tensor or memref, got 'f32'}}
func.func @param_on_scalar(%x: f32 {dtensor.param = "lr"}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op 'dtensor.ddp_ignored' must be a unit attribute}}
func.func @ddp_ignored_not_unit(%x: tensor<4xf32> {dtensor.param = "b", dtensor.ddp_ignored = true}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op unknown dtensor attribute 'dtensor.sepc' on argument #0}}
func.func @unknown_arg_attr(%x: tensor<4xf32> {dtensor.sepc = #dtensor.spec<@w, [R, R]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// Parameters are arguments: `dtensor.param` is not a result attribute.
// expected-error @+1 {{'func.func' op unknown dtensor attribute 'dtensor.param' on result #0}}
func.func private @param_on_result() -> (tensor<4xf32> {dtensor.param = "w"})

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op unknown dtensor attribute 'dtensor.ddp_ignored' on result #0}}
func.func private @ddp_ignored_on_result() -> (tensor<4xf32> {dtensor.ddp_ignored})

//===----------------------------------------------------------------------===//
// dtensor.specs and other attributes on ops
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @specs_wrong_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op 'dtensor.specs' must be an array of 1 #dtensor.spec (one per result)}}
  %0 = arith.addf %x, %x {dtensor.specs = [#dtensor.spec<@w, [R, R]>, #dtensor.spec<@w, [R, R]>]} : tensor<4xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @specs_not_an_array(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op 'dtensor.specs' must be an array of 1 #dtensor.spec (one per result)}}
  %0 = arith.addf %x, %x {dtensor.specs = #dtensor.spec<@w, [R, R]>} : tensor<4xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @specs_wrong_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op 'dtensor.specs' entry for result #0 must be a #dtensor.spec on a ranked tensor, got "S(0)"}}
  %0 = arith.addf %x, %x {dtensor.specs = ["S(0)"]} : tensor<4xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// The unit placeholder is only for non-tensor results.
func.func @specs_unit_on_tensor(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op 'dtensor.specs' entry for result #0 must be a #dtensor.spec on a ranked tensor, got unit}}
  %0 = arith.addf %x, %x {dtensor.specs = [unit]} : tensor<4xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @specs_spec_on_scalar(%x: i32) {
  // expected-error @+1 {{'arith.addi' op 'dtensor.specs' entry for result #0 must be a #dtensor.spec on a ranked tensor, got #dtensor.spec<@w, [R, R]>}}
  %0 = arith.addi %x, %x {dtensor.specs = [#dtensor.spec<@w, [R, R]>]} : i32
  return
}

// -----

func.func @specs_unknown_mesh(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op spec of result #0 refers to unknown mesh @nope}}
  %0 = arith.addf %x, %x {dtensor.specs = [#dtensor.spec<@nope, [R]>]} : tensor<4xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @specs_placement_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op spec #dtensor.spec<@w, [S(0), R, R]> of result #0: expected 2 placements (one per mesh axis) but got 3}}
  %0 = arith.addf %x, %x {dtensor.specs = [#dtensor.spec<@w, [S(0), R, R]>]} : tensor<4xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func private @pair() -> (i1, tensor<4xf32>)
func.func @specs_shard_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{'func.call' op spec #dtensor.spec<@w, [R, S(1)]> of result #1: placement S(1) shards dim 1 but the tensor has rank 1}}
  %0:2 = func.call @pair() {dtensor.specs = [unit, #dtensor.spec<@w, [R, S(1)]>]} : () -> (i1, tensor<4xf32>)
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @unknown_op_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op unknown dtensor attribute 'dtensor.bogus'}}
  %0 = arith.addf %x, %x {dtensor.bogus = 1} : tensor<4xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// On an op the per-result attribute is `dtensor.specs`, not `dtensor.spec`.
func.func @spec_on_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'arith.addf' op unknown dtensor attribute 'dtensor.spec'}}
  %0 = arith.addf %x, %x {dtensor.spec = #dtensor.spec<@w, [R, R]>} : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// dtensor.from_local / dtensor.to_local
//===----------------------------------------------------------------------===//

// -----

func.func @from_local_unknown_mesh(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op spec of the global tensor refers to unknown mesh @nope}}
  %0 = dtensor.from_local %x to <@nope, [S(0)]> : tensor<8x512xf32> -> tensor<16x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @to_local_placement_count(%x: tensor<16x512xf32>) {
  // expected-error @+1 {{'dtensor.to_local' op spec #dtensor.spec<@w, [S(0)]> of the global tensor: expected 2 placements (one per mesh axis) but got 1}}
  %0 = dtensor.to_local %x from <@w, [S(0)]> : tensor<16x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @to_local_shard_dim(%x: tensor<16x512xf32>) {
  // expected-error @+1 {{'dtensor.to_local' op spec #dtensor.spec<@w, [S(2), R]> of the global tensor: placement S(2) shards dim 2 but the tensor has rank 2}}
  %0 = dtensor.to_local %x from <@w, [S(2), R]> : tensor<16x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @from_local_partial(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op partial placements are not supported here}}
  %0 = dtensor.from_local %x to <@w, [R, P(sum)]> : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @from_local_element_type(%x: tensor<8x512xf16>) {
  // expected-error @+1 {{'dtensor.from_local' op local element type 'f16' differs from global element type 'f32'}}
  %0 = dtensor.from_local %x to <@w, [S(0), R]> : tensor<8x512xf16> -> tensor<16x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @to_local_element_type(%x: tensor<16x512xf32>) {
  // expected-error @+1 {{'dtensor.to_local' op local element type 'i32' differs from global element type 'f32'}}
  %0 = dtensor.to_local %x from <@w, [S(0), R]> : tensor<16x512xf32> -> tensor<8x512xi32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @from_local_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op local rank 1 differs from global rank 2}}
  %0 = dtensor.from_local %x to <@w, [S(0), R]> : tensor<8xf32> -> tensor<16x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @to_local_rank(%x: tensor<16x512xf32>) {
  // expected-error @+1 {{'dtensor.to_local' op local rank 3 differs from global rank 2}}
  %0 = dtensor.to_local %x from <@w, [S(0), R]> : tensor<16x512xf32> -> tensor<8x512x1xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// 7 rows over 2 ranks are 4 and 3: the local dim must be dynamic.
func.func @from_local_uneven_static(%x: tensor<4x512xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op local dim 0 must be dynamic: shards of global dim 0 (size 7) are uneven under [S(0), R] on mesh @w}}
  %0 = dtensor.from_local %x to <@w, [S(0), R]> : tensor<4x512xf32> -> tensor<7x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// 6 over 2 is even (3) but 3 over 4 is not (1, 1, 1, 0).
func.func @to_local_uneven_nested(%x: tensor<6x8xf32>) {
  // expected-error @+1 {{'dtensor.to_local' op local dim 0 must be dynamic: shards of global dim 0 (size 6) are uneven under [S(0), S(0)] on mesh @w}}
  %0 = dtensor.to_local %x from <@w, [S(0), S(0)]> : tensor<6x8xf32> -> tensor<1x8xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @from_local_wrong_static_size(%x: tensor<4x512xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op local dim 0 is 4 but global size 16 under [S(0), R] gives 8 on every rank}}
  %0 = dtensor.from_local %x to <@w, [S(0), R]> : tensor<4x512xf32> -> tensor<16x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// A replicated dim keeps its global size.
func.func @to_local_wrong_replicated_size(%x: tensor<16x512xf32>) {
  // expected-error @+1 {{'dtensor.to_local' op local dim 1 is 128 but global size 512 under [S(0), R] gives 512 on every rank}}
  %0 = dtensor.to_local %x from <@w, [S(0), R]> : tensor<16x512xf32> -> tensor<8x128xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// Even shards have one static size: a dynamic local dim is rejected.
func.func @from_local_dynamic_where_static(%x: tensor<?x512xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op local dim 0 is dynamic but global size 16 under [S(0), R] gives 8 on every rank}}
  %0 = dtensor.from_local %x to <@w, [S(0), R]> : tensor<?x512xf32> -> tensor<16x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @from_local_dynamic_global(%x: tensor<?x512xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?x512xf32>'}}
  %0 = dtensor.from_local %x to <@w, [S(0), R]> : tensor<?x512xf32> -> tensor<?x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @to_local_dynamic_global(%x: tensor<?x512xf32>) {
  // expected-error @+1 {{'dtensor.to_local' op operand #0 must be statically shaped tensor of any type values, but got 'tensor<?x512xf32>'}}
  %0 = dtensor.to_local %x from <@w, [S(0), R]> : tensor<?x512xf32> -> tensor<?x512xf32>
  return
}

//===----------------------------------------------------------------------===//
// Collectives: mesh and axes
//===----------------------------------------------------------------------===//

// -----

func.func @collective_unknown_mesh(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_reduce' op refers to unknown mesh @nope}}
  %0 = dtensor.all_reduce %x on @nope axes [0] reduce sum : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @collective_no_axes(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_gather' op needs at least one mesh axis}}
  %0 = dtensor.all_gather %x on @w axes [] gather_dim 0 : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @collective_axis_past_rank(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.broadcast' op mesh axis 2 is out of range: mesh @w has 2 axes}}
  %0 = dtensor.broadcast %x on @w axes [0, 2] root [0, 0] : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @collective_negative_axis(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.reduce_scatter' op mesh axis -1 is out of range: mesh @w has 2 axes}}
  %0 = dtensor.reduce_scatter %x on @w axes [-1] reduce sum scatter_dim 0 : tensor<8x512xf32> -> tensor<2x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @collective_duplicate_axis(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_to_all' op mesh axis 1 is listed twice}}
  %0 = dtensor.all_to_all %x on @w axes [1, 0, 1] split_dim 1 concat_dim 0 : tensor<8x512xf32> -> tensor<64x64xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// The `_start` forms share the verifier.
func.func @collective_start_unknown_mesh(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.broadcast_start' op refers to unknown mesh @nope}}
  %r = dtensor.broadcast_start %x on @nope axes [0] root [0] : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @collective_start_duplicate_axis(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_reduce_start' op mesh axis 0 is listed twice}}
  %r = dtensor.all_reduce_start %x on @w axes [0, 0] reduce sum : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
  return
}

//===----------------------------------------------------------------------===//
// Collectives: types and shapes
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @collective_element_type(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_reduce' op result element type 'f16' differs from input element type 'f32'}}
  %0 = dtensor.all_reduce %x on @w axes [1] reduce sum : tensor<8x512xf32> -> tensor<8x512xf16>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @collective_rank(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_gather' op result rank 1 differs from input rank 2}}
  %0 = dtensor.all_gather %x on @w axes [1] gather_dim 0 : tensor<8x512xf32> -> tensor<32xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @all_gather_dim_out_of_range(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_gather' op dim 2 is out of range for a tensor of rank 2}}
  %0 = dtensor.all_gather %x on @w axes [1] gather_dim 2 : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @all_gather_negative_dim(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_gather' op dim -1 is out of range for a tensor of rank 2}}
  %0 = dtensor.all_gather %x on @w axes [1] gather_dim -1 : tensor<8x512xf32> -> tensor<8x2048xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @reduce_scatter_dim_out_of_range(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.reduce_scatter' op dim 3 is out of range for a tensor of rank 2}}
  %0 = dtensor.reduce_scatter %x on @w axes [1] reduce sum scatter_dim 3 : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @all_to_all_split_dim_out_of_range(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_to_all' op dim 2 is out of range for a tensor of rank 2}}
  %0 = dtensor.all_to_all %x on @w axes [1] split_dim 2 concat_dim 0 : tensor<8x512xf32> -> tensor<32x128xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @all_to_all_concat_dim_out_of_range(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_to_all' op dim 5 is out of range for a tensor of rank 2}}
  %0 = dtensor.all_to_all %x on @w axes [1] split_dim 1 concat_dim 5 : tensor<8x512xf32> -> tensor<32x128xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @reduce_scatter_not_divisible(%x: tensor<6x512xf32>) {
  // expected-error @+1 {{'dtensor.reduce_scatter' op dim 0 of size 6 does not split into 4 equal chunks}}
  %0 = dtensor.reduce_scatter %x on @w axes [1] reduce sum scatter_dim 0 : tensor<6x512xf32> -> tensor<2x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @all_to_all_not_divisible(%x: tensor<8x510xf32>) {
  // expected-error @+1 {{'dtensor.all_to_all' op dim 1 of size 510 does not split into 4 equal chunks}}
  %0 = dtensor.all_to_all %x on @w axes [1] split_dim 1 concat_dim 0 : tensor<8x510xf32> -> tensor<32x127xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @all_reduce_result_shape(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_reduce' op result dim 1 is 256 but the input dim 512 over a group of 4 ranks gives 512}}
  %0 = dtensor.all_reduce %x on @w axes [1] reduce sum : tensor<8x512xf32> -> tensor<8x256xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// The group of axes [0, 1] has 8 ranks, not 4.
func.func @all_gather_result_shape(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_gather' op result dim 0 is 32 but the input dim 8 over a group of 8 ranks gives 64}}
  %0 = dtensor.all_gather %x on @w axes [0, 1] gather_dim 0 : tensor<8x512xf32> -> tensor<32x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @reduce_scatter_result_shape(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.reduce_scatter' op result dim 1 is 512 but the input dim 512 over a group of 2 ranks gives 256}}
  %0 = dtensor.reduce_scatter %x on @w axes [0] reduce avg scatter_dim 1 : tensor<8x512xf32> -> tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// Split 512 by 4 (128) but forgot to concatenate dim 0 (8 * 4 = 32).
func.func @all_to_all_result_shape(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_to_all' op result dim 0 is 8 but the input dim 8 over a group of 4 ranks gives 32}}
  %0 = dtensor.all_to_all %x on @w axes [1] split_dim 1 concat_dim 0 : tensor<8x512xf32> -> tensor<8x128xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @broadcast_result_shape(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.broadcast' op result dim 0 is 16 but the input dim 8 over a group of 2 ranks gives 8}}
  %0 = dtensor.broadcast %x on @w axes [0] root [0] : tensor<8x512xf32> -> tensor<16x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// The request's value type is checked like the synchronous result.
func.func @start_result_shape(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_gather_start' op result dim 0 is 16 but the input dim 8 over a group of 4 ranks gives 32}}
  %r = dtensor.all_gather_start %x on @w axes [1] gather_dim 0 : tensor<8x512xf32> -> !dtensor.request<tensor<16x512xf32>>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @start_not_divisible(%x: tensor<6x512xf32>) {
  // expected-error @+1 {{'dtensor.reduce_scatter_start' op dim 0 of size 6 does not split into 4 equal chunks}}
  %r = dtensor.reduce_scatter_start %x on @w axes [1] reduce sum scatter_dim 0 : tensor<6x512xf32> -> !dtensor.request<tensor<2x512xf32>>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @start_element_type(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_to_all_start' op result element type 'bf16' differs from input element type 'f32'}}
  %r = dtensor.all_to_all_start %x on @w axes [1] split_dim 1 concat_dim 0 : tensor<8x512xf32> -> !dtensor.request<tensor<32x128xbf16>>
  return
}

//===----------------------------------------------------------------------===//
// Requests and dtensor.wait
//===----------------------------------------------------------------------===//

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @request_of_memref(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.all_reduce_start' op request must hold a ranked tensor, got 'memref<8x512xf32>'}}
  %r = dtensor.all_reduce_start %x on @w axes [1] reduce sum : tensor<8x512xf32> -> !dtensor.request<memref<8x512xf32>>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @request_of_unranked(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.broadcast_start' op request must hold a ranked tensor, got 'tensor<*xf32>'}}
  %r = dtensor.broadcast_start %x on @w axes [1] root [0] : tensor<8x512xf32> -> !dtensor.request<tensor<*xf32>>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @wait_type_mismatch(%x: tensor<8x512xf32>) {
  %r = dtensor.all_reduce_start %x on @w axes [1] reduce sum : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
  // expected-error @+1 {{'dtensor.wait' op failed to verify that result type is the request's value type}}
  %v = "dtensor.wait"(%r) : (!dtensor.request<tensor<8x512xf32>>) -> tensor<8x512xf16>
  return
}

// -----

dtensor.mesh @w = <["x" = 2, "y" = 4]>
func.func @broadcast_root_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dtensor.broadcast' op root has 2 coordinates but 1 mesh axes are listed}}
  %0 = dtensor.broadcast %x on @w axes [1] root [0, 0] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

dtensor.mesh @w = <["x" = 2, "y" = 4]>
func.func @broadcast_root_range(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dtensor.broadcast_start' op root coordinate 4 is out of range for mesh axis 1 of size 4}}
  %0 = dtensor.broadcast_start %x on @w axes [1] root [4] : tensor<8xf32> -> !dtensor.request<tensor<8xf32>>
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{'dtensor.mesh' op mesh has more than the supported 65536 devices}}
dtensor.mesh @huge = <["x" = 4611686018427387904, "y" = 4]>

// -----

// The runtime's axis masks have 16 bits (DTRT_MAX_MESH_AXES).
// expected-error @+1 {{'dtensor.mesh' op mesh has 17 axes but at most 16 are supported}}
dtensor.mesh @deep = <["a" = 1, "b" = 1, "c" = 1, "d" = 1, "e" = 1, "f" = 1, "g" = 1, "h" = 1, "i" = 1, "j" = 1, "k" = 1, "l" = 1, "m" = 1, "n" = 1, "o" = 1, "p" = 1, "q" = 1]>

// -----

// expected-error @+1 {{'func.func' op 'dtensor.state' on argument #0 must be a string}}
func.func @state_not_string(%m: tensor<4xf32> {dtensor.state = 1 : i64}) {
  return
}

// -----

// Strided shards (`_S(d, sf)`, PyTorch's _StridedShard).
dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @strided_split_factor_one(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{strided shard split factor must be at least 2, got 1}}
  %0 = dtensor.redistribute %x to <@w, [_S(0, 1), R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @strided_negative_dim(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{strided shard dim must be in [0, 2147483647], got -1}}
  %0 = dtensor.redistribute %x to <@w, [_S(-1, 2), R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @strided_missing_split_factor(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{expected ','}}
  %0 = dtensor.redistribute %x to <@w, [_S(0), R]> : tensor<8x512xf32>
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
// expected-error @+1 {{'func.func' op spec #dtensor.spec<@w, [R, _S(2, 4)]> of argument #0: placement _S(2, 4) shards dim 2 but the tensor has rank 2}}
func.func @strided_dim_out_of_range(%x: tensor<8x512xf32> {dtensor.spec = #dtensor.spec<@w, [R, _S(2, 4)]>}) {
  return
}

// -----

dtensor.mesh @w = <["dp" = 2, "tp" = 4]>
func.func @strided_split_factor_not_dividing(%x: tensor<8x512xf32>) {
  // expected-error @+1 {{'dtensor.redistribute' op spec #dtensor.spec<@w, [_S(0, 3), R]> of the target: placement _S(0, 3) splits dim 0 of size 8 into 3 groups, which does not divide it}}
  %0 = dtensor.redistribute %x to <@w, [_S(0, 3), R]> : tensor<8x512xf32>
  return
}

// -----

// `dtensor.parallel_loop` marks a loop of independent iterations.
func.func @parallel_loop_not_unit(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op 'dtensor.parallel_loop' must be a unit attribute on a loop}}
  scf.for %i = %c0 to %n step %c1 {
  } {dtensor.parallel_loop = 2 : i64}
  return
}

// -----

func.func @parallel_loop_not_a_loop() {
  // expected-error @+1 {{'arith.constant' op 'dtensor.parallel_loop' must be a unit attribute on a loop}}
  %c0 = arith.constant {dtensor.parallel_loop} 0 : index
  return
}
