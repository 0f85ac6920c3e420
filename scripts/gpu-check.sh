#!/usr/bin/env bash
# The script for a lent machine with an NVIDIA GPU and no network.  A GPU is
# at hand for minutes at a time, in calls of at most 10 minutes, so the work
# is split into stages that each fit one call and can be run alone:
#
#   bash scripts/gpu-check.sh build    versions; build zambezi with the CUDA backend
#                                      (warnings not errors); devices; smoke test; demo
#   bash scripts/gpu-check.sh tests    the GPU tests at small sizes (pytest -m "gpu and
#                                      not big", --maxfail, xdist, per-test timeout, --durations),
#                                      then compute-sanitizer memcheck on one small file
#   bash scripts/gpu-check.sh big      the tests beyond 2**31 rows or bytes (-m big)
#   bash scripts/gpu-check.sh bench    the GPU benchmarks, one step each (GPU_CHECK_BENCH
#                                      names a subset: "reduce groupby join sort auto")
#   bash scripts/gpu-check.sh ctests   the C tests (a second CUDA build: not in "all")
#   bash scripts/gpu-check.sh          build, tests, big and bench, in that order
#
# Every step appends its result to $OUT/summary.txt the moment it ends (a
# run killed halfway still says how far it got), and after each step the
# logs are packed into $OUT/logs.tar.gz, so two files come back.  Each step
# has its own time limit, cut to what is left before GPU_CHECK_DEADLINE
# seconds (default 540, under the 10-minute call); steps that would start
# after GPU_CHECK_BUDGET seconds (default 420) are skipped and listed as
# such.  The build compiles for the GPU at hand only (GPU_CHECK_ARCH, e.g.
# "90-real", says otherwise); pytest runs in GPU_TEST_WORKERS processes
# (pytest-xdist, default 8) and stops after GPU_TEST_MAXFAIL failures
# (default 20: after an illegal memory access every CUDA call of that
# process fails, so the rest would only spend the budget).  Expects python3
# with numpy, pandas, pyarrow, pytest, cmake, ninja and scikit-build-core
# (CuPy for the benchmarks' comparisons); downloads nothing.
#
# Seen on a lent H200 (16 cores), 2026-12-04: build 31-47 s, smoke and demo
# 7 s, the GPU tests 188 s in 8 processes (6,776 tests), memcheck 18 s, big
# 18 s; benchmarks reduce 21 s, sort 6 s, groupby (db-benchmark at 10^8
# rows) 36 s, join 25 s.  The tests ran there with pandas 3.1.1 from a
# carried wheel on PYTHONPATH (the tests compare with pandas 3.x).
# shellcheck disable=SC2317  # the step functions are called through step()
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUTDIR=${OUT:-/tmp/zambezi-gpu-check}
LOG=$OUTDIR/logs
mkdir -p "$LOG"
SUMMARY_FILE=$OUTDIR/summary.txt
PY=${PYTHON:-python3}
if [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
  export CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc}
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 4)}
export PYTHONUNBUFFERED=1
BUDGET=${GPU_CHECK_BUDGET:-420}
DEADLINE=${GPU_CHECK_DEADLINE:-540}
FAILED=0

# lim N: N seconds, or what is left before the deadline when that is less
lim() {
  local left=$((DEADLINE - SECONDS - 5))
  [ "$left" -lt 5 ] && left=5
  if [ "$1" -lt "$left" ]; then echo "$1"; else echo "$left"; fi
}

record() { # record STAGE STEP RESULT SECONDS [NOTE]
  printf '%-7s %-34s %-5s %5ss %s\n' "$1" "$2" "$3" "$4" "${5:-}" | tee -a "$SUMMARY_FILE"
  tar czf "$OUTDIR/logs.tar.gz" -C "$LOG" . 2>/dev/null || true
}

# step STAGE NAME CMD...: run one step unless the budget is spent; never stops the script.
step() {
  local stage=$1 name=$2
  shift 2
  if [ "$SECONDS" -ge "$BUDGET" ]; then
    record "$stage" "$name" skip 0 "(budget of ${BUDGET}s spent)"
    return 0
  fi
  echo
  echo "== $stage: $name"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  if [ "$rc" -eq 0 ]; then
    record "$stage" "$name" ok $((SECONDS - t0))
  else
    record "$stage" "$name" FAIL $((SECONDS - t0)) "(exit $rc)"
    FAILED=1
  fi
  return 0
}

# ---- build --------------------------------------------------------------------

versions() {
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv || true
    nvcc --version | tail -n 2 || true
    gcc --version | head -n 1 || true
    uname -r
    "$PY" -c 'import sys, numpy, pandas; print("python", sys.version.split()[0], "numpy", numpy.__version__, "pandas", pandas.__version__)'
    "$PY" -c 'import os, sysconfig; h = os.path.join(sysconfig.get_paths()["include"], "Python.h"); print(h, "present" if os.path.exists(h) else "MISSING")'
    "$PY" -c 'import pyarrow, pytest; print("pyarrow", pyarrow.__version__, "pytest", pytest.__version__)'
    "$PY" -c 'import cupy; print("cupy", cupy.__version__)' || true
    nproc
    command -v compute-sanitizer || echo "no compute-sanitizer"
  } 2>&1 | tee "$LOG/versions.log"
}

build() {
  # only the architecture of the GPU at hand ("9.0" -> "90-real"): half the compile
  local arch=${GPU_CHECK_ARCH:-}
  if [ -z "$arch" ]; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
    [ -n "$arch" ] && arch="$arch-real"
  fi
  local archdef=()
  [ -n "$arch" ] && archdef=(-C "cmake.define.ZAMBEZI_CUDA_ARCHITECTURES=$arch")
  echo "CUDA architectures: ${arch:-the default of CMakeLists.txt}"
  # the lent machine's compiler is newer than CI's: its new warnings are not errors here
  if ! timeout "$(lim 540)" "$PY" -m pip install --no-build-isolation --no-deps \
      -C cmake.define.ZAMBEZI_WERROR=OFF "${archdef[@]}" . >"$LOG/build.log" 2>&1; then
    tail -n 60 "$LOG/build.log"
    return 1
  fi
  grep -iE "nvcc|cuda" "$LOG/build.log" | head -n 5 || true
}

smoke() {
  timeout "$(lim 120)" "$PY" - <<'EOF' 2>&1 | tee "$LOG/smoke.log"
import numpy as np
import zambezi as zb
n = zb._core.cuda_device_count()
print(zb.devices())
print("cuda devices:", n, "| reason:", repr(zb._core.cuda_unavailable_reason()))
if n == 0:
    raise SystemExit("zambezi sees no GPU (built without the CUDA backend?)")
rng = np.random.default_rng(1)
df = zb.DataFrame({"k": rng.integers(0, 100, 100_000), "v": rng.random(100_000)})
g = df.to("cuda")
with zb.profile() as p:
    s = g["v"].sum()
    agg = g.groupby("k", as_index=False).agg({"v": "sum"}).to("cpu").to_pandas()
want = df.groupby("k", as_index=False).agg({"v": "sum"}).to_pandas()
assert abs(s - df["v"].sum()) < 1e-6 * abs(s), (s, df["v"].sum())
assert (agg["k"].to_numpy() == want["k"].to_numpy()).all()
assert np.allclose(agg["v"].to_numpy(), want["v"].to_numpy(), rtol=1e-9)
print([(r.op, r.device, r.fallback) for r in p.records if r.depth == 0])
print("smoke test: sum and group-by on the GPU equal the CPU's")
EOF
}

# The demo exits non-zero when any engine's answer differs; its table must
# have a GPU row.  Both count.
demo() {
  timeout "$(lim 120)" "$PY" -m zambezi demo --rows 1000000 --chart "$LOG/demo.png" >"$LOG/demo.log" 2>&1
  local rc=$?
  tail -n 25 "$LOG/demo.log"
  [ "$rc" -eq 0 ] || return "$rc"
  grep -q "GPU cuda" "$LOG/demo.log"
}

# ---- tests --------------------------------------------------------------------

# pytest stopping after a few failures (after an illegal memory access every
# CUDA call of that process fails, so the rest would only spend the budget),
# in several processes where pytest-xdist is installed, with a per-test
# limit (pytest-timeout, where installed: the lent image has both) and the
# slowest tests listed.
pytest_gpu() { # pytest_gpu LOGNAME LIMIT MARKEXPR [ARGS...]
  local name=$1 limit=$2 mark=$3 extra=()
  shift 3
  "$PY" -c "import pytest_timeout" 2>/dev/null && extra+=(--timeout "${GPU_TEST_TIMEOUT:-120}")
  "$PY" -c "import xdist" 2>/dev/null && [ "${GPU_TEST_WORKERS:-8}" -gt 1 ] &&
    extra+=(-n "${GPU_TEST_WORKERS:-8}")
  timeout "$(lim "$limit")" "$PY" -m pytest -q -rs --maxfail="${GPU_TEST_MAXFAIL:-20}" -m "$mark" \
    --durations=15 -p no:cacheprovider "${extra[@]}" "$@" 2>&1 | tee "$LOG/$name.log" | tail -n 60
}

gputests() { pytest_gpu pytest-gpu 420 "gpu and not big" tests/python; }

memcheck() {
  if ! command -v compute-sanitizer >/dev/null; then
    echo "no compute-sanitizer on this machine"
    return 0
  fi
  # the engine's end-of-run memory check is off here: under the sanitizer
  # (only there) memory was still held at the end; its own report decides
  ZAMBEZI_TEST_NO_LEAK_CHECK=1 timeout "$(lim 240)" compute-sanitizer --tool memcheck \
    --error-exitcode 3 --log-file "$LOG/memcheck.log" \
    "$PY" -m pytest -q -x -m "gpu and not big" -p no:cacheprovider tests/python/test_gpu_equiv.py \
    -k "1025 and nulls" 2>&1 | tail -n 15
  local rc=$?
  grep -E "ERROR SUMMARY" "$LOG/memcheck.log" || true
  return "$rc"
}

bigtests() { pytest_gpu pytest-big 540 "big" tests/python; }

ctests() {
  if ! { cmake -S . -B build-gpu-tests -G Ninja -DZAMBEZI_TESTS=ON -DZAMBEZI_WERROR=OFF &&
    cmake --build build-gpu-tests; } >"$LOG/ctests-build.log" 2>&1; then
    tail -n 60 "$LOG/ctests-build.log"
    return 1
  fi
  timeout "$(lim 300)" ./build-gpu-tests/zb_tests 2>&1 | tee "$LOG/ctests.log" | tail -n 25
}

# ---- benchmarks ---------------------------------------------------------------

bench_reduce() { timeout "$(lim 120)" "$PY" bench/gpu_reduce.py --json "$LOG/gpu_reduce.json" 2>&1 | tee "$LOG/bench-reduce.log"; }
bench_groupby() {
  timeout "$(lim 240)" "$PY" bench/gpu_groupby.py --sum-rows 100000000 --rows "${GPU_BENCH_DBROWS:-100000000}" --reps 2 \
    --json "$LOG/gpu_groupby.json" 2>&1 | tee "$LOG/bench-groupby.log"
}
bench_join() {
  timeout "$(lim 180)" "$PY" bench/gpu_join.py --rows 10000000 --dbrows 10000000 --reps 3 \
    --json "$LOG/gpu_join.json" 2>&1 | tee "$LOG/bench-join.log"
}
bench_sort() { timeout "$(lim 150)" "$PY" bench/gpu_sort.py --json "$LOG/gpu_sort.json" 2>&1 | tee "$LOG/bench-sort.log"; }
bench_auto() {
  timeout "$(lim 120)" "$PY" bench/gpu_auto.py --max-rows 30000000 --reps 3 --json "$LOG/gpu_auto.json" 2>&1 |
    tee "$LOG/bench-auto.log"
}

# ---- stages -------------------------------------------------------------------

stage_build() {
  step build "versions" versions
  step build "pip install . (CUDA backend)" build
  step build "smoke test on the GPU" smoke
  step build "demo with the GPU (1e6 rows)" demo
}
stage_tests() {
  step tests "pytest -m 'gpu and not big'" gputests
  step tests "compute-sanitizer memcheck" memcheck
}
stage_big() { step big "pytest -m big" bigtests; }
stage_ctests() { step ctests "C tests (second build)" ctests; }
stage_bench() {
  local b
  for b in ${GPU_CHECK_BENCH:-reduce groupby join sort auto}; do
    step bench "benchmark: $b" "bench_$b"
  done
  {
    grep -hE "^(library|zambezi|cupy|torch) |zambezi/cupy|copy bandwidth" "$LOG"/bench-reduce.log "$LOG"/bench-sort.log
    grep -hE "^(bench |sum, |q[0-9]+ |db-benchmark q1-q10 total|answers:)" "$LOG"/bench-groupby.log
    grep -hE "^(workload|int64 inner|q[1-5] )|^checks:" "$LOG"/bench-join.log
    grep -hE "^GPU faster|not faster|fell back" "$LOG"/bench-auto.log
  } 2>/dev/null >"$OUTDIR/bench-summary.txt" || true
}

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build tests big bench)
echo "== gpu-check: stages ${stages[*]} (budget ${BUDGET}s); summary in $SUMMARY_FILE"
for s in "${stages[@]}"; do
  case "$s" in
    build | tests | big | bench | ctests) "stage_$s" ;;
    *) echo "unknown stage '$s' (build, tests, big, bench, ctests)"; exit 2 ;;
  esac
done

echo
echo "== summary"
grep -E "passed|failed|error" "$LOG"/pytest-*.log 2>/dev/null | tail -n 3 || true
cat "$OUTDIR/bench-summary.txt" 2>/dev/null || true
cat "$SUMMARY_FILE"
exit "$FAILED"
