/* matmul_blas.c - time OpenBLAS cblas_sgemm called directly (bench/matmul.sh).
 *
 * Usage: matmul_blas ITERS SPEC [SPEC ...]
 *        matmul_blas --core   prints the OpenBLAS core type in use
 *   SPEC is one of the contractions of bench/matmul.sh, f32, alpha 1:
 *     MxKxN        C[M, N] = A[M, K] B[K, N], row-major, no transposes
 *     MxKxN:nt     C[M, N] = A[M, K] B[N, K]^T (CblasTrans, ldb = K)
 *     qk:BxHxTxD   attention scores per batch and head, as examples/block.mlir
 *                  writes them: s[b, h, i, j] = sum_d q[b, i, h, d] k[b, j, h, d]
 *                  (B*H calls: M = N = T, K = D, lda = ldb = H*D, k transposed)
 *     pv:BxHxTxD   o[b, i, h, d] = sum_j p[b, h, i, j] v[b, j, h, d]
 *                  (B*H calls: M = T, N = D, K = T, lda = T, ldb = ldc = H*D)
 *   i.e. the calls the generated code makes, on the same strided layouts.
 *   Buffers allocated and filled once (uniform [-1, 1), fixed seed); one
 *   untimed warm-up, then the best of ITERS timed runs (CLOCK_MONOTONIC
 *   around the calls alone), beta 0. Then the same again on a freshly
 *   malloc'ed result each run (kept until the end, as the caller of a
 *   compiled entry holds its results), which is what a compiled entry does:
 *   the difference is the first touch of fresh pages.
 *   Prints one line per spec:
 *     SPEC calls gflop best_ms gflops best_fresh_ms
 *   The thread count is OpenBLAS's (bench/matmul.sh sets one thread).
 *
 * Build: gcc -O2 -o matmul_blas bench/matmul_blas.c -lopenblas
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum kind { MM, MM_NT, QK, PV };

struct spec {
  enum kind kind;
  long b, h, t, d; /* qk/pv */
  long m, k, n;    /* mm */
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *alloc_floats(long n) {
  float *p = malloc((size_t)n * sizeof(float));
  if (!p) {
    fprintf(stderr, "matmul_blas: out of memory\n");
    exit(1);
  }
  return p;
}

static float *random_matrix(long n, unsigned *state) {
  float *p = alloc_floats(n);
  for (long i = 0; i < n; ++i) {
    *state = *state * 1103515245u + 12345u;
    p[i] = (float)((*state >> 8) & 0xFFFF) / 32768.0f - 1.0f;
  }
  return p;
}

static int parse(const char *s, struct spec *sp) {
  memset(sp, 0, sizeof(*sp));
  if (sscanf(s, "qk:%ldx%ldx%ldx%ld", &sp->b, &sp->h, &sp->t, &sp->d) == 4) {
    sp->kind = QK;
    return sp->b > 0 && sp->h > 0 && sp->t > 0 && sp->d > 0;
  }
  if (sscanf(s, "pv:%ldx%ldx%ldx%ld", &sp->b, &sp->h, &sp->t, &sp->d) == 4) {
    sp->kind = PV;
    return sp->b > 0 && sp->h > 0 && sp->t > 0 && sp->d > 0;
  }
  char tail[8] = "";
  int got = sscanf(s, "%ldx%ldx%ld%7s", &sp->m, &sp->k, &sp->n, tail);
  if (got < 3 || sp->m <= 0 || sp->k <= 0 || sp->n <= 0)
    return 0;
  if (got == 4 && strcmp(tail, ":nt") != 0)
    return 0;
  sp->kind = got == 4 ? MM_NT : MM;
  return 1;
}

/* Element counts of the two operands and the result. */
static void sizes(const struct spec *sp, long *na, long *nb, long *nc) {
  long bh = sp->b * sp->h, td = sp->b * sp->t * sp->h * sp->d;
  switch (sp->kind) {
  case MM:
  case MM_NT:
    *na = sp->m * sp->k, *nb = sp->k * sp->n, *nc = sp->m * sp->n;
    break;
  case QK:
    *na = td, *nb = td, *nc = bh * sp->t * sp->t;
    break;
  case PV:
    *na = bh * sp->t * sp->t, *nb = td, *nc = td;
    break;
  }
}

/* The calls of one run; returns their count. */
static long run(const struct spec *sp, const float *A, const float *B, float *C) {
  long H = sp->h, T = sp->t, D = sp->d;
  switch (sp->kind) {
  case MM:
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)sp->m, (int)sp->n, (int)sp->k,
                1.0f, A, (int)sp->k, B, (int)sp->n, 0.0f, C, (int)sp->n);
    return 1;
  case MM_NT:
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)sp->m, (int)sp->n, (int)sp->k, 1.0f,
                A, (int)sp->k, B, (int)sp->k, 0.0f, C, (int)sp->n);
    return 1;
  case QK:
    for (long b = 0; b < sp->b; ++b)
      for (long h = 0; h < H; ++h)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)T, (int)T, (int)D, 1.0f,
                    A + b * T * H * D + h * D, (int)(H * D), B + b * T * H * D + h * D,
                    (int)(H * D), 0.0f, C + (b * H + h) * T * T, (int)T);
    return sp->b * H;
  case PV:
    for (long b = 0; b < sp->b; ++b)
      for (long h = 0; h < H; ++h)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)T, (int)D, (int)T, 1.0f,
                    A + (b * H + h) * T * T, (int)T, B + b * T * H * D + h * D, (int)(H * D),
                    0.0f, C + b * T * H * D + h * D, (int)(H * D));
    return sp->b * H;
  }
  return 0;
}

static double flops(const struct spec *sp) {
  if (sp->kind == MM || sp->kind == MM_NT)
    return 2.0 * (double)sp->m * (double)sp->n * (double)sp->k;
  return 2.0 * (double)(sp->b * sp->h) * (double)sp->t * (double)sp->t * (double)sp->d;
}

/* OpenBLAS's name of the kernels it chose (DYNAMIC_ARCH builds). */
char *openblas_get_corename(void);

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--core") == 0) {
    printf("%s\n", openblas_get_corename());
    return 0;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: %s ITERS SPEC [SPEC ...]\n", argv[0]);
    return 2;
  }
  int iters = atoi(argv[1]);
  if (iters < 1)
    iters = 1;
  unsigned state = 42;
  for (int a = 2; a < argc; ++a) {
    struct spec sp;
    if (!parse(argv[a], &sp)) {
      fprintf(stderr, "matmul_blas: bad spec %s\n", argv[a]);
      return 2;
    }
    long na, nb, nc;
    sizes(&sp, &na, &nb, &nc);
    float *A = random_matrix(na, &state), *B = random_matrix(nb, &state);
    float *C = random_matrix(nc, &state);
    long calls = run(&sp, A, B, C); /* warm-up */
    double best = -1, best_fresh = -1;
    for (int it = 0; it < iters; ++it) {
      double t0 = now_s();
      run(&sp, A, B, C);
      double t = now_s() - t0;
      if (best < 0 || t < best)
        best = t;
    }
    float **kept = calloc((size_t)iters, sizeof(float *));
    for (int it = 0; it < iters; ++it) {
      double t0 = now_s();
      kept[it] = alloc_floats(nc);
      run(&sp, A, B, kept[it]);
      double t = now_s() - t0;
      if (best_fresh < 0 || t < best_fresh)
        best_fresh = t;
    }
    for (int it = 0; it < iters; ++it)
      free(kept[it]);
    free(kept);
    printf("%s %ld %.3f %.3f %.2f %.3f\n", argv[a], calls, flops(&sp) / 1e9, best * 1e3,
           flops(&sp) / best / 1e9, best_fresh * 1e3);
    fflush(stdout);
    free(A);
    free(B);
    free(C);
  }
  return 0;
}
