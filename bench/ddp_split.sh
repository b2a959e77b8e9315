#!/usr/bin/env bash
# DDP split benchmark: dtensor-opt --dtensor-ddp-split against
# --dtensor-fake-propagate on the same N-layer MLP.
#
# What it measures
#   An N-layer data-parallel MLP (bench/gen_ddp_mlp.py: per layer x @ w1,
#   relu, @ w2; x S(0) on a mesh of 4, 64 KiB replicated weights with
#   dtensor.param) for N in $LAYERS, split at bucket-cap-mb=$CAP (1 MB: 8
#   layers per bucket, 2 500 submodules at 20 000 layers). For each N:
#     - split s:      wall time of the DTensorDDPSplit pass (--mlir-timing); it
#                     includes its own run of the fake-tensor analysis,
#     - propagate s:  wall time of DTensorFakePropagate on the same model,
#     - ratio:        split / propagate,
#     - split us/layer: split time per layer (flat when the pass is linear),
#     - total s:      the whole dtensor-opt run of the split (parse, pass,
#                     verify, print to /dev/null),
#     - peak MB:      peak RSS of the split run (/usr/bin/time -f %M),
#     - submodules:   buckets found (from the pass's JSON report).
#   Times are the minimum over $REPEATS runs.
#
# How to run (the build must exist; this script never builds):
#   bench/ddp_split.sh
# Environment overrides:
#   DTENSOR_OPT (default <repo>/build/bin/dtensor-opt)
#   LAYERS (default "1000 5000 20000")  CAP (default 1)  REPEATS (default 3)
#   TIMEOUT (default 300 s)  OUT (default <repo>/bench/out, gitignored)
#   CALLGRIND_LAYERS (default empty; e.g. "1000 4000"): also count the
#     instructions of the pass under valgrind's callgrind for these sizes.
#     Unlike wall time on a loaded machine the counts are deterministic, and
#     instructions per layer stay flat when the pass is linear.
# The table is also written to $OUT/ddp_split.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_OPT="${DTENSOR_OPT:-$ROOT/build/bin/dtensor-opt}"
LAYERS="${LAYERS:-1000 5000 20000}"
CAP="${CAP:-1}"
REPEATS="${REPEATS:-3}"
TIMEOUT="${TIMEOUT:-300}"
OUT="${OUT:-$ROOT/bench/out}"
GEN="$ROOT/bench/gen_ddp_mlp.py"
PYTHON="${PYTHON:-python3}"

die() { echo "ddp_split.sh: error: $*" >&2; exit 1; }

[[ -x "$DTENSOR_OPT" ]] || die "dtensor-opt not found or not executable: $DTENSOR_OPT (build the project first)"
[[ -f "$GEN" ]] || die "generator missing: $GEN"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
command -v timeout >/dev/null || die "timeout (coreutils) not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (apt-get install time)"
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "REPEATS must be a positive integer"
mkdir -p "$OUT"

# run NAME PASS_NAME CMD...: one timed run; sets R_PASS R_TOTAL (s), R_RSS (MB).
run() {
  local name=$1 pass=$2; shift 2
  local log="$OUT/$name.log" rc=0
  /usr/bin/time -f %M -o "$OUT/$name.rss" timeout "$TIMEOUT" "$@" --mlir-timing -o /dev/null \
    2>"$log" || rc=$?
  if [[ $rc -ne 0 ]]; then
    tail -n 5 "$log" >&2
    die "$name exited with status $rc (124: timeout after ${TIMEOUT}s); see $log"
  fi
  R_PASS=$(awk -v p="$pass" '$NF == p && $1 ~ /^[0-9.]+$/ {s += $1; n++}
                              END {if (n) printf "%.4f", s; else print "-"}' "$log")
  R_TOTAL=$(awk '$NF == "Total" && $1 ~ /^[0-9.]+$/ {t = $1} END {printf "%.4f", t}' "$log")
  R_RSS=$(awk 'END {printf "%.1f", $1 / 1024}' "$OUT/$name.rss")
  [[ $R_PASS != - ]] || die "no timing line for $pass in $log"
}

min() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-") print b; else print (b + 0 < a + 0) ? b : a}'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-") print b; else print (b + 0 > a + 0) ? b : a}'; }

REPORT="$OUT/ddp_split.txt"
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

say "dtensor-opt: $DTENSOR_OPT"
say "host:        $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); best of $REPEATS runs; bucket-cap-mb=$CAP"
say ""

# Sanity: 16 layers of 128 KiB at 1 MB are 2 buckets of 8 layers.
"$PYTHON" "$GEN" --layers 16 -o "$OUT/ddp_mlp_16.mlir"
"$DTENSOR_OPT" "$OUT/ddp_mlp_16.mlir" --dtensor-ddp-split="bucket-cap-mb=1 report=$OUT/ddp_mlp_16.json" -o /dev/null
n16=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["functions"][0]["buckets"]))' "$OUT/ddp_mlp_16.json")
[[ $n16 -eq 2 ]] || die "sanity: 16 layers at 1 MB gave $n16 buckets, expected 2"
say "sanity: 16 layers at 1 MB -> 2 submodules of 8 layers, as expected"
say ""

FMT='%7s | %10s | %11s | %6s | %14s | %8s | %8s | %10s\n'
# shellcheck disable=SC2059
{
  printf "$FMT" layers "split s" "propagate s" ratio "split us/layer" "total s" "peak MB" submodules
  printf "$FMT" ------- ---------- ----------- ------ -------------- -------- -------- ----------
} | tee -a "$REPORT"

for n in $LAYERS; do
  model="$OUT/ddp_mlp_$n.mlir"
  "$PYTHON" "$GEN" --layers "$n" -o "$model"
  s_pass=- s_total=- s_rss=- p_pass=-
  for ((i = 0; i < REPEATS; i++)); do
    run "split_$n" DTensorDDPSplit "$DTENSOR_OPT" "$model" \
      --dtensor-ddp-split="bucket-cap-mb=$CAP report=$OUT/ddp_mlp_$n.json"
    s_pass=$(min "$s_pass" "$R_PASS"); s_total=$(min "$s_total" "$R_TOTAL"); s_rss=$(max "$s_rss" "$R_RSS")
    run "propagate_$n" DTensorFakePropagate "$DTENSOR_OPT" "$model" --dtensor-fake-propagate
    p_pass=$(min "$p_pass" "$R_PASS")
  done
  subs=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["functions"][0]["buckets"]))' "$OUT/ddp_mlp_$n.json")
  ratio=$(awk -v a="$s_pass" -v b="$p_pass" 'BEGIN {printf "%.2f", a / b}')
  per=$(awk -v a="$s_pass" -v n="$n" 'BEGIN {printf "%.1f", a / n * 1e6}')
  # shellcheck disable=SC2059
  printf "$FMT" "$n" "$s_pass" "$p_pass" "$ratio" "$per" "$s_total" "$s_rss" "$subs" | tee -a "$REPORT"
done
say ""

if [[ -n "${CALLGRIND_LAYERS:-}" ]]; then
  command -v valgrind >/dev/null || die "valgrind not found (needed for CALLGRIND_LAYERS)"
  command -v callgrind_annotate >/dev/null || die "callgrind_annotate not found"
  CFMT='%7s | %16s | %16s | %12s\n'
  # shellcheck disable=SC2059
  {
    printf "$CFMT" layers "pass instr" "analysis instr" "instr/layer"
    printf "$CFMT" ------- ---------------- ---------------- ------------
  } | tee -a "$REPORT"
  for n in $CALLGRIND_LAYERS; do
    model="$OUT/ddp_mlp_$n.mlir"
    [[ -f "$model" ]] || "$PYTHON" "$GEN" --layers "$n" -o "$model"
    valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind_$n.out" \
      "$DTENSOR_OPT" "$model" --dtensor-ddp-split="bucket-cap-mb=$CAP" \
      --mlir-disable-threading -o /dev/null 2>"$OUT/callgrind_$n.log"
    counts=$(callgrind_annotate --inclusive=yes "$OUT/callgrind_$n.out" 2>/dev/null |
      awk '/DDPSplitPass::runOnOperation/ {gsub(",", "", $1); p = $1}
           /FakeTensorAnalysis::FakeTensorAnalysis\(/ {gsub(",", "", $1); a = $1}
           END {print p, a}')
    read -r pass_i ana_i <<<"$counts"
    [[ -n "$pass_i" ]] || die "no count for the pass in $OUT/callgrind_$n.out"
    # shellcheck disable=SC2059
    printf "$CFMT" "$n" "$pass_i" "$ana_i" "$((pass_i / n))" | tee -a "$REPORT"
  done
  say ""
fi

say "split s includes the pass's own fake-tensor analysis (the propagate column is that analysis plus annotation)"
say "logs and models: $OUT"
