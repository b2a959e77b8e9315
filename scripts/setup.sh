#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds.
# Usage: scripts/setup.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}

PACKAGES=(cmake ninja-build ccache g++ python3 llvm-22-dev libmlir-22-dev mlir-22-tools
          llvm-22-tools libgtest-dev libopenblas-dev zlib1g-dev libzstd-dev openmpi-bin libopenmpi-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# lit is needed by the test suite; the Debian package ships it with LLVM.
if [ ! -x /usr/lib/llvm-22/bin/lit ] && ! command -v lit >/dev/null; then
  python3 -m pip install -q lit
fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$BUILD_DIR"

# --- optional: Python packages for scripts/trace_to_png.py (matplotlib) -------
# Not needed to build or test. Skipped when pip is unavailable or the install
# fails (e.g. offline); trace_to_png.py then says how to install it.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  if python3 -m pip --version >/dev/null 2>&1; then
    python3 -m pip install -q matplotlib ||
      echo "setup: optional matplotlib install failed; scripts/trace_to_png.py will not run" >&2
  else
    echo "setup: pip unavailable; skipping optional matplotlib (scripts/trace_to_png.py)" >&2
  fi
fi
# --- end optional ------------------------------------------------------------
