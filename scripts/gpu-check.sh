#!/usr/bin/env bash
# The one script for a machine with an NVIDIA GPU and no network (see
# DEVELOPERS.md): builds zambezi with its CUDA backend into the current
# Python, runs the C tests, the GPU tests (pytest -m gpu: every operation on
# the CPU and on the GPU, compared) and the demo with its GPU row, then the
# GPU benchmarks (reductions; group-by; joins; sort and filter; the
# device="auto" cut-over), and ends with a summary table.  Expects python3 with
# numpy, pandas, pyarrow, pytest, cmake, ninja and scikit-build-core (CuPy
# for the benchmarks' comparisons); downloads nothing.  Logs go to $OUT when
# it is set, else to /tmp/zambezi-gpu-check.  Each step has a time limit,
# and benchmarks that would start after GPU_CHECK_BUDGET seconds (default
# 420) are skipped; GPU_CHECK_BENCH=0 skips the benchmarks.
# shellcheck disable=SC2317  # the step functions are called through step()
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${OUT:-/tmp/zambezi-gpu-check}
mkdir -p "$LOG"
PY=${PYTHON:-python3}
if [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  export CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc}
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 4)}
export PYTHONUNBUFFERED=1

SUMMARY=()
FAILED=0
# The whole run's time budget in seconds (GPU_CHECK_BUDGET, default 420): a
# benchmark step that would start after it is skipped, so the run leaves
# room on a lent machine's clock for a second try.  Tests always run.
BUDGET=${GPU_CHECK_BUDGET:-420}
# bench_step NAME CMD...: step, unless the budget is spent.
bench_step() {
  if [ "$SECONDS" -ge "$BUDGET" ]; then
    echo
    echo "== $1: skipped (${SECONDS}s used of the ${BUDGET}s budget)"
    SUMMARY+=("$(printf '%-28s %-6s %5ss' "$1" skip 0)")
    return 0
  fi
  step "$@"
}
# step NAME CMD...: run a step, time it, remember how it went; never stops the script.
step() {
  local name=$1
  shift
  echo
  echo "== $name"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  local dt=$((SECONDS - t0))
  if [ "$rc" -eq 0 ]; then
    SUMMARY+=("$(printf '%-28s %-6s %5ss' "$name" ok "$dt")")
  else
    SUMMARY+=("$(printf '%-28s %-6s %5ss  (exit %s)' "$name" FAIL "$dt" "$rc")")
    FAILED=1
  fi
  return 0
}

gpus() { nvidia-smi -L; }

build() {
  if ! "$PY" -m pip install --no-build-isolation --no-deps . >"$LOG/build.log" 2>&1; then
    tail -n 60 "$LOG/build.log"
    return 1
  fi
  grep -iE "nvcc|cuda" "$LOG/build.log" | head -n 5 || true
  echo "built; log in $LOG/build.log"
}

devices() {
  "$PY" - <<'EOF'
import zambezi as zb
print(zb.devices())
n = zb._core.cuda_device_count()
print("cuda devices:", n, "| reason:", repr(zb._core.cuda_unavailable_reason()))
raise SystemExit(0 if n > 0 else "zambezi sees no GPU (built without the CUDA backend?)")
EOF
}

ctests() {
  if ! { cmake -S . -B build-gpu-tests -G Ninja -DZAMBEZI_TESTS=ON &&
    cmake --build build-gpu-tests; } >"$LOG/ctests-build.log" 2>&1; then
    tail -n 60 "$LOG/ctests-build.log"
    return 1
  fi
  ./build-gpu-tests/zb_tests 2>&1 | tee "$LOG/ctests.log" | tail -n 25
}

gputests() {
  timeout 480 "$PY" -m pytest -q -m gpu -p no:cacheprovider tests/python 2>&1 |
    tee "$LOG/pytest-gpu.log" |
    tail -n 40
}

# The demo exits non-zero when any engine's answer differs; its table must
# have a GPU row.
demo() {
  timeout 120 "$PY" -m zambezi demo --rows 1000000 --chart "$LOG/demo.png" 2>&1 | tee "$LOG/demo.log" |
    tail -n 25
  grep -q "GPU cuda" "$LOG/demo.log"
}

bench() {
  timeout 120 "$PY" bench/gpu_reduce.py --json "$LOG/gpu_reduce.json" 2>&1 | tee "$LOG/bench.log"
}

bench_sort() {
  timeout 150 "$PY" bench/gpu_sort.py --json "$LOG/gpu_sort.json" 2>&1 | tee "$LOG/bench-sort.log"
}

bench_groupby() {
  timeout 240 "$PY" bench/gpu_groupby.py --sum-rows 100000000 --rows 10000000 --reps 2 \
    --json "$LOG/gpu_groupby.json" 2>&1 | tee "$LOG/bench-groupby.log"
}

bench_join() {
  timeout 180 "$PY" bench/gpu_join.py --rows 10000000 --dbrows 10000000 --reps 3 \
    --json "$LOG/gpu_join.json" 2>&1 | tee "$LOG/bench-join.log"
}

bench_auto() {
  timeout 120 "$PY" bench/gpu_auto.py --max-rows 30000000 --reps 3 --json "$LOG/gpu_auto.json" 2>&1 |
    tee "$LOG/bench-auto.log"
}

step "GPUs (nvidia-smi -L)" gpus
step "build (pip install .)" build
step "zambezi.devices()" devices
step "C tests" ctests
step "pytest -m gpu" gputests
step "demo with the GPU (1e6 rows)" demo
# Correctness first: set GPU_CHECK_BENCH=0 to stop after the tests and demo.
# Each step has a time limit, so one slow step cannot use up a lent
# machine's time.
if [ "${GPU_CHECK_BENCH:-1}" != 0 ]; then
bench_step "benchmark: GPU reductions" bench
bench_step "benchmark: GPU group-by" bench_groupby
bench_step "benchmark: GPU joins" bench_join
bench_step "benchmark: GPU sort, filter" bench_sort
bench_step "benchmark: device=auto cut-over" bench_auto
fi

echo
echo "== summary"
if [ -f "$LOG/pytest-gpu.log" ]; then
  echo "pytest: $(grep -E '[0-9]+ (passed|failed|error)|no tests ran' "$LOG/pytest-gpu.log" | tail -n 1)"
fi
if [ -f "$LOG/bench.log" ]; then
  grep -E "^(library|zambezi|cupy) " "$LOG/bench.log" || true
fi
if [ -f "$LOG/bench-sort.log" ]; then
  grep -E "^(library|zambezi|cupy|torch) |zambezi/cupy|copy bandwidth" "$LOG/bench-sort.log" || true
fi
if [ -f "$LOG/bench-groupby.log" ]; then
  grep -E "^(bench |sum, |q[0-9]+ |db-benchmark q1-q10 total|answers:)" "$LOG/bench-groupby.log" || true
fi
if [ -f "$LOG/bench-join.log" ]; then
  grep -E "^(workload|int64 inner|q[1-5] )|^checks:" "$LOG/bench-join.log" || true
fi
if [ -f "$LOG/bench-auto.log" ]; then
  grep -E "^GPU faster|not faster|fell back" "$LOG/bench-auto.log" || true
fi
printf '%-28s %-6s %6s\n' step result time
for line in "${SUMMARY[@]}"; do echo "$line"; done
exit "$FAILED"
