#!/usr/bin/env bash
# The README's second command: set up, build and run every test --
#   1. the C unit tests (engine + CUDA backend compiled in when nvcc exists),
#   2. the same C tests under AddressSanitizer and UBSan,
#   3. the CSV and Parquet readers under libFuzzer with ASan + UBSan, each for
#      a bounded time (ZAMBEZI_FUZZ_SECONDS, default 60),
#   4. the Python tests (pytest, one process per core; GPU tests skip
#      without a GPU),
#   5. a curated subset of pandas' own test suite under zambezi.pandas
#      (scripts/pandas-tests-ci.txt; the full run is scripts/pandas-tests.sh),
#   6. a curated subset of Dask's own dataframe tests with the zambezi backend
#      (scripts/dask-tests-ci.txt; the full run is scripts/dask-tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
JOBS=$(nproc 2>/dev/null || echo 2)
# stage NAME: print the stage's header with the seconds spent so far, so a log
# cut short by CI's time limit still says where the time went
stage() { echo "== $1 (at ${SECONDS} s)"; }
bash scripts/setup.sh

stage "C unit tests"
cmake -S . -B build-tests -G Ninja -DZAMBEZI_TESTS=ON >build-tests.log 2>&1 || { cat build-tests.log; exit 1; }
cmake --build build-tests -j "$JOBS" >>build-tests.log 2>&1 || { tail -n 60 build-tests.log; exit 1; }
./build-tests/zb_tests

stage "C unit tests under ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DZAMBEZI_TESTS=ON -DZAMBEZI_SANITIZE=ON -DZAMBEZI_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=Debug >build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
cmake --build build-asan -j "$JOBS" >>build-asan.log 2>&1 || { tail -n 60 build-asan.log; exit 1; }
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ./build-asan/zb_tests

stage "fuzzing the CSV parser (libFuzzer + ASan + UBSan)"
have_fuzzer() {
  command -v clang >/dev/null && echo 'int LLVMFuzzerTestOneInput(const char*d,long n){return 0;}' |
    clang -x c -fsanitize=fuzzer - -o /tmp/zb-fuzzer-probe 2>/dev/null
}
if ! have_fuzzer && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq clang libclang-rt-dev) >/dev/null 2>&1 || true
fi
if have_fuzzer; then
  cmake -S . -B build-fuzz -G Ninja -DZAMBEZI_FUZZ=ON -DCMAKE_C_COMPILER=clang -DZAMBEZI_CUDA=OFF \
    >build-fuzz.log 2>&1 &&
    cmake --build build-fuzz --target csv_fuzz parquet_fuzz json_fuzz ipc_fuzz >>build-fuzz.log 2>&1 ||
    { tail -n 40 build-fuzz.log; exit 1; }
  # run_fuzzer READER SECONDS: its corpus copied (libFuzzer adds to it), then run
  run_fuzzer() {
    rm -rf "build-fuzz/corpus-$1" && mkdir -p "build-fuzz/corpus-$1" &&
      cp fuzz/corpus/"$1"/* "build-fuzz/corpus-$1/"
    ./build-fuzz/"$1"_fuzz -max_total_time="$2" -rss_limit_mb=4096 \
      -print_final_stats=1 "build-fuzz/corpus-$1" 2>"build-fuzz/fuzz-$1.log" ||
      { tail -n 60 "build-fuzz/fuzz-$1.log"; exit 1; }
    grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/fuzz-$1.log" || true
  }
  run_fuzzer csv "${ZAMBEZI_FUZZ_SECONDS:-60}"
  stage "fuzzing the Parquet reader"
  run_fuzzer parquet "${ZAMBEZI_FUZZ_SECONDS:-60}"
  stage "fuzzing the JSON reader and writer"
  run_fuzzer json "${ZAMBEZI_FUZZ_SECONDS:-60}"
  stage "fuzzing the Arrow IPC (Feather) reader"
  run_fuzzer ipc "$(( ${ZAMBEZI_FUZZ_SECONDS:-60} / 2 ))"
else
  echo "SKIPPED: no clang with libFuzzer here and none could be installed"
fi

stage "Python tests"
# one process per core (pytest-xdist, where installed), each test file whole
# in one of them: the tests are mostly single-threaded Python, so this
# halves the stage on two cores
XDIST=()
.venv/bin/python -c "import xdist" 2>/dev/null && XDIST=(-n "$JOBS" --dist loadfile)
.venv/bin/python -m pytest -q "${XDIST[@]}" --durations=25 tests/python "$@"

stage "pandas' own tests under zambezi.pandas (curated subset)"
bash scripts/pandas-tests.sh --ci

stage "Dask's own dataframe tests with the zambezi backend (curated subset)"
bash scripts/dask-tests.sh --ci
stage "done"
