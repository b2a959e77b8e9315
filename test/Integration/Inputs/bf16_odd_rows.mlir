// bf16 rows of 8k+1 elements (9, 17, 25): an elementwise add and a row sum.
// Vectors of <8k+1 x bfloat> abort LLVM 22's X86 backend on AVX-512 BF16
// CPUs: dtensor-vectorize rounds such whole rows up to a multiple of 8
// lanes, masked. Checked by vectorize.test against the scalar loops.
dtensor.mesh @mesh = <["x" = 2]>
func.func @rows(%a: tensor<4x9xbf16> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                %b: tensor<4x9xbf16> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                %c: tensor<6x17xbf16>, %d: tensor<2x25xbf16>)
    -> (tensor<4x9xbf16>, tensor<6xbf16>, tensor<2x25xbf16>) {
  %e = tensor.empty() : tensor<4x9xbf16>
  %s = linalg.add ins(%a, %b : tensor<4x9xbf16>, tensor<4x9xbf16>) outs(%e : tensor<4x9xbf16>) -> tensor<4x9xbf16>
  %zero = arith.constant 0.0 : bf16
  %er = tensor.empty() : tensor<6xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%er : tensor<6xbf16>) -> tensor<6xbf16>
  %r = linalg.reduce ins(%c : tensor<6x17xbf16>) outs(%z : tensor<6xbf16>) dimensions = [1]
    (%in: bf16, %acc: bf16) {
      %t = arith.addf %in, %acc : bf16
      linalg.yield %t : bf16
    }
  %ed = tensor.empty() : tensor<2x25xbf16>
  %n = linalg.negf ins(%d : tensor<2x25xbf16>) outs(%ed : tensor<2x25xbf16>) -> tensor<2x25xbf16>
  return %s, %r, %n : tensor<4x9xbf16>, tensor<6xbf16>, tensor<2x25xbf16>
}
