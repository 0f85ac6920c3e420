"""zambezi.pandas, the accelerator: the same pandas script run with
``python -m zambezi.pandas`` and with plain pandas prints the same bytes;
the entry points install it; fallbacks give pandas' answers and show in the
profile; pickles cross between the two; ZAMBEZI_PANDAS_FALLBACK=error and
ZAMBEZI_PANDAS_DEBUG=1 do what they say.

Everything runs in subprocesses (installing the accelerator rewires
sys.modules, which must not happen in the test process itself), few of
them: one accelerated process runs most checks and prints one line each.
"""

import json
import textwrap

import pytest

from conftest import run_python as _run

# Random data with nulls, exercising calls zambezi serves (groupby, merge,
# value_counts, filters, setitem, rolling, str, dt, loc/iloc) and calls it
# lacks (Series.get, interpolate, describe, a transposed mixed frame).
SCRIPT = r'''
import sys
import numpy as np
import pandas as pd
from pandas import DataFrame, Series

rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
n = 3000
v = rng.normal(size=n)
v[rng.random(n) < 0.1] = np.nan
s = rng.choice(["ant", "bee", "cat", "dog"], n).astype(object)
s[rng.random(n) < 0.1] = None
df = DataFrame({"k": rng.integers(0, 40, n), "v": v, "s": pd.array(s, dtype="str"),
                "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10**6, n), "s")})
print(type(df).__name__, isinstance(df, pd.DataFrame), isinstance(df.v, Series),
      isinstance(df.index, pd.Index), type(df.groupby("k")).__name__)
print(df.groupby("k").v.sum())
print(df.groupby(["s", "k"], dropna=False).agg({"v": ["mean", "count"]}).head(12))
print(df.groupby("s").size())
print(df.s.value_counts(dropna=False))
print(df[df.v > 0.5].sort_values(["k", "v"]).head(10))
df["w"] = df.v * 2 + df.k
df.loc[df.k == 3, "w"] = -1.0
# float sums: zambezi adds in parallel blocks, pandas pairwise; the last
# bits may differ (see docs/pandas-accelerator.md), so sums print rounded
print(round(df.w.sum(), 9), df.w.min(), df.w.max())
print(df.v.rolling(5).mean().tail(7))
print(df.s.str.upper().str.len().head(6))
print(df.t.dt.hour.head(6), df.t.dt.year.sum())
other = DataFrame({"k": np.arange(0, 40, 2), "name": [f"n{i}" for i in range(20)]})
print(df.merge(other, on="k", how="left").head(8))
print(pd.concat([df.head(3), df.tail(3)]))
# integer and bool columns that gain missing values: float64 / object in pandas
codes = DataFrame({"k": np.arange(0, 40, 3), "code": np.arange(0, 40, 3) * 10,
                   "flag": np.arange(0, 40, 3) % 2 == 0})
lm = df.merge(codes, on="k", how="left")
print(lm.dtypes.to_dict(), lm.code.sum(), lm.code.mean(), lm[["k", "code", "flag"]].head(6))
print(df.k.shift(2).head(4), df.k.shift(2).sum(), df.s.str.len().sum())
# a Python function per group returning a Series: called once per group
calls = []
def r2(g):
    calls.append(1)
    return pd.Series({"r2": g["v"].corr(g["k"]) ** 2, "n": len(g)})
ap = df.groupby("s", as_index=False, sort=False, dropna=False).apply(r2, include_groups=False)
print(ap.round(9), len(calls))
print(df.iloc[10:14], df.loc[5])
print(round(df.v.get(7), 12), df.v.interpolate().isna().sum())
print(df.describe())
print(df.head(3).T)
cat = pd.Categorical(df.s.head(6), categories=["ant", "bee", "cat", "dog"])   # a real class
print(cat, isinstance(cat, pd.Categorical), type(cat).__name__, cat.categories.dtype)
print(np.asarray(df[["k", "v"]])[:2], np.sqrt(df.k).head(3), round(np.log1p(df.v.fillna(0)).sum(), 9))
df.fillna({"v": 0.0}, inplace=True)
print(df.v.isna().sum(), round(df.v.sum(), 9))
print(df.to_string(max_rows=8))
print(df._repr_html_()[:300])
df.info()
# null keys match each other in merges, joins and alignment, as pandas
a = DataFrame({"k": [1.0, np.nan, 2.0, np.nan], "x": [1, 2, 3, 4]})
b = DataFrame({"k": [np.nan, 2.0], "y": [10, 20]})
for how in ("inner", "left", "right", "outer"):
    print(a.merge(b, on="k", how=how))
print(pd.concat([a.set_index("k").head(3), b.set_index("k")], axis=1))
# int column labels (from unstack): nlargest by label
u = df.groupby(["s", df.k % 3]).v.mean().unstack()
print(u.nlargest(2, 1).round(9))
'''


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    d = tmp_path_factory.mktemp("accel")
    path = d / "script.py"
    path.write_text(SCRIPT)
    return path


@pytest.fixture(scope="module")
def plain_output(script):
    return _run([str(script)]).stdout


@pytest.fixture(scope="module")
def plain_pickle(tmp_path_factory):
    path = tmp_path_factory.mktemp("pkl") / "plain.pkl"
    _run(["-c", "import pandas as pd\n"
                "pd.DataFrame({'a': [1, None, 3], 's': ['x', None, 'z']}, index=[5, 6, 7])"
                f".to_pickle({str(path)!r})"])
    return path


# Run in one accelerated process (installed through the IPython entry
# point); each check prints one line "name: result".
CHECKS = r'''
import os, pickle, sys, warnings
os.environ["ZAMBEZI_PANDAS_MIN_ROWS"] = "0"
os.environ["ZAMBEZI_PANDAS_DEBUG"] = "1"
import zambezi.pandas as zp
zp.load_ipython_extension(None)
import numpy as np
import pandas as pd
from zambezi.pandas._config import settings
plain_pkl, proxy_pkl = sys.argv[1], sys.argv[2]

def check(name, value):
    print(f"{name}: {value}")

check("installed", (zp.is_installed(), type(pd.DataFrame).__name__, type(pd).__name__))
real = sys.modules["_zb_slow_pandas"]
df = pd.DataFrame({"a": np.arange(6.0), "b": list("xyxyxy")})
# a proxy is not a real DataFrame (pandas' own code is given the real one)
check("types", (type(df) is not real.DataFrame, isinstance(df, pd.DataFrame),
                type(df).__name__, type(df.a).__name__, isinstance(df.index, pd.Index),
                type(df.groupby("b")).__name__, isinstance(real.DataFrame(), pd.DataFrame)))
check("sides", (isinstance(df._zb_get_slow(), real.DataFrame), df._zb_get_fast() is not None))
df["c"] = df.a + 1                     # served by zambezi: the pandas side is dropped
check("setitem", (df._zb_slow is None, df._zb_fast is not None))
df.loc[df.b == "x", "a"] = -5.0        # on pandas: the zambezi side is dropped
check("loc-set", (df._zb_fast is None, df.a.tolist(), float(df.c.sum())))
df.rename(columns={"c": "d"}, inplace=True)
check("inplace", (list(df.columns), df.groupby("b").d.sum().tolist()))
f = pd.DataFrame({"x": [1, 2]}) + 0    # held by zambezi
f.columns.name = "cols"                # renames f's own labels, as in pandas
f.index.name = "rows"
check("label-names", (f.columns.name, f.index.name, int(f.x.sum())))
ser = df.a
ser.iloc[0] = 100.0                    # copy-on-write: df keeps its value
check("cow", (float(df.a.iloc[0]), float(ser.iloc[0])))

back = pd.read_pickle(plain_pkl)
back2 = pickle.loads(open(plain_pkl, "rb").read())
check("unpickle", (type(back).__name__, isinstance(back, pd.DataFrame),
                   isinstance(back2, pd.DataFrame), float(back.a.sum()), back2.equals(back)))
p = pd.DataFrame({"a": [1.5, 2.5]}, index=["p", "q"])
p["b"] = p.a * 2
pickle.dump(p, open(proxy_pkl, "wb"))
check("repickle", type(pickle.loads(pickle.dumps(p.a))).__name__)

s = pd.Series([1.0, 2.0, 4.0])
settings.fallback = "error"
check("served", repr(s.sum()))                 # zambezi serves it: no error
try:
    s.get(1)
    check("error", "no error")
except Exception as e:
    check("error", (type(e).__module__, type(e).__name__, "Series.get" in str(e)))
settings.fallback = "warn"
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    s.get(2)
check("warn", [str(x.message).split(" (")[0] for x in w])
settings.fallback = ""
try:
    settings.read_env({"ZAMBEZI_PANDAS_FALLBACK": "loud"})
except ValueError as e:
    check("bad-env", (type(e).__name__, "ZAMBEZI_PANDAS_FALLBACK" in str(e)))

# pandas' own warnings reach the user, pointed at the user's line
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    pd.Series([1, 2, 3]).describe(include="all")     # deprecated in pandas 3.1
check("pandas-warning", [(x.category.__name__, os.path.basename(x.filename)) for x in w])

# debug mode: a right answer passes, a wrong one (a broken zambezi) raises
d = pd.DataFrame({"a": [1.0, 2.0, None, 4.0], "b": [1, 1, 2, 2]})
check("debug-right", d.groupby("b").a.sum().tolist())
import zambezi.series
zambezi.series.Series.sum = lambda self, *a, **k: 42.0
try:
    d.a.sum()
    check("debug-wrong", "not caught")
except AssertionError as e:
    check("debug-wrong", "differs from pandas" in str(e))
'''


@pytest.fixture(scope="module")
def checks(tmp_path_factory, plain_pickle):
    d = tmp_path_factory.mktemp("checks")
    proxy_pkl = d / "proxy.pkl"
    (d / "checks.py").write_text(CHECKS)
    out = _run([str(d / "checks.py"), str(plain_pickle), str(proxy_pkl)]).stdout
    lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    return lines, proxy_pkl


def test_script_prints_the_same_with_and_without_the_accelerator(script, plain_output, tmp_path):
    prof = tmp_path / "profile.json"
    # MIN_ROWS=0: zambezi serves even these small frames
    fast = _run(["-m", "zambezi.pandas", "--profile", f"--profile-json={prof}", str(script)],
                {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert fast.stdout == plain_output
    # the text profile goes to stderr
    assert "calls served by zambezi" in fast.stderr
    assert "DataFrame.groupby" in fast.stderr
    assert "Series.get: AttributeError" in fast.stderr
    data = json.loads(prof.read_text())
    funcs = data["functions"]
    assert data["fast_calls"] == sum(f["fast_calls"] for f in funcs.values()) > 20
    assert data["slow_calls"] == sum(f["slow_calls"] for f in funcs.values()) > 5
    # served by zambezi
    assert funcs["DataFrame.groupby"]["fast_calls"] >= 2
    assert funcs["DataFrame.merge"]["fast_calls"] == 6
    # a Python function per group: pandas runs it, once
    assert funcs["DataFrameGroupBy.apply"]["slow_calls"] == 1
    assert funcs["DataFrameGroupBy.apply"]["fast_calls"] == 0
    # zambezi has no Series.get: pandas serves it, and the reason is kept
    sem = funcs["Series.get"]
    assert sem["fast_calls"] == 0 and sem["slow_calls"] == 1
    assert any("AttributeError" in r for r in sem["fallback_reasons"])
    # printing always goes through pandas
    assert funcs["DataFrame.__repr__"]["fast_calls"] == 0


def test_default_threshold_keeps_small_frames_in_pandas(script, plain_output, tmp_path):
    prof = tmp_path / "p.json"
    fast = _run(["-m", "zambezi.pandas", f"--profile-json={prof}", str(script)])
    assert fast.stdout == plain_output
    data = json.loads(prof.read_text())
    assert data["fast_calls"] == 0 and data["slow_calls"] > 20


def test_read_csv_reads_dates_as_text_unless_parse_dates(tmp_path):
    # zambezi's own read_csv recognises dates; pandas.read_csv under the
    # accelerator must not (a later .str would fail on them)
    script = tmp_path / "csv_dates.py"
    script.write_text(textwrap.dedent('''
        import io
        import pandas as pd
        csv = "id,ts,d\\n1,2021-01-01 10:00:00,2021-01-01\\n2,2021-02-03 11:30:00,2021-02-03\\n"
        rc = pd.read_csv(io.StringIO(csv))
        print(rc.dtypes.to_dict(), rc.ts.str[:7].tolist(), rc.d.tolist())
        print(pd.read_csv(io.StringIO(csv), parse_dates=["ts"]).dtypes.to_dict())
    '''))
    plain = _run([str(script)])
    fast = _run(["-m", "zambezi.pandas", str(script)], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert plain.returncode == 0 and "2021-01" in plain.stdout
    assert fast.stdout == plain.stdout


def test_read_csv_of_a_stream_falls_back_on_the_same_input(tmp_path):
    # zambezi reads a stream to its end before it finds it cannot serve the
    # call; pandas must then read the same input (seekable or not)
    script = tmp_path / "csv_streams.py"
    script.write_text(textwrap.dedent('''
        import io, os
        import pandas as pd
        print(pd.read_csv(io.StringIO('a\\n"1,234"\\n5\\n'), thousands=','))
        print(pd.read_csv(io.StringIO('1,2,3\\n4,5,6\\n'), names=['a', 'b']))
        print(pd.read_csv(io.BytesIO(b'a,b\\n1,2,3\\n4,5,6\\n')))
        r, w = os.pipe()
        os.write(w, b'a,b\\n1,2,3\\n')
        os.close(w)
        with os.fdopen(r, 'rb') as pipe:
            print(pipe.seekable(), pd.read_csv(pipe))
    '''))
    plain = _run([str(script)])
    fast = _run(["-m", "zambezi.pandas", str(script)], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert plain.returncode == 0 and "1234" in plain.stdout and "False" in plain.stdout
    assert fast.stdout == plain.stdout, fast.stderr[-2000:]


def test_read_csv_masked_dtypes_and_no_rows_as_pandas(tmp_path):
    script = tmp_path / "csv_dtypes.py"
    script.write_text(textwrap.dedent('''
        import io
        import pandas as pd
        print(pd.read_csv(io.StringIO("a\\n1\\n2\\n"), dtype={"a": "Int64"}).dtypes)
        print(pd.read_csv(io.StringIO("a,b\\n1,True\\n,False\\n"),
                          dtype={"a": "UInt8", "b": "boolean"}).dtypes)
        print(pd.read_csv(io.StringIO("a,b\\n1,x\\n2,y\\n"), dtype="string").dtypes)
        print(pd.read_csv(io.StringIO("a,b\\n")).dtypes)
    '''))
    plain = _run([str(script)])
    fast = _run(["-m", "zambezi.pandas", str(script)], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert plain.returncode == 0 and "Int64" in plain.stdout and "object" in plain.stdout
    assert fast.stdout == plain.stdout, fast.stderr[-2000:]


def test_install_types_and_internals(checks):
    out, _ = checks
    assert out["installed"] == "(True, '_ProxyMeta', 'module')"
    assert out["types"] == "(True, True, 'DataFrame', 'Series', True, 'DataFrameGroupBy', True)"
    assert out["sides"] == "(True, True)"


def test_mutations_stay_coherent(checks):
    out, _ = checks
    assert out["setitem"] == "(True, True)"
    # a = 0..5 with rows b == "x" (0, 2, 4) set to -5; c = original a + 1
    assert out["loc-set"] == "(True, [-5.0, 1.0, -5.0, 3.0, -5.0, 5.0], 21.0)"
    # d (was c) summed by b: x -> 1+3+5, y -> 2+4+6
    assert out["inplace"] == "(['a', 'b', 'd'], [9.0, 12.0])"
    assert out["cow"] == "(-5.0, 100.0)"
    assert out["label-names"] == "('cols', 'rows', 3)"


def test_pickles_cross_both_ways(checks):
    out, proxy_pkl = checks
    assert out["unpickle"] == "('DataFrame', True, True, 4.0, True)"
    assert out["repickle"] == "Series"
    check = textwrap.dedent(f'''
        import pickle, pandas as pd
        df = pickle.load(open({str(proxy_pkl)!r}, "rb"))
        print(type(df) is pd.DataFrame)
        pd.testing.assert_frame_equal(df, pd.DataFrame({{"a": [1.5, 2.5], "b": [3.0, 5.0]}},
                                                       index=["p", "q"]))
    ''')
    assert _run(["-c", check]).stdout == "True\n"   # plain pandas, no zambezi.pandas


def test_fallback_error_and_warn(checks):
    out, _ = checks
    assert out["served"] == "np.float64(7.0)"       # a numpy scalar, as pandas gives
    assert out["error"] == "('zambezi.errors', 'UnsupportedError', True)"
    assert out["warn"] == "['zambezi.pandas: Series.get ran on pandas']"
    assert out["bad-env"] == "('InvalidValueError', True)"
    assert out["pandas-warning"] == "[('Pandas4Warning', 'checks.py')]"


def test_debug_mode_runs_both_sides_and_catches_a_wrong_answer(checks):
    out, _ = checks
    assert out["debug-right"] == "[3.0, 4.0]"     # 1+2, and 4 (the null skipped)
    assert out["debug-wrong"] == "True"


def test_entry_points(tmp_path):
    mod = tmp_path / "accel_probe_mod.py"
    mod.write_text("import pandas as pd, sys\n"
                   "from pandas import DataFrame\n"
                   "print(type(pd).__name__, DataFrame.__module__, sys.argv[1:],\n"
                   "      type(DataFrame).__name__, isinstance(DataFrame({'a': [1]}), pd.DataFrame))\n")
    p = _run(["-m", "zambezi.pandas", "-m", "accel_probe_mod", "x", "--y"], cwd=tmp_path)
    # a proxy class: its metaclass is the accelerator's, not type
    assert p.stdout == "module pandas ['x', '--y'] _ProxyMeta True\n"
    test = tmp_path / "test_probe.py"
    test.write_text("import pandas as pd\n"
                    "def test_it():\n"
                    "    assert type(pd.DataFrame).__name__ == '_ProxyMeta'\n"
                    "    assert pd.DataFrame({'a': [1, 2]}).a.sum() == 3\n")
    p = _run(["-m", "pytest", "-q", "-p", "zambezi.pandas", "-p", "no:cacheprovider", str(test)],
             cwd=tmp_path)
    assert "1 passed" in p.stdout
