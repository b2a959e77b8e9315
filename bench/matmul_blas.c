/* matmul_blas.c - time OpenBLAS cblas_sgemm called directly (bench/matmul.sh).
 *
 * Usage: matmul_blas ITERS M K N [M K N ...]
 *   For each shape, C[M x N] = A[M x K] * B[K x N] in f32, row-major, no
 *   transposes, alpha 1, beta 0, on buffers allocated and filled once
 *   (uniform [-1, 1) values, fixed seed). One untimed warm-up call, then the
 *   best of ITERS timed calls (CLOCK_MONOTONIC around cblas_sgemm alone).
 *   Then the same again for what a compiled program does around its
 *   matmul: malloc a fresh C, fill it with zeros, cblas_sgemm with beta 1
 *   (accumulating into the zeros), the result kept (freed after the loop, as
 *   the caller of a compiled entry holds its results), so each call touches
 *   fresh pages; best of ITERS, timed as a whole.
 *   Prints one line per shape:
 *     M K N best_ms gflops best_alloc_fill_ms
 *   with GFLOP/s = 2*M*N*K / best_ms (the plain sgemm). The thread count is OpenBLAS's
 *   (set OPENBLAS_NUM_THREADS=1 for one thread, as bench/matmul.sh does).
 *
 * Build: gcc -O2 -o matmul_blas bench/matmul_blas.c -lopenblas
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *random_matrix(long n, unsigned *state) {
  float *p = malloc((size_t)n * sizeof(float));
  if (!p) {
    fprintf(stderr, "matmul_blas: out of memory\n");
    exit(1);
  }
  for (long i = 0; i < n; ++i) {
    *state = *state * 1103515245u + 12345u;
    p[i] = (float)((*state >> 8) & 0xFFFF) / 32768.0f - 1.0f;
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc < 5 || (argc - 2) % 3 != 0) {
    fprintf(stderr, "usage: %s ITERS M K N [M K N ...]\n", argv[0]);
    return 2;
  }
  int iters = atoi(argv[1]);
  if (iters < 1)
    iters = 1;
  unsigned state = 42;
  for (int a = 2; a + 2 < argc; a += 3) {
    long m = atol(argv[a]), k = atol(argv[a + 1]), n = atol(argv[a + 2]);
    if (m <= 0 || k <= 0 || n <= 0) {
      fprintf(stderr, "matmul_blas: bad shape %s %s %s\n", argv[a], argv[a + 1], argv[a + 2]);
      return 2;
    }
    float *A = random_matrix(m * k, &state);
    float *B = random_matrix(k * n, &state);
    float *C = random_matrix(m * n, &state);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, A,
                (int)k, B, (int)n, 0.0f, C, (int)n); /* warm-up */
    double best = -1;
    for (int it = 0; it < iters; ++it) {
      double t0 = now_s();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, A,
                  (int)k, B, (int)n, 0.0f, C, (int)n);
      double t = now_s() - t0;
      if (best < 0 || t < best)
        best = t;
    }
    double best_fill = -1;
    float **kept = calloc((size_t)iters, sizeof(float *));
    for (int it = 0; it < iters; ++it) {
      double t0 = now_s();
      float *D = malloc((size_t)(m * n) * sizeof(float));
      if (!D) {
        fprintf(stderr, "matmul_blas: out of memory\n");
        return 1;
      }
      memset(D, 0, (size_t)(m * n) * sizeof(float));
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, A,
                  (int)k, B, (int)n, 1.0f, D, (int)n);
      double t = now_s() - t0;
      kept[it] = D;
      if (best_fill < 0 || t < best_fill)
        best_fill = t;
    }
    for (int it = 0; it < iters; ++it)
      free(kept[it]);
    free(kept);
    double gflops = 2.0 * (double)m * (double)n * (double)k / best / 1e9;
    printf("%ld %ld %ld %.3f %.2f %.3f\n", m, k, n, best * 1e3, gflops, best_fill * 1e3);
    fflush(stdout);
    free(A);
    free(B);
    free(C);
  }
  return 0;
}
