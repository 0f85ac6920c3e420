"""zambezi.pandas and the user's functions are called as often as pandas
calls them.

The same script, with a counting function for each method that takes one
(apply, map, agg, transform, filter, pipe, groupby apply), runs under plain
pandas and under the accelerator (every frame tried on zambezi); the
results and the number of calls of each function must be pandas' own.  A
zambezi method that fails after calling the function still gives pandas'
answer (pandas calls the function again), and the profile says so.
"""

import json

import pytest

from conftest import profiled_under_accelerator, run_python_output as _run, \
    same_under_accelerator

SCRIPT = r'''
import collections
import sys
import numpy as np
import pandas as pd

rng = np.random.default_rng(int(sys.argv[1]))
n = 60
v = rng.normal(size=n)
v[rng.random(n) < 0.15] = np.nan
df = pd.DataFrame({"k": rng.integers(0, 4, n), "v": v, "w": rng.integers(0, 100, n)})
count = collections.Counter()

def counting(name, f):
    def g(*args, **kwargs):
        count[name] += 1
        return f(*args, **kwargs)
    g.__name__ = "f_" + name.replace(".", "_")
    return g

def show(name, res):
    if isinstance(res, (pd.DataFrame, pd.Series)):
        res = res.round(9).to_string()
    print(f"{name}: calls={count[name]}\n{res}")

# Each function uses pandas methods zambezi's objects lack (sem, mad-like
# arithmetic on them): inside a zambezi attempt they must still work.
show("Series.map", df.w.map(counting("Series.map", lambda x: x % 7)))
show("Series.apply", df.v.apply(counting("Series.apply", lambda x: x * 2)))
show("DataFrame.map", df[["v", "w"]].map(counting("DataFrame.map", lambda x: x + 1)))
show("DataFrame.apply", df[["v", "w"]].apply(counting("DataFrame.apply", lambda c: c.sem())))
show("DataFrame.pipe", df.pipe(counting("DataFrame.pipe", lambda d: d.w.sum())))
show("groupby.agg", df.groupby("k").v.agg(counting("groupby.agg", lambda x: x.sem())))
show("groupby.agg-dict",
     df.groupby("k").agg({"v": counting("groupby.agg-dict", lambda x: x.sem()), "w": "sum"}))
show("groupby.transform",
     df.groupby("k").v.transform(counting("groupby.transform", lambda x: x - x.sem())))
show("groupby.filter",
     df.groupby("k").filter(counting("groupby.filter", lambda g: g.v.sem() > 0.1)))
show("groupby.apply",
     df.groupby("k").apply(counting("groupby.apply", lambda g: g.v.sem() + g.w.max()),
                           include_groups=False))
show("SeriesGroupBy.apply",
     df.groupby("k").w.apply(counting("SeriesGroupBy.apply", lambda s: s.sem())))
'''

# zambezi's Series.map made to fail after calling the function: the call
# runs on pandas, which calls the function again, and the profile records
# why.  A map zambezi refuses before calling the function (an argument it
# lacks) goes to pandas with one call per element.
BROKEN = r'''
import zambezi.pandas
zambezi.pandas.install()
import pandas as pd
import zambezi.series
from zambezi.pandas._profile import recorder

def broken_map(self, func, *args, **kwargs):
    func(1)
    raise NotImplementedError("zambezi gave up after the call")

zambezi.series.Series.map = broken_map
calls = []
s = pd.Series([1, 2, 3])
print(s.map(lambda x: calls.append(x) or x * 10).tolist(), calls)
print(sorted(recorder.as_dict()["functions"]["Series.map"]["fallback_reasons"]))
zambezi.series.Series.map = lambda self, func, **kw: (_ for _ in ()).throw(TypeError("no"))
calls.clear()
print(s.map(lambda x: calls.append(x) or x * 10).tolist(), len(calls))
'''


@pytest.mark.parametrize("seed", [1, 2])
def test_user_functions_run_as_often_as_under_pandas(tmp_path, seed):
    path = tmp_path / "calls.py"
    path.write_text(SCRIPT)
    plain = _run([str(path), str(seed)])
    prof = tmp_path / "p.json"
    accel = _run(["-m", "zambezi.pandas", f"--profile-json={prof}", str(path), str(seed)],
                 {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert accel == plain
    funcs = json.loads(prof.read_text())["functions"]
    # zambezi served the calls that take the functions (else this tests nothing)
    for name in ["Series.map", "Series.apply", "DataFrame.map", "DataFrame.apply",
                 "SeriesGroupBy.agg", "SeriesGroupBy.transform",
                 "DataFrameGroupBy.filter"]:
        assert funcs[name]["fast_calls"] >= 1, (name, funcs[name])


def test_a_failed_attempt_after_the_call_runs_on_pandas_and_is_recorded(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    out = _run([str(path)], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert out == ("[10, 20, 30] [1, 1, 2, 3]\n"
                   "[\"the user's function ran on zambezi, then again on pandas: "
                   "NotImplementedError: zambezi gave up after the call\"]\n"
                   "[10, 20, 30] 3\n")


# Values read from a Series: pandas gives numpy scalars of the column's
# dtype (NaN for a missing float), zambezi Python numbers and None.
SCALARS = r'''
import numpy as np
import pandas as pd
s = pd.DataFrame({"a": [1.0, None, 3.0], "b": np.array([1, 2, 3], dtype="int8"),
                  "c": np.array([1, 2, 3], dtype="float32"), "d": [True, False, True]})
c = pd.DataFrame({"v1": [1.0], "v2": [2.0]}).corr()
print([repr(v) for v in (c["v1"]["v2"], s.a[1], s.loc[1, "a"], s.a.iloc[1], s.iloc[1, 0],
                         s.at[1, "a"], s.iat[1, 0], s.b[1], s.c.iloc[1], s.loc[1, "b"],
                         s.iloc[1, 2], s.at[1, "d"], s.iat[1, 1], s.d[0], s.b.sum(),
                         s.b.max(), s.c.mean(), s.b.mean())])
print(s.groupby("d").agg(lambda x: x.iloc[0]).dtypes.to_dict())
'''


def test_scalars_read_from_a_series_are_pandas_own(tmp_path):
    path = tmp_path / "scalars.py"
    path.write_text(SCALARS)
    plain = _run([str(path)])
    assert plain.count("np.float64(nan)") == 7 and plain.count("np.int8(") == 4
    assert _run(["-m", "zambezi.pandas", str(path)], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"}) == plain


# A group-by or an indexer made from a frame sees the frame's later changes
# in place, as pandas' own do (they hold the same object), whichever side
# served the change.
MUTATIONS = r'''
import pandas as pd
df = pd.DataFrame({"k": [1, 1, 2, 2, 3], "a": [1.0, 2.0, 3.0, 4.0, 5.0], "s": list("xyxyx")})
gp = df.groupby("k")
print(gp.a.sum().tolist())
df["b"] = df.a * 10             # served by zambezi
print(gp["b"].sum().tolist(), gp[["a", "b"]].sum().columns.tolist())
df.loc[df.k == 1, "a"] = 100.0  # served by pandas
print(gp.a.sum().tolist())
loc = df.loc
loc[df.k == 3, "b"] = -1.0
print(loc[:, "b"].tolist(), gp.b.max().tolist())
'''


def test_intermediates_see_changes_of_their_frame(tmp_path):
    path = tmp_path / "mutations.py"
    path.write_text(MUTATIONS)
    plain = _run([str(path)])
    assert plain.splitlines()[1] == "[30.0, 70.0, 50.0] ['a', 'b']"
    assert _run(["-m", "zambezi.pandas", str(path)], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"}) == plain


# A library's accessor (pd.api.extensions.register_*_accessor): made with
# the object the user holds (its .obj is that object), computing through
# it; class attributes set on pd.Series are pandas' own (the registration
# warns about the one it overrides), and deleting them removes them.
ACCESSORS = r'''
import warnings
import weakref
import pandas as pd

class Stats:
    def __init__(self, obj):
        self._obj = obj
    @property
    def kind(self):
        return type(self._obj).__name__
    def spread(self):
        return self._obj.max() - self._obj.min()

for register in (pd.api.extensions.register_series_accessor,
                 pd.api.extensions.register_dataframe_accessor,
                 pd.api.extensions.register_index_accessor):
    register("stats")(Stats)
s = pd.Series([3, 1, 4, 1, 5], name="x")
df = pd.DataFrame({"a": [1.5, 2.5, 9.0], "b": [7, 8, 9]})
print(s.stats.kind, s.stats.spread(), s.stats._obj is s)
print(df.stats.kind, df.stats.spread().to_dict(), df.stats._obj is df)
print(df.index.stats.kind, df.index.stats.spread())
print("stats" in dir(pd.Series), "stats" in pd.DataFrame._accessors)
ref = weakref.ref(s)
del s
print("freed", ref() is None)
pd.Series.fake = 123
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    pd.api.extensions.register_series_accessor("fake")(Stats)
print([str(x.message)[:60] for x in w])
print(pd.Series([2, 8]).fake.spread())
del pd.Series.fake
print(hasattr(pd.Series([1]), "fake"))
# pytest's monkeypatch on pandas' classes, and its undo: pandas' own
# method comes back (a method looked up before the patch, and one not)
import pytest
df = pd.DataFrame({"a": [1, 2]})
print(df.sum().tolist())
mp = pytest.MonkeyPatch()
mp.setattr(pd.DataFrame, "sum", lambda self, *a, **k: "patched sum")
mp.setattr(pd.DataFrame, "nunique", lambda self, *a, **k: "patched nunique")
print(df.sum(), df.nunique())
mp.undo()
print(df.sum().tolist(), df.nunique().tolist())
class Mine(pd.DataFrame):
    pass
Mine.extra = 5
print(Mine.extra, hasattr(pd.DataFrame, "extra"))
'''


def test_registered_accessors_get_the_users_object(tmp_path):
    out = same_under_accelerator(tmp_path, ACCESSORS)
    assert "Series 4 True\nDataFrame {'a': 7.5, 'b': 2.0} True\nRangeIndex 2\n" in out
    assert "freed True" in out and "\n6\nFalse\n" in out
    assert out.endswith("[3]\npatched sum patched nunique\n[3] [2]\n5 False\n")


# read_csv's warnings under the accelerator: pandas' ParserWarning (so a
# user's filter or pytest.warns(pd.errors.ParserWarning) catches it), from
# the user's line, with pandas' text; to_csv's header=None and utf-16.
CSV_IO = r'''
import io, os, sys, tempfile, warnings
import pandas as pd
raw = b"a,b\n1,1\n1,2,3,4\n5,5\n"
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    df = pd.read_csv(io.BytesIO(raw), on_bad_lines="warn")
print(df.to_dict("list"))
for w in caught:
    print(w.category.__module__, w.category.__name__, os.path.basename(w.filename), w.lineno,
          repr(str(w.message)))
warnings.filterwarnings("error", category=pd.errors.ParserWarning)
try:
    pd.read_csv(io.BytesIO(raw), on_bad_lines="warn")
except pd.errors.ParserWarning as e:
    print("raised", repr(str(e)))
print(repr(df.to_csv(header=None, index=False)))
path = os.path.join(tempfile.mkdtemp(), "u16.csv")
df.to_csv(path, index=False, encoding="utf-16")
print(open(path, "rb").read())
'''


def test_read_csv_warnings_and_to_csv_as_pandas(tmp_path):
    path = tmp_path / "csv_io.py"
    path.write_text(CSV_IO)
    plain = _run([str(path)])
    assert "pandas.errors ParserWarning csv_io.py 7 'Skipping line 3" in plain
    prof = tmp_path / "p.json"
    accel = _run(["-m", "zambezi.pandas", f"--profile-json={prof}", str(path)],
                 {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert accel == plain
    funcs = json.loads(prof.read_text())["functions"]
    assert funcs["pandas.read_csv"]["fast_calls"] >= 1 and funcs["DataFrame.to_csv"]["fast_calls"] >= 1


# pandas objects that are not proxies pickle as under pandas: the
# Timestamp, NaT and Timedelta pickles name functions of pandas' compiled
# modules, a Categorical's its class and the Index of its categories, each
# found by name; and pickles made under the accelerator load in plain pandas.
PICKLES = r'''
import pickle, sys
import pandas as pd
objs = [pd.Timestamp("2020-01-02", tz="UTC"), pd.NaT, pd.Timedelta("36h"),
        pd.Period("2020-01", freq="M"), pd.offsets.MonthEnd(2),
        pd.Categorical(["b", "a", "b"], categories=["b", "a"], ordered=True),
        pd.CategoricalDtype(["x", "y"]), pd.array([1, None], dtype="Int64"),
        pd.Series(pd.Categorical(["u", "v"])), pd.CategoricalIndex(["p", "q"]),
        pd.DataFrame({"k": pd.Categorical(["a", "b"]), "t": pd.to_datetime(["2020", "2021"])}),
        pd.DataFrame({"a": [1, 2]}, index=pd.MultiIndex.from_tuples([(1, "x"), (2, "y")])),
        pd.Series([1.5, 2.5], index=pd.date_range("2020", periods=2, tz="UTC")),
        pd.Series([1], index=pd.CategoricalIndex(["q"]))]
for o in objs:
    back = pickle.loads(pickle.dumps(o))
    print(type(back).__name__, repr(back).replace("\n", " | "))
    print("  dtype class", isinstance(back, pd.Categorical), isinstance(o, pd.Categorical))
    # pd.testing (a module pandas imports with itself) takes what came back
    if isinstance(o, pd.DataFrame):
        pd.testing.assert_frame_equal(back, o)
    elif isinstance(o, pd.Series):
        pd.testing.assert_series_equal(back, o)
with open(sys.argv[1], "wb") as f:
    pickle.dump(objs, f)
if len(sys.argv) > 2:   # a pickle plain pandas wrote, loaded by pickle itself
    with open(sys.argv[2], "rb") as f:
        for o, back in zip(objs, pickle.load(f)):
            if isinstance(o, pd.DataFrame):
                pd.testing.assert_frame_equal(back, o)
            print(type(back).__name__, repr(back).replace("\n", " | "))
'''


def test_pandas_objects_pickle_as_under_pandas(tmp_path):
    path = tmp_path / "pickles.py"
    path.write_text(PICKLES)
    plain = _run([str(path), str(tmp_path / "plain.pkl")])
    again = _run([str(path), str(tmp_path / "plain2.pkl"), str(tmp_path / "plain.pkl")])
    accel = _run(["-m", "zambezi.pandas", str(path), str(tmp_path / "accel.pkl"),
                  str(tmp_path / "plain.pkl")], {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert accel == again
    # what the accelerator wrote loads in plain pandas, as plain pandas' own pickle
    show = ("import pickle, sys; print([repr(o) for o in pickle.load(open(sys.argv[1], 'rb'))])")
    assert _run(["-c", show, str(tmp_path / "accel.pkl")]) == \
        _run(["-c", show, str(tmp_path / "plain.pkl")])


# pandas' submodules reached as attributes of pandas (imported with pandas,
# before the accelerator): their functions take what user code holds
SUBMODULES = r'''
import warnings
import pandas as pd
df = pd.DataFrame({"a": [1.5, 2.5], "s": ["x", "y"]})
pd.testing.assert_frame_equal(df, df.copy())
pd.testing.assert_series_equal(df.a, df.a * 1)
print(pd.api.types.is_numeric_dtype(df.a), pd.api.types.is_string_dtype(df.s),
      pd.api.types.is_list_like(df.index), pd.api.types.infer_dtype(df.s))
print(type(pd.arrays.IntegerArray).__name__, pd.errors.EmptyDataError.__name__)
try:
    pd.testing.assert_frame_equal(df, df.assign(a=df.a + 1))
except AssertionError as e:
    print("differs:", str(e).splitlines()[0])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    from pandas.api.typing import RollingGroupby   # deprecated spelling: pandas warns here
print([(x.category.__name__, x.lineno) for x in w])
'''


def test_pandas_submodules_take_what_user_code_holds(tmp_path):
    out = same_under_accelerator(tmp_path, SUBMODULES)
    assert "True True True string" in out and "differs:" in out


# A missing string read as one value (s[i], .iloc, .loc, .at, .iat) is the
# missing value of the pandas dtype of its column: NaN for pandas' "str",
# pd.NA for "string", None in an object column; zambezi holds None.
MISSING_TEXT = r'''
from io import StringIO
import numpy as np, pandas as pd
obj_df = pd.DataFrame([["1", "2", np.nan], ["4", "5", "6"]])
r = pd.read_json(StringIO(obj_df.to_json(orient="records")), orient="records", dtype=False,
                 convert_axes=False)
c = r.columns[2]
print(repr(r.iloc[0, 2]), repr(r.loc[0, c]), repr(r[c][0]), repr(r[c].iloc[0]))
s = pd.Series(["a", None], dtype="string")
print(repr(s[1]), repr(s.iloc[1]), repr(s.at[1]))
s = pd.Series(["a", None])
print(repr(s[1]), repr(s.iloc[1]))
s = pd.Series(["a", None], dtype=object)
print(repr(s[1]), repr(s.iloc[1]))
d = pd.DataFrame({"t": ["x", None], "u": pd.array(["y", None], dtype="string")})
d["v"] = d.t + "!"
print(repr(d.iloc[1, 0]), repr(d.iloc[1, 1]), repr(d.at[1, "u"]), repr(d.loc[1, "v"]),
      repr(d.iat[1, 2]))
'''


def test_a_missing_string_read_as_one_value_is_pandas_own(tmp_path):
    out = same_under_accelerator(tmp_path, MISSING_TEXT)
    assert "<NA> <NA> <NA>" in out and "None None" in out


# A pandas function that gives back its argument gives back the object the
# user holds (a second proxy of the same pandas object would neither see
# nor make the first one's changes); values a column's dtype cannot hold
# are refused as pandas refuses them.
SAME_OBJECT = r'''
import pandas as pd, pandas._testing as tm
s = pd.Series([1.0, 2.0, 3.0])
t = tm.setitem(s)
print(t is s)
t[0] = 5.0
print(s.tolist(), t.tolist())
for value in ["1", True, pd.NaT]:
    i = pd.Series([1, 2, 3])
    try:
        i[0] = value
        print("set", i.tolist())
    except TypeError:
        print("TypeError", i.tolist())
'''


def test_a_pandas_function_giving_back_its_argument_gives_the_users_object(tmp_path):
    out = same_under_accelerator(tmp_path, SAME_OBJECT)
    assert out.startswith("True\n[5.0, 2.0, 3.0]") and out.count("TypeError") == 3


# where / mask / fillna / replace / shift / transpose mixing bools and
# numbers keep both kinds (pandas' object column): zambezi served them,
# making the bools numbers; a set or dict as an indexer is refused as
# pandas refuses it.
BOOLS_AND_NUMBERS = r'''
import os, warnings
import pandas as pd
warnings.showwarning = lambda m, c, f, n, *a: print("warning", c.__name__, os.path.basename(f), n)
s = pd.Series([1, 2, 3])
b = pd.Series([True, False, True])
f = pd.Series([1.5, None, 2.5])
for r in (s.where(s > 1, True), b.mask(b, 0), b.where(b, 2.5),
          pd.DataFrame({"a": s}).where(pd.DataFrame({"a": s > 1}), True)["a"],
          f.fillna(True), b.reindex([0, 5]).fillna(0), s.replace(1, True), b.replace(True, 1),
          b.shift(1, fill_value=0), s.shift(1, fill_value=True),
          pd.DataFrame({"a": s, "b": b}).T[0]):
    print(r.dtype, r.tolist())
for key in ({1}, {1: 1}):
    try:
        s[key]
    except TypeError as e:
        print("TypeError", e)
'''


def test_where_mixing_bools_and_numbers_and_set_indexers_as_pandas(tmp_path):
    out = same_under_accelerator(tmp_path, BOOLS_AND_NUMBERS)
    assert "object [True, 2, 3]" in out and "object [0, False, 0]" in out
    assert "object [1.5, True, 2.5]" in out and "object [1, False, 1]" in out
    assert out.count("TypeError") == 2
    # pandas' deprecation warnings (fillna and shift with such values) show
    # from the user's line, as under pandas (they were lost)
    assert out.count("warning Pandas4Warning script.py") == 2


# A pandas warning shows once per line, as without the accelerator: the
# warnings capture around each call pandas serves reset every module's
# registry of warnings shown, so a deprecation in a loop showed each pass.
WARNING_ONCE = r'''
import os, warnings
import pandas as pd
warnings.showwarning = lambda m, c, f, n, *a: print("warning", c.__name__, os.path.basename(f), n)
f = pd.Series([1.5, None, 2.5])
for i in range(3):
    f.fillna(True)
    f.sum()
'''


def test_a_pandas_warning_in_a_loop_shows_once_as_under_pandas(tmp_path):
    out = same_under_accelerator(tmp_path, WARNING_ONCE)
    assert out.count("warning") == 1


# Calls where zambezi answered otherwise than pandas and now hands over:
# Python's max / min / sum per group over NaN (pandas 3 calls them with
# Python's rules), replace with a compiled pattern (a regular expression
# to pandas), and a categorical's searchsorted and numpy reductions (by
# the categories' order in pandas).
HANDED_OVER = r'''
import re
import numpy as np
import pandas as pd
df = pd.DataFrame({"k": [1, 1, 2, 2], "v": [np.nan, 1.0, 2.0, np.nan], "i": [3, 1, 2, 5]})
g = df.groupby("k")
print(g.v.agg(max).tolist(), g.v.transform(min).tolist(), g.v.agg(sum).tolist(),
      g.i.agg(sum).tolist(), g.agg({"i": [max, "count"]}).values.tolist())
s = pd.Series(["apple", "avocado", "kiwi"])
print(s.replace(re.compile("^a"), "A").tolist(), s.replace("^a", "A").tolist())
c = pd.Series(pd.Categorical(["a", "b", "c", "d"], categories=["d", "c", "b", "a"], ordered=True))
print(np.minimum.reduce(c), np.maximum.reduce(c), c.sort_values().searchsorted("b"))
'''


def test_calls_zambezi_answered_otherwise_run_on_pandas(tmp_path):
    out = same_under_accelerator(tmp_path, HANDED_OVER)
    assert out.splitlines()[0].startswith("[nan, 2.0] [nan, nan, 2.0, 2.0] [nan, nan] [4, 7]")
    assert "['Apple', 'Avocado', 'kiwi'] ['apple', 'avocado', 'kiwi']" in out
    assert out.splitlines()[2] == "d a 2"


# astype to integers of a column with missing values: pandas raises
# IntCastingNaNError; zambezi kept them as nulls (given back as NaN).
ASTYPE_MISSING = r'''
import numpy as np
import pandas as pd
s = pd.Series([1.5, np.nan])
df = pd.DataFrame({"a": [1.0, np.nan], "b": [1.0, 2.0]})
for f in (lambda: s.astype(int), lambda: s.astype("int32"), lambda: df.astype({"b": "int64"}),
          lambda: df.astype({"a": "int64"}), lambda: df.astype(int),
          lambda: s.fillna(0).astype(int), lambda: df.astype("float32")):
    try:
        print(f().to_string())
    except Exception as e:
        print(type(e).__name__)
'''


def test_astype_to_integers_of_missing_values_raises_as_pandas(tmp_path):
    out = same_under_accelerator(tmp_path, ASTYPE_MISSING)
    assert out.count("IntCastingNaNError") == 4


# Dates and durations in a notebook: a pd.Timestamp, pd.Timedelta or NaT as
# an argument, text compared with a date column, and timedelta columns were
# all handed to pandas (the whole frame stayed there once it held a
# duration); zambezi serves them now, with pandas' answers and dtypes.
TIMES = r'''
import numpy as np
import pandas as pd
rng = np.random.default_rng(0)
n = 500
start = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 10**6, n), unit="s")
df = pd.DataFrame({"city": rng.choice(["a", "b", "c"], n), "start": start,
                   "end": start + pd.to_timedelta(rng.integers(60, 7200, n), unit="s"),
                   "fare": rng.random(n) * 30})
df["dur"] = df["end"] - df["start"]
print(df.dtypes.to_dict())
print(df.head())
print(len(df[df.start > pd.Timestamp("2024-01-05")]), len(df[df.start > "2024-01-05"]))
print(df.start.between("2024-01-02", "2024-01-03 12:00").sum(), (df.start != "nope").sum())
print((df.start - pd.Timestamp("2023-12-31")).head(3))
print((df.start + pd.Timedelta(hours=1)).head(3))
print(df.start.fillna(pd.Timestamp("2024-01-01")).head(2))
print((df.dur > pd.Timedelta("30min")).sum(), (df.dur / pd.Timedelta("1h")).round(3).head(3))
print(df.groupby("city")["dur"].agg(["min", "max", "sum", "mean"]))
print(df.sort_values("dur").head(3))
print(df.dur.dt.total_seconds().head(3), df.dur.dt.seconds.head(3))
print(df.dur.sum(), df.dur.mean(), df.dur.median(), df.dur.max() - df.dur.min())
print((df.dur * 2).head(2), (df.dur * 1.0).head(2), df.dur.fillna(pd.Timedelta(0)).head(2))
print((df.start == df.start.iloc[3]).sum(), (df.dur + pd.NaT).head(2), (df.start - pd.NaT).head(2))
print(df.dur.dt.round("min").head(2), df.dur.abs().head(2))
print(df.describe())
'''


def test_dates_and_durations_served_with_pandas_answers(tmp_path):
    _, funcs = profiled_under_accelerator(tmp_path, TIMES)
    for name in ["Series.__gt__", "Series.__sub__", "Series.__add__", "Series.between",
                 "Series.__truediv__", "Series.fillna"]:
        reasons = funcs[name]["fallback_reasons"]
        assert funcs[name]["fast_calls"] >= 1 and not any(
            "pandas Time" in r or "timedelta64" in r for r in reasons), (name, funcs[name])


# df.fillna(scalar): pandas also fills the columns whose dtype cannot hold
# the value (they become object columns, with a Pandas4Warning); zambezi
# leaves them, so those calls run on pandas.  The frame is large enough
# to be zambezi's (MIN_ROWS=0 in these runs).
FILLNA_SCALAR = r'''
import pandas as pd
df = pd.DataFrame({"f": [1.0, None, 3.0], "s": ["a", None, "c"], "i": [1, 2, 3],
                   "d": pd.to_datetime(["2020-01-01", None, "2020-01-03"])})
for v in (0, "z", 1.5):
    out = df.fillna(v)
    print(out.to_string(), out.dtypes.to_dict())
print(df[["f", "i"]].fillna(0).to_string(), df[["s"]].fillna("q").to_string())
print(df.fillna({"s": "w", "f": -1}).to_string())
'''


def test_fillna_with_a_value_some_columns_cannot_hold_as_pandas(tmp_path):
    out = same_under_accelerator(tmp_path, FILLNA_SCALAR)
    assert "dtype('O')" in out and "z" in out


# select_dtypes with pandas' nullable dtype names selects only columns of
# those dtypes; zambezi reads "Int64" as int64 (by design), so such calls
# run on pandas.
SELECT_MASKED = r'''
import pandas as pd
df = pd.DataFrame({"i": [1, 2], "f": [1.5, 2.5], "b": [True, False], "s": ["a", "b"]})
for inc in ("Int64", "Float64", "boolean", "int64", "number", ["Int64", "float64"], "bool"):
    print(inc, df.select_dtypes(include=inc).columns.tolist(),
          df.select_dtypes(exclude=inc).columns.tolist())
print(df.select_dtypes("Int64", "float").columns.tolist())
'''


def test_select_dtypes_of_nullable_names_as_pandas(tmp_path):
    out = same_under_accelerator(tmp_path, SELECT_MASKED)
    assert out.splitlines()[0] == "Int64 [] ['i', 'f', 'b', 's']"
