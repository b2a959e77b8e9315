// Elementwise ops on uneven shards whose upstream folders and patterns build
// a constant of the operand type (uneven_fold.test): with 5 rows over 4
// ranks (2, 2, 1, 0) the local type is tensor<?x10xi32>, and such a
// constant cannot be lowered (memref.global needs a static shape).
dtensor.mesh @mesh = <["x" = 4]>

// (x - y) - x -> 0 - y (test/Robustness/fixed_repro_8.txt, reduced).
func.func @sub_sub(%x: tensor<5x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                   %y: tensor<5x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<5x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %d = arith.subi %x, %y : tensor<5x10xi32>
  %e = arith.subi %d, %x : tensor<5x10xi32>
  return %e : tensor<5x10xi32>
}

// x ^ x -> 0, folded by every dialect conversion that meets it.
func.func @xor_self(%x: tensor<5x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                    %y: tensor<5x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>})
    -> (tensor<5x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>}) {
  %z = arith.xori %x, %x : tensor<5x10xi32>
  %r = arith.addi %z, %y : tensor<5x10xi32>
  return %r : tensor<5x10xi32>
}

// The same after a matmul with a replicated weight, as in the reproducer:
// the rows stay sharded (uneven) through the matmul.
func.func @matmul_sub_sub(%x: tensor<5x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [S(0)]>},
                          %w: tensor<10x10xi32> {dtensor.spec = #dtensor.spec<@mesh, [R]>})
    -> (tensor<10xi32> {dtensor.spec = #dtensor.spec<@mesh, [R]>}) {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<5x10xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<5x10xi32>) -> tensor<5x10xi32>
  %m = linalg.matmul ins(%x, %w : tensor<5x10xi32>, tensor<10x10xi32>) outs(%z : tensor<5x10xi32>) -> tensor<5x10xi32>
  %d = arith.subi %x, %m : tensor<5x10xi32>
  %s = arith.subi %d, %x : tensor<5x10xi32>
  %e1 = tensor.empty() : tensor<10xi32>
  %z1 = linalg.fill ins(%c0 : i32) outs(%e1 : tensor<10xi32>) -> tensor<10xi32>
  %r = linalg.reduce ins(%s : tensor<5x10xi32>) outs(%z1 : tensor<10xi32>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %a = arith.addi %in, %acc : i32
      linalg.yield %a : i32
    }
  return %r : tensor<10xi32>
}
