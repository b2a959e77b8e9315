"""dtrt_sgemm_small through ctypes, against numpy in float64.

Usage: small_gemm.py LIBDTRT
Loads the distribution's OpenBLAS first (RTLD_GLOBAL), as a compiled program
linked with it has it, then libdtrt. Prints the kernel in use
(dtrt_sgemm_small_isa, chosen from the CPU and DTRT_SMALL_GEMM_ISA) and
"small_gemm: PASS <n> products" when every product of both layouts and all
transposes, with alpha and beta, matches.
"""
import ctypes
import ctypes.util
import sys

import numpy as np

ROW, COL, NO, TRANS = 101, 102, 111, 112


def main():
    blas = ctypes.util.find_library("openblas")
    if blas:
        ctypes.CDLL(blas, mode=ctypes.RTLD_GLOBAL)
    dtrt = ctypes.CDLL(sys.argv[1])
    dtrt.dtrt_sgemm_small_isa.restype = ctypes.c_char_p
    gemm = dtrt.dtrt_sgemm_small
    fp = ctypes.POINTER(ctypes.c_float)
    i32 = ctypes.c_int32
    gemm.argtypes = [i32] * 6 + [ctypes.c_float, fp, i32, fp, i32, ctypes.c_float, fp, i32]
    print("isa:", dtrt.dtrt_sgemm_small_isa().decode())
    rng = np.random.default_rng(5)
    count = 0
    for m, n, k in [(1, 1, 1), (7, 13, 5), (33, 70, 17), (128, 64, 128), (64, 128, 64)]:
        for layout in (ROW, COL):
            for ta in (NO, TRANS):
                for tb in (NO, TRANS):
                    for alpha, beta in ((1.0, 0.0), (0.5, -1.0)):
                        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
                        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
                        c = rng.uniform(-1, 1, (m, n)).astype(np.float32)
                        # op(X) stored: transposed when asked; column-major
                        # storage is the transpose of the row-major one.
                        sa = a.T if ta == TRANS else a
                        sb = b.T if tb == TRANS else b
                        if layout == COL:
                            sa, sb, sc = sa.T, sb.T, c.T
                        else:
                            sc = c
                        sa = np.ascontiguousarray(sa)
                        sb = np.ascontiguousarray(sb)
                        out = np.ascontiguousarray(sc).copy()
                        gemm(layout, ta, tb, m, n, k, alpha,
                             sa.ctypes.data_as(fp), sa.shape[1],
                             sb.ctypes.data_as(fp), sb.shape[1], beta,
                             out.ctypes.data_as(fp), out.shape[1])
                        got = out.T if layout == COL else out
                        want = alpha * (a.astype(np.float64) @ b.astype(np.float64)) + beta * c
                        if not np.allclose(got, want, rtol=1e-4, atol=1e-4):
                            print("small_gemm: FAIL", m, n, k, layout, ta, tb, alpha, beta)
                            return 1
                        count += 1
    print("small_gemm: PASS %d products" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
