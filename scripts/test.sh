#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (lit + GoogleTest).
set -euo pipefail
cd "$(dirname "$0")/.."
# With torch and torch-mlir, so that the from_torch tests run (test/Python).
DTENSOR_WITH_TORCH=${DTENSOR_WITH_TORCH:-1} scripts/setup.sh build
cmake --build build --target check-dtensor
