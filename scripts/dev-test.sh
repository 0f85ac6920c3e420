#!/usr/bin/env bash
# For development: build the engine and the extension into build-dev-NAME
# and run pytest against that build (PYTHONPATH staging), without
# installing into .venv -- so several working copies of the build can be
# tested side by side.  Usage: scripts/dev-test.sh NAME [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/dev-test.sh NAME [pytest args]}
shift
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
b=build-dev-$name
stage=$b/stage
cmake -S . -B "$b" -G Ninja -DZAMBEZI_PYTHON=ON -DZAMBEZI_CUDA=${ZAMBEZI_CUDA:-OFF} \
  -DPython_EXECUTABLE="$PWD/.venv/bin/python" >"$b.log" 2>&1 || { tail -n 40 "$b.log"; exit 1; }
cmake --build "$b" >>"$b.log" 2>&1 || { grep -E "error|FAILED" "$b.log" | head -n 40; exit 1; }
rm -rf "$stage" && mkdir -p "$stage"
cp -r python/zambezi "$stage/"
cp "$b"/_core*.so "$b"/libzambezi.so "$stage/zambezi/"
PYTHONPATH="$PWD/$stage" exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
