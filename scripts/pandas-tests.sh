#!/usr/bin/env bash
# pandas' own test suite (pandas/tests of the installed pandas) run with the
# accelerator installed (pytest -p zambezi.pandas), in shards, as cuDF does
# for cudf.pandas.  Writes build-pandas-tests/summary.md and summary.json:
# passed / collected per shard, passed / (collected - skipped), failures by
# directory with the first line of their errors.
#
#   scripts/pandas-tests.sh                       # every top-level directory
#   scripts/pandas-tests.sh frame/methods series/methods groupby reshape
#   scripts/pandas-tests.sh --ci                  # CI's curated subset (scripts/pandas-tests-ci.txt),
#                                                 # one shard; exits 1 when a test fails
#
# Environment:
#   PYTHON           the interpreter (default .venv/bin/python); zambezi must
#                    be importable by it (installed, or PYTHONPATH=<a build's stage>)
#   SHARD_TIMEOUT    seconds per shard (default 1800); a shard that runs out is
#                    reported as such, with what it had finished
#   ACCEL=0          run without the accelerator (the baseline on this machine)
#   PANDAS_TESTS_OUT the output folder (default build-pandas-tests)
#   SUMMARY_ONLY=1   only rewrite the summary from the shards' earlier results
#   ZAMBEZI_PANDAS_MIN_ROWS  default 0 here, so that zambezi serves the tests'
#                    small frames too (the default of 1000000 would leave them
#                    all in pandas and measure nothing)
#
# Test dependencies: pytest, hypothesis, pytz (pip install pytest hypothesis pytz).
# Tests marked slow, single_cpu, db or network are deselected, as in pandas' CI.
# Checks are not relaxed: pytest.raises(match=...) and warning checks run as written.
# The data files some tests read (io/formats/data/html ...) are not in pandas'
# wheel: those tests skip (--no-strict-data-files), as pandas' own wheel tests run.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
SHARD_TIMEOUT=${SHARD_TIMEOUT:-1800}
export ZAMBEZI_PANDAS_MIN_ROWS=${ZAMBEZI_PANDAS_MIN_ROWS:-0}
OUT=${PANDAS_TESTS_OUT:-$ROOT/build-pandas-tests}
# the test dependencies of pandas' suite
"$PYTHON" -c "import pytest, hypothesis, pytz" 2>/dev/null ||
  "$PYTHON" -m pip install -q pytest hypothesis pytz ||
  { echo "needs pytest, hypothesis and pytz: $PYTHON -m pip install pytest hypothesis pytz"; exit 1; }
"$PYTHON" -c "import zambezi.pandas" || { echo "zambezi is not importable by $PYTHON"; exit 1; }
PANDAS_DIR=$("$PYTHON" -c "import os, pandas; print(os.path.dirname(pandas.__file__))")
VERSION=$("$PYTHON" -c "import pandas; print(pandas.__version__)")
TESTS=$OUT/pandas-tests

# pandas' tests are copied out of the pandas package: code inside pandas'
# own directory sees the real pandas (that is how the accelerator keeps
# pandas' internals unproxied), so tests run from there would test nothing.
if [ ! -f "$TESTS/.version" ] || [ "$(cat "$TESTS/.version")" != "$VERSION" ]; then
  rm -rf "$TESTS" && mkdir -p "$TESTS"
  cp -r "$PANDAS_DIR/tests" "$TESTS/tests"
  cp "$PANDAS_DIR/conftest.py" "$TESTS/conftest.py"
  mkdir -p "$TESTS/io/formats" && cp -r "$PANDAS_DIR/io/formats/templates" "$TESTS/io/formats/" 2>/dev/null
  cat >"$TESTS/pyproject.toml" <<'EOF'
[tool.pytest.ini_options]
xfail_strict = true
markers = [
  "single_cpu: tests that should run on a single cpu only",
  "slow: mark a test as slow",
  "network: mark a test as network",
  "db: tests requiring a database (mysql or postgres)",
  "clipboard: mark a pd.read_clipboard test",
  "arm_slow: mark a test as slow for arm64 architecture",
  "skip_ubsan: Tests known to fail UBSAN check",
  "fails_arm_wheels: Tests known to fail on arm64 wheels",
]
EOF
  # "pandas.tests.x" -> a relative import ("from ..x"), as many dots as the
  # file is deep under tests/.
  (cd "$TESTS" && grep -rl "pandas\.tests\." --include='*.py' tests | while read -r f; do
    depth=$(($(tr -cd '/' <<<"$f" | wc -c)))
    dots=$(printf '%*s' "$depth" '' | tr ' ' '.')
    sed -i "s/from pandas\.tests\./from ${dots}/g; s/import pandas\.tests\./import ${dots}/g" "$f"
  done)
  echo "$VERSION" >"$TESTS/.version"
fi

CI=0
if [ "${1:-}" = --ci ]; then
  CI=1
  SHARDS=("ci")
elif [ $# -gt 0 ]; then
  SHARDS=("$@")
else
  SHARDS=()
  for d in "$TESTS"/tests/*/; do SHARDS+=("$(basename "$d")"); done
  SHARDS+=("top")   # the test_*.py files directly under tests/
fi

mkdir -p "$OUT/results"
PLUGIN=(-p zambezi.pandas)
[ "${ACCEL:-1}" = 0 ] && PLUGIN=()
for shard in "${SHARDS[@]}"; do
  [ "${SUMMARY_ONLY:-0}" = 1 ] && break
  name=${shard//\//_}
  if [ "$shard" = top ]; then
    # the files directly under tests/, named as pytest sees them from $TESTS
    mapfile -t target < <(cd "$TESTS" && ls tests/test_*.py)
  elif [ "$shard" = ci ]; then
    mapfile -t target < <(grep -v '^#' "$ROOT/scripts/pandas-tests-ci.txt" | grep . | sed 's|^|tests/|')
  else
    target=("tests/$shard")
  fi
  echo "== $shard"
  start=$(date +%s)
  rm -f "$OUT/results/$name.profile.json"
  (cd "$TESTS" && PANDAS_CI=1 ZAMBEZI_PANDAS_PROFILE_JSON="$OUT/results/$name.profile.json" timeout --signal=INT --kill-after=60 "$SHARD_TIMEOUT" \
    "$PYTHON" -m pytest "${PLUGIN[@]}" --import-mode=importlib -q -p no:cacheprovider \
    -m "not slow and not single_cpu and not db and not network" --disable-warnings \
    -o xfail_strict=true --no-strict-data-files --junitxml="$OUT/results/$name.xml" -rfE \
    "${target[@]}" >"$OUT/results/$name.log" 2>&1)
  rc=$?
  echo "$rc $(( $(date +%s) - start ))" >"$OUT/results/$name.rc"
  tail -n 1 "$OUT/results/$name.log"
done

"$PYTHON" - "$OUT" "$VERSION" "${SHARDS[@]}" <<'EOF'
import collections, json, pathlib, sys
import xml.etree.ElementTree as ET

out, version, shards = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
rows, failures = [], collections.defaultdict(collections.Counter)
tot = collections.Counter()
for shard in shards:
    name = shard.replace("/", "_")
    rc, secs = (out / "results" / f"{name}.rc").read_text().split()
    xml = out / "results" / f"{name}.xml"
    c = collections.Counter()
    if xml.exists():
        for case in ET.parse(xml).getroot().iter("testcase"):
            kinds = [child.tag for child in case]
            if "failure" in kinds or "error" in kinds:
                c["failed"] += 1
                el = case.find("failure") if "failure" in kinds else case.find("error")
                msg = (el.get("message") or "").split("\n")[0][:140]
                d = case.get("classname", "").replace(".", "/").rsplit("/", 2)[0]
                failures[d][msg] += 1
            elif "skipped" in kinds:
                c["skipped"] += 1
            else:
                c["passed"] += 1
    c["collected"] = c["passed"] + c["failed"] + c["skipped"]
    timed_out = rc in ("124", "130", "137")
    prof = out / "results" / f"{name}.profile.json"
    if prof.exists():
        p = json.loads(prof.read_text())
        c["fast_calls"], c["slow_calls"] = p["fast_calls"], p["slow_calls"]
    rows.append((shard, c, int(secs), timed_out or not xml.exists()))
    tot.update(c)

def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"

lines = [f"# pandas {version} test suite under zambezi.pandas", "",
         "| shard | collected | passed | failed | skipped | passed/collected | passed/(collected-skipped) | calls served by zambezi | seconds |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
for shard, c, secs, cut in rows:
    lines.append(f"| {shard}{' (timed out)' if cut else ''} | {c['collected']} | {c['passed']} | "
                 f"{c['failed']} | {c['skipped']} | {pct(c['passed'], c['collected'])} | "
                 f"{pct(c['passed'], c['collected'] - c['skipped'])} | "
                 f"{pct(c['fast_calls'], c['fast_calls'] + c['slow_calls'])} | {secs} |")
lines.append(f"| **all** | {tot['collected']} | {tot['passed']} | {tot['failed']} | {tot['skipped']} | "
             f"{pct(tot['passed'], tot['collected'])} | "
             f"{pct(tot['passed'], tot['collected'] - tot['skipped'])} | "
             f"{pct(tot['fast_calls'], tot['fast_calls'] + tot['slow_calls'])} | |")
lines += ["", "## Failures by directory (most frequent first lines)", ""]
for d, msgs in sorted(failures.items(), key=lambda kv: -sum(kv[1].values())):
    lines.append(f"- {d}: {sum(msgs.values())}")
    for msg, n in msgs.most_common(8):
        lines.append(f"  - {n} x `{msg}`")
(out / "summary.md").write_text("\n".join(lines) + "\n")
(out / "summary.json").write_text(json.dumps({
    "pandas": version, "totals": dict(tot),
    "shards": {s: dict(c, seconds=secs, timed_out=cut) for s, c, secs, cut in rows},
    "failures": {d: dict(m) for d, m in failures.items()}}, indent=1))
print("\n".join(lines[:len(rows) + 5]))
print(f"summary: {out / 'summary.md'}")
EOF
if [ "$CI" = 1 ]; then
  rc=$(cut -d' ' -f1 "$OUT/results/ci.rc")
  [ "$rc" = 0 ] || { grep -E "^(FAILED|ERROR)" "$OUT/results/ci.log" | head -n 40; exit 1; }
fi
