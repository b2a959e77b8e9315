/* Calls the ahead-of-time compiled Megatron MLP (examples/mlp.mlir) on each
 * of 4 ranks. Build and run: see docs/user-guide.md, "Linking the runtime". */
#include <dtrt/dtrt.h>

#include <stdio.h>
#include <stdlib.h>

/* The memref descriptor of a 2-D f32 buffer (MLIR's C interface). */
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref2d;

/* Emitted for @mlp with `llvm.emit_c_interface`: local shards in, the local
 * part of the result out. */
void _mlir_ciface_mlp(memref2d *result, memref2d *x, memref2d *w1,
                      memref2d *w2);

static memref2d filled(int64_t rows, int64_t cols, float value) {
  memref2d m;
  m.allocated = m.aligned = malloc(sizeof(float) * rows * cols);
  m.offset = 0;
  m.sizes[0] = rows, m.sizes[1] = cols;
  m.strides[0] = cols, m.strides[1] = 1;
  for (int64_t i = 0; i < rows * cols; ++i)
    m.aligned[i] = value;
  return m;
}

int main(void) {
  const int64_t mesh[1] = {4}; /* dtensor.mesh @mesh = <["tp" = 4]> */
  if (dtrt_init(1, mesh) != DTRT_OK) {
    fprintf(stderr, "dtrt_init: %s\n", dtrt_last_error());
    return 1;
  }
  /* The generated code ignores the status of the runtime calls. */
  dtrt_set_abort_on_error(1);

  /* Local shards: x [32, 512] R, w1 [512, 2048] S(1) -> [512, 512],
   * w2 [2048, 512] S(0) -> [512, 512]. With x = 1, w1 = 1/512 and w2 = 1,
   * every element of y = relu(x w1) w2 is 2048. */
  memref2d x = filled(32, 512, 1.0f);
  memref2d w1 = filled(512, 512, 1.0f / 512);
  memref2d w2 = filled(512, 512, 1.0f);
  memref2d y;
  _mlir_ciface_mlp(&y, &x, &w1, &w2);
  printf("rank %d: y is %lldx%lld, y[0][0] = %g\n", dtrt_rank(),
         (long long)y.sizes[0], (long long)y.sizes[1],
         y.aligned[y.offset]);
  dtrt_finalize();
  return 0;
}
