#!/usr/bin/env bash
# Autodiff speed benchmark: `dtensor-opt --dtensor-autodiff` against
# `dtensor-opt --dtensor-fake-propagate` on the MLP stack of bench/gen_mlp.py
# (Megatron layers: matmul, relu, matmul, on a 1-D mesh of 4), written as a
# loss function (`gen_mlp.py --loss`: the weights dtensor.param, the loss
# sum(y * y)).
#
# What it measures
#   For each layer count in $LAYERS: the wall time of the pass alone, from
#   --mlir-timing (the best of $REPEATS runs; parsing and printing are not
#   counted), for
#     - propagate: --dtensor-fake-propagate on the loss function (the forward)
#     - autodiff:  --dtensor-autodiff on the same file (it clones the forward
#                  into @mlp_loss_grad and adds the reverse sweep: about 3x
#                  the forward's ops)
#     - adamw:     --dtensor-autodiff=optimizer=adamw (the same, plus the
#                  AdamW state arguments and one update generic per weight)
#   ratio = autodiff / propagate; us/layer = autodiff / layers (constant when
#   the pass is linear in the layer count).
#
# How to run (the build must exist; this script never builds):
#   bench/autodiff.sh
# Environment overrides:
#   DTENSOR_OPT (default <repo>/build/bin/dtensor-opt)   PYTHON (python3)
#   LAYERS (default "1000 5000 20000")   REPEATS (default 3)
#   OUT (default <repo>/bench/out; the generated files)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_OPT="${DTENSOR_OPT:-$ROOT/build/bin/dtensor-opt}"
PYTHON="${PYTHON:-python3}"
LAYERS="${LAYERS:-1000 5000 20000}"
REPEATS="${REPEATS:-3}"
OUT="${OUT:-$ROOT/bench/out}"

die() { echo "autodiff.sh: error: $*" >&2; exit 1; }
[[ -x "$DTENSOR_OPT" ]] || die "dtensor-opt not found: $DTENSOR_OPT (build the project first)"
mkdir -p "$OUT"

# pass_seconds FILE PASS NAME_RE: the best of $REPEATS --mlir-timing wall
# times of the pass whose timing line matches NAME_RE.
pass_seconds() {
  local file=$1 pass=$2 re=$3 best="" t
  for _ in $(seq "$REPEATS"); do
    t=$("$DTENSOR_OPT" "$file" "$pass" --mlir-timing -o /dev/null 2>&1 |
        awk -v re="$re" '$0 ~ re { print $1; exit }')
    [[ -n "$t" ]] || die "no timing for $pass on $file"
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$t
    fi
  done
  echo "$best"
}

printf '%-8s %14s %14s %7s %10s %12s\n' layers propagate_s autodiff_s ratio us/layer adamw_s
for n in $LAYERS; do
  file="$OUT/mlp_loss_$n.mlir"
  [[ -f "$file" ]] || "$PYTHON" "$ROOT/bench/gen_mlp.py" --layers "$n" --flavor dtensor --loss -o "$file"
  prop=$(pass_seconds "$file" --dtensor-fake-propagate 'DTensorFakePropagate')
  ad=$(pass_seconds "$file" --dtensor-autodiff 'DTensorAutodiff')
  aw=$(pass_seconds "$file" --dtensor-autodiff=optimizer=adamw 'DTensorAutodiff')
  awk -v n="$n" -v p="$prop" -v a="$ad" -v w="$aw" 'BEGIN {
    printf "%-8d %14.4f %14.4f %7.2f %10.1f %12.4f\n", n, p, a, a / p, a / n * 1e6, w }'
done
