#!/usr/bin/env bash
# The GPU run of issue 11: checks and timings on one NVIDIA GPU (an H200),
# in under 8 minutes, ending with one table.
#
# What it does
#   0. Fails at once (exit 2, one line) when there is no GPU: nvidia-smi -L
#      must list one.
#   1. Build: uses $BUILD (default <repo>/build, possibly carried from
#      another machine) when it holds dtensor-run and dtrt_gemm_bench;
#      otherwise configures and builds <repo>/build-gpu with every core. The
#      lit tests need a build configured from this checkout's path.
#   2. The runtime on the GPU: test/Runtime/Inputs/cuda_abi.c (every function
#      of dtrt_cuda.h against host values: copies, memsets, events, a PTX
#      kernel through the mgpu* ABI, cuBLASLt f32/bf16/f16 GEMMs with
#      epilogues) and dtrt_test nccl (1-rank NCCL f32/bf16/f16 collectives).
#   3. The GPU lit tests: lit on the tests whose path names the runtime, the
#      GPU or CUDA (the cuda-gpu feature is set on this machine).
#   4. dtensor-run --backend cuda --np 1 --check (against the one-rank CPU
#      run) on the MLP, the Block in f32 and bf16 (batch $CHECK_BATCH), and a
#      training step (mlp_loss, --steps 3), every mesh set to one device.
#   5. Timings (best of $ITERS calls, CUDA events): the Block forward at the
#      RFC size (batch 32, seq 128, dim 512, heads 8, hidden 2048) in f32 and
#      bf16 against PyTorch eager and torch.compile on the same GPU
#      (bench/block_torch_gpu.py); the GEMMs of dtrt_cublaslt_matmul against
#      cublasGemmEx (dtrt_gemm_bench); a generated elementwise kernel
#      (y = 2x + 1 on 8192 x 8192 f32) against the HBM bandwidth $HBM_TBS TB/s.
#   6. Prints the table (also $OUT/gpu-check.txt) with the targets of the
#      issue: Block bf16 >= 1.0x PyTorch eager, GEMMs >= 90% of cuBLAS,
#      elementwise >= 70% of HBM bandwidth.
# Every step has a timeout; a failing step is a FAIL row, and the script
# goes on. Exit status: 0 when every check passed, 1 otherwise, 2 without a
# GPU.
#
# How to run (on the GPU machine, from anywhere):
#   scripts/gpu-check.sh
# Environment overrides:
#   BUILD (default <repo>/build)   OUT (default <repo>/bench/out/gpu-check)
#   ITERS (default 20)   CHECK_BATCH (default 4)   HBM_TBS (default 4.8)
#   TORCH_COMPILE (default 1; 0 skips torch.compile)   PYTHON (default python3)

set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD:-$ROOT/build}"
OUT="${OUT:-$ROOT/bench/out/gpu-check}"
ITERS="${ITERS:-20}"
CHECK_BATCH="${CHECK_BATCH:-4}"
HBM_TBS="${HBM_TBS:-4.8}"
TORCH_COMPILE="${TORCH_COMPILE:-1}"
PYTHON="${PYTHON:-python3}"
START=$(date +%s)

# --- 0. a GPU, or stop now ------------------------------------------------
if ! command -v nvidia-smi > /dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi not found): nothing to run" >&2
  exit 2
fi
if ! GPUS="$(timeout 20 nvidia-smi -L 2>&1)" || ! grep -q "GPU" <<< "$GPUS"; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi -L: ${GPUS:-no output}): nothing to run" >&2
  exit 2
fi
mkdir -p "$OUT"
LOG="$OUT/gpu-check.log"
: > "$LOG"
ROWS=()
FAILED=0

# row NAME RESULT DETAIL: one line of the final table.
row() { ROWS+=("$(printf '%-42s %-7s %s' "$1" "$2" "$3")"); [[ "$2" == FAIL ]] && FAILED=1; return 0; }
log() { echo "== $*" | tee -a "$LOG"; }
elapsed() { echo $(( $(date +%s) - START )); }

log "GPU: $(head -1 <<< "$GPUS")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >> "$LOG" 2>&1

# --- 1. build -------------------------------------------------------------
# A build carried from another checkout path runs (LD_LIBRARY_PATH finds its
# libraries) but its lit configuration names the old paths: lit is skipped.
configured_here() {
  [[ -f "$1/CMakeCache.txt" ]] &&
    grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT\$" "$1/CMakeCache.txt"
}
if [[ ! -x "$BUILD/bin/dtensor-run" || ! -x "$BUILD/bin/dtrt_gemm_bench" ]]; then
  BUILD="$ROOT/build-gpu"
  log "building $BUILD (no build with the GPU runtime at hand)"
  if ! { cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release &&
         timeout 420 ninja -C "$BUILD" -j"$(nproc)" dtensor-run dtensor-opt dtrt_test dtrt_gemm_bench; } >> "$LOG" 2>&1; then
    row "build" FAIL "see $LOG"
    printf '%s\n' "${ROWS[@]}"
    exit 1
  fi
fi
row "build" PASS "$BUILD ($(elapsed) s)"
export PATH="$BUILD/bin:$PATH"
export LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RUN="$BUILD/bin/dtensor-run"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"

# --- 2. the runtime on the GPU ---------------------------------------------
log "runtime: cuda_abi"
if c++ -x c -std=c11 -O1 -c "$ROOT/test/Runtime/Inputs/cuda_abi.c" -I"$ROOT/runtime/include" -o "$OUT/cuda_abi.o" >> "$LOG" 2>&1 &&
   c++ "$OUT/cuda_abi.o" -o "$OUT/cuda_abi" -L"$BUILD/lib" -ldtrt -Wl,-rpath,"$BUILD/lib" -Wl,--no-undefined -lm >> "$LOG" 2>&1 &&
   R="$(timeout 60 "$OUT/cuda_abi" 2>&1)" && grep -q "cuda: PASS" <<< "$R"; then
  row "runtime: dtrt_cuda + mgpu + cuBLASLt" PASS "$(grep 'cuda: PASS' <<< "$R")"
else
  row "runtime: dtrt_cuda + mgpu + cuBLASLt" FAIL "$(tail -3 <<< "${R:-did not build}" | tr '\n' ' ')"
fi
echo "${R:-}" >> "$LOG"
log "runtime: nccl"
R="$(timeout 120 $MPIRUN -np 1 "$BUILD/bin/dtrt_test" nccl 1 2>&1)"
echo "$R" >> "$LOG"
if grep -q "nccl: PASS" <<< "$R"; then
  row "runtime: NCCL 1 rank (f32/bf16/f16)" PASS "$(grep 'nccl: PASS' <<< "$R")"
else
  row "runtime: NCCL 1 rank (f32/bf16/f16)" FAIL "$(tail -2 <<< "$R" | tr '\n' ' ')"
fi

# --- 3. GPU lit tests -------------------------------------------------------
LIT="$(command -v lit || echo /usr/lib/llvm-22/bin/lit)"
if configured_here "$BUILD"; then
  log "lit (GPU tests)"
  R="$(timeout 180 "$LIT" -sv --filter 'Runtime/|GPU|gpu|cuda|CUDA' "$BUILD/test" 2>&1)"
  echo "$R" >> "$LOG"
  SUMMARY="$(grep -E '^ *(Passed|Failed|Unsupported) *:' <<< "$R" | tr -s ' ' | tr '\n' ' ')"
  SUMMARY+="$(grep -E '^ +DTENSOR :: ' <<< "$R" | sed 's/^ *DTENSOR :: /failed: /' | tr '\n' ' ')"
  if grep -qE '^ *Failed' <<< "$R" || ! grep -qE '^ *Passed' <<< "$R"; then
    row "lit: GPU tests" FAIL "$SUMMARY"
  else
    row "lit: GPU tests" PASS "$SUMMARY"
  fi
else
  row "lit: GPU tests" SKIP "$BUILD was configured from another path"
fi

# --- 4. dtensor-run --backend cuda --check -----------------------------------
# one_device FILE: the program with every mesh axis of size 1.
one_device() { sed -E 's/("[A-Za-z_0-9]+" = )[0-9]+/\11/g' "$1"; }
gen_block() { "$PYTHON" "$ROOT/examples/gen_block.py" --layout dp --mesh 1 "$@"; }

one_device "$ROOT/examples/mlp.mlir" > "$OUT/mlp1.mlir"
one_device "$ROOT/examples/mlp_bf16.mlir" > "$OUT/mlp1_bf16.mlir"
gen_block --batch "$CHECK_BATCH" -o "$OUT/block_small_f32.mlir"
sed 's/f32/bf16/g' "$OUT/block_small_f32.mlir" > "$OUT/block_small_bf16.mlir"
one_device "$ROOT/examples/mlp_loss.mlir" > "$OUT/mlp_loss1.mlir"

# check NAME ARGS...: dtensor-run --backend cuda --np 1 --check ARGS.
check() {
  local name="$1"; shift
  log "check: $name"
  local r
  r="$(timeout 150 "$RUN" --backend cuda --np 1 --check --timeout 140 "$@" 2>&1)"
  echo "$r" >> "$LOG"
  if grep -q "check: PASS" <<< "$r"; then
    row "check: $name" PASS "$(grep -m1 'check: PASS' <<< "$r" | cut -c13-)"
  else
    row "check: $name" FAIL "$(grep -v '^plan\|^rank' <<< "$r" | tail -2 | tr '\n' ' ' | cut -c1-150)"
  fi
}
check "MLP f32" "$OUT/mlp1.mlir"
check "MLP bf16" "$OUT/mlp1_bf16.mlir"
check "Block f32 (batch $CHECK_BATCH)" "$OUT/block_small_f32.mlir"
check "Block bf16 (batch $CHECK_BATCH)" "$OUT/block_small_bf16.mlir"
check "training step (mlp_loss, 3 steps)" "$OUT/mlp_loss1.mlir" --steps 3

# --- 5. timings -------------------------------------------------------------
# best_ms ARGS...: rank 0's best-of-$ITERS time of dtensor-run --backend cuda.
best_ms() {
  timeout 150 "$RUN" --backend cuda --np 1 --iters "$ITERS" --timeout 140 "$@" 2>> "$LOG" |
    tee -a "$LOG" | sed -n 's/^rank 0: \([0-9.]*\) ms$/\1/p'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }

gen_block -o "$OUT/block_f32.mlir"
sed 's/f32/bf16/g' "$OUT/block_f32.mlir" > "$OUT/block_bf16.mlir"
for dtype in f32 bf16; do
  log "time: Block $dtype"
  ours="$(best_ms "$OUT/block_$dtype.mlir")"
  compile_flag=(); [[ "$TORCH_COMPILE" == 1 ]] || compile_flag=(--no-compile)
  torch="$(timeout 240 "$PYTHON" "$ROOT/bench/block_torch_gpu.py" --dtype "$dtype" --iters "$ITERS" "${compile_flag[@]}" 2>> "$LOG" | tee -a "$LOG")"
  eager="$(sed -n 's/.*eager_ms=\([0-9.]*\).*/\1/p' <<< "$torch")"
  compiled="$(sed -n 's/.*compile_ms=\([0-9.n/a]*\).*/\1/p' <<< "$torch")"
  speedup="$(ratio "$eager" "$ours")"
  detail="dtensor ${ours:-n/a} ms, eager ${eager:-n/a} ms, compile ${compiled:-n/a} ms, vs eager ${speedup}x, vs compile $(ratio "$compiled" "$ours")x"
  if [[ -z "$ours" ]]; then
    row "time: Block fwd $dtype" FAIL "$detail"
  elif [[ "$dtype" == bf16 ]]; then
    row "time: Block fwd bf16 (>= 1.0x eager)" "$(awk -v s="$speedup" 'BEGIN { print (s != "n/a" && s >= 1.0) ? "MET" : "MISSED" }')" "$detail"
  else
    row "time: Block fwd f32" INFO "$detail"
  fi
done

log "time: GEMMs"
GEMMS="$(timeout 120 "$BUILD/bin/dtrt_gemm_bench" --iters "$ITERS" 2>&1)"
echo "$GEMMS" >> "$LOG"
if grep -q "^gemm " <<< "$GEMMS"; then
  while read -r _ dtype shape dms cms dtf ctf r diff; do
    row "time: GEMM $dtype $shape (>= 0.90)" "$(awk -v r="$r" 'BEGIN { print r >= 0.9 ? "MET" : "MISSED" }')" \
      "dtrt ${dtf} TF/s, cuBLAS ${ctf} TF/s, ratio $r, max rel diff $diff"
  done < <(grep "^gemm " <<< "$GEMMS")
else
  row "time: GEMMs" FAIL "$(tail -2 <<< "$GEMMS" | tr '\n' ' ')"
fi

log "time: elementwise"
cat > "$OUT/ew.mlir" <<'EOF'
// y = 2x + 1 on 8192 x 8192 f32: 256 MiB read, 256 MiB written.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @ew(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8192x8192xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8192x8192xf32>) outs(%e : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    %s = arith.addf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<8192x8192xf32>
  return %y : tensor<8192x8192xf32>
}
EOF
ew="$(best_ms "$OUT/ew.mlir")"
if [[ -n "$ew" ]]; then
  tbs="$(awk -v ms="$ew" 'BEGIN { printf "%.2f", 2 * 8192 * 8192 * 4 / (ms * 1e-3) / 1e12 }')"
  frac="$(awk -v t="$tbs" -v h="$HBM_TBS" 'BEGIN { printf "%.2f", t / h }')"
  row "time: elementwise (>= 0.70 HBM)" "$(awk -v f="$frac" 'BEGIN { print f >= 0.7 ? "MET" : "MISSED" }')" \
    "$ew ms, $tbs TB/s, $frac of $HBM_TBS TB/s"
else
  row "time: elementwise" FAIL "see $LOG"
fi

# --- 6. the table -----------------------------------------------------------
{
  echo
  echo "gpu-check: $(head -1 <<< "$GPUS") ($(elapsed) s)"
  printf '%-42s %-7s %s\n' "step" "result" "detail"
  printf '%s\n' "${ROWS[@]}"
} | tee "$OUT/gpu-check.txt"
exit "$FAILED"
