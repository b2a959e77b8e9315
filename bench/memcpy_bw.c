/* memcpy_bw.c - memcpy bandwidth of this machine (bench/ops.sh).
 *
 * Usage: memcpy_bw ITERS MBYTES
 *   Copies an MBYTES buffer into another (both allocated and touched once)
 *   ITERS times after one warm-up copy and prints
 *     best_ms gbytes_per_s
 *   with GB/s = 2 * MBYTES * 2^20 / best time (bytes read plus bytes
 *   written), the traffic measure bench/ops.sh uses for the ops too.
 *
 * Build: gcc -O2 -o memcpy_bw bench/memcpy_bw.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: memcpy_bw ITERS MBYTES\n");
    return 1;
  }
  int iters = atoi(argv[1]);
  size_t bytes = (size_t)atol(argv[2]) << 20;
  if (iters < 1 || bytes == 0) {
    fprintf(stderr, "memcpy_bw: ITERS and MBYTES must be positive\n");
    return 1;
  }
  char *src = malloc(bytes), *dst = malloc(bytes);
  if (!src || !dst) {
    fprintf(stderr, "memcpy_bw: cannot allocate 2 x %zu bytes\n", bytes);
    return 1;
  }
  memset(src, 1, bytes);
  memset(dst, 0, bytes);
  memcpy(dst, src, bytes);
  double best = 1e30;
  for (int i = 0; i < iters; ++i) {
    src[i % bytes] = (char)i; /* keep each copy observable */
    double t0 = now_s();
    memcpy(dst, src, bytes);
    double t = now_s() - t0;
    if (t < best)
      best = t;
  }
  printf("%.3f %.2f\n", best * 1e3, 2.0 * (double)bytes / best / 1e9);
  return dst[bytes / 2] == 1 ? 0 : 2;
}
