#!/usr/bin/env bash
# Whole-function planning benchmark: the time of
#   dtensor-opt --dtensor-fake-propagate=strategy=pytorch   (op by op, PyTorch parity)
#   dtensor-opt --dtensor-fake-propagate=strategy=global    (whole-function plan,
#                                                            solved exactly)
# and the communication cost of both plans, on
#   * N-layer Megatron MLP stacks (bench/gen_mlp.py --flavor dtensor --layers N),
#   * stacks of N tensor-parallel RFC Blocks (bench/gen_block_stack.py --blocks N,
#     examples/block_tp.mlir chained N times).
# The headline sizes are the 20 000-layer MLP and the 200-block stack; the
# others show how the time grows.
#
# Columns
#   pytorch pass s / global pass s: wall time of the DTensorFakePropagate pass
#     alone, from --mlir-timing, output to /dev/null, best (minimum) of $REPEATS.
#   ratio: global / pytorch pass time (target: within 1.2x on the
#     20 000-layer MLP).
#   pytorch cost us / global cost us: totals.pytorch_comm_cost_us and
#     totals.comm_cost_us of --dtensor-fake-report="format=json ... compare-pytorch=1"
#     (the global plan never costs more).
#   exact: functions whose plan is proven optimal / functions planned
#     (`planner.proven_optimal` of the report).
#
# How to run (the build must exist; this script never builds):
#   bench/global_plan.sh
# Environment overrides:
#   DTENSOR_OPT (default <repo>/build/bin/dtensor-opt)   REPEATS (default 3)
#   MLP_SIZES   (default "250 1000 5000 20000")
#   STACK_SIZES (default "25 50 100 200")
#   OUT         (default <repo>/bench/out, gitignored; models and logs go there)
# The table is also written to $OUT/global_plan.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_OPT="${DTENSOR_OPT:-$ROOT/build/bin/dtensor-opt}"
REPEATS="${REPEATS:-3}"
MLP_SIZES="${MLP_SIZES:-250 1000 5000 20000}"
STACK_SIZES="${STACK_SIZES:-25 50 100 200}"
OUT="${OUT:-$ROOT/bench/out}"
PYTHON="${PYTHON:-python3}"
PASS_RE="^'?(DTensorFakePropagate|dtensor-fake-propagate)'?\$"

die() { echo "global_plan.sh: error: $*" >&2; exit 1; }
[[ -x "$DTENSOR_OPT" ]] || die "dtensor-opt not found or not executable: $DTENSOR_OPT (build the project first)"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
[[ "$REPEATS" =~ ^[1-9][0-9]*$ ]] || die "REPEATS must be a positive integer"
mkdir -p "$OUT"

# pass_time LOG: seconds of the propagation pass in a --mlir-timing log.
pass_time() {
  awk -v re="$PASS_RE" '$NF ~ re && $1 ~ /^[0-9.]+$/ {s += $1; n++}
                        END {if (n) printf "%.4f", s; else print "-"}' "$1"
}

# best_pass FILE STRATEGY: minimum pass time over REPEATS runs.
best_pass() {
  local file=$1 strategy=$2 best=- t i
  local log="$OUT/global_plan.$strategy.log"
  for ((i = 0; i < REPEATS; i++)); do
    "$DTENSOR_OPT" "$file" --dtensor-fake-propagate="strategy=$strategy" --mlir-timing \
      -o /dev/null 2>"$log" || { tail -n 5 "$log" >&2; die "dtensor-opt failed on $file ($strategy)"; }
    t=$(pass_time "$log")
    [[ $t != - ]] || die "no DTensorFakePropagate line in $log"
    best=$(awk -v a="$best" -v b="$t" 'BEGIN {print (a == "-" || b + 0 < a + 0) ? b : a}')
  done
  echo "$best"
}

# costs FILE: "<pytorch cost> <global cost> <proven>/<planned>" over the
# functions.
costs() {
  local json="$OUT/global_plan.report.json"
  "$DTENSOR_OPT" "$1" --dtensor-fake-report="format=json output=$json compare-pytorch=1" \
    -o /dev/null || die "report failed on $1"
  "$PYTHON" - "$json" <<'EOF'
import json, sys
fs = json.load(open(sys.argv[1]))["functions"]
pt = sum(f["totals"]["pytorch_comm_cost_us"] for f in fs)
g = sum(f["totals"]["comm_cost_us"] for f in fs)
planned = [f["planner"] for f in fs if "planner" in f]
proven = sum(1 for p in planned if p.get("exact") and p.get("proven_optimal"))
print("%.1f %.1f %d/%d" % (pt, g, proven, len(planned)))
EOF
}

REPORT="$OUT/global_plan.txt"
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }

say "dtensor-opt: $DTENSOR_OPT"
say "host:        $(nproc) CPUs; pass times are the best of $REPEATS runs"
say ""
FMT='%-11s | %5s | %14s | %13s | %6s | %15s | %14s | %5s\n'
# shellcheck disable=SC2059
{
  printf "$FMT" model size "pytorch pass s" "global pass s" ratio "pytorch cost us" "global cost us" exact
  printf "$FMT" ----------- ----- -------------- ------------- ------ --------------- -------------- -----
} | tee -a "$REPORT"

row() {
  local model=$1 size=$2 file=$3 tp tg c pt g proven
  tp=$(best_pass "$file" pytorch)
  tg=$(best_pass "$file" global)
  c=$(costs "$file")
  read -r pt g proven <<<"$c"
  # shellcheck disable=SC2059
  printf "$FMT" "$model" "$size" "$tp" "$tg" \
    "$(awk -v a="$tg" -v b="$tp" 'BEGIN {if (b + 0 > 0) printf "%.2fx", a / b; else print "-"}')" \
    "$pt" "$g" "$proven" | tee -a "$REPORT"
}

for n in $MLP_SIZES; do
  f="$OUT/mlp_$n.dtensor.mlir"
  "$PYTHON" "$ROOT/bench/gen_mlp.py" --flavor dtensor --layers "$n" -o "$f"
  row mlp "$n" "$f"
done
for n in $STACK_SIZES; do
  f="$OUT/block_stack_$n.mlir"
  "$PYTHON" "$ROOT/bench/gen_block_stack.py" --blocks "$n" -o "$f"
  row block_stack "$n" "$f"
done
say ""
say "size: MLP layers / Blocks; ratio = global / pytorch pass time;"
say "exact: functions proven optimal / functions planned"
