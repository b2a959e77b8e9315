#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds.
# Usage: scripts/setup.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}

PACKAGES=(cmake ninja-build ccache g++ python3 llvm-22-dev libmlir-22-dev mlir-22-tools
          llvm-22-tools libgtest-dev libopenblas-dev zlib1g-dev libzstd-dev openmpi-bin libopenmpi-dev
          coinor-libcbc-dev pkg-config libomp-22-dev)
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

# --- Python package dtensor_mlir (python/, pyproject.toml) ----------------------
# nanobind and scikit-build-core build the extension (before the configure
# step below: CMake builds python/ only when it finds nanobind), numpy and
# pytest run it and its tests (test/Python). From PyPI. A failed install only
# leaves the package out of the build: test/Python is then unsupported.
# DTENSOR_WITH_TORCH=1 (scripts/test.sh sets it) also installs torch and
# torch-mlir for dtensor_mlir.from_torch and its tests: measured on a 2-core
# machine, 207 s and 5.6 GB in site-packages (torch's default wheel brings the
# CUDA libraries; it runs on CPUs). Without them those tests report skipped.
py_missing() { ! python3 -c "import $1" 2>/dev/null; }
RECONFIGURE=0
if python3 -m pip --version >/dev/null 2>&1; then
  PY_PACKAGES=()
  py_missing nanobind && PY_PACKAGES+=(nanobind)
  py_missing scikit_build_core && PY_PACKAGES+=(scikit-build-core)
  py_missing numpy && PY_PACKAGES+=(numpy)
  py_missing pytest && PY_PACKAGES+=(pytest)
  if [ "${DTENSOR_WITH_TORCH:-0}" = 1 ]; then
    py_missing torch && PY_PACKAGES+=(torch)
    py_missing torch_mlir && PY_PACKAGES+=(torch-mlir)
  fi
  if [ ${#PY_PACKAGES[@]} -gt 0 ]; then
    echo "setup: installing Python packages ${PY_PACKAGES[*]}"
    # A build folder configured before nanobind was there reconfigures.
    [[ " ${PY_PACKAGES[*]} " == *" nanobind "* ]] && [ -f "$BUILD_DIR/build.ninja" ] &&
      RECONFIGURE=1
    python3 -m pip install -q "${PY_PACKAGES[@]}" ||
      echo "setup: installing ${PY_PACKAGES[*]} failed; the Python package or its torch tests will be left out" >&2
  fi
  # Python's headers, for the extension (python3-dev for Debian's python3).
  if ! python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    echo "setup: Python.h not found (install python3-dev); the Python package will be left out" >&2
  fi
else
  echo "setup: pip unavailable; the Python package dtensor_mlir will be left out" >&2
fi
# --- end Python package ---------------------------------------------------------

if [ ! -f "$BUILD_DIR/build.ninja" ] || [ "${RECONFIGURE:-0}" = 1 ]; then
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
