#!/usr/bin/env bash
# Partitioning benchmark: dtensor-opt --dtensor-partition against upstream
# MLIR 22's shard dialect (sharding-propagation followed by shard-partition).
#
# What it measures
#   An N-layer Megatron MLP stack (bench/gen_mlp.py; per layer x @ w1 S(1),
#   relu, @ w2 S(0); x replicated, result requested R) for N in $LAYERS, the
#   same program annotated for each tool (--flavor dtensor / --flavor shard).
#   Both tools go from the annotated global program to the local (SPMD)
#   program with one all_reduce per layer:
#     ours:     dtensor-opt --dtensor-partition
#               (one pass: DTensorPartition runs the fake-tensor analysis,
#               chooses the plan and rewrites to local types + collectives)
#     upstream: mlir-opt --pass-pipeline=
#               'builtin.module(func.func(sharding-propagation,shard-partition))'
#               (pass names as listed by `mlir-opt --help | grep -i shard`
#               in MLIR 22: --sharding-propagation, --shard-partition; the
#               latter is a function pass and appears as "Partition" in
#               --mlir-timing)
#   For each tool:
#     - pass time: the pass lines of --mlir-timing (ours: DTensorPartition;
#       upstream: ShardingPropagation + Partition, also shown separately),
#     - total wall time of the tool (parse + passes + print, --mlir-timing
#       Total; the output IR goes to /dev/null but is still printed),
#     - peak RSS of the process (/usr/bin/time -f %M).
#   Times are the minimum over $REPEATS runs, peak RSS the maximum.
#   ratio = upstream / ours (> 1 means ours is faster / smaller).
#   A sanity check first partitions a 4-layer stack with both tools and
#   counts the all_reduce ops (4 expected from each).
#   Runtime: about 1 minute on 2 cores with the defaults.
#
# How to run (from anywhere; the build must exist, this script never builds):
#   bench/partition.sh
# Environment overrides:
#   DTENSOR_OPT  (default <repo>/build/bin/dtensor-opt)
#   MLIR_OPT     (default /usr/lib/llvm-22/bin/mlir-opt)
#   LAYERS       (default "1000 5000 20000")
#   TIMEOUT      (default 300 s per run)   REPEATS (default 3)
#   OUT          (default <repo>/bench/out, gitignored; models + logs go there)
# The printed table is also written to $OUT/partition.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_OPT="${DTENSOR_OPT:-$ROOT/build/bin/dtensor-opt}"
MLIR_OPT="${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}"
LAYERS="${LAYERS:-1000 5000 20000}"
TIMEOUT="${TIMEOUT:-300}"
REPEATS="${REPEATS:-3}"
OUT="${OUT:-$ROOT/bench/out}"
GEN="$ROOT/bench/gen_mlp.py"
PYTHON="${PYTHON:-python3}"

UPSTREAM_PIPELINE='builtin.module(func.func(sharding-propagation,shard-partition))'

die() { echo "partition.sh: error: $*" >&2; exit 1; }

# --- prerequisites ----------------------------------------------------------
[[ -x "$DTENSOR_OPT" ]] || die "dtensor-opt not found or not executable: $DTENSOR_OPT (build the project first)"
[[ -x "$MLIR_OPT" ]] || die "mlir-opt not found or not executable: $MLIR_OPT (install mlir-22-tools)"
[[ -f "$GEN" ]] || die "generator missing: $GEN"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
command -v timeout >/dev/null || die "timeout (coreutils) not found"
if [[ ! -x /usr/bin/time ]]; then
  echo "partition.sh: /usr/bin/time missing, installing the 'time' package" >&2
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  if ! { $SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq time >/dev/null; }; then
    die "could not install the 'time' package"
  fi
fi
MLIR_OPT_HELP=$("$MLIR_OPT" --help)
for p in sharding-propagation shard-partition; do
  grep -q -- "--$p " <<<"$MLIR_OPT_HELP" || die "$MLIR_OPT has no --$p pass"
done
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "REPEATS must be a positive integer"
mkdir -p "$OUT"

# --- helpers ----------------------------------------------------------------
# pass_time LOG REGEX: sum of the wall times of the timing rows whose name
# matches REGEX ("    0.0315 ( 29.4%)    Partition"), "-" when none.
pass_time() {
  awk -v re="$2" '{name = $0; sub(/^ *[0-9.]+ +\( *[0-9.]+%\) +/, "", name)}
                  name ~ re && $1 ~ /^[0-9.]+$/ {s += $1; n++}
                  END {if (n) printf "%.4f", s; else print "-"}' "$1"
}

# run_tool NAME CMD...: one run with --mlir-timing under `timeout`; sets
# R_STATUS (ok|timeout|failed), R_TOTAL (s), R_RSS (MB) and R_LOG.
run_tool() {
  local name=$1; shift
  local rss="$OUT/partition_$name.rss" rc=0
  R_LOG="$OUT/partition_$name.log"
  /usr/bin/time -f %M -o "$rss" timeout "$TIMEOUT" "$@" --mlir-timing -o /dev/null \
    2>"$R_LOG" || rc=$?
  R_TOTAL=- R_RSS=-
  if [[ $rc -eq 124 ]]; then R_STATUS=timeout; return; fi
  if [[ $rc -ne 0 ]]; then
    R_STATUS=failed
    echo "partition.sh: $name exited with status $rc; see $R_LOG" >&2
    tail -n 5 "$R_LOG" >&2
    return
  fi
  R_STATUS=ok
  R_TOTAL=$(awk '$NF == "Total" && $1 ~ /^[0-9.]+$/ {t = $1} END {if (t != "") printf "%.4f", t; else print "-"}' "$R_LOG")
  R_RSS=$(awk 'END {printf "%.1f", $1 / 1024}' "$rss")
}

min() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-") print b; else if (b == "-") print a; else print (b + 0 < a + 0) ? b : a}'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-") print b; else if (b == "-") print a; else print (b + 0 > a + 0) ? b : a}'; }
add() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-") print "-"; else printf "%.4f", a + b}'; }
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "-";
    else printf "%.1fx", a / b }'
}

REPORT="$OUT/partition.txt"
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

say "dtensor-opt: $DTENSOR_OPT --dtensor-partition"
say "mlir-opt:    $MLIR_OPT ($("$MLIR_OPT" --version 2>/dev/null | awk '/version/ {print $NF; exit}')) --pass-pipeline='$UPSTREAM_PIPELINE'"
say "host:        $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), load average at start $(cut -d' ' -f1-3 /proc/loadavg); best of $REPEATS runs"
say ""

# --- sanity: both produce one all_reduce per layer ----------------------------
"$PYTHON" "$GEN" --layers 4 --flavor dtensor -o "$OUT/mlp_4.dtensor.mlir"
"$PYTHON" "$GEN" --layers 4 --flavor shard -o "$OUT/mlp_4.shard.mlir"
n_ours=$("$DTENSOR_OPT" --dtensor-partition "$OUT/mlp_4.dtensor.mlir" | grep -c 'dtensor.all_reduce' || true)
n_up=$("$MLIR_OPT" --pass-pipeline="$UPSTREAM_PIPELINE" "$OUT/mlp_4.shard.mlir" | grep -c 'shard.all_reduce' || true)
if [[ $n_ours -eq 4 && $n_up -eq 4 ]]; then
  say "sanity: 4-layer stack -> 4 all_reduce ops from each tool (one per layer), as expected"
else
  say "sanity: WARNING 4-layer stack -> ours $n_ours, upstream $n_up all_reduce ops (expected 4 each)"
fi
say ""

# --- the table ---------------------------------------------------------------
FMT='%6s | %11s | %10s | %11s | %11s | %6s | %9s | %9s | %7s | %9s | %6s\n'
# shellcheck disable=SC2059
{
  printf "$FMT" layers "ours pass s" "up prop s" "up part s" "up passes s" ratio \
    "ours tot s" "up tot s" "ours MB" "upstrm MB" "mem"
  printf "$FMT" ------ ----------- ---------- ----------- ----------- ------ \
    --------- --------- ------- --------- ------
} | tee -a "$REPORT"

for n in $LAYERS; do
  ours_in="$OUT/mlp_$n.dtensor.mlir"
  up_in="$OUT/mlp_$n.shard.mlir"
  "$PYTHON" "$GEN" --layers "$n" --flavor dtensor -o "$ours_in"
  "$PYTHON" "$GEN" --layers "$n" --flavor shard -o "$up_in"

  o_pass=- o_total=- o_rss=- u_prop=- u_part=- u_pass=- u_total=- u_rss=-
  for ((i = 0; i < REPEATS; i++)); do
    run_tool "ours_mlp_$n" "$DTENSOR_OPT" --dtensor-partition "$ours_in"
    if [[ $R_STATUS != ok ]]; then o_pass=$R_STATUS o_total=$R_STATUS; break; fi
    p=$(pass_time "$R_LOG" "^'?(DTensorPartition|dtensor-partition)'?\$")
    [[ $p != - ]] || echo "partition.sh: warning: no DTensorPartition line in $R_LOG" >&2
    o_pass=$(min "$o_pass" "$p") o_total=$(min "$o_total" "$R_TOTAL") o_rss=$(max "$o_rss" "$R_RSS")
  done
  for ((i = 0; i < REPEATS; i++)); do
    run_tool "upstream_mlp_$n" "$MLIR_OPT" --pass-pipeline="$UPSTREAM_PIPELINE" "$up_in"
    if [[ $R_STATUS != ok ]]; then u_pass=$R_STATUS u_total=$R_STATUS; break; fi
    pp=$(pass_time "$R_LOG" "^'?(ShardingPropagation|sharding-propagation)'?\$")
    pq=$(pass_time "$R_LOG" "^'?(Partition|shard-partition)'?\$")
    [[ $pp != - && $pq != - ]] || echo "partition.sh: warning: missing upstream pass lines in $R_LOG" >&2
    s=$(add "$pp" "$pq")
    # keep the split of the run whose sum is the best
    if [[ $u_pass == - ]] || awk -v a="$s" -v b="$u_pass" 'BEGIN {exit !(a + 0 < b + 0)}'; then
      u_pass=$s u_prop=$pp u_part=$pq
    fi
    u_total=$(min "$u_total" "$R_TOTAL") u_rss=$(max "$u_rss" "$R_RSS")
  done

  # shellcheck disable=SC2059
  printf "$FMT" "$n" "$o_pass" "$u_prop" "$u_part" "$u_pass" "$(ratio "$u_pass" "$o_pass")" \
    "$o_total" "$u_total" "$o_rss" "$u_rss" "$(ratio "$u_rss" "$o_rss")" | tee -a "$REPORT"
done
say ""
say "ours pass = DTensorPartition (analysis + plan + rewrite in one pass);"
say "up prop / up part = upstream ShardingPropagation / Partition, up passes = their sum;"
say "tot = whole tool run (parse + passes + print to /dev/null); MB = peak RSS;"
say "ratio = upstream passes / ours pass, mem = upstream / ours peak RSS (> 1: ours faster or smaller)"
say ""
say "logs and models: $OUT (partition_*.log, mlp_*.mlir)"
