#!/usr/bin/env bash
# Block forward benchmark: the RFC transformer Block at its real size, data
# parallel on 1, 2 and 4 CPU ranks, compiled by dtensor-mlir (dtensor-run)
# next to the same Block through PyTorch's DTensor (bench/block_torch.py).
#
# What it measures
#   The Block (batch 32, seq 128, dim 512, heads 8, hidden 2048, f32,
#   bias-free; projections, 4-D attention softmax(Q K^T / 8) V over heads,
#   residual, relu MLP, residual), x sharded on the batch S(0) over a 1-D
#   mesh of N ranks, the six weights replicated: no collective in the forward.
#   For each N in $NPS:
#     - dtensor-mlir: examples/gen_block.py --layout dp --mesh N (for N = 4
#       the ops of examples/block.mlir, in another order), run with
#       `dtensor-run --np N --iters $ITERS --check` (mpirun, one process per
#       rank; the check runs the unpartitioned program on one rank and
#       compares the outputs). Each rank prints the best of $ITERS calls of
#       the entry function (JIT-compiled; matmuls call OpenBLAS cblas_sgemm).
#     - dtensor-mlir on the Block as torch-mlir writes it: bench/gen_block_torch.py
#       (the same `block` function as block_torch.py, through the torch front
#       end dtensor_mlir.from_torch: torch.export + torch-mlir linalg-on-
#       tensors, x S(0) over "dp" = N), run the same way (`--check`). Needs
#       torch, torch-mlir and the build's python package
#       (<build>/python_packages); TORCH_MLIR=0 skips it, n/a when missing.
#     - PyTorch: bench/block_torch.py --np N --iters $ITERS --check
#       (torch.multiprocessing.spawn, gloo, DTensor with Shard(0) on x and
#       Replicate weights, torch.no_grad(), best of $ITERS forwards per rank).
#   Both sides are single-threaded per rank: OPENBLAS_NUM_THREADS=1 and
#   OMP_NUM_THREADS=1 for dtensor-run, torch.set_num_threads(1) per process.
#   ms/rank = the slowest rank's best-of-$ITERS time of one forward;
#   ratio = dtensor-mlir ms / PyTorch ms (> 1: dtensor-mlir slower), for the
#   hand-written Block and for torch-mlir's.
#   With more ranks than cores (e.g. 4 ranks on 2 cores) the ranks share
#   cores (Open MPI --oversubscribe / spawned processes), so per-rank times
#   grow with N instead of shrinking; the script says so in its output.
#   Runtime: about 1-2 minutes on 2 cores with the defaults (most of it
#   process start-up: JIT compilation, importing torch in each process).
#
# PyTorch: if `import torch` fails the PyTorch column reads n/a and the
# script prints "PyTorch: not available (<reason>)". Install it with
#   python3 -m pip install torch --index-url https://download.pytorch.org/whl/cpu
# (or from PyPI: python3 -m pip install torch, a CUDA build that also runs on CPU).
#
# How to run (from anywhere; the build must exist, this script never builds):
#   bench/block_forward.sh
# Environment overrides:
#   DTENSOR_RUN (default <repo>/build/bin/dtensor-run)   PYTHON (default python3)
#   NPS (default "1 2 4")   ITERS (default 3)   CHECK (default 1; 0 skips --check)
#   TORCH_MLIR (default 1; 0 skips the torch-mlir Block)
#   RUN_FLAGS (default none): extra dtensor-run flags, e.g. --vectorize=false
#     (the scalar loops of the pipeline before vectorization) or --threads 2
#   BATCH SEQ DIM HEADS HIDDEN (defaults 32 128 512 8 2048)
#   OUT (default <repo>/bench/out, gitignored; programs + logs go there)
# The table is also written to $OUT/block_forward.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_RUN="${DTENSOR_RUN:-$ROOT/build/bin/dtensor-run}"
PYTHON="${PYTHON:-python3}"
NPS="${NPS:-1 2 4}"
ITERS="${ITERS:-3}"
CHECK="${CHECK:-1}"
TORCH_MLIR="${TORCH_MLIR:-1}"
PYPKG="$(cd "$(dirname "$DTENSOR_RUN")/.." && pwd)/python_packages"
BATCH="${BATCH:-32}" SEQ="${SEQ:-128}" DIM="${DIM:-512}" HEADS="${HEADS:-8}" HIDDEN="${HIDDEN:-2048}"
OUT="${OUT:-$ROOT/bench/out}"

die() { echo "block_forward.sh: error: $*" >&2; exit 1; }
[[ -x "$DTENSOR_RUN" ]] || die "dtensor-run not found or not executable: $DTENSOR_RUN (build the project first)"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
command -v mpirun >/dev/null || die "mpirun not found (install openmpi-bin)"
mkdir -p "$OUT"
CORES=$(nproc)  # before OMP_NUM_THREADS is set: nproc honours it
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

REPORT="$OUT/block_forward.txt"
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

# --- PyTorch available? --------------------------------------------------------
TORCH_OK=1
if torch_ver=$("$PYTHON" -c 'import torch, torch.distributed as d
from torch.distributed.tensor import DTensor
assert d.is_available() and d.is_gloo_available(), "torch.distributed/gloo not built in"
print(torch.__version__)' 2>"$OUT/block_torch_import.err"); then
  :
else
  TORCH_OK=0
  why=$(grep -v '^\s' "$OUT/block_torch_import.err" | tail -n 1)
  say "PyTorch: not available (${why:-import torch failed}); install: $PYTHON -m pip install torch --index-url https://download.pytorch.org/whl/cpu (or $PYTHON -m pip install torch from PyPI)"
fi

say "Block forward: batch $BATCH, seq $SEQ, dim $DIM, heads $HEADS, hidden $HIDDEN, f32; data parallel (x S(0), weights R)"
say "host: $CORES CPUs, load average at start $(cut -d' ' -f1-3 /proc/loadavg); 1 thread per rank (OPENBLAS_NUM_THREADS=1 / torch.set_num_threads(1)); best of $ITERS forwards per rank"
say "dtensor-run: $DTENSOR_RUN"
[[ $TORCH_OK -eq 1 ]] && say "PyTorch: $torch_ver, DTensor over gloo (bench/block_torch.py)"
for n in $NPS; do
  if (( n > CORES )); then
    say "note: $n ranks oversubscribe the $CORES cores of this machine: ranks share cores, per-rank times include waiting for a core"
  fi
done
say ""

# extract "rank r: X ms" lines -> "max min"
rank_times() { awk '/^rank [0-9]+: [0-9.]+ ms/ {t = $3 + 0; if (n == 0 || t > mx) mx = t; if (n == 0 || t < mn) mn = t; n++}
                    END {if (n) printf "%.1f %.1f\n", mx, mn; else print "- -"}' "$1"; }

FMT='%5s | %20s | %23s | %18s | %20s | %14s | %-22s\n'
# shellcheck disable=SC2059
{
  printf "$FMT" ranks "dtensor-mlir ms/rank" "PyTorch DTensor ms/rank" "ratio (mlir/torch)" "torch-mlir Block ms" "ratio (t-mlir)" "checks (mlir; t-mlir; torch)"
  printf "$FMT" ----- -------------------- ----------------------- ------------------ -------------------- -------------- ----------------------
} >"$OUT/block_forward.table"

for n in $NPS; do
  prog="$OUT/block_dp_$n.mlir"
  "$PYTHON" "$ROOT/examples/gen_block.py" --layout dp --mesh "$n" --batch "$BATCH" --seq "$SEQ" \
    --dim "$DIM" --heads "$HEADS" --hidden "$HIDDEN" -o "$prog"
  log="$OUT/block_forward_mlir_$n.log"
  check_flag=()
  [[ $CHECK == 1 ]] && check_flag=(--check)
  echo "block_forward.sh: dtensor-run $n rank(s) ..." >&2
  rc=0
  "$DTENSOR_RUN" "$prog" --np "$n" --iters "$ITERS" "${check_flag[@]}" ${RUN_FLAGS:-} >"$log" 2>&1 || rc=$?
  read -r m_max _ < <(rank_times "$log")
  m_check=$(awk '/^check: / {print $2; exit}' "$log")
  [[ $rc -eq 0 ]] || { m_check="exit $rc"; echo "block_forward.sh: dtensor-run failed, see $log" >&2; tail -n 5 "$log" >&2; }

  # The Block as torch-mlir writes it (torch front end), run the same way.
  f_max=n/a f_check=n/a
  if [[ $TORCH_MLIR == 1 ]]; then
    fprog="$OUT/block_torch_mlir_$n.mlir"
    flog="$OUT/block_forward_torch_mlir_$n.log"
    echo "block_forward.sh: dtensor-run on torch-mlir's Block, $n rank(s) ..." >&2
    if PYTHONPATH="$PYPKG${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" "$ROOT/bench/gen_block_torch.py" --mesh "$n" \
      --batch "$BATCH" --seq "$SEQ" --dim "$DIM" --heads "$HEADS" --hidden "$HIDDEN" -o "$fprog" >"$flog" 2>&1; then
      check_flag=()
      [[ $CHECK == 1 ]] && check_flag=(--check)
      rc=0
      "$DTENSOR_RUN" "$fprog" --np "$n" --iters "$ITERS" "${check_flag[@]}" ${RUN_FLAGS:-} >>"$flog" 2>&1 || rc=$?
      read -r f_max _ < <(rank_times "$flog")
      f_check=$(awk '/^check: / {print $2; exit}' "$flog")
      [[ $rc -eq 0 ]] || { f_check="exit $rc"; echo "block_forward.sh: dtensor-run failed, see $flog" >&2; tail -n 5 "$flog" >&2; }
    else
      echo "block_forward.sh: gen_block_torch.py failed or torch-mlir missing, see $flog" >&2
    fi
  fi

  t_max=n/a t_check=n/a
  if [[ $TORCH_OK -eq 1 ]]; then
    tlog="$OUT/block_forward_torch_$n.log"
    echo "block_forward.sh: PyTorch DTensor $n rank(s) ..." >&2
    check_flag=()
    [[ $CHECK == 1 ]] && check_flag=(--check)
    rc=0
    "$PYTHON" "$ROOT/bench/block_torch.py" --np "$n" --iters "$ITERS" --batch "$BATCH" --seq "$SEQ" \
      --dim "$DIM" --heads "$HEADS" --hidden "$HIDDEN" "${check_flag[@]}" >"$tlog" 2>&1 || rc=$?
    read -r t_max _ < <(rank_times "$tlog")
    t_check=$(sed -n 's/.* collectives=\([^ ]*\) .* check=\([A-Za-z]*\).*/\2, \1 collectives/p' "$tlog")
    [[ $rc -eq 0 ]] || { t_check="exit $rc"; echo "block_forward.sh: block_torch.py failed, see $tlog" >&2; tail -n 5 "$tlog" >&2; }
  fi
  ratio=$(awk -v a="$m_max" -v b="$t_max" 'BEGIN {if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "-"; else printf "%.2f", a / b}')
  fratio=$(awk -v a="$f_max" -v b="$t_max" 'BEGIN {if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "-"; else printf "%.2f", a / b}')
  # shellcheck disable=SC2059
  printf "$FMT" "$n" "$m_max" "$t_max" "$ratio" "$f_max" "$fratio" "${m_check:--}; ${f_check:--}; ${t_check:--}" >>"$OUT/block_forward.table"
done

tee -a "$REPORT" <"$OUT/block_forward.table"
say ""
say "ms/rank: the slowest rank's best-of-$ITERS time of one Block forward (JIT-compiled entry / DTensor forward);"
say "ratio = dtensor-mlir / PyTorch (> 1: dtensor-mlir slower); torch-mlir Block: the same Block through the torch"
say "front end (bench/gen_block_torch.py), ratio (t-mlir) = its ms / PyTorch; checks: dtensor-run --check against the program"
say "on one rank, block_torch.py --check against plain torch on each shard, and the collectives CommDebugMode counted."
say "logs and programs: $OUT (block_forward_*.log, block_dp_*.mlir, block_torch_mlir_*.mlir)"
