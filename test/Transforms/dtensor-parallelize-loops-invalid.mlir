// RUN: dtensor-opt %s --pass-pipeline="builtin.module(func.func(dtensor-parallelize-loops{threads=0}))" -verify-diagnostics -o /dev/null

// expected-error @below {{dtensor-parallelize-loops: threads must be at least 1, got 0}}
func.func @bad() {
  return
}
