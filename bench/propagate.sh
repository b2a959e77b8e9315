#!/usr/bin/env bash
# Sharding-propagation benchmark: dtensor-opt --dtensor-fake-propagate against
# upstream MLIR 22's shard dialect `sharding-propagation` pass.
#
# What it measures
#   1. An N-layer Megatron MLP stack (bench/gen_mlp.py; per layer x @ w1 S(1),
#      relu, @ w2 S(0); x replicated, result requested R) for N in $LAYERS,
#      the same program annotated for each tool.  For each tool:
#        - wall time of the propagation pass alone, from --mlir-timing
#          (ours: the DTensorFakePropagate line; upstream: ShardingPropagation),
#        - total wall time of the tool (parse + pass + print, --mlir-timing Total),
#        - peak RSS of the process (/usr/bin/time -f %M).
#      Output IR goes to /dev/null (printing is still timed in "total").
#      Times are the minimum over $REPEATS runs, peak RSS the maximum.
#      ratio = upstream / ours (> 1 means ours is faster / smaller).
#   2. The conflict case: one elementwise op with $CONFLICT operands whose
#      placements alternate S(0)/S(1)/R.  Upstream enumerates 2^K sharding
#      options there; both tools run under `timeout $TIMEOUT`, reported as
#      "timeout" when they exceed it.
#
# How to run (from anywhere; the build must exist, this script never builds):
#   bench/propagate.sh
# Environment overrides:
#   DTENSOR_OPT  (default <repo>/build/bin/dtensor-opt)
#   MLIR_OPT     (default /usr/lib/llvm-22/bin/mlir-opt)
#   LAYERS       (default "1000 5000 20000")
#   CONFLICT     (default 20)   TIMEOUT (default 120 s)   REPEATS (default 3)
#   STRATEGY     (default global; pytorch for DTensor's op-by-op choice)
#   OUT          (default <repo>/bench/out, gitignored; models + logs go there)
# The printed tables are also written to $OUT/propagate.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_OPT="${DTENSOR_OPT:-$ROOT/build/bin/dtensor-opt}"
MLIR_OPT="${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}"
LAYERS="${LAYERS:-1000 5000 20000}"
CONFLICT="${CONFLICT:-20}"
TIMEOUT="${TIMEOUT:-120}"
REPEATS="${REPEATS:-3}"
STRATEGY="${STRATEGY:-global}"
OUT="${OUT:-$ROOT/bench/out}"
GEN="$ROOT/bench/gen_mlp.py"
PYTHON="${PYTHON:-python3}"

UPSTREAM_PIPELINE='builtin.module(func.func(sharding-propagation))'
OURS_PASS_RE="^'?(DTensorFakePropagate|dtensor-fake-propagate)'?\$"
UPSTREAM_PASS_RE="^'?(ShardingPropagation|sharding-propagation)'?\$"

die() { echo "propagate.sh: error: $*" >&2; exit 1; }

# --- prerequisites ----------------------------------------------------------
[[ -x "$DTENSOR_OPT" ]] || die "dtensor-opt not found or not executable: $DTENSOR_OPT (build the project first)"
[[ -x "$MLIR_OPT" ]] || die "mlir-opt not found or not executable: $MLIR_OPT (install mlir-22-tools)"
[[ -f "$GEN" ]] || die "generator missing: $GEN"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
command -v timeout >/dev/null || die "timeout (coreutils) not found"
if [[ ! -x /usr/bin/time ]]; then
  echo "propagate.sh: /usr/bin/time missing, installing the 'time' package" >&2
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  if ! { $SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq time >/dev/null; }; then
    die "could not install the 'time' package"
  fi
fi
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "REPEATS must be a positive integer"
mkdir -p "$OUT"

# --- helpers ----------------------------------------------------------------
# run_tool NAME PASS_RE LIMIT CMD...
#   Runs CMD with --mlir-timing and output to /dev/null under `timeout LIMIT`.
#   Sets R_PASS R_TOTAL (seconds) R_RSS (MB) and R_STATUS (ok|timeout|failed).
run_tool() {
  local name=$1 pass_re=$2 limit=$3; shift 3
  local log="$OUT/$name.log" rss="$OUT/$name.rss" rc=0
  /usr/bin/time -f %M -o "$rss" timeout "$limit" "$@" --mlir-timing -o /dev/null \
    2>"$log" || rc=$?
  R_PASS=- R_TOTAL=- R_RSS=-
  if [[ $rc -eq 124 ]]; then R_STATUS=timeout; return; fi
  if [[ $rc -ne 0 ]]; then
    R_STATUS=failed
    echo "propagate.sh: $name exited with status $rc; see $log" >&2
    tail -n 5 "$log" >&2
    return
  fi
  R_STATUS=ok
  # Timing rows look like "    0.0315 ( 29.4%)  DTensorFakePropagate";
  # the pass may appear under a nested pipeline, so sum all its rows.
  R_PASS=$(awk -v re="$pass_re" '$NF ~ re && $1 ~ /^[0-9.]+$/ {s += $1; n++}
                                   END {if (n) printf "%.4f", s; else print "-"}' "$log")
  R_TOTAL=$(awk '$NF == "Total" && $1 ~ /^[0-9.]+$/ {t = $1} END {if (t != "") printf "%.4f", t; else print "-"}' "$log")
  R_RSS=$(awk 'END {printf "%.1f", $1 / 1024}' "$rss")
  [[ $R_PASS != - ]] || echo "propagate.sh: warning: no pass line matching $pass_re in $log" >&2
}

# best_of NAME PASS_RE LIMIT CMD...: REPEATS runs, min times, max RSS.
# Sets B_PASS B_TOTAL B_RSS; after a timeout/failure the times read
# "timeout"/"failed" and it stops repeating.
best_of() {
  local i
  B_PASS=- B_TOTAL=- B_RSS=-
  for ((i = 0; i < REPEATS; i++)); do
    run_tool "$@"
    if [[ $R_STATUS != ok ]]; then B_PASS=$R_STATUS; B_TOTAL=$R_STATUS; return; fi
    B_PASS=$(min "$B_PASS" "$R_PASS")
    B_TOTAL=$(min "$B_TOTAL" "$R_TOTAL")
    B_RSS=$(awk -v a="$B_RSS" -v b="$R_RSS" 'BEGIN {print (a == "-" || b + 0 > a + 0) ? b : a}')
  done
}

min() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-") print b; else if (b == "-") print a; else print (b + 0 < a + 0) ? b : a}'; }

# ratio A B -> A/B with 1 decimal, "-" when either is not a number.
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "-";
    else printf "%.1fx", a / b }'
}

REPORT="$OUT/propagate.txt"
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

say "dtensor-opt: $DTENSOR_OPT"
say "mlir-opt:    $MLIR_OPT ($("$MLIR_OPT" --version 2>/dev/null | awk '/version/ {print $NF; exit}'))"
say "host:        $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); best of $REPEATS runs"
say ""

# --- sanity: our plan for a small stack is the Megatron one -------------------
# (one P(sum) -> R redistribution, i.e. one all_reduce, per layer)
"$PYTHON" "$GEN" --layers 4 --flavor dtensor -o "$OUT/mlp_4.dtensor.mlir"
n_redist=$("$DTENSOR_OPT" --dtensor-fake-propagate "$OUT/mlp_4.dtensor.mlir" | grep -c 'dtensor.redistribute' || true)
if [[ $n_redist -eq 4 ]]; then
  say "sanity: 4-layer stack -> 4 redistributions (one all_reduce per layer), as expected"
else
  say "sanity: WARNING 4-layer stack -> $n_redist redistributions (expected 4)"
fi
say ""

# --- 1. MLP stacks ------------------------------------------------------------
FMT='%7s | %12s | %15s | %6s | %12s | %16s | %12s | %16s | %9s\n'
# shellcheck disable=SC2059
{
  printf "$FMT" layers "ours pass s" "upstream pass s" ratio "ours total s" "upstream total s" \
    "ours peak MB" "upstream peak MB" "mem ratio"
  printf "$FMT" ------- ------------ --------------- ------ ------------ ---------------- \
    ------------ ---------------- ---------
} | tee -a "$REPORT"

for n in $LAYERS; do
  ours_in="$OUT/mlp_$n.dtensor.mlir"
  up_in="$OUT/mlp_$n.shard.mlir"
  "$PYTHON" "$GEN" --layers "$n" --flavor dtensor -o "$ours_in"
  "$PYTHON" "$GEN" --layers "$n" --flavor shard -o "$up_in"

  best_of "ours_mlp_$n" "$OURS_PASS_RE" "$TIMEOUT" "$DTENSOR_OPT" "--dtensor-fake-propagate=strategy=$STRATEGY" "$ours_in"
  o_pass=$B_PASS o_total=$B_TOTAL o_rss=$B_RSS
  best_of "upstream_mlp_$n" "$UPSTREAM_PASS_RE" "$TIMEOUT" "$MLIR_OPT" --pass-pipeline="$UPSTREAM_PIPELINE" "$up_in"
  u_pass=$B_PASS u_total=$B_TOTAL u_rss=$B_RSS

  # shellcheck disable=SC2059
  printf "$FMT" "$n" "$o_pass" "$u_pass" "$(ratio "$u_pass" "$o_pass")" "$o_total" "$u_total" \
    "$o_rss" "$u_rss" "$(ratio "$u_rss" "$o_rss")" | tee -a "$REPORT"
done
say ""
say "ratio = upstream / ours (> 1: ours faster or smaller)"
say ""

# --- 2. conflict case ---------------------------------------------------------
ours_in="$OUT/conflict_$CONFLICT.dtensor.mlir"
up_in="$OUT/conflict_$CONFLICT.shard.mlir"
"$PYTHON" "$GEN" --conflict "$CONFLICT" --flavor dtensor -o "$ours_in"
"$PYTHON" "$GEN" --conflict "$CONFLICT" --flavor shard -o "$up_in"

REPEATS_SAVED=$REPEATS
REPEATS=1  # upstream takes long here; one run each
best_of "ours_conflict_$CONFLICT" "$OURS_PASS_RE" "$TIMEOUT" "$DTENSOR_OPT" "--dtensor-fake-propagate=strategy=$STRATEGY" "$ours_in"
o_pass=$B_PASS o_total=$B_TOTAL o_rss=$B_RSS
best_of "upstream_conflict_$CONFLICT" "$UPSTREAM_PASS_RE" "$TIMEOUT" "$MLIR_OPT" --pass-pipeline="$UPSTREAM_PIPELINE" "$up_in"
u_pass=$B_PASS u_total=$B_TOTAL u_rss=$B_RSS
REPEATS=$REPEATS_SAVED

CFMT='%-9s | %8s | %7s | %7s\n'
say "conflict: one elementwise linalg.generic with $CONFLICT operands alternating S(0)/S(1)/R (timeout ${TIMEOUT}s)"
# shellcheck disable=SC2059
{
  printf "$CFMT" tool "pass s" "total s" "peak MB"
  printf "$CFMT" --------- -------- ------- -------
  printf "$CFMT" ours "$o_pass" "$o_total" "$o_rss"
  printf "$CFMT" upstream "$u_pass" "$u_total" "$u_rss"
} | tee -a "$REPORT"
say ""
say "logs and models: $OUT"
