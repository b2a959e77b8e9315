#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (lit + GoogleTest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
cmake --build build --target check-dtensor
