"""zambezi.pandas, the accelerator: the same pandas script run with
``python -m zambezi.pandas`` and with plain pandas prints the same bytes;
the entry points install it; fallbacks give pandas' answers and show in the
profile; pickles cross between the two; ZAMBEZI_PANDAS_FALLBACK=error and
ZAMBEZI_PANDAS_DEBUG=1 do what they say.

Everything runs in subprocesses: installing the accelerator rewires
sys.modules, which must not happen in the test process itself.
"""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import zambezi

STAGE = str(pathlib.Path(zambezi.__file__).resolve().parents[1])

# Random data with nulls, exercising calls zambezi serves (groupby, merge,
# value_counts, filters, setitem, rolling, str, dt, loc/iloc) and calls it
# lacks (sem, interpolate, describe, a transposed mixed frame).
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
print(df.iloc[10:14], df.loc[5])
print(round(df.v.sem(), 12), df.v.interpolate().isna().sum())
print(df.describe())
print(df.head(3).T)
print(np.asarray(df[["k", "v"]])[:2], np.sqrt(df.k).head(3), round(np.log1p(df.v.fillna(0)).sum(), 9))
df.fillna({"v": 0.0}, inplace=True)
print(df.v.isna().sum(), round(df.v.sum(), 9))
print(df.to_string(max_rows=8))
print(df._repr_html_()[:300])
df.info()
'''


def _run(args, env_extra=None, stdin=None, cwd=None, check=True):
    env = dict(os.environ)
    env["PYTHONPATH"] = STAGE + os.pathsep + env.get("PYTHONPATH", "")
    for k in list(env):
        if k.startswith("ZAMBEZI_PANDAS_"):
            del env[k]
    env.update(env_extra or {})
    p = subprocess.run([sys.executable] + args, capture_output=True, text=True, env=env,
                       input=stdin, cwd=cwd, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"{args} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    d = tmp_path_factory.mktemp("accel")
    path = d / "script.py"
    path.write_text(SCRIPT)
    return path


@pytest.fixture(scope="module")
def plain_output(script):
    return _run([str(script)]).stdout


def test_script_prints_the_same_with_and_without_the_accelerator(script, plain_output, tmp_path):
    prof = tmp_path / "profile.json"
    # MIN_ROWS=0: zambezi serves even these small frames
    fast = _run(["-m", "zambezi.pandas", "--profile", f"--profile-json={prof}", str(script)],
                {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert fast.stdout == plain_output
    # the text profile goes to stderr
    assert "calls served by zambezi" in fast.stderr
    assert "DataFrame.groupby" in fast.stderr
    assert "Series.sem: AttributeError" in fast.stderr
    data = json.loads(prof.read_text())
    funcs = data["functions"]
    assert data["fast_calls"] == sum(f["fast_calls"] for f in funcs.values()) > 20
    assert data["slow_calls"] == sum(f["slow_calls"] for f in funcs.values()) > 5
    # served by zambezi
    assert funcs["DataFrame.groupby"]["fast_calls"] >= 2
    assert funcs["DataFrame.merge"]["fast_calls"] == 1
    # zambezi has no Series.sem: pandas serves it, and the reason is kept
    sem = funcs["Series.sem"]
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


def test_debug_mode_runs_both_sides_and_catches_a_wrong_answer():
    code = textwrap.dedent('''
        import zambezi.pandas; zambezi.pandas.install()
        import pandas as pd
        df = pd.DataFrame({"a": [1.0, 2.0, None, 4.0], "b": [1, 1, 2, 2]})
        print(df.groupby("b").a.sum().tolist())       # right (1+2, 4): passes the check
        import zambezi.series as zs
        zs.Series.sum = lambda self, *a, **k: 42.0     # a broken zambezi
        try:
            df.a.sum()
        except AssertionError as e:
            print("caught", "differs from pandas" in str(e))
    ''')
    p = _run(["-c", code], {"ZAMBEZI_PANDAS_MIN_ROWS": "0", "ZAMBEZI_PANDAS_DEBUG": "1"})
    assert p.stdout.split("\n")[:2] == ["[3.0, 4.0]", "caught True"]


def test_fallback_error_and_warn():
    code = textwrap.dedent('''
        import zambezi.pandas; zambezi.pandas.install()
        import pandas as pd
        s = pd.Series([1.0, 2.0, 4.0])
        print(s.sum())                                  # zambezi serves it: no error
        try:
            s.sem()
        except Exception as e:
            print(type(e).__module__, type(e).__name__, "Series.sem" in str(e))
    ''')
    p = _run(["-c", code], {"ZAMBEZI_PANDAS_MIN_ROWS": "0", "ZAMBEZI_PANDAS_FALLBACK": "error"})
    assert p.stdout.split("\n")[:2] == ["7.0", "zambezi.errors UnsupportedError True"]
    p = _run(["-W", "always", "-c", code.replace("s.sem()", "print(s.sem())")],
             {"ZAMBEZI_PANDAS_MIN_ROWS": "0", "ZAMBEZI_PANDAS_FALLBACK": "warn"})
    assert "ran on pandas" in p.stderr and "Series.sem" in p.stderr
    bad = _run(["-c", code], {"ZAMBEZI_PANDAS_FALLBACK": "loud"}, check=False)
    assert bad.returncode != 0 and "ZAMBEZI_PANDAS_FALLBACK" in bad.stderr


def test_pickles_cross_both_ways(tmp_path):
    plain_pkl, proxy_pkl = tmp_path / "plain.pkl", tmp_path / "proxy.pkl"
    make = textwrap.dedent(f'''
        import pandas as pd
        df = pd.DataFrame({{"a": [1, None, 3], "s": ["x", None, "z"]}}, index=[5, 6, 7])
        df.to_pickle({str(plain_pkl)!r})
    ''')
    _run(["-c", make])
    code = textwrap.dedent(f'''
        import pickle
        import zambezi.pandas; zambezi.pandas.install()
        import pandas as pd
        back = pd.read_pickle({str(plain_pkl)!r})
        back2 = pickle.loads(open({str(plain_pkl)!r}, "rb").read())
        print(type(back).__name__, isinstance(back, pd.DataFrame), isinstance(back2, pd.DataFrame))
        print(back.a.sum(), back2.equals(back))
        df = pd.DataFrame({{"a": [1.5, 2.5]}}, index=["p", "q"])
        df["b"] = df.a * 2
        pickle.dump(df, open({str(proxy_pkl)!r}, "wb"))
        print(type(pickle.loads(pickle.dumps(df.a))).__name__)
    ''')
    p = _run(["-c", code], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert p.stdout.split("\n")[:3] == ["DataFrame True True", "4.0 True", "Series"]
    check = textwrap.dedent(f'''
        import pickle, pandas as pd
        df = pickle.load(open({str(proxy_pkl)!r}, "rb"))
        print(type(df) is pd.DataFrame)
        pd.testing.assert_frame_equal(df, pd.DataFrame({{"a": [1.5, 2.5], "b": [3.0, 5.0]}},
                                                       index=["p", "q"]))
    ''')
    assert _run(["-c", check]).stdout == "True\n"   # plain pandas, no zambezi.pandas


def test_entry_points(tmp_path):
    mod = tmp_path / "accel_probe_mod.py"
    mod.write_text("import pandas as pd, sys\n"
                   "from pandas import DataFrame\n"
                   "print(type(pd).__name__, DataFrame.__module__, sys.argv[1:],\n"
                   "      type(DataFrame({'a': [1]})).__mro__[1].__name__,\n"
                   "      type(pd.DataFrame).__name__)\n")
    p = _run(["-m", "zambezi.pandas", "-m", "accel_probe_mod", "x", "--y"], cwd=tmp_path)
    # a proxy class: its metaclass is the accelerator's, not type
    assert p.stdout == "module pandas ['x', '--y'] _Proxy _ProxyMeta\n"
    plain = _run(["-m", "accel_probe_mod", "x", "--y"], cwd=tmp_path)
    assert plain.stdout == "module pandas ['x', '--y'] NDFrame type\n"
    ipy = _run(["-c", "import zambezi.pandas as z; z.load_ipython_extension(None);"
                "import pandas as pd; print(type(pd.Series).__name__, z.is_installed())"])
    assert ipy.stdout == "_ProxyMeta True\n"
    test = tmp_path / "test_probe.py"
    test.write_text("import pandas as pd\n"
                    "def test_it():\n"
                    "    assert type(pd.DataFrame).__name__ == '_ProxyMeta'\n"
                    "    assert pd.DataFrame({'a': [1, 2]}).a.sum() == 3\n")
    p = _run(["-m", "pytest", "-q", "-p", "zambezi.pandas", "-p", "no:cacheprovider", str(test)],
             cwd=tmp_path)
    assert "1 passed" in p.stdout


def test_internals_see_real_pandas_and_mutations_stay_coherent():
    code = textwrap.dedent('''
        import zambezi.pandas; zambezi.pandas.install()
        import pandas as pd, numpy as np
        import zambezi
        real = zambezi.pandas._module.sys.modules["_zb_slow_pandas"]
        df = pd.DataFrame({"a": np.arange(6.0), "b": list("xyxyxy")})
        # a proxy is not a real DataFrame (pandas' own code is given the real one)
        print(type(df) is not real.DataFrame, isinstance(df, pd.DataFrame))
        print(isinstance(df._zb_get_slow(), pd.DataFrame), df._zb_get_fast() is not None)
        df["c"] = df.a + 1                     # served by zambezi: the pandas side is dropped
        df.loc[df.b == "x", "a"] = -5.0        # loc assignment: on pandas, the zambezi side dropped
        print(df._zb_fast is None, df.a.tolist(), df.c.sum())
        df.rename(columns={"c": "d"}, inplace=True)
        print(list(df.columns), df.groupby("b").d.sum().tolist())
        ser = df.a
        ser.iloc[0] = 100.0                    # copy-on-write: df keeps its value
        print(df.a.iloc[0], ser.iloc[0])
    ''')
    p = _run(["-c", code], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert p.stdout.split("\n")[:6] == [
        "True True", "True True", "True [-5.0, 1.0, -5.0, 3.0, -5.0, 5.0] 21.0",
        "['a', 'b', 'd'] [9.0, 12.0]", "-5.0 100.0", ""]
