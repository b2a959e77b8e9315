// Region-based control flow beyond scf.for and scf.if, reached through
// upstream's RegionBranchOpInterface: scf.while, scf.index_switch and
// scf.execute_region.
dtensor.mesh @mesh = <["x" = 4]>

// The carried matrix keeps S(0) through the condition and the body.
func.func @while_loop(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                      %w: tensor<8x8xf32>) -> tensor<16x8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %r:2 = scf.while (%acc = %x, %i = %c0) : (tensor<16x8xf32>, i32) -> (tensor<16x8xf32>, i32) {
    %go = arith.cmpi slt, %i, %c3 : i32
    scf.condition(%go) %acc, %i : tensor<16x8xf32>, i32
  } do {
  ^bb0(%a: tensor<16x8xf32>, %j: i32):
    %e = tensor.empty() : tensor<16x8xf32>
    %z = arith.constant 0.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    %m = linalg.matmul ins(%a, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
    %t = math.tanh %m : tensor<16x8xf32>
    %j1 = arith.addi %j, %c1 : i32
    scf.yield %t, %j1 : tensor<16x8xf32>, i32
  }
  return %r#0 : tensor<16x8xf32>
}

// A carried value that starts replicated and becomes S(1) in the body.
func.func @while_converges(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                           %init: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.while (%acc = %init, %i = %c0) : (tensor<16x8xf32>, index) -> (tensor<16x8xf32>, index) {
    %go = arith.cmpi slt, %i, %c4 : index
    scf.condition(%go) %acc, %i : tensor<16x8xf32>, index
  } do {
  ^bb0(%a: tensor<16x8xf32>, %j: index):
    %s = arith.addf %a, %x : tensor<16x8xf32>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %s, %j1 : tensor<16x8xf32>, index
  }
  return %r#0 : tensor<16x8xf32>
}

// Every case yields a value of different placements; the result takes the
// first region's (the default region is region 0) and the others are
// redistributed to it.
func.func @switch(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %y: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<16x8xf32> {
  %k = arith.constant 1 : index
  %r = scf.index_switch %k -> tensor<16x8xf32>
  case 0 {
    %a = arith.negf %x : tensor<16x8xf32>
    scf.yield %a : tensor<16x8xf32>
  }
  case 1 {
    %b = arith.addf %x, %y : tensor<16x8xf32>
    scf.yield %b : tensor<16x8xf32>
  }
  default {
    %c = math.exp %y : tensor<16x8xf32>
    scf.yield %c : tensor<16x8xf32>
  }
  %o = arith.mulf %r, %x : tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

func.func @region(%x: tensor<16x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(1)]>}) -> tensor<16x8xf32> {
  %r = scf.execute_region -> tensor<16x8xf32> {
    %a = math.exp %x : tensor<16x8xf32>
    scf.yield %a : tensor<16x8xf32>
  }
  %o = arith.addf %r, %r : tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}
