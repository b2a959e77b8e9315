// Loss functions with calls and loops (from
// test/Transforms/dtensor-autodiff-control.mlir), data parallel: x S(0)
// on a mesh of 2, the parameters replicated.
dtensor.mesh @mesh = <["dp" = 2]>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @affine_tanh(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %w, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%xv: f32, %wv: f32, %bv: f32, %o: f32):
    %m = arith.mulf %xv, %wv : f32
    %a = arith.addf %m, %bv : f32
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

func.func @calls(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                 %w: tensor<4x8xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>},
                 %b: tensor<4x8xf32> {dtensor.param = "b", dtensor.spec = #dtensor.spec<@mesh, [R]>}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %h = call @affine_tanh(%x, %w, %b) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %h2 = call @affine_tanh(%h, %w, %b) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h2 : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %in : f32
      %r = arith.addf %s, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}

func.func @loop(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                %w: tensor<4x8xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>},
                %b: tensor<4x8xf32> {dtensor.param = "b", dtensor.spec = #dtensor.spec<@mesh, [R]>}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %e = tensor.empty() : tensor<4x8xf32>
  %r:2 = scf.for %i = %c1 to %c6 step %c2 iter_args(%h = %x, %n = %i0) -> (tensor<4x8xf32>, i32) {
    %t = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%h, %w, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%hv: f32, %wv: f32, %bv: f32, %o: f32):
      %m = arith.mulf %hv, %wv : f32
      %a = arith.addf %m, %bv : f32
      %y = math.tanh %a : f32
      linalg.yield %y : f32
    } -> tensor<4x8xf32>
    %n2 = arith.addi %n, %i1 : i32
    scf.yield %t, %n2 : tensor<4x8xf32>, i32
  }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%r#0 : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %in : f32
      %q = arith.addf %s, %acc : f32
      linalg.yield %q : f32
    }
  return %l : tensor<f32>
}

func.func @nested(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                  %w: tensor<4x8xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [R]>},
                  %b: tensor<4x8xf32> {dtensor.param = "b", dtensor.spec = #dtensor.spec<@mesh, [R]>}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %r = scf.for %i = %i0 to %i2 step %i1 iter_args(%h = %x) -> (tensor<4x8xf32>) {
    %c = func.call @affine_tanh(%h, %w, %b) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %in = scf.for %k = %i0 to %i2 step %i1 iter_args(%g = %c) -> (tensor<4x8xf32>) {
      %e = tensor.empty() : tensor<4x8xf32>
      %p = linalg.mul ins(%g, %w : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
      scf.yield %p : tensor<4x8xf32>
    }
    scf.yield %in : tensor<4x8xf32>
  }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%r : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %in : f32
      %q = arith.addf %s, %acc : f32
      linalg.yield %q : f32
    }
  return %l : tensor<f32>
}

// scf.if on a value of the sharded x (the condition needs x[0, 0] on every
// rank), with w sharded on its columns.
func.func @branches(%x: tensor<4x8xf32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                    %w: tensor<4x8xf32> {dtensor.param = "w", dtensor.spec = #dtensor.spec<@mesh, [S(1)]>},
                    %b: tensor<4x8xf32> {dtensor.param = "b"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %true = arith.constant true
  %i0 = arith.constant 0 : index
  %x0 = tensor.extract %x[%i0, %i0] : tensor<4x8xf32>
  %c = arith.cmpf ogt, %x0, %c0 : f32
  %nc = arith.xori %c, %true : i1
  %h = scf.if %c -> tensor<4x8xf32> {
    %m = arith.mulf %w, %x : tensor<4x8xf32>
    %t = math.tanh %m : tensor<4x8xf32>
    scf.yield %t : tensor<4x8xf32>
  } else {
    %a = arith.addf %w, %b : tensor<4x8xf32>
    scf.yield %a : tensor<4x8xf32>
  }
  %h2 = scf.if %nc -> tensor<4x8xf32> {
    %m = arith.mulf %h, %b : tensor<4x8xf32>
    scf.yield %m : tensor<4x8xf32>
  } else {
    %e = math.exp %h : tensor<4x8xf32>
    scf.yield %e : tensor<4x8xf32>
  }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h2 : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %in : f32
      %r = arith.addf %s, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}
