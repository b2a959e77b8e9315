// dtensor-autodiff through calls and loops: a call gets its operands'
// adjoints from the callee's vjp function @<callee>_vjp (built once per
// callee), scf.for is reversed with its iter_args stored per iteration,
// and scf.if by a reverse scf.if on the same condition.
// The same functions are checked numerically by test/Autodiff/grad-check.test.
// RUN: dtensor-opt %s --dtensor-autodiff | FileCheck %s
// Idempotent, and the vjp functions are not loss functions.
// RUN: dtensor-opt %s --dtensor-autodiff | dtensor-opt --dtensor-autodiff | FileCheck %s --check-prefix=TWICE
// TWICE-COUNT-1: func.func private @affine_tanh_vjp(
// TWICE-NOT: _vjp_vjp
// TWICE-NOT: _grad_grad
// TWICE-NOT: func.func private @affine_tanh_vjp(

#id = affine_map<(d0, d1) -> (d0, d1)>

// A helper (not a loss function): tanh(x * w + b) elementwise.
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

// The vjp of the helper: its arguments, then the adjoint of its result;
// the adjoint of each float argument (each adjoint's body recomputes the
// forward tanh, so the forward generic itself is dead and erased).
// CHECK-LABEL: func.func private @affine_tanh_vjp(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4x8xf32>, %[[DY:[^:]*]]: tensor<4x8xf32>)
// CHECK-SAME: -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NOT: dtensor.param
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[W]], %[[B]], %[[DY]] :
// CHECK: %[[DW:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[W]], %[[B]], %[[DY]] :
// CHECK: %[[DB:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[W]], %[[B]], %[[DY]] :
// CHECK: return %[[DX]], %[[DW]], %[[DB]]

// Two calls of the helper; the second takes the first's result.
func.func @calls(%x: tensor<4x8xf32>,
                 %w: tensor<4x8xf32> {dtensor.param = "w"},
                 %b: tensor<4x8xf32> {dtensor.param = "b"}) -> tensor<f32> {
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
// The second call is reversed first; its input's adjoint feeds the first.
// CHECK-LABEL: func.func @calls_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32> {dtensor.param = "w"}, %[[B:[^:]*]]: tensor<4x8xf32> {dtensor.param = "b"})
// CHECK: %[[H:.*]] = call @affine_tanh(%[[X]], %[[W]], %[[B]])
// CHECK: %[[H2:.*]] = call @affine_tanh(%[[H]], %[[W]], %[[B]])
// CHECK: %[[DH2:.*]] = linalg.generic {{.*}} ins(%[[H2]]
// CHECK: %[[V2:.*]]:3 = call @affine_tanh_vjp(%[[H]], %[[W]], %[[B]], %[[DH2]])
// CHECK: %[[V1:.*]]:3 = call @affine_tanh_vjp(%[[X]], %[[W]], %[[B]], %[[V2]]#0)
// CHECK-DAG: %[[GW:.*]] = linalg.add ins(%[[V2]]#1, %[[V1]]#1 :
// CHECK-DAG: %[[GB:.*]] = linalg.add ins(%[[V2]]#2, %[[V1]]#2 :
// CHECK: return %{{.*}}, %[[GW]], %[[GB]]

// A loop: h = tanh(h * w + b) three times, from lb 1 by step 2 (iterations
// at 1, 3, 5), with a counter iter_arg that is not a float.
func.func @loop(%x: tensor<4x8xf32>,
                %w: tensor<4x8xf32> {dtensor.param = "w"},
                %b: tensor<4x8xf32> {dtensor.param = "b"}) -> tensor<f32> {
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
// The forward loop also stores each iteration's iter_args at
// (iv - lb) / step; the reverse loop reloads iteration 2 - j, recomputes
// the body and carries h's adjoint and the sums of w's and b's.
// CHECK-LABEL: func.func @loop_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32> {dtensor.param = "w"}, %[[B:[^:]*]]: tensor<4x8xf32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[HS0:.*]] = tensor.empty() : tensor<3x4x8xf32>
// CHECK-DAG: %[[NS0:.*]] = tensor.empty() : tensor<3xi32>
// CHECK: %[[F:.*]]:4 = scf.for %[[IV:.*]] = %[[C1]] to %{{.*}} step %[[C2]] iter_args(%[[H:.*]] = %[[X]], %[[CNT:.*]] = %{{.*}}, %[[HS:.*]] = %[[HS0]], %[[NS:.*]] = %[[NS0]])
// CHECK: math.tanh
// CHECK: %[[D:.*]] = arith.subi %[[IV]], %[[C1]] : index
// CHECK: %[[K:.*]] = arith.divui %[[D]], %[[C2]] : index
// CHECK: %[[HS2:.*]] = tensor.insert_slice %[[H]] into %[[HS]][%[[K]], 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<3x4x8xf32>
// CHECK: %[[NS2:.*]] = tensor.insert %[[CNT]] into %[[NS]][%[[K]]] : tensor<3xi32>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[HS2]], %[[NS2]]
// CHECK: %[[L:.*]] = linalg.reduce ins(%[[F]]#0
// CHECK: %[[R:.*]]:3 = scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[DH:.*]] = %{{.*}}, %[[AW:.*]] = %{{.*}}, %[[AB:.*]] = %{{.*}}) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.subi %[[LAST]], %[[J]] : index
// CHECK: %[[HI:.*]] = tensor.extract_slice %[[F]]#2[%[[I]], 0, 0] [1, 4, 8] [1, 1, 1] : tensor<3x4x8xf32> to tensor<4x8xf32>
// CHECK-NOT: tensor.extract %[[F]]#3
// CHECK: %[[GH:.*]] = linalg.generic {{.*}} ins(%[[HI]], %[[W]], %[[B]], %[[DH]] :
// CHECK: %[[GW:.*]] = linalg.generic {{.*}} ins(%[[HI]], %[[W]], %[[B]], %[[DH]] :
// CHECK: %[[GB:.*]] = linalg.generic {{.*}} ins(%[[HI]], %[[W]], %[[B]], %[[DH]] :
// CHECK: %[[SW:.*]] = linalg.add ins(%[[AW]], %[[GW]] :
// CHECK: %[[SB:.*]] = linalg.add ins(%[[AB]], %[[GB]] :
// CHECK: scf.yield %[[GH]], %[[SW]], %[[SB]]
// CHECK: return %[[L]], %[[R]]#1, %[[R]]#2

// A loop around a call, and a loop in a loop: the inner loop is reversed
// inside the outer reverse loop's recomputed body.
func.func @nested(%x: tensor<4x8xf32>,
                  %w: tensor<4x8xf32> {dtensor.param = "w"},
                  %b: tensor<4x8xf32> {dtensor.param = "b"}) -> tensor<f32> {
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
// CHECK-LABEL: func.func @nested_grad(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: linalg.reduce
// CHECK: scf.for
// CHECK: func.call @affine_tanh(
// CHECK: scf.for {{.*}} -> (tensor<4x8xf32>, tensor<2x4x8xf32>)
// CHECK: scf.for {{.*}} -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: func.call @affine_tanh_vjp(
// CHECK: return

// A scalar iter_arg and a trip count known only at run time (a min):
// the stacks are tensor<?x...>, sized by ceildiv(ub - lb, step) clamped
// at 0. The loss starts from a fill of the scalar result (a 0-d fill's
// scalar operand gets the element of its adjoint).
func.func @scalar_loop(%x: tensor<6xf32>, %w: tensor<6xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %d = tensor.dim %x, %c0 : tensor<6xf32>
  %n = arith.minsi %d, %c6 : index
  %z = arith.constant 0.5 : f32
  %r:2 = scf.for %i = %c0 to %n step %c2 iter_args(%s = %z, %h = %w) -> (f32, tensor<6xf32>) {
    %wi = tensor.extract %h[%i] : tensor<6xf32>
    %p = arith.mulf %s, %wi : f32
    %t = math.tanh %p : f32
    %s2 = arith.addf %t, %s : f32
    %e = tensor.empty() : tensor<6xf32>
    %h2 = linalg.mul ins(%h, %x : tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6xf32>) -> tensor<6xf32>
    scf.yield %s2, %h2 : f32, tensor<6xf32>
  }
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%r#0 : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%r#1 : tensor<6xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %q = arith.mulf %in, %in : f32
      %s = arith.addf %q, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
// CHECK-LABEL: func.func @scalar_loop_grad(
// CHECK: %[[UB:.*]] = arith.minsi
// CHECK: %[[D:.*]] = arith.subi %[[UB]], %{{.*}} : index
// CHECK: %[[Q:.*]] = arith.ceildivsi %[[D]], %[[STEP:.*]] : index
// CHECK: %[[N:.*]] = arith.maxsi %[[Q]], %{{.*}} : index
// CHECK: %[[SS:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[HS:.*]] = tensor.empty(%[[N]]) : tensor<?x6xf32>
// CHECK: %[[F:.*]]:4 = scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[SS]], %{{.*}} = %[[HS]]) -> (f32, tensor<6xf32>, tensor<?xf32>, tensor<?x6xf32>)
// CHECK: tensor.insert %{{.*}} : tensor<?xf32>
// CHECK: tensor.insert_slice %{{.*}} : tensor<6xf32> into tensor<?x6xf32>
// CHECK: %[[DS:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[DS]], %{{.*}} = %{{.*}}) -> (f32, tensor<6xf32>)
// CHECK: tensor.extract %[[F]]#2[
// CHECK: tensor.extract_slice %[[F]]#3[
// CHECK: math.tanh

// No iteration (lb 3 > ub 0): the stacks are tensor<0x...> and the
// gradient passes through the reverse loop unchanged.
func.func @empty_loop(%w: tensor<6xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c3 to %c0 step %c1 iter_args(%h = %w) -> (tensor<6xf32>) {
    %e = tensor.empty() : tensor<6xf32>
    %h2 = linalg.mul ins(%h, %h : tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6xf32>) -> tensor<6xf32>
    scf.yield %h2 : tensor<6xf32>
  }
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%r : tensor<6xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %q = arith.mulf %in, %in : f32
      %s = arith.addf %q, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
// CHECK-LABEL: func.func @empty_loop_grad(
// CHECK: arith.constant 3 : index
// CHECK-NEXT: %[[N:.*]] = arith.constant 0 : index
// CHECK-NEXT: tensor.empty() : tensor<0x6xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step

// A bound from the static size of a tensor.dim: static stacks.
func.func @dim_loop(%w: tensor<3xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %w, %c0 : tensor<3xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %w) -> (tensor<3xf32>) {
    %e = tensor.empty() : tensor<3xf32>
    %h2 = linalg.mul ins(%h, %w : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
    scf.yield %h2 : tensor<3xf32>
  }
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%r : tensor<3xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}
// CHECK-LABEL: func.func @dim_loop_grad(
// CHECK: %[[N:.*]] = arith.constant 3 : index
// CHECK-NEXT: tensor.empty() : tensor<3x3xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step

// scf.if: a reverse scf.if on the same condition, each branch recomputing
// its forward body and sweeping it back from the adjoints of what it
// yields, and yielding the adjoint of every active value the branches read
// (zeros where a branch does not read it). The two ifs take opposite
// branches whatever x holds, so grad-check covers all four bodies.
func.func @branches(%x: tensor<4x8xf32>,
                    %w: tensor<4x8xf32> {dtensor.param = "w"},
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
// The second if is reversed first: its adjoints are those of h (read by
// both branches) and b (read by the then branch only: zeros in the else).
// CHECK-LABEL: func.func @branches_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<4x8xf32> {dtensor.param = "w"}, %[[B:[^:]*]]: tensor<4x8xf32> {dtensor.param = "b"})
// CHECK: %[[C:.*]] = arith.cmpf ogt
// CHECK: %[[NC:.*]] = arith.xori %[[C]]
// CHECK: %[[H:.*]] = scf.if %[[C]] -> (tensor<4x8xf32>)
// CHECK: %[[H2:.*]] = scf.if %[[NC]] -> (tensor<4x8xf32>)
// CHECK: %[[R2:.*]]:2 = scf.if %[[NC]] -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK:   %[[DH:.*]] = arith.mulf %{{.*}}, %[[B]]
// CHECK:   %[[DB:.*]] = arith.mulf %{{.*}}, %[[H]]
// CHECK:   scf.yield %[[DH]], %[[DB]]
// CHECK: } else {
// CHECK:   math.exp %[[H]]
// CHECK:   %[[DHE:.*]] = arith.mulf
// CHECK:   %[[ZB:.*]] = linalg.fill
// CHECK:   scf.yield %[[DHE]], %[[ZB]]
// CHECK: }
// The first if: w and b read (x is not a parameter: no adjoint for it).
// CHECK: %[[R1:.*]]:2 = scf.if %[[C]] -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK:   math.tanh
// CHECK:   scf.yield
// CHECK: } else {
// CHECK:   scf.yield %[[R2]]#0, %[[R2]]#0
// CHECK: }
// CHECK: %[[GB:.*]] = linalg.add ins(%[[R2]]#1, %[[R1]]#1
// CHECK: return %{{.*}}, %[[R1]]#0, %[[GB]]

// An scf.if inside a loop, on the induction variable: the loop reversal
// recomputes the body, whose if is reversed like any other.
func.func @loop_if(%x: tensor<4x8xf32>,
                   %w: tensor<4x8xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i3 = arith.constant 3 : index
  %y = scf.for %i = %i0 to %i3 step %i1 iter_args(%acc = %x) -> tensor<4x8xf32> {
    %first = arith.cmpi eq, %i, %i0 : index
    %n = scf.if %first -> tensor<4x8xf32> {
      %m = arith.mulf %acc, %w : tensor<4x8xf32>
      scf.yield %m : tensor<4x8xf32>
    } else {
      %a = arith.addf %acc, %w : tensor<4x8xf32>
      %t = math.tanh %a : tensor<4x8xf32>
      scf.yield %t : tensor<4x8xf32>
    }
    scf.yield %n : tensor<4x8xf32>
  }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%y : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %in : f32
      %r = arith.addf %s, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}
// CHECK-LABEL: func.func @loop_if_grad(
// CHECK: scf.for
// CHECK:   scf.if
// CHECK: scf.for
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq
// The recomputed forward if is dead (the reverse if recomputes its branch).
// CHECK-NOT: scf.if %[[FIRST]] -> (tensor<4x8xf32>) {
// CHECK:   scf.if %[[FIRST]] -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:     math.tanh
