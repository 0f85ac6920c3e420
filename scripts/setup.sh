#!/usr/bin/env bash
# Set up a development environment in .venv: the Python packages the tests
# and the demo use, then build and install zambezi into it (C engine, CUDA
# backend when nvcc is found, Python extension).  Safe to run again: the
# CMake build directory is kept, so a rebuild compiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PY" -m venv .venv
fi
# libsnappy: Parquet files from pandas, pyarrow and polars are snappy-compressed
# by default, and zambezi loads libsnappy at run time (libzstd is on nearly
# every system already).  Installed here when this runs as root with apt.
if ! ldconfig -p 2>/dev/null | grep -q "libsnappy.so.1 " && [ "$(id -u)" = 0 ] &&
  command -v apt-get >/dev/null; then
  echo "== installing libsnappy (snappy-compressed Parquet)"
  (apt-get update -qq && apt-get install -y -qq libsnappy1v5) >/dev/null 2>&1 ||
    echo "   could not install libsnappy1v5: snappy Parquet files will not be readable"
fi
# liblz4: Feather files from pyarrow are LZ4-compressed by default (loaded at
# run time; a dependency of systemd, so nearly always present).
if ! ldconfig -p 2>/dev/null | grep -q "liblz4.so.1 " && [ "$(id -u)" = 0 ] &&
  command -v apt-get >/dev/null; then
  echo "== installing liblz4 (LZ4-compressed Arrow IPC / Feather files)"
  (apt-get update -qq && apt-get install -y -qq liblz4-1) >/dev/null 2>&1 ||
    echo "   could not install liblz4-1: LZ4 Feather files will not be readable"
fi
# zlib: GZIP-compressed Parquet pages (loaded at run time; an essential
# package on Debian, so nearly always present).
if ! ldconfig -p 2>/dev/null | grep -q "libz.so.1 " && [ "$(id -u)" = 0 ] &&
  command -v apt-get >/dev/null; then
  echo "== installing zlib (GZIP-compressed Parquet)"
  (apt-get update -qq && apt-get install -y -qq zlib1g) >/dev/null 2>&1 ||
    echo "   could not install zlib1g: GZIP Parquet files will not be readable"
fi
# libpcre2-8: the regular expressions of Series.str (loaded at run time; a
# dependency of grep, so nearly always present).
if ! ldconfig -p 2>/dev/null | grep -q "libpcre2-8.so.0 " && [ "$(id -u)" = 0 ] &&
  command -v apt-get >/dev/null; then
  echo "== installing libpcre2-8 (regular expressions)"
  (apt-get update -qq && apt-get install -y -qq libpcre2-8-0) >/dev/null 2>&1 ||
    echo "   could not install libpcre2-8-0: str regular expressions will raise an error"
fi
echo "== installing Python packages"
.venv/bin/python -m pip install -q --upgrade pip
# tzdata: the IANA zone files named time zones are read from where the
# system has no /usr/share/zoneinfo (a few hundred kB)
# pytest-xdist: the Python tests run in one process per core (scripts/test.sh)
.venv/bin/python -m pip install -q numpy pandas pyarrow polars duckdb pytest pytest-xdist \
  hypothesis tzdata \
  matplotlib scikit-build-core ninja "dask[dataframe]>=2025.1,<2027" "distributed>=2025.1,<2027"
# the libraries that take dataframes, for tests/python/test_ecosystem.py, the
# formats handed to pandas (openpyxl, tabulate, lxml: tests/python/test_via_pandas.py),
# and numba for engine="numba" (tests/python/test_apply.py) (optional: those
# tests skip when one is missing, so a failed install here only warns)
.venv/bin/python -m pip install -q scikit-learn seaborn plotly altair narwhals statsmodels \
  joblib jinja2 numba openpyxl tabulate lxml || echo "   could not install the ecosystem libraries or numba: their tests will skip"
echo "== building zambezi (C engine$(command -v nvcc >/dev/null && echo ' + CUDA backend'))"
.venv/bin/python -m pip install -q --no-build-isolation --no-deps . 2>&1 | tail -n 40
.venv/bin/python -c "import zambezi as zb; print('zambezi', zb.__version__, 'ready; devices:', [d['name'] for d in zb.devices()])"
