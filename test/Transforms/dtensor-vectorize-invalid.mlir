// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-vectorize{vector-size=0}))" -verify-diagnostics

// expected-error @below {{dtensor-vectorize: vector-size and max-reduction-size must be positive, got 0 and 1024}}
func.func @bad_size(%x: memref<8xf32>, %o: memref<8xf32>) {
  linalg.copy ins(%x : memref<8xf32>) outs(%o : memref<8xf32>)
  return
}
