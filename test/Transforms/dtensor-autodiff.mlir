// The rules of dtensor-autodiff, one loss function per family. The same
// functions are checked numerically by test/Autodiff/grad-check.test.
// RUN: dtensor-opt %s --dtensor-autodiff | FileCheck %s
// Idempotent: the _grad functions exist, nothing is added.
// RUN: dtensor-opt %s --dtensor-autodiff | dtensor-opt --dtensor-autodiff | FileCheck %s --check-prefix=TWICE
// TWICE-COUNT-9: func.func @{{[a-z_]+}}_grad(
// TWICE-NOT: _grad_grad
// functions= differentiates only the named loss functions.
// RUN: dtensor-opt %s --dtensor-autodiff="functions=named,unused" | FileCheck %s --check-prefix=FUNCS
// FUNCS-NOT: func.func @pointwise_grad(
// FUNCS: func.func @named_grad(
// FUNCS-NOT: func.func @{{(broadcast_transpose|contractions|reduce_max)}}_grad(
// FUNCS: func.func @unused_grad(
// FUNCS-NOT: _grad(

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[TO0D:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[TR:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[MM_A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MM_B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MM_C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[BMM_A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BMM_B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[BMM_C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

#id = affine_map<(d0, d1) -> (d0, d1)>
#all2 = affine_map<(d0, d1) -> ()>

// Every scalar rule of a generic body: mulf, divf, subf, negf, addf, exp,
// log, tanh, sqrt, rsqrt, maximumf, minimumf, select of cmpf, extf/truncf.
func.func @pointwise(%x: tensor<4x8xf32>,
                     %a: tensor<4x8xf32> {dtensor.param = "a"},
                     %b: tensor<4x8xf32> {dtensor.param = "b"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %a, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%xv: f32, %av: f32, %bv: f32, %o: f32):
    %ab = arith.mulf %av, %bv : f32
    %bb = arith.mulf %bv, %bv : f32
    %den = arith.addf %bb, %one : f32
    %q = arith.divf %ab, %den : f32
    %th = math.tanh %q : f32
    %na = arith.negf %av : f32
    %ex = math.exp %na : f32
    %aa = arith.mulf %av, %av : f32
    %aa1 = arith.addf %aa, %one : f32
    %lg = math.log %aa1 : f32
    %sq = math.sqrt %aa1 : f32
    %rs = math.rsqrt %den : f32
    %mx = arith.maximumf %xv, %av : f32
    %mn = arith.minimumf %xv, %bv : f32
    %gt = arith.cmpf ogt, %av, %bv : f32
    %sel = arith.select %gt, %ab, %bb : f32
    %w = arith.extf %th : f32 to f64
    %w2 = arith.mulf %w, %w : f64
    %n = arith.truncf %w2 : f64 to f32
    %s1 = arith.subf %n, %ex : f32
    %s2 = arith.addf %s1, %lg : f32
    %s3 = arith.addf %s2, %sq : f32
    %s4 = arith.addf %s3, %rs : f32
    %s5 = arith.addf %s4, %mx : f32
    %s6 = arith.addf %s5, %mn : f32
    %s7 = arith.addf %s6, %sel : f32
    %s8 = arith.mulf %s7, %xv : f32
    linalg.yield %s8 : f32
  } -> tensor<4x8xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%t : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// The forward body is recomputed in each adjoint, then its derivative.
// CHECK-LABEL: func.func @pointwise_grad(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[A:.*]]: tensor<4x8xf32> {dtensor.param = "a"}, %[[B:.*]]: tensor<4x8xf32> {dtensor.param = "b"})
// CHECK-SAME: -> (tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: %[[LOSS:.*]] = linalg.reduce
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// The sum's adjoint: the loss' adjoint broadcast.
// CHECK: %[[DT:.*]] = linalg.generic {indexing_maps = [#[[TO0D]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[ONE]] : tensor<f32>)
// CHECK: %[[DA:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[A]], %[[B]], %[[DT]] :
// CHECK: ^bb0(%[[XV:.*]]: f32, %[[AV:.*]]: f32, %[[BV:.*]]: f32, %[[ADJ:.*]]: f32, %[[ACC:.*]]: f32):
// exp(-a): d/da = exp(-a) * -1
// CHECK: %[[NA:.*]] = arith.negf %[[AV]]
// CHECK: %[[EX:.*]] = math.exp %[[NA]]
// CHECK: math.sqrt
// tanh: (1 - r r) * t
// CHECK: %[[TH2:.*]] = arith.mulf %[[TH:.*]], %[[TH]] : f32
// CHECK: arith.subf %{{.*}}, %[[TH2]]
// CHECK: %[[DNA:.*]] = arith.negf %{{.*}} : f32
// CHECK: arith.mulf %[[EX]], %[[DNA]]
// max(x, a): the derivative goes to a unless x > a
// CHECK: %[[XGT:.*]] = arith.cmpf ogt, %[[XV]], %[[AV]] : f32
// CHECK: arith.select %[[XGT]], %{{.*}}, %{{.*}} : f32
// the tangent of extf is extended, of truncf truncated
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[C:.*]] = arith.mulf %[[ADJ]], %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[C]] : f32
// CHECK: linalg.yield %[[S]]
// CHECK: %[[DB:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[A]], %[[B]], %[[DT]] :
// rsqrt: -0.5 r r r
// CHECK: %[[RS:.*]] = math.rsqrt
// CHECK: arith.constant -5.000000e-01 : f32
// select of cmpf: the tangent of the selected operand
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: return %[[LOSS]], %[[DA]], %[[DB]] : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>

// Named elementwise ops; %w is used twice (its adjoints are summed).
func.func @named(%x: tensor<4x8xf32>,
                 %w: tensor<4x8xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %m = linalg.mul ins(%x, %w : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = linalg.sub ins(%m, %w : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %ex = linalg.exp ins(%d : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = linalg.div ins(%ex, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%q : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @named_grad(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<4x8xf32> {dtensor.param = "w"})
// CHECK: %[[M:.*]] = linalg.mul ins(%[[X]], %[[W]]
// CHECK: %[[D:.*]] = linalg.sub ins(%[[M]], %[[W]]
// CHECK: %[[EX:.*]] = linalg.exp ins(%[[D]]
// CHECK: %[[LOSS:.*]] = linalg.reduce
// div: d(e / x)/de = 1 / x
// CHECK: %[[DEX:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}} :
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// exp: d/dd = exp(d)
// CHECK: %[[DD:.*]] = linalg.generic {{.*}} ins(%[[D]], %[[DEX]] :
// CHECK: math.exp
// sub: the minuend's adjoint is the result's (no copy), the subtrahend's negated
// CHECK-NOT: ins(%[[DD]] : tensor<4x8xf32>) outs
// CHECK: %[[DW2:.*]] = linalg.generic {{.*}} ins(%[[DD]] : tensor<4x8xf32>)
// CHECK: arith.negf
// mul: d(x w)/dw = x, from the sub's adjoint
// CHECK: %[[DW1:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[DD]] :
// w is used twice: its adjoints are summed
// CHECK: %[[DW:.*]] = linalg.add ins(%[[DW2]], %[[DW1]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: return %[[LOSS]], %[[DW]]

// Broadcast (the adjoint sums over the broadcast dim) and transpose (the
// adjoint is transposed back).
func.func @broadcast_transpose(%x: tensor<4x8xf32>,
                               %b: tensor<8xf32> {dtensor.param = "b"},
                               %t: tensor<8x4xf32> {dtensor.param = "t"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %tt = linalg.transpose ins(%t : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %s = linalg.add ins(%bb, %tt : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.mul ins(%s, %s : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %q = linalg.mul ins(%p, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%q : tensor<4x8xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @broadcast_transpose_grad(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32> {dtensor.param = "b"}, %[[T:.*]]: tensor<8x4xf32> {dtensor.param = "t"})
// CHECK-SAME: -> (tensor<f32>, tensor<8xf32>, tensor<8x4xf32>)
// s * s: two adjoints of s, summed
// CHECK: arith.constant dense<1.000000e+00>
// CHECK: %[[DS:.*]] = linalg.add ins
// the add's operands take its adjoint as it is; the transpose's adjoint is
// transposed back, the broadcast's summed over the broadcast dim
// CHECK: %[[DT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[TR]]], iterator_types = ["parallel", "parallel"]} ins(%[[DS]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: %[[DB:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[DS]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: return %{{.*}}, %[[DB]], %[[DT]]

// Contractions: matmul (dA = dy B^T, dB = A^T dy) and batch_matmul.
func.func @contractions(%x: tensor<2x4x8xf32>,
                        %w: tensor<8x6xf32> {dtensor.param = "w"},
                        %v: tensor<2x6x3xf32> {dtensor.param = "v"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x6xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<8x6xf32>) -> tensor<8x6xf32>
  %h = linalg.matmul ins(%x2, %w : tensor<8x8xf32>, tensor<8x6xf32>) outs(%z1 : tensor<8x6xf32>) -> tensor<8x6xf32>
  %h3 = tensor.expand_shape %h [[0, 1], [2]] output_shape [2, 4, 6] : tensor<8x6xf32> into tensor<2x4x6xf32>
  %e2 = tensor.empty() : tensor<2x4x3xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %y = linalg.batch_matmul ins(%h3, %v : tensor<2x4x6xf32>, tensor<2x6x3xf32>) outs(%z2 : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %sq = linalg.mul ins(%y, %y : tensor<2x4x3xf32>, tensor<2x4x3xf32>) outs(%e2 : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%sq : tensor<2x4x3xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1, 2]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @contractions_grad(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8x6xf32> {dtensor.param = "w"}, %[[V:.*]]: tensor<2x6x3xf32> {dtensor.param = "v"})
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[X]]
// CHECK: %[[H3:.*]] = tensor.expand_shape
// CHECK: %[[DY:.*]] = linalg.add ins
// batch_matmul: dA = dy B^T (reduction over n), dB = A^T dy (reduction over m)
// CHECK: %[[DH3:.*]] = linalg.generic {indexing_maps = [#[[BMM_B]], #[[BMM_C]], #[[BMM_A]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[V]], %[[DY]] :
// CHECK: %[[DV:.*]] = linalg.generic {indexing_maps = [#[[BMM_A]], #[[BMM_C]], #[[BMM_B]]], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%[[H3]], %[[DY]] :
// the expand's adjoint is collapsed back
// CHECK: %[[DH:.*]] = tensor.collapse_shape %[[DH3]] {{\[}}[0, 1], [2]] : tensor<2x4x6xf32> into tensor<8x6xf32>
// matmul: dW = x^T dh, reading only x and dh
// CHECK: %[[DW:.*]] = linalg.generic {indexing_maps = [#[[MM_A]], #[[MM_C]], #[[MM_B]]], iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[X2]], %[[DH]] : tensor<8x8xf32>, tensor<8x6xf32>) outs(%{{.*}} : tensor<8x6xf32>)
// CHECK: ^bb0(%[[XV:.*]]: f32, %[[DV2:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[DV2]], %[[XV]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// x is an input: no adjoint for it, nor for the collapse
// CHECK-NOT: tensor.expand_shape
// CHECK: return %{{.*}}, %[[DW]], %[[DV]]

// A max reduction: only the maximum of each row gets the gradient. The
// init of the max (a fill of -inf) is created: no gradient.
func.func @reduce_max(%x: tensor<4x8xf32>,
                      %w: tensor<4x8xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.mul ins(%x, %w : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %er = tensor.empty() : tensor<4xf32>
  %zr = linalg.fill ins(%ninf : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.reduce ins(%p : tensor<4x8xf32>) outs(%zr : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%m : tensor<4xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @reduce_max_grad(
// CHECK: %[[P:.*]] = linalg.mul
// CHECK: %[[M:.*]] = linalg.reduce ins(%[[P]] : tensor<4x8xf32>)
// CHECK: arith.constant dense<1.000000e+00>
// CHECK: %[[DM:.*]] = linalg.generic
// the max's adjoint goes to the elements equal to the result
// CHECK: %[[DP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[M]], %[[DM]] :
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[R:.*]]: f32, %[[ADJ:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[IN]], %[[R]] : f32
// CHECK: %[[MASK:.*]] = arith.select %[[EQ]]
// CHECK: arith.mulf %[[ADJ]], %[[MASK]] : f32
// CHECK: return

// A parameter the loss does not use gets a zero gradient; an input-only
// computation gets no adjoint.
func.func @unused(%x: tensor<4xf32>,
                  %w: tensor<4xf32> {dtensor.param = "w"},
                  %u: tensor<3xf32> {dtensor.param = "u"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %xx = linalg.mul ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %p = linalg.mul ins(%xx, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%p : tensor<4xf32>) outs(%zs : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @unused_grad(
// x * x depends on no parameter: no adjoint is built for it
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[DU:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3xf32>)
// CHECK: return %{{.*}}, %{{.*}}, %[[DU]] : tensor<f32>, tensor<4xf32>, tensor<3xf32>

// Tensor ops: slices, pad, concat, extract (a scalar adjoint, through a fill
// and a generic's scalar input).
func.func @tensor_ops(%x: tensor<4x6xf32>,
                      %w: tensor<4x6xf32> {dtensor.param = "w"},
                      %v: tensor<2x3xf32> {dtensor.param = "v"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x6xf32>
  %p = linalg.mul ins(%x, %w : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  // rows 1..2, columns 2..4
  %s = tensor.extract_slice %p[1, 2] [2, 3] [1, 1] : tensor<4x6xf32> to tensor<2x3xf32>
  // v written over part of p
  %q = tensor.insert_slice %v into %p[2, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  %pd = tensor.pad %s low[1, 0] high[0, 2] {
  ^bb0(%a: index, %b: index):
    tensor.yield %c0 : f32
  } : tensor<2x3xf32> to tensor<3x5xf32>
  %qs = tensor.extract_slice %q[0, 0] [3, 5] [1, 1] : tensor<4x6xf32> to tensor<3x5xf32>
  %cat = tensor.concat dim(0) %pd, %qs : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<6x5xf32>
  %e2 = tensor.empty() : tensor<6x5xf32>
  %sq = linalg.mul ins(%cat, %cat : tensor<6x5xf32>, tensor<6x5xf32>) outs(%e2 : tensor<6x5xf32>) -> tensor<6x5xf32>
  // a scalar of w, filled and used by a generic
  %k = tensor.extract %w[%i1, %i0] : tensor<4x6xf32>
  %f = linalg.fill ins(%k : f32) outs(%e2 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%sq, %k : tensor<6x5xf32>, f32) outs(%e2 : tensor<6x5xf32>) {
  ^bb0(%a: f32, %kk: f32, %o: f32):
    %m = arith.mulf %a, %kk : f32
    linalg.yield %m : f32
  } -> tensor<6x5xf32>
  %t = linalg.add ins(%g, %f : tensor<6x5xf32>, tensor<6x5xf32>) outs(%e2 : tensor<6x5xf32>) -> tensor<6x5xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%t : tensor<6x5xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @tensor_ops_grad(
// CHECK-SAME: %[[X:.*]]: tensor<4x6xf32>, %[[W:.*]]: tensor<4x6xf32> {dtensor.param = "w"}, %[[V:.*]]: tensor<2x3xf32> {dtensor.param = "v"})
// CHECK: %[[K:.*]] = tensor.extract %[[W]]
// CHECK: arith.constant dense<1.000000e+00>
// The scalar input of the generic and of the fill: a 0-d adjoint each
// (summed over the loops), extracted, summed, inserted into zeros.
// CHECK: %[[DK1T:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<6x5xf32>, tensor<6x5xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[DK1:.*]] = tensor.extract %[[DK1T]][] : tensor<f32>
// CHECK: %[[DK2T:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<6x5xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[DK2:.*]] = tensor.extract %[[DK2T]][] : tensor<f32>
// CHECK: %[[DK:.*]] = arith.addf %[[DK1]], %[[DK2]] : f32
// CHECK: %[[DWK:.*]] = tensor.insert %[[DK]] into %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x6xf32>
// concat: each input gets its slice of the adjoint
// CHECK: %[[DCAT:.*]] = linalg.add
// CHECK: %[[DPD:.*]] = tensor.extract_slice %[[DCAT]][0, 0] [3, 5] [1, 1] : tensor<6x5xf32> to tensor<3x5xf32>
// CHECK: %[[DQS:.*]] = tensor.extract_slice %[[DCAT]][3, 0] [3, 5] [1, 1] : tensor<6x5xf32> to tensor<3x5xf32>
// extract_slice: the adjoint inserted into zeros at the slice
// CHECK: %[[DQ:.*]] = tensor.insert_slice %[[DQS]] into %{{.*}}[0, 0] [3, 5] [1, 1] : tensor<3x5xf32> into tensor<4x6xf32>
// pad: the slice at the low padding
// CHECK: %[[DS:.*]] = tensor.extract_slice %[[DPD]][1, 0] [2, 3] [1, 1] : tensor<3x5xf32> to tensor<2x3xf32>
// insert_slice: the source gets the slice, the destination zeros there
// CHECK: %[[DV:.*]] = tensor.extract_slice %[[DQ]][2, 0] [2, 3] [1, 1] : tensor<4x6xf32> to tensor<2x3xf32>
// CHECK: %[[ZV:.*]] = linalg.fill {{.*}} -> tensor<2x3xf32>
// CHECK: %[[DP1:.*]] = tensor.insert_slice %[[ZV]] into %[[DQ]][2, 0] [2, 3] [1, 1]
// CHECK: %[[DP2:.*]] = tensor.insert_slice %[[DS]] into %{{.*}}[1, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
// CHECK: %[[DP:.*]] = linalg.add ins(%[[DP1]], %[[DP2]]
// CHECK: %[[DWP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[DP]] :
// CHECK: %[[DW:.*]] = linalg.add ins(%[[DWK]], %[[DWP]]
// CHECK: return %{{.*}}, %[[DW]], %[[DV]] : tensor<f32>, tensor<4x6xf32>, tensor<2x3xf32>

// Arith and math ops outside structured bodies: on tensors (elementwise) and
// on scalars (a scalar of w squared, filled).
func.func @arith_ops(%x: tensor<4x6xf32>,
                     %w: tensor<4x6xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %i2 = arith.constant 2 : index
  %half = arith.constant dense<0.5> : tensor<4x6xf32>
  %p = arith.mulf %x, %w : tensor<4x6xf32>
  %pp = arith.mulf %p, %p : tensor<4x6xf32>
  %t = math.tanh %pp : tensor<4x6xf32>
  %m = arith.maximumf %t, %half : tensor<4x6xf32>
  %d = arith.divf %m, %w : tensor<4x6xf32>
  %k = tensor.extract %w[%i2, %i2] : tensor<4x6xf32>
  %kk = arith.mulf %k, %k : f32
  %ek = math.exp %kk : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%ek : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %s = arith.subf %d, %f : tensor<4x6xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%s : tensor<4x6xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @arith_ops_grad(
// CHECK-SAME: %[[X:.*]]: tensor<4x6xf32>, %[[W:.*]]: tensor<4x6xf32> {dtensor.param = "w"})
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : tensor<4x6xf32>
// CHECK: %[[PP:.*]] = arith.mulf %[[P]], %[[P]] : tensor<4x6xf32>
// CHECK: %[[T:.*]] = math.tanh %[[PP]] : tensor<4x6xf32>
// CHECK: %[[D:.*]] = arith.divf %[[M:.*]], %[[W]] : tensor<4x6xf32>
// CHECK: %[[K:.*]] = tensor.extract %[[W]]
// CHECK: %[[EK:.*]] = math.exp %{{.*}} : f32
// CHECK: arith.constant dense<1.000000e+00> : tensor<f32>
// the scalar chain: exp(k k) -> 2 k exp(k k) adj, inserted at [2, 2]
// CHECK: %[[DEK:.*]] = arith.mulf %{{.*}}, %[[EK]] : f32
// CHECK: %[[TWOK:.*]] = arith.addf %[[K]], %[[K]] : f32
// CHECK: %[[DK:.*]] = arith.mulf %[[DEK]], %[[TWOK]] : f32
// CHECK: tensor.insert %[[DK]] into
// the divisor: -r / w, elementwise on tensors
// CHECK: %[[NR:.*]] = arith.negf %[[D]] : tensor<4x6xf32>
// CHECK: arith.divf %[[NR]], %[[W]] : tensor<4x6xf32>
// max(t, 0.5): a mask, on tensors
// CHECK: arith.cmpf ogt, %[[T]], %{{.*}} : tensor<4x6xf32>
// CHECK: arith.select %{{.*}} : tensor<4x6xi1>, tensor<4x6xf32>
// p * p with one value in both slots: 2 p, given once
// CHECK: arith.addf %[[P]], %[[P]] : tensor<4x6xf32>
// CHECK: arith.mulf %{{.*}}, %[[X]] : tensor<4x6xf32>
// CHECK: return

// linalg.softmax along dim 1: dz = y * (dy - sum_1(dy * y)).
func.func @softmax(%x: tensor<4x8xf32>,
                   %w: tensor<4x8xf32> {dtensor.param = "w"}) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.mul ins(%x, %w : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.softmax dimension(1) ins(%z : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %es = tensor.empty() : tensor<f32>
  %zs = linalg.fill ins(%c0 : f32) outs(%es : tensor<f32>) -> tensor<f32>
  // A weighted sum (the plain sum of a softmax row is 1, its gradient 0).
  %l = linalg.generic {indexing_maps = [#id, #id, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%y, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%zs : tensor<f32>) {
  ^bb0(%yv: f32, %xv: f32, %acc: f32):
    %p = arith.mulf %yv, %xv : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @softmax_grad(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<4x8xf32> {dtensor.param = "w"})
// CHECK: %[[Y:.*]] = linalg.softmax dimension(1)
// CHECK: %[[DY:.*]] = linalg.generic {{.*}} ins(%[[X]]
// s = sum over dim 1 of dy * y, into a tensor<4xf32>
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[DY]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[DZ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[Y]], %[[DY]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: arith.mulf %{{.*}}, %[[D]]
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[DZ]] :
// CHECK: return
