#!/usr/bin/env bash
# Dask's own dataframe tests (dask/dataframe/tests of the installed dask)
# run with the zambezi backend selected (DASK_DATAFRAME__BACKEND=zambezi),
# as cuDF runs them with "cudf", one shard per test module, with a per-test
# timeout.  zambezi.dask is loaded as a pytest plugin before the tests are
# collected, so dd.from_pandas / dd.from_dict / the readers make zambezi
# partitions and Dask's assert_eq compares their to_pandas() with pandas.
# Each test's outcome is recorded as it ends (scripts/dask_tests_record.py,
# so a shard stopped by its limit still counts).  Writes
# build-dask-tests/summary.md and summary.json: passed / failed /
# errors / skipped per module, the pass rate, and failures grouped by cause
# (exception type and the first line of its message).
#
#   scripts/dask-tests.sh                          # the default modules below
#   scripts/dask-tests.sh test_groupby test_shuffle
#   scripts/dask-tests.sh --ci                     # the curated subset (scripts/dask-tests-ci.txt),
#                                                  # one shard; exits 1 when a test fails
#
# Environment:
#   PYTHON          the interpreter (default .venv/bin/python); zambezi must be
#                   importable by it (installed, or PYTHONPATH=<a build's stage>)
#   TEST_TIMEOUT    seconds per test (default 60; with pytest-timeout installed)
#   SHARD_TIMEOUT   seconds per module (default 900)
#   BACKEND         the backend (default zambezi; "pandas" gives the baseline)
#   DASK_TESTS_OUT  the output folder (default build-dask-tests)
#   SUMMARY_ONLY=1  only rewrite the summary from the shards' earlier results
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
TEST_TIMEOUT=${TEST_TIMEOUT:-60}
SHARD_TIMEOUT=${SHARD_TIMEOUT:-900}
BACKEND=${BACKEND:-zambezi}
OUT=${DASK_TESTS_OUT:-$ROOT/build-dask-tests}
mkdir -p "$OUT"
"$PYTHON" -c "import dask.dataframe, distributed" 2>/dev/null ||
  { echo "SKIPPED: dask[dataframe] and distributed are not installed"; exit 0; }
PER_TEST=()
if "$PYTHON" -c "import pytest_timeout" 2>/dev/null; then
  PER_TEST=(--timeout="$TEST_TIMEOUT")
else
  echo "(no pytest-timeout: no per-test limit, only the shard's; pip install pytest-timeout)"
fi
"$PYTHON" -c "import zambezi.dask" || { echo "zambezi.dask is not importable by $PYTHON"; exit 1; }
TESTS=$("$PYTHON" -c "import os, dask.dataframe.tests as t; print(os.path.dirname(t.__file__))") ||
  { echo "the installed dask has no dask/dataframe/tests: fetch dask's source at its version"; exit 1; }

CI=0
if [ "${1:-}" = --ci ]; then
  CI=1
  MODULES=(ci)
elif [ $# -gt 0 ]; then
  MODULES=("$@")
else
  MODULES=(test_dataframe test_groupby test_shuffle test_multi test_arithmetics_reduction
           test_indexing test_categorical test_hashing test_boolean test_numeric test_reshape
           test_ufunc test_accessors test_merge_column_and_index test_map test_methods
           test_utils_dataframe)
fi

export DASK_DATAFRAME__BACKEND=$BACKEND
PLUGIN=(-p dask_tests_record)
[ "$BACKEND" = zambezi ] && PLUGIN+=(-p zambezi.dask)
export PYTHONPATH="$ROOT/scripts${PYTHONPATH:+:$PYTHONPATH}"
if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
  for m in "${MODULES[@]}"; do
    if [ "$m" = ci ]; then
      mapfile -t ids < <(grep -v '^#' scripts/dask-tests-ci.txt | sed '/^$/d' | sed "s|^|$TESTS/|")
    else
      ids=("$TESTS/$m.py")
    fi
    echo "== $m ($BACKEND)"
    rm -f "$OUT/$m.jsonl"
    (cd "$OUT" && DASK_TESTS_RECORD="$OUT/$m.jsonl" timeout --kill-after=30 "$SHARD_TIMEOUT" \
      "$PYTHON" -m pytest -q -p no:cacheprovider "${PLUGIN[@]}" "${PER_TEST[@]}" \
      -o xfail_strict=false -m "not slow and not gpu" "${ids[@]}" >"$OUT/$m.log" 2>&1)
    rc=$?
    [ $rc = 124 ] || [ $rc = 137 ] && echo "   (shard ran out of its ${SHARD_TIMEOUT} s)" | tee -a "$OUT/$m.log"
    tail -n 1 "$OUT/$m.log"
    [ $CI = 1 ] && [ $rc != 0 ] && { grep -E "^(FAILED|ERROR)" "$OUT/$m.log" | head -n 30; exit 1; }
  done
fi
[ $CI = 1 ] && exit 0

"$PYTHON" - "$OUT" "$BACKEND" <<'PYEOF'
import collections, glob, json, os, sys

out, backend = sys.argv[1], sys.argv[2]
rows, causes = [], collections.Counter()
examples = {}
for path in sorted(glob.glob(os.path.join(out, "test_*.jsonl"))):
    mod = os.path.basename(path)[:-6]
    n = collections.Counter()
    for line in open(path):
        r = json.loads(line)
        kind = {"passed": "passed", "failed": "failed", "error": "error"}.get(r["outcome"],
                                                                            "skipped")
        n[kind] += 1
        if kind in ("failed", "error"):
            causes[r["cause"]] += 1
            examples.setdefault(r["cause"], r["test"].rsplit("/", 1)[-1])
    log = open(os.path.join(out, mod + ".log")).read() if os.path.exists(
        os.path.join(out, mod + ".log")) else ""
    note = "stopped by the shard's time limit" if "ran out of its" in log else ""
    rows.append((mod, n["passed"], n["failed"], n["error"], n["skipped"], note))
tot = [sum(r[i] for r in rows) for i in range(1, 5)]
ran = tot[0] + tot[1] + tot[2]
rate = 100.0 * tot[0] / ran if ran else 0.0
lines = [f"# Dask's dataframe tests, backend={backend}", "",
         f"passed {tot[0]} of {ran} run ({rate:.1f}%); {tot[1]} failed, {tot[2]} errors, "
         f"{tot[3]} skipped", "", "| module | passed | failed | errors | skipped | note |",
         "|---|---|---|---|---|---|"]
lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} |" for r in rows]
lines += ["", "## Failures by cause (most frequent first)", "", "| count | cause | e.g. |",
          "|---|---|---|"]
def cell(text):
    return text.replace("|", "/").replace("`", "'")


lines += [f"| {c} | `{cell(k)}` | {examples[k]} |" for k, c in causes.most_common(60)]
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
json.dump({"backend": backend, "passed": tot[0], "failed": tot[1], "errors": tot[2],
           "skipped": tot[3], "modules": rows, "causes": causes.most_common()},
          open(os.path.join(out, "summary.json"), "w"), indent=1)
print("\n".join(lines[:3]))
PYEOF
