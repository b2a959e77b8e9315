// A local-view program with an asynchronous all-reduce: the runtime
// conversion lowers the _start/wait pair to dtrt_all_reduce_start and
// dtrt_wait (with compute between them, it would overlap the transfer).
dtensor.mesh @mesh = <["x" = 4]>
func.func @f(%g: tensor<8x512xf32>) -> tensor<8x512xf32> {
  %r = dtensor.all_reduce_start %g on @mesh axes [0] reduce sum
      : tensor<8x512xf32> -> !dtensor.request<tensor<8x512xf32>>
  %v = dtensor.wait %r : !dtensor.request<tensor<8x512xf32>>
  return %v : tensor<8x512xf32>
}
