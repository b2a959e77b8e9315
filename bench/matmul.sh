#!/usr/bin/env bash
# Contraction throughput benchmark: the CPU code that dtensor-run generates
# for the Block's contractions against OpenBLAS cblas_sgemm called directly
# from C on the same layouts, single thread.
#
# What it measures
#   Specs (f32), default the contractions of the RFC Block (batch 32 x seq
#   128 tokens, dim 512, 8 heads of 64, hidden 2048), per rank of the 4-rank
#   data-parallel run (1024 tokens, batch 8) and on one rank (4096 tokens,
#   batch 32):
#     MxKxN       linalg.matmul C[M,N] = A[M,K] B[K,N]: q/k/v/o projections
#                 1024x512x512, MLP up 1024x512x2048, down 1024x2048x512
#                 (and the 4096-token ones)
#     MxKxN:nt    linalg.matmul with indexing_maps reading B as [N,K] (torch's
#                 linear, x w^T): 1024x512x512:nt
#     qk:BxHxTxD  the attention scores linalg.generic of examples/block.mlir,
#                 s[b,h,i,j] = sum_d q[b,i,h,d] k[b,j,h,d]: qk:8x8x128x64
#     pv:BxHxTxD  o[b,i,h,d] = sum_j p[b,h,i,j] v[b,j,h,d]: pv:8x8x128x64
#                 (and qk/pv:32x8x128x64)
#   - dtensor-mlir: one global-view program ($OUT/matmul.mlir) with one
#     function per spec: tensor.empty + linalg.fill 0 + the contraction, as a
#     frontend emits it; run with `dtensor-run --np 1 --iters $ITERS --entry
#     <name>` (best of $ITERS calls of the JIT-compiled entry function).
#   - OpenBLAS: bench/matmul_blas.c (gcc -O2 -lopenblas): the cblas_sgemm
#     calls the generated code should make (one, or one per batch and head
#     on strided views, k transposed for qk), beta 0, on preallocated
#     buffers, one warm-up, best of $ITERS; and, as a last column, the same
#     calls into a freshly malloc'ed result each time (what a compiled entry
#     does), which tells how much of a gap is first touch of fresh memory.
#   Both with OPENBLAS_NUM_THREADS=1 (and OMP_NUM_THREADS=1).
#   The two sides alternate over $ROUNDS rounds per spec (default 3) and
#   each keeps its best time, so that a burst of other load on the machine
#   hits both sides alike.
#   GFLOP/s = 2*M*N*K (times B*H) / time; ratio = generated / direct GFLOP/s.
#
#   Honest reading: with dtensor-linalg-to-blas the plain GEMMs lower to
#   cblas_sgemm calls (beta 0, no zero fill), so both columns run the same
#   OpenBLAS kernel: the ratio measures the compiled program around it
#   (allocating the result, the loops over batch and head, the JIT'd entry
#   call and passing memref descriptors). The per-head products of qk and pv
#   (at most small-gemm-macs = 2^20 multiply-adds per call) call the
#   runtime's dtrt_sgemm_small instead (dtrt/dtrt_cpu.h): there the ratio
#   compares that kernel with OpenBLAS. The "calls" column gives the GEMM
#   call sites of the lowered entry and "kernel" their callee (blas:
#   cblas_sgemm, dtrt: dtrt_sgemm_small; loops: the contraction became
#   scalar loops, as the :nt, qk and pv specs do on a build without that
#   pass).
#   OpenBLAS core: both sides use the same OpenBLAS kernels. OpenBLAS 0.3.21
#   runs CPUs newer than itself (Intel Emerald Rapids and later) on its
#   Prescott (SSE3) kernels; dtensor-run then gives its ranks
#   OPENBLAS_CORETYPE=SkylakeX (AVX-512) or Haswell (AVX2), and this script
#   sets the same for the direct timer. A core set by the caller
#   (OPENBLAS_CORETYPE) is kept on both sides.
#   Runtime: about 1 min on 2 cores with the defaults (minutes more on a
#   build where qk/pv are loops).
#
# How to run (from anywhere; the build must exist, this script never builds
# the project; it compiles bench/matmul_blas.c into $OUT):
#   bench/matmul.sh
#   DTENSOR_RUN=/other/build/bin/dtensor-run DTENSOR_OPT=/other/build/bin/dtensor-opt bench/matmul.sh
#     (another build, e.g. the "before" of a change)
# Environment overrides:
#   DTENSOR_RUN (default <repo>/build/bin/dtensor-run)
#   DTENSOR_OPT (default <repo>/build/bin/dtensor-opt)
#   CC (default gcc)   ITERS (default 5)   ROUNDS (default 3)
#   SHAPES (default "1024x512x512 1024x512x2048 1024x2048x512 4096x512x512
#     4096x512x2048 4096x2048x512 1024x512x512:nt qk:8x8x128x64 pv:8x8x128x64
#     qk:32x8x128x64 pv:32x8x128x64")
#   OUT (default <repo>/bench/out, gitignored)
# The table is also written to $OUT/matmul.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_RUN="${DTENSOR_RUN:-$ROOT/build/bin/dtensor-run}"
DTENSOR_OPT="${DTENSOR_OPT:-$ROOT/build/bin/dtensor-opt}"
CC="${CC:-gcc}"
ITERS="${ITERS:-5}"
ROUNDS="${ROUNDS:-3}"
SHAPES="${SHAPES:-1024x512x512 1024x512x2048 1024x2048x512 4096x512x512 4096x512x2048 4096x2048x512 1024x512x512:nt qk:8x8x128x64 pv:8x8x128x64 qk:32x8x128x64 pv:32x8x128x64}"
OUT="${OUT:-$ROOT/bench/out}"

die() { echo "matmul.sh: error: $*" >&2; exit 1; }
[[ -x "$DTENSOR_RUN" ]] || die "dtensor-run not found or not executable: $DTENSOR_RUN (build the project first)"
[[ -x "$DTENSOR_OPT" ]] || die "dtensor-opt not found or not executable: $DTENSOR_OPT (build the project first)"
command -v "$CC" >/dev/null || die "$CC not found"
[[ "$ITERS" =~ ^[1-9][0-9]*$ ]] || die "ITERS must be a positive integer"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer"
mkdir -p "$OUT"
CORES=$(nproc)  # before OMP_NUM_THREADS is set: nproc honours it
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

# --- the direct BLAS timer ----------------------------------------------------------
BLAS_BIN="$OUT/matmul_blas"
"$CC" -O2 -o "$BLAS_BIN" "$ROOT/bench/matmul_blas.c" -lopenblas ||
  die "cannot compile bench/matmul_blas.c (install libopenblas-dev)"

# The OpenBLAS core both sides use: what dtensor-run gives its ranks
# (tools/dtensor-run/Launcher.cpp, blasCoreOverride) when OpenBLAS falls back
# to Prescott on a CPU with AVX2 or AVX-512.
if [[ -z ${OPENBLAS_CORETYPE:-} && $("$BLAS_BIN" --core) == Prescott ]]; then
  flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
  has() { for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }
  if has avx512f avx512cd avx512bw avx512dq avx512vl; then
    export OPENBLAS_CORETYPE=SkylakeX
  elif has avx2 fma; then
    export OPENBLAS_CORETYPE=Haswell
  fi
fi
BLAS_CORE=$("$BLAS_BIN" --core)

# --- the global-view program: one function per spec ---------------------------------
# name_of SPEC: the entry function of a spec.
name_of() {
  case $1 in
    qk:* | pv:*) echo "${1%%:*}_${1#*:}" ;;
    *:nt) echo "mmnt_${1%:nt}" ;;
    *) echo "mm_$1" ;;
  esac
}

# emit_attention KIND B H T D: the Block's scores (qk) or values (pv) generic.
emit_attention() {
  local name=$1_$2x$3x$4x$5 tq="tensor<$2x$4x$3x$5xf32>" ts="tensor<$2x$3x$4x$4xf32>"
  local ta=$tq tb=$tq tc=$ts maps="#qk_q, #qk_k, #qk_s"
  if [[ $1 == pv ]]; then
    ta=$ts tc=$tq maps="#pv_p, #pv_v, #pv_o"
  fi
  cat <<END
func.func @$name(%a: $ta, %b: $tb) -> $tc {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : $tc
  %z = linalg.fill ins(%zero : f32) outs(%e : $tc) -> $tc
  %c = linalg.generic {indexing_maps = [$maps], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : $ta, $tb) outs(%z : $tc) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> $tc
  return %c : $tc
}
END
}

# emit_matmul M K N [nt]: linalg.matmul, B read as [N, K] with nt.
emit_matmul() {
  local ta="tensor<$1x$2xf32>" tb="tensor<$2x$3xf32>" tc="tensor<$1x$3xf32>" maps="" name=mm_$1x$2x$3
  if [[ -n ${4:-} ]]; then
    tb="tensor<$3x$2xf32>" name=mmnt_$1x$2x$3
    maps="indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] "
  fi
  cat <<END
func.func @$name(%a: $ta, %b: $tb) -> $tc {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : $tc
  %z = linalg.fill ins(%zero : f32) outs(%e : $tc) -> $tc
  %c = linalg.matmul ${maps}ins(%a, %b : $ta, $tb) outs(%z : $tc) -> $tc
  return %c : $tc
}
END
}

# flop_of SPEC: its GFLOP.
flop_of() {
  local d
  read -r -a d <<<"$(tr -c '0-9\n' ' ' <<<"$1")"
  if [[ $1 == qk:* || $1 == pv:* ]]; then
    awk -v b="${d[0]}" -v h="${d[1]}" -v t="${d[2]}" -v e="${d[3]}" 'BEGIN {print 2 * b * h * t * t * e / 1e9}'
  else
    awk -v m="${d[0]}" -v k="${d[1]}" -v n="${d[2]}" 'BEGIN {print 2 * m * n * k / 1e9}'
  fi
}

PROG="$OUT/matmul.mlir"
{
  echo "// Generated by bench/matmul.sh: one contraction per spec (f32, from a zero fill)."
  echo 'dtensor.mesh @mesh = <["dp" = 1]>'
  echo '#qk_q = affine_map<(b, h, i, j, d) -> (b, i, h, d)>'
  echo '#qk_k = affine_map<(b, h, i, j, d) -> (b, j, h, d)>'
  echo '#qk_s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>'
  echo '#pv_p = affine_map<(b, i, h, d, j) -> (b, h, i, j)>'
  echo '#pv_v = affine_map<(b, i, h, d, j) -> (b, j, h, d)>'
  echo '#pv_o = affine_map<(b, i, h, d, j) -> (b, i, h, d)>'
  for s in $SHAPES; do
    if [[ $s =~ ^(qk|pv):([0-9]+)x([0-9]+)x([0-9]+)x([0-9]+)$ ]]; then
      emit_attention "${BASH_REMATCH[@]:1}"
    elif [[ $s =~ ^([0-9]+)x([0-9]+)x([0-9]+)(:nt)?$ ]]; then
      emit_matmul "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}"
    else
      die "bad spec '$s' (want MxKxN, MxKxN:nt, qk:BxHxTxD or pv:BxHxTxD)"
    fi
  done
} >"$PROG"

LOWERED="$OUT/matmul.lowered.mlir"
"$DTENSOR_OPT" --dtensor-cpu-pipeline "$PROG" >"$LOWERED" 2>"$OUT/matmul.lowered.log" ||
  die "dtensor-opt --dtensor-cpu-pipeline failed on $PROG (see $OUT/matmul.lowered.log)"
# calls_of SPEC: "<call sites> <kernel>" of the lowered entry of SPEC.
calls_of() {
  awk -v f="llvm.func @$(name_of "$1")(" '
    index($0, f) { on = 1; next }
    on && /^  llvm.func / { on = 0 }
    on && /llvm.call @cblas_sgemm/ { n++; blas++ }
    on && /llvm.call @dtrt_sgemm_small/ { n++; dtrt++ }
    END { print n + 0, (n == 0 ? "loops" : blas && dtrt ? "both" : blas ? "blas" : "dtrt") }' "$LOWERED"
}

REPORT="$OUT/matmul.txt"
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

say "contraction throughput, f32, single thread (OPENBLAS_NUM_THREADS=1), best of $ITERS calls, best of $ROUNDS rounds"
say "OpenBLAS core: $BLAS_CORE${OPENBLAS_CORETYPE:+ (OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE)}"
say "host: $CORES CPUs, load average at start $(cut -d' ' -f1-3 /proc/loadavg) (other processes skew the timings)"
say "dtensor-opt: $DTENSOR_OPT"
say "generated: dtensor-run $PROG --np 1 --iters $ITERS --entry <name> (time of the entry function);"
say "           calls = GEMM call sites in the lowered entry; kernel = their callee"
say "           (blas: cblas_sgemm, dtrt: the runtime's dtrt_sgemm_small, loops: no call)"
say "direct:    $BLAS_BIN $ITERS SPEC (the same cblas_sgemm calls on the same layouts, beta 0,"
say "           preallocated buffers; and into a fresh result each time, as a compiled entry does)"
say ""

FMT='%-16s | %5s | %6s | %6s | %12s | %14s | %11s | %13s | %6s | %14s\n'
# shellcheck disable=SC2059
{
  printf "$FMT" spec calls kernel GFLOP "generated ms" "generated GF/s" "OpenBLAS ms" "OpenBLAS GF/s" ratio "BLAS fresh ms"
  printf "$FMT" ---------------- ----- ------ ------ ------------ -------------- ----------- ------------- ------ --------------
} | tee -a "$REPORT"
for s in $SHAPES; do
  log="$OUT/matmul_${s//:/_}.log"
  : >"$log"
  g_ms=- b_ms=- f_ms=-
  # $ROUNDS rounds, the two sides alternating; each keeps its best time.
  for ((r = 0; r < ROUNDS; r++)); do
    rc=0
    "$DTENSOR_RUN" "$PROG" --np 1 --iters "$ITERS" --entry "$(name_of "$s")" >>"$log" 2>&1 || rc=$?
    t=$(awk '/^rank 0: [0-9.]+ ms/ {t = $3} END {print t}' "$log")
    if [[ $rc -ne 0 || -z $t ]]; then
      echo "matmul.sh: dtensor-run failed for $s (status $rc), see $log" >&2
      tail -n 5 "$log" >&2
      g_ms=-
      break
    fi
    g_ms=$(awk -v a="$g_ms" -v b="$t" 'BEGIN {print (a == "-" || b + 0 < a + 0) ? b : a}')
    line=$("$BLAS_BIN" "$ITERS" "$s") || line=
    if [[ -n $line ]]; then
      read -r _ _ _ t _ tf <<<"$line"
      b_ms=$(awk -v a="$b_ms" -v b="$t" 'BEGIN {print (a == "-" || b + 0 < a + 0) ? b : a}')
      f_ms=$(awk -v a="$f_ms" -v b="$tf" 'BEGIN {print (a == "-" || b + 0 < a + 0) ? b : a}')
    fi
  done
  read -r ncalls kernel <<<"$(calls_of "$s")"
  awk -v s="$s" -v c="$ncalls" -v k="$kernel" -v fl="$(flop_of "$s")" -v g="$g_ms" -v b="$b_ms" -v f="$f_ms" -v fmt="$FMT" 'BEGIN {
    gg = (g ~ /^[0-9.]+$/ && g > 0) ? fl / (g / 1e3) : -1
    bb = (b ~ /^[0-9.]+$/ && b > 0) ? fl / (b / 1e3) : -1
    printf fmt, s, c, k, sprintf("%.2f", fl),
      (gg < 0 ? "-" : sprintf("%.2f", g)), (gg < 0 ? "-" : sprintf("%.1f", gg)),
      (bb < 0 ? "-" : sprintf("%.2f", b)), (bb < 0 ? "-" : sprintf("%.1f", bb)),
      (gg < 0 || bb < 0 ? "-" : sprintf("%.2f", gg / bb)),
      (f ~ /^[0-9.]+$/ ? sprintf("%.2f", f) : "-") }' | tee -a "$REPORT"
done
say ""
say "ratio = generated / OpenBLAS GFLOP/s (blas: 1.00 = no overhead around the sgemm calls;"
say "dtrt: the runtime's small-GEMM kernel against OpenBLAS on the same products)"
say "BLAS fresh ms: matmul_blas.c making the same calls into a freshly malloc'ed result each time"
say "(what the compiled entry does): the part of a gap that is first touch of a fresh result"
say "buffer rather than the compiled code itself"
say "logs and programs: $OUT (matmul_*.log, matmul.mlir, matmul.lowered.mlir)"
