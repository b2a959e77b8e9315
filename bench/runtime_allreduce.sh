#!/usr/bin/env bash
# Runtime all-reduce benchmark: dtrt_all_reduce against raw MPI_Allreduce.
#
# What it measures
#   For every power-of-two message size from $MIN_BYTES to $MAX_BYTES
#   (default 1 KiB .. 16 MiB), an f32 sum all-reduce over all $NP ranks:
#     - dtrt_all_reduce on the mesh [$NP] (axes mask 1), tracing on, as
#       compiled programs run it (argument checks, cached communicator,
#       comm span),
#     - MPI_Allreduce on a duplicate of MPI_COMM_WORLD.
#   The two alternate over 3 rounds of ~50 ms each; a round's time per call
#   is the slowest rank's, and each side keeps its best round.
#   Bandwidth is the algorithm bandwidth, bytes / time (GB/s = 1e9 B/s);
#   ratio = dtrt / MPI bandwidth (1.0 = no overhead).
#   Numbers depend on the machine: with more ranks than cores (Open MPI's
#   --oversubscribe) small messages are dominated by scheduling.
#
# How to run (from anywhere; the build must exist, this script never builds):
#   bench/runtime_allreduce.sh
# Environment overrides:
#   BENCH      (default <repo>/build/bin/dtrt_allreduce_bench)
#   MPIRUN     (default mpirun)     NP (default 4)
#   MIN_BYTES  (default 1024)       MAX_BYTES (default 16777216)
#   OUT        (default <repo>/bench/out, gitignored)
# The table is also written to $OUT/runtime_allreduce.txt.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${BENCH:-$ROOT/build/bin/dtrt_allreduce_bench}"
MPIRUN="${MPIRUN:-mpirun}"
NP="${NP:-4}"
MIN_BYTES="${MIN_BYTES:-1024}"
MAX_BYTES="${MAX_BYTES:-16777216}"
OUT="${OUT:-$ROOT/bench/out}"

if [[ ! -x "$BENCH" ]]; then
  echo "error: $BENCH not found; build first (ninja -C build dtrt_allreduce_bench)" >&2
  exit 1
fi

flags=()
if "$MPIRUN" --version 2>/dev/null | grep -q "Open MPI"; then
  # More ranks than cores is fine for a comparison; root only in containers.
  flags+=(--oversubscribe)
  [[ "$(id -u)" == 0 ]] && flags+=(--allow-run-as-root)
fi

mkdir -p "$OUT"
echo "# $MPIRUN ${flags[*]} -np $NP $BENCH $MIN_BYTES $MAX_BYTES" | tee "$OUT/runtime_allreduce.txt"
"$MPIRUN" "${flags[@]}" -np "$NP" "$BENCH" "$MIN_BYTES" "$MAX_BYTES" | tee -a "$OUT/runtime_allreduce.txt"
