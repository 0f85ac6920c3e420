#!/usr/bin/env bash
# The README's second command: set up, build and run every test --
#   1. the C unit tests (engine + CUDA backend compiled in when nvcc exists),
#   2. the same C tests under AddressSanitizer and UBSan,
#   3. the Python tests (pytest; GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
JOBS=$(nproc 2>/dev/null || echo 2)
bash scripts/setup.sh

echo "== C unit tests"
cmake -S . -B build-tests -G Ninja -DZAMBEZI_TESTS=ON >build-tests.log 2>&1 || { cat build-tests.log; exit 1; }
cmake --build build-tests -j "$JOBS" >>build-tests.log 2>&1 || { tail -n 60 build-tests.log; exit 1; }
./build-tests/zb_tests

echo "== C unit tests under ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DZAMBEZI_TESTS=ON -DZAMBEZI_SANITIZE=ON -DZAMBEZI_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=Debug >build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
cmake --build build-asan -j "$JOBS" >>build-asan.log 2>&1 || { tail -n 60 build-asan.log; exit 1; }
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ./build-asan/zb_tests

echo "== Python tests"
.venv/bin/python -m pytest -q tests/python "$@"
