#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: the fake-tensor
# report of the RFC transformer Block on a data-parallel mesh of 4.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
build/bin/dtensor-opt examples/block.mlir \
  --dtensor-fake-report="format=text" -o /dev/null
