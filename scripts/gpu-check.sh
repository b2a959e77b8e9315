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
#      (y = 2x + 1 on 8192 x 8192 f32) against the HBM bandwidth $HBM_TBS TB/s,
#      and the shared-memory tiled transpose of the same matrix (INFO);
#      last (the first row a tight budget drops), the MLP's SGD training step
#      (mlp_loss on one device, the step of step 4: @mlp_loss_train_step,
#      generated once by dtensor-opt --dtensor-autodiff and timed with
#      dtensor-run --backend cuda --np 1 --iters $ITERS --entry
#      mlp_loss_train_step, since --steps prints losses, not times, and takes
#      no --iters) against the same step in PyTorch eager on the same GPU
#      (bench/mlp_step_torch_gpu.py: forward, autograd, in-place SGD update).
#   6. Prints the table (also $OUT/gpu-check.txt) with the targets of the
#      issue: Block bf16 >= 1.0x PyTorch eager, GEMMs >= 90% of cuBLAS,
#      elementwise >= 70% of HBM bandwidth; the Block f32 and training-step
#      rows are INFO (no target).
# Every step has a timeout (T_* below), cut to what is left of the budget
# BUDGET_S (480 s: the device allowance is 15 minutes, machine start
# included); a step with under 10 s left is a SKIP row. A failing step is a
# FAIL row, and the script goes on. Exit status: 0 when every check passed,
# 1 otherwise, 2 without a GPU.
#
# --dry-run (no GPU needed; what a lit test runs): every step that needs no
# GPU -- the build, the runtime test program compiled and linked, and every
# program of steps 4 and 5 compiled by dtensor-gpu-pipeline into an sm_90a
# cubin (ptxas) -- and the table with a SKIP row holding the exact command
# of each GPU step. Exit status 0 when all of those passed.
#
# How to run (on the GPU machine, from anywhere):
#   scripts/gpu-check.sh [--dry-run]
# Environment overrides:
#   BUILD (default <repo>/build)   OUT (default <repo>/bench/out/gpu-check)
#   ITERS (default 20)   CHECK_BATCH (default 4)   HBM_TBS (default 4.8)
#   TORCH_COMPILE (default 1; 0 skips torch.compile)   PYTHON (default python3)
#   BUDGET_S (default 480)
#   PROGRAMS (default all): the programs --dry-run compiles, a regex on
#   their names (mlp1 mlp1_bf16 block_small_f32 block_small_bf16 mlp_loss1
#   block_f32 block_bf16 ew tr mlp_step1)

set -uo pipefail

DRY_RUN=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    *) echo "gpu-check: unknown argument '$arg' (usage: gpu-check.sh [--dry-run])" >&2; exit 1 ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD:-$ROOT/build}"
OUT="${OUT:-$ROOT/bench/out/gpu-check}"
ITERS="${ITERS:-20}"
CHECK_BATCH="${CHECK_BATCH:-4}"
HBM_TBS="${HBM_TBS:-4.8}"
TORCH_COMPILE="${TORCH_COMPILE:-1}"
PYTHON="${PYTHON:-python3}"
PROGRAMS="${PROGRAMS:-.}"
START=$(date +%s)

# Time budget, seconds. The worst case of each step is its timeout; a step
# never runs past the budget (see budget()). Measured estimates on an H200
# are not available yet (no GPU has run this script).
BUDGET_S="${BUDGET_S:-480}"
T_BUILD=420    # only without a carried build: carry one (not in the budget)
T_RUNTIME=60   # cuda_abi: every dtrt_cuda.h function against host values
T_NCCL=60      # dtrt_test nccl, 1 rank
T_LIT=150      # the GPU lit tests
T_CHECK=90     # each of 5 dtensor-run --backend cuda --check runs
T_TRACE=45     # the --trace run whose compute spans are checked
T_TIME=90      # each of 2 Block forward timings (ours)
T_TORCH=120    # each of 2 PyTorch eager + torch.compile timings
T_GEMM=60      # dtrt_gemm_bench
T_EW=60        # the elementwise kernel
T_TR=45        # the tiled transpose kernel
T_STEP=60      # the training step timing (ours)
T_TORCH_STEP=60  # the PyTorch eager training step
RESERVE_S=10   # kept for the table

# budget T: T, cut to what is left of the budget (0: no time left).
budget() {
  local left=$(( BUDGET_S - RESERVE_S - ( $(date +%s) - START ) ))
  (( left < 10 )) && { echo 0; return; }
  echo $(( $1 < left ? $1 : left ))
}

# --- 0. a GPU, or stop now ------------------------------------------------
if (( DRY_RUN )); then
  GPUS="dry run (no GPU used)"
elif ! command -v nvidia-smi > /dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi not found): nothing to run" >&2
  exit 2
elif ! GPUS="$(timeout 20 nvidia-smi -L 2>&1)" || ! grep -q "GPU" <<< "$GPUS"; then
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
# gpu_step NAME T CMD...: true when the GPU step NAME may run CMD, with the
# timeout TO (T cut to the budget); otherwise a SKIP row (in a dry run with
# the exact command) and false.
gpu_step() {
  local name="$1" t="$2"; shift 2
  if (( DRY_RUN )); then
    row "$name" SKIP "needs a GPU: timeout $t $*"
    return 1
  fi
  TO="$(budget "$t")"
  if (( TO == 0 )); then
    row "$name" SKIP "over the ${BUDGET_S} s budget"
    return 1
  fi
  return 0
}

log "GPU: $(head -1 <<< "$GPUS")"
(( DRY_RUN )) || nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >> "$LOG" 2>&1

# --- 1. build -------------------------------------------------------------
# A build carried from another checkout path runs (LD_LIBRARY_PATH finds its
# libraries) but its lit configuration names the old paths: lit is skipped.
configured_here() {
  [[ -f "$1/CMakeCache.txt" ]] &&
    grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT\$" "$1/CMakeCache.txt"
}
if (( DRY_RUN )); then
  # A dry run never builds: it checks the build at hand (dtrt_gemm_bench and
  # dtrt_test are only needed by the GPU steps).
  if [[ ! -x "$BUILD/bin/dtensor-run" || ! -x "$BUILD/bin/dtensor-opt" ]]; then
    row "build" FAIL "no dtensor-run and dtensor-opt in $BUILD/bin"
    printf '%s\n' "${ROWS[@]}"
    exit 1
  fi
elif [[ ! -x "$BUILD/bin/dtensor-run" || ! -x "$BUILD/bin/dtrt_gemm_bench" ]]; then
  BUILD="$ROOT/build-gpu"
  log "building $BUILD (no build with the GPU runtime at hand)"
  if ! { cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release &&
         timeout "$T_BUILD" ninja -C "$BUILD" -j"$(nproc)" dtensor-run dtensor-opt dtrt_test dtrt_gemm_bench; } >> "$LOG" 2>&1; then
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
   c++ "$OUT/cuda_abi.o" -o "$OUT/cuda_abi" -L"$BUILD/lib" -ldtrt -Wl,-rpath,"$BUILD/lib" -Wl,--no-undefined -lm >> "$LOG" 2>&1; then
  if gpu_step "runtime: dtrt_cuda + mgpu + cuBLASLt" "$T_RUNTIME" "$OUT/cuda_abi"; then
    if R="$(timeout "$TO" "$OUT/cuda_abi" 2>&1)" && grep -q "cuda: PASS" <<< "$R"; then
      row "runtime: dtrt_cuda + mgpu + cuBLASLt" PASS "$(grep 'cuda: PASS' <<< "$R")"
    else
      row "runtime: dtrt_cuda + mgpu + cuBLASLt" FAIL "$(tail -3 <<< "${R:-no output}" | tr '\n' ' ')"
    fi
    echo "${R:-}" >> "$LOG"
  fi
else
  row "runtime: dtrt_cuda + mgpu + cuBLASLt" FAIL "cuda_abi did not build (see $LOG)"
fi
log "runtime: nccl"
if gpu_step "runtime: NCCL 1 rank (f32/bf16/f16)" "$T_NCCL" $MPIRUN -np 1 "$BUILD/bin/dtrt_test" nccl 1; then
  R="$(timeout "$TO" $MPIRUN -np 1 "$BUILD/bin/dtrt_test" nccl 1 2>&1)"
  echo "$R" >> "$LOG"
  if grep -q "nccl: PASS" <<< "$R"; then
    row "runtime: NCCL 1 rank (f32/bf16/f16)" PASS "$(grep 'nccl: PASS' <<< "$R")"
  else
    row "runtime: NCCL 1 rank (f32/bf16/f16)" FAIL "$(tail -2 <<< "$R" | tr '\n' ' ')"
  fi
fi

# --- 3. GPU lit tests -------------------------------------------------------
LIT="$(command -v lit || echo /usr/lib/llvm-22/bin/lit)"
LIT_CMD=("$LIT" -sv --filter 'Runtime/|GPU|gpu|cuda|CUDA' "$BUILD/test")
if ! configured_here "$BUILD"; then
  row "lit: GPU tests" SKIP "$BUILD was configured from another path"
elif gpu_step "lit: GPU tests" "$T_LIT" "${LIT_CMD[@]}"; then
  log "lit (GPU tests)"
  R="$(timeout "$TO" "${LIT_CMD[@]}" 2>&1)"
  echo "$R" >> "$LOG"
  SUMMARY="$(grep -E '^ *(Passed|Failed|Unsupported) *:' <<< "$R" | tr -s ' ' | tr '\n' ' ')"
  SUMMARY+="$(grep -E '^ +DTENSOR :: ' <<< "$R" | sed 's/^ *DTENSOR :: /failed: /' | tr '\n' ' ')"
  if grep -qE '^ *Failed' <<< "$R" || ! grep -qE '^ *Passed' <<< "$R"; then
    row "lit: GPU tests" FAIL "$SUMMARY"
  else
    row "lit: GPU tests" PASS "$SUMMARY"
  fi
fi

# --- the programs of steps 4 and 5 ------------------------------------------
# one_device FILE: the program with every mesh axis of size 1.
one_device() { sed -E 's/("[A-Za-z_0-9]+" = )[0-9]+/\11/g' "$1"; }
gen_block() { "$PYTHON" "$ROOT/examples/gen_block.py" --layout dp --mesh 1 "$@"; }

one_device "$ROOT/examples/mlp.mlir" > "$OUT/mlp1.mlir"
one_device "$ROOT/examples/mlp_bf16.mlir" > "$OUT/mlp1_bf16.mlir"
gen_block --batch "$CHECK_BATCH" -o "$OUT/block_small_f32.mlir"
sed 's/f32/bf16/g' "$OUT/block_small_f32.mlir" > "$OUT/block_small_bf16.mlir"
one_device "$ROOT/examples/mlp_loss.mlir" > "$OUT/mlp_loss1.mlir"
# The training step of mlp_loss1, as dtensor-run --steps generates it (sgd,
# its default lr 0.01), for the step timing (--entry mlp_loss_train_step).
"$BUILD/bin/dtensor-opt" --dtensor-autodiff="functions=mlp_loss optimizer=sgd" \
  "$OUT/mlp_loss1.mlir" -o "$OUT/mlp_step1.mlir" >> "$LOG" 2>&1 || rm -f "$OUT/mlp_step1.mlir"
gen_block -o "$OUT/block_f32.mlir"
sed 's/f32/bf16/g' "$OUT/block_f32.mlir" > "$OUT/block_bf16.mlir"
cat > "$OUT/ew.mlir" <<'MLIR'
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
MLIR
cat > "$OUT/tr.mlir" <<'MLIR'
// y = x^T on 8192 x 8192 f32 (dtensor-gpu-tiled-transpose: 32 x 32 tiles
// through shared memory): 256 MiB read, 256 MiB written.
func.func @tr(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %e = tensor.empty() : tensor<8192x8192xf32>
  %y = linalg.transpose ins(%x : tensor<8192x8192xf32>) outs(%e : tensor<8192x8192xf32>) permutation = [1, 0]
  return %y : tensor<8192x8192xf32>
}
MLIR

# Dry run: each program through dtensor-gpu-pipeline as dtensor-run compiles
# it (partition=false; the training step after dtensor-autodiff{sgd}), to
# sm_90a cubins (ptxas) embedded in the host module.
if (( DRY_RUN )); then
  for name in mlp1 mlp1_bf16 block_small_f32 block_small_bf16 mlp_loss1 block_f32 block_bf16 ew tr mlp_step1; do
    grep -qE "$PROGRAMS" <<< "$name" || continue
    pre=()
    [[ "$name" == mlp_loss1 ]] && pre=(--dtensor-autodiff="functions=mlp_loss optimizer=sgd")
    log "compile: $name"
    t0=$(date +%s)
    # Every kernel module an sm_90a cubin (a program may have none left:
    # the MLP is cuBLASLt calls with fused epilogues only).
    ok=0
    if timeout 300 "$BUILD/bin/dtensor-opt" "$OUT/$name.mlir" "${pre[@]}" \
         --dtensor-gpu-pipeline="partition=false format=bin" -o "$OUT/$name.gpu.mlir" >> "$LOG" 2>&1; then
      n="$(grep -c 'gpu.binary @.*chip = "sm_90a".*bin = "\\7FELF' "$OUT/$name.gpu.mlir" || true)"
      [[ "$n" == "$(grep -c 'gpu.binary @' "$OUT/$name.gpu.mlir" || true)" ]] && ok=1
    fi
    if (( ok )); then
      row "compile: $name" PASS "$n sm_90a cubin(s), $(grep -c 'call @dtrt_cublaslt_matmul' "$OUT/$name.gpu.mlir") cuBLASLt call(s), $(( $(date +%s) - t0 )) s"
    else
      row "compile: $name" FAIL "dtensor-gpu-pipeline failed or embedded a kernel that is no sm_90a cubin (see $LOG)"
    fi
  done
fi

# --- 4. dtensor-run --backend cuda --check -----------------------------------
# check NAME ARGS...: dtensor-run --backend cuda --np 1 --check ARGS.
check() {
  local name="check: $1"; shift
  local cmd=("$RUN" --backend cuda --np 1 --check "$@")
  gpu_step "$name" "$T_CHECK" "${cmd[@]}" || return 0
  log "$name"
  local r
  r="$(timeout "$TO" "${cmd[@]}" --timeout "$(( TO - 5 ))" 2>&1)"
  echo "$r" >> "$LOG"
  if grep -q "check: PASS" <<< "$r"; then
    row "$name" PASS "$(grep -m1 'check: PASS' <<< "$r" | cut -c13-)"
  else
    row "$name" FAIL "$(grep -v '^plan\|^rank' <<< "$r" | tail -2 | tr '\n' ' ' | cut -c1-150)"
  fi
}
check "MLP f32" "$OUT/mlp1.mlir"
check "MLP bf16" "$OUT/mlp1_bf16.mlir"
check "Block f32 (batch $CHECK_BATCH)" "$OUT/block_small_f32.mlir"
check "Block bf16 (batch $CHECK_BATCH)" "$OUT/block_small_bf16.mlir"
check "training step (mlp_loss, 3 steps)" "$OUT/mlp_loss1.mlir" --steps 3

# The compute spans of --trace are CUDA events on the compute stream: each
# call's span lasts as long as its kernels (a positive duration), not the
# microseconds of enqueueing them.
name="trace: device-timed compute spans"
if gpu_step "$name" "$T_TRACE" "$RUN" --backend cuda --np 1 --iters 3 --trace "$OUT/trace.json" "$OUT/block_small_f32.mlir"; then
  log "$name"
  if timeout "$TO" "$RUN" --backend cuda --np 1 --iters 3 --trace "$OUT/trace.json" "$OUT/block_small_f32.mlir" >> "$LOG" 2>&1 &&
     r="$("$PYTHON" - "$OUT/trace.json" 2>&1 <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
compute = [e for e in events if e.get("ph") == "X" and e.get("cat") == "compute"]
assert compute, "no compute span"
assert all(e["dur"] > 0 for e in compute), "a compute span of no duration"
print("%d compute spans, longest %.1f us" % (len(compute), max(e["dur"] for e in compute)))
PY
)"; then
    row "$name" PASS "$r"
  else
    row "$name" FAIL "$(tail -1 <<< "${r:-no trace written}")"
  fi
fi

# --- 5. timings -------------------------------------------------------------
# best_ms ARGS...: rank 0's best-of-$ITERS time of dtensor-run --backend cuda
# (timeout TO).
best_ms() {
  timeout "$TO" "$RUN" --backend cuda --np 1 --iters "$ITERS" --timeout "$(( TO - 5 ))" "$@" 2>> "$LOG" |
    tee -a "$LOG" | sed -n 's/^rank 0: \([0-9.]*\) ms$/\1/p'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }

compile_flag=(); [[ "$TORCH_COMPILE" == 1 ]] || compile_flag=(--no-compile)
for dtype in f32 bf16; do
  name="time: Block fwd $dtype"
  [[ "$dtype" == bf16 ]] && name="time: Block fwd bf16 (>= 1.0x eager)"
  gpu_step "$name" "$T_TIME" "$RUN" --backend cuda --np 1 --iters "$ITERS" "$OUT/block_$dtype.mlir" || continue
  log "time: Block $dtype"
  ours="$(best_ms "$OUT/block_$dtype.mlir")"
  torch=""
  TO="$(budget "$T_TORCH")"
  (( TO > 0 )) && torch="$(timeout "$TO" "$PYTHON" "$ROOT/bench/block_torch_gpu.py" --dtype "$dtype" --iters "$ITERS" "${compile_flag[@]}" 2>> "$LOG" | tee -a "$LOG")"
  eager="$(sed -n 's/.*eager_ms=\([0-9.]*\).*/\1/p' <<< "$torch")"
  compiled="$(sed -n 's/.*compile_ms=\([0-9.n/a]*\).*/\1/p' <<< "$torch")"
  speedup="$(ratio "$eager" "$ours")"
  detail="dtensor ${ours:-n/a} ms, eager ${eager:-n/a} ms, compile ${compiled:-n/a} ms, vs eager ${speedup}x, vs compile $(ratio "$compiled" "$ours")x"
  if [[ -z "$ours" ]]; then
    row "$name" FAIL "$detail"
  elif [[ "$dtype" == bf16 ]]; then
    row "$name" "$(awk -v s="$speedup" 'BEGIN { print (s != "n/a" && s >= 1.0) ? "MET" : "MISSED" }')" "$detail"
  else
    row "$name" INFO "$detail"
  fi
done
if (( DRY_RUN )); then
  row "time: PyTorch eager + torch.compile" SKIP \
    "needs a GPU: timeout $T_TORCH $PYTHON $ROOT/bench/block_torch_gpu.py --dtype f32|bf16 --iters $ITERS ${compile_flag[*]}"
fi

if gpu_step "time: GEMMs (>= 0.90 of cuBLAS)" "$T_GEMM" "$BUILD/bin/dtrt_gemm_bench" --iters "$ITERS"; then
  log "time: GEMMs"
  GEMMS="$(timeout "$TO" "$BUILD/bin/dtrt_gemm_bench" --iters "$ITERS" 2>&1)"
  echo "$GEMMS" >> "$LOG"
  if grep -q "^gemm " <<< "$GEMMS"; then
    while read -r _ dtype shape dms cms dtf ctf r diff; do
      row "time: GEMM $dtype $shape (>= 0.90)" "$(awk -v r="$r" 'BEGIN { print r >= 0.9 ? "MET" : "MISSED" }')" \
        "dtrt ${dtf} TF/s, cuBLAS ${ctf} TF/s, ratio $r, max rel diff $diff"
    done < <(grep "^gemm " <<< "$GEMMS")
  else
    row "time: GEMMs" FAIL "$(tail -2 <<< "$GEMMS" | tr '\n' ' ')"
  fi
fi

# bandwidth_row NAME PROGRAM TIMEOUT TARGET: times PROGRAM (8192 x 8192 f32
# read and written once) and gives its HBM fraction; TARGET is the minimum
# fraction (MET / MISSED) or INFO for none.
bandwidth_row() {
  local name="$1" prog="$2" t="$3" target="$4" ms tbs frac verdict
  gpu_step "$name" "$t" "$RUN" --backend cuda --np 1 --iters "$ITERS" "$prog" || return 0
  log "$name"
  ms="$(best_ms "$prog")"
  if [[ -z "$ms" ]]; then
    row "$name" FAIL "see $LOG"
    return 0
  fi
  tbs="$(awk -v ms="$ms" 'BEGIN { printf "%.2f", 2 * 8192 * 8192 * 4 / (ms * 1e-3) / 1e12 }')"
  frac="$(awk -v t="$tbs" -v h="$HBM_TBS" 'BEGIN { printf "%.2f", t / h }')"
  verdict=INFO
  [[ "$target" != INFO ]] &&
    verdict="$(awk -v f="$frac" -v t="$target" 'BEGIN { print f >= t ? "MET" : "MISSED" }')"
  row "$name" "$verdict" "$ms ms, $tbs TB/s, $frac of $HBM_TBS TB/s"
}
bandwidth_row "time: elementwise (>= 0.70 HBM)" "$OUT/ew.mlir" "$T_EW" 0.7
# The transpose: coalesced through shared-memory tiles (no target: INFO).
bandwidth_row "time: transpose (INFO)" "$OUT/tr.mlir" "$T_TR" INFO

# The training step (mlp_step1: the step the check row trains, one device):
# ours, then the same step in PyTorch eager.
STEP_NAME="time: training step (mlp_loss, SGD)"
STEP_ARGS=(--entry mlp_loss_train_step "$OUT/mlp_step1.mlir")
TORCH_STEP=("$PYTHON" "$ROOT/bench/mlp_step_torch_gpu.py" --iters "$ITERS")
if [[ ! -s "$OUT/mlp_step1.mlir" ]]; then
  row "$STEP_NAME" FAIL "dtensor-opt --dtensor-autodiff on mlp_loss1 failed (see $LOG)"
elif gpu_step "$STEP_NAME" "$T_STEP" "$RUN" --backend cuda --np 1 --iters "$ITERS" "${STEP_ARGS[@]}"; then
  log "time: training step"
  ours="$(best_ms "${STEP_ARGS[@]}")"
  torch=""
  TO="$(budget "$T_TORCH_STEP")"
  (( TO > 0 )) && torch="$(timeout "$TO" "${TORCH_STEP[@]}" 2>> "$LOG" | tee -a "$LOG")"
  eager="$(sed -n 's/.*eager_ms=\([0-9.]*\).*/\1/p' <<< "$torch")"
  detail="dtensor ${ours:-n/a} ms, eager ${eager:-n/a} ms, vs eager $(ratio "$eager" "$ours")x"
  if [[ -z "$ours" ]]; then
    row "$STEP_NAME" FAIL "$detail"
  else
    row "$STEP_NAME" INFO "$detail"
  fi
fi
if (( DRY_RUN )); then
  row "time: PyTorch eager step" SKIP "needs a GPU: timeout $T_TORCH_STEP ${TORCH_STEP[*]}"
fi

# --- 6. the table -----------------------------------------------------------
WORST=$(( T_RUNTIME + T_NCCL + T_LIT + 5 * T_CHECK + 2 * (T_TIME + T_TORCH) + T_GEMM + T_EW + T_TR + T_STEP + T_TORCH_STEP ))
{
  echo
  echo "gpu-check: $(head -1 <<< "$GPUS") ($(elapsed) s)"
  echo "budget: ${BUDGET_S} s (each step's timeout cut to what is left; their sum is ${WORST} s)"
  printf '%-42s %-7s %s\n' "step" "result" "detail"
  printf '%s\n' "${ROWS[@]}"
} | tee "$OUT/gpu-check.txt"
exit "$FAILED"
