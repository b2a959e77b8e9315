#!/usr/bin/env bash
# Training-step benchmark: DDP bucket all-reduces overlapping the backward.
#
# What it measures
#   The data-parallel training step (dtensor-autodiff optimizer=sgd) of an
#   L-layer Linear stack (bench/gen_train_mlp.py: width $WIDTH, batch $BATCH,
#   $LAYERS layers, fp32; 1 MiB per weight at width 512), split by
#   dtensor-ddp-split at bucket caps 25, 4 and 1 MB (first bucket cap 1 MB,
#   or the cap when smaller), run by dtensor-run --steps $STEPS on 2 and 4
#   CPU ranks with a trace. "off" is the 25 MB split run with
#   --sync-collectives: every all-reduce blocks where it is issued.
#   From the trace (bench/trace_stats.py; the first step dropped, means over
#   the other steps and all ranks):
#     step ms     the step's compute span,
#     comm ms     comm spans started in the step (start to completion),
#     exposed ms  the time ranks waited for them (blocked_us): communication
#                 compute did not hide,
#     hidden %    1 - exposed / comm.
#   The progress engine is $DTRT_PROGRESS (thread by default; test, none).
#
# How to run (the build must exist; this script never builds):
#   bench/train_step.sh
# Environment overrides: DTENSOR_OPT, DTENSOR_RUN (default build/bin/...),
#   LAYERS (8) WIDTH (512) BATCH (32) STEPS (4) RANKS ("2 4")
#   CAPS ("25 4 1") OUT (default <repo>/bench/out, gitignored)
# The table is also written to $OUT/train_step.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DTENSOR_OPT="${DTENSOR_OPT:-$ROOT/build/bin/dtensor-opt}"
DTENSOR_RUN="${DTENSOR_RUN:-$ROOT/build/bin/dtensor-run}"
LAYERS="${LAYERS:-8}"
WIDTH="${WIDTH:-512}"
BATCH="${BATCH:-32}"
STEPS="${STEPS:-4}"
RANKS="${RANKS:-2 4}"
CAPS="${CAPS:-25 4 1}"
OUT="${OUT:-$ROOT/bench/out}"
mkdir -p "$OUT"
TABLE="$OUT/train_step.txt"

run() { # ranks cap sync -> "step comm exposed hidden buckets"
  local np="$1" cap="$2" sync="$3" first
  first=$(python3 -c "print(min(1.0, $cap))")
  python3 "$ROOT/bench/gen_train_mlp.py" --mode dp --ranks "$np" --layers "$LAYERS" \
    --width "$WIDTH" --batch "$BATCH" -o "$OUT/train_mlp_$np.mlir"
  "$DTENSOR_OPT" --dtensor-autodiff="optimizer=sgd lr=0.01" "$OUT/train_mlp_$np.mlir" \
    | "$DTENSOR_OPT" --dtensor-ddp-split="bucket-cap-mb=$cap first-bucket-cap-mb=$first report=$OUT/train_buckets.json" \
      -o "$OUT/train_split_$np.mlir"
  local buckets
  buckets=$(python3 -c "import json; r=json.load(open('$OUT/train_buckets.json')); print(sum(1 for f in r['functions'] if f['name']=='mlp_loss_train_step' for b in f['buckets'] if b['all_reduce_params']))")
  "$DTENSOR_RUN" "$OUT/train_split_$np.mlir" --entry mlp_loss_train_step --np "$np" \
    --steps "$STEPS" --trace "$OUT/train_trace.json" $sync > /dev/null
  echo "$(python3 "$ROOT/bench/trace_stats.py" "$OUT/train_trace.json" mlp_loss_train_step "$np") $buckets"
}

{
  echo "# $LAYERS x Linear($WIDTH, $WIDTH), batch $BATCH, fp32, sgd; progress engine: ${DTRT_PROGRESS:-thread}; $(nproc) cores"
  printf "%5s | %8s | %7s | %7s | %8s | %8s | %10s | %8s\n" ranks cap overlap buckets "step ms" "comm ms" "exposed ms" "hidden %"
  for np in $RANKS; do
    for cap in $CAPS off; do
      if [ "$cap" = off ]; then
        read -r st cm ex hd nb < <(run "$np" 25 --sync-collectives)
        ov=off; capname=25
      else
        read -r st cm ex hd nb < <(run "$np" "$cap" "")
        ov=on; capname=$cap
      fi
      printf "%5s | %8s | %7s | %7s | %8s | %8s | %10s | %8s\n" "$np" "$capname MB" "$ov" "$nb" "$st" "$cm" "$ex" "$hd"
    done
  done
} | tee "$TABLE"
