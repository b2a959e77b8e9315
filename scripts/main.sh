#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: the RFC
# transformer Block (examples/block.mlir, data parallel on 4 ranks): its
# fake-tensor plan, then a run on 4 CPU ranks over MPI checked against the
# same program on one rank, with a Chrome/Perfetto trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
build/bin/dtensor-opt examples/block.mlir \
  --dtensor-fake-report="format=text" -o /dev/null
mkdir -p build/out
build/bin/dtensor-run examples/block.mlir --np 4 --check \
  --trace build/out/block_trace.json --out build/out/block
echo "trace: build/out/block_trace.json (open in https://ui.perfetto.dev or chrome://tracing)"
