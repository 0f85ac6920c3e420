"""Calls from pandas' own test areas (io/formats, indexes, resample) that failed
under the accelerator: each script prints its results and must print the
same bytes under plain pandas and under ``python -m zambezi.pandas`` with
every frame tried on zambezi."""

import pytest

from conftest import profiled_under_accelerator, same_under_accelerator

pytest.importorskip("pandas")


def test_styler_takes_proxies(tmp_path):
    # Styler(df) with a proxy, a proxy gmap, a function that builds a
    # proxy frame for apply(axis=None), and a concat of another styler
    pytest.importorskip("jinja2")
    out = same_under_accelerator(tmp_path, r'''
import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

df = pd.DataFrame({"A": [0, 1, 4], "B": [-0.61, -1.22, 3.5]})
s = Styler(df, uuid_len=0, precision=2)
print(type(s).__name__, isinstance(s, Styler))
print(s.to_string())
def f(x):
    return pd.DataFrame(np.where(x == x.max(), "color: red", ""), index=x.index,
                        columns=x.columns)
print(sorted(df.style.apply(f, axis=None)._compute().ctx.items()))
def g(col):
    return pd.Series(np.where(col > 0, "color: blue", ""), index=col.index)
print(sorted(df.style.apply(g)._compute().ctx.items()))
gmap = pd.DataFrame({"A": [3.0, 2.0, 1.0], "B": [1.0, 2.0, 3.0]})
try:
    print(sorted(df.style.background_gradient(axis=None, gmap=gmap)._compute().ctx.items()))
except ImportError:
    print("no matplotlib")
print(df.style.concat(df.agg(["sum"]).style).to_string())
''')
    assert "Styler True" in out and "('color', 'red')" in out and "('color', 'blue')" in out


def test_range_index_results_stay_ranges(tmp_path):
    # pandas keeps a RangeIndex where it can (set operations, slices,
    # arithmetic); a zambezi Index of the same values is not one
    out = same_under_accelerator(tmp_path, r'''
import pandas as pd

left = pd.RangeIndex(0, 10, 1)
for right in [pd.RangeIndex(-5, 5, 2), pd.RangeIndex(0, 10, 1), pd.RangeIndex(5, 20, 1)]:
    for op in ["difference", "union", "intersection", "symmetric_difference"]:
        for sort in [None, False]:
            res = getattr(left, op)(right, sort=sort)
            print(op, sort, type(res).__name__, repr(res))
print(repr(left[2:8]), repr(left * 2 + 1), repr(left.delete(0)), repr(left.take([1, 2, 3])))
print(repr(pd.DataFrame({"a": range(5)}).index.difference(pd.RangeIndex(3, 9))))
''')
    assert "difference None RangeIndex RangeIndex(start=0, stop=5, step=1)" in out


def test_index_reductions_map_and_errors(tmp_path):
    # min / max of an Index are numpy scalars of its dtype; map keeps the
    # index's dtype where the values fit (int8 stays int8, float32
    # float32); set_names(level=) of a flat index, an empty float or bool
    # array as a key raise pandas' errors
    same_under_accelerator(tmp_path, r'''
import numpy as np
import pandas as pd

for dt in ["int8", "uint16", "int64", "float32", "float64"]:
    idx = pd.Index(np.array([3, 1, 2, 5], dtype=dt), name="k")
    for r in [idx.min(), idx.max(), np.maximum.reduce(idx), np.minimum.reduce(idx)]:
        print(dt, type(r).__name__, r)
    print(repr(idx.map({v: i for i, v in enumerate(idx)})), repr(idx.map(lambda x: x * 1000)))
    print(repr(idx.map(pd.Series(np.arange(4, 0, -1), idx))))
    for call in [lambda: idx.set_names("a", level=0), lambda: idx.set_names(["a", "b"]),
                 lambda: idx[np.array([], dtype=np.float64)],
                 lambda: idx[np.array([], dtype=bool)], lambda: idx[np.array([1.0])]]:
        try:
            print(repr(call()))
        except Exception as e:
            print(type(e).__name__, str(e)[:60])
    print(repr(idx.set_names(["z"])), repr(idx[[]]), repr(idx[np.array([], dtype=int)]))
''')


def test_holiday_takes_proxies(tmp_path):
    # pandas' Holiday checks that exclude_dates is a DatetimeIndex
    same_under_accelerator(tmp_path, r'''
import pandas as pd
from pandas.tseries.holiday import Holiday, AbstractHolidayCalendar, MO
from pandas.tseries.offsets import DateOffset

ex = pd.DatetimeIndex([pd.Timestamp("2022-05-30")])
h = Holiday("Spring", month=5, day=31, offset=DateOffset(weekday=MO(-1)), exclude_dates=ex)
print(repr(h.dates(pd.Timestamp("2020-01-01"), pd.Timestamp("2024-12-31"))))
class Cal(AbstractHolidayCalendar):
    rules = [h]
print(repr(Cal().holidays(pd.Timestamp("2020-01-01"), pd.Timestamp("2024-12-31"))))
''')


def test_index_copy_has_its_own_names(tmp_path):
    # a copy's names change without changing the original's (pandas'
    # indexes/ fixtures hand each test a copy of a shared index)
    same_under_accelerator(tmp_path, r'''
import numpy as np
import pandas as pd

for idx in [pd.Index(np.arange(5, dtype="float32")), pd.Index(["a", "b"], name="s"),
            pd.date_range("2024-01-01", periods=3).as_unit("ns").to_series().reset_index(drop=True)
              .pipe(pd.Index),
            pd.MultiIndex.from_arrays([[1, 2], ["a", "b"]])]:
    c = idx.copy()
    if idx.nlevels == 1:
        c.name = "foo"
    print(repr(idx.names), repr(c.names))
    c = idx.copy()
    c.set_names(["q"] * idx.nlevels, inplace=True)
    print(repr(idx.names), repr(c.names))
    c = idx.copy()
    c.names = ["z"] * idx.nlevels
    print(repr(idx.names), repr(c.names))
''')


def test_zambezi_index_copy_has_its_own_names():
    import zambezi as zb

    for z in [zb.Index([1, 2], name="a"), zb.MultiIndex.from_arrays([[1], ["a"]])]:
        c = z.copy()
        c.names = ["x"] * z.nlevels
        assert c.names == ["x"] * z.nlevels
        assert z.names == (["a"] if z.nlevels == 1 else [None, None])
        assert c.equals(z)


def test_series_unique_is_pandas_array(tmp_path):
    # pandas' Series.unique gives an array (numpy's, or the dtype's
    # extension array), not a Series
    same_under_accelerator(tmp_path, r'''
import numpy as np
import pandas as pd

cases = [pd.Series([3, 1, 3, 2, 1], dtype="int8"), pd.Series([1.5, np.nan, 1.5, 2.0, np.nan]),
         pd.Series(["b", None, "a", "b", None]), pd.Series([True, False, True]),
         pd.Series(pd.to_datetime(["2024-01-02", None, "2024-01-01", "2024-01-02"])),
         pd.Series(pd.to_datetime(["2024-01-02", "2024-01-01", "2024-01-02"]).tz_localize("UTC")),
         pd.Series(["x", "y", "x"], dtype="category"), pd.Series([], dtype="float64"),
         pd.Series(np.repeat(np.arange(5), np.arange(1, 6)), index=np.arange(15)[::-1])]
for s in cases:
    u = s.unique()
    print(type(u).__name__, repr(u))
''')


def test_allows_duplicate_labels_flag_is_kept(tmp_path):
    # pandas carries set_flags(allows_duplicate_labels=False) to results
    # and raises DuplicateLabelError when they would have repeated labels
    same_under_accelerator(tmp_path, r'''
import pandas as pd

df = pd.DataFrame({"A": [1, 2], "B": [3, 4]}, index=["a", "b"]).set_flags(
    allows_duplicate_labels=False)
s = df["A"]
for name, f in [("loc", lambda: df.loc[["a"]]), ("head", lambda: df.head(1)),
                ("add", lambda: df + 1), ("abs", lambda: s.abs()),
                ("concat", lambda: pd.concat([df, df.rename(index={"a": "c", "b": "d"})])),
                ("concat dup", lambda: pd.concat([df, df])),
                ("reindex dup", lambda: s.reindex(["a", "a"])),
                ("groupby", lambda: df.groupby("A").sum())]:
    try:
        r = f()
        print(name, r.flags.allows_duplicate_labels, r.shape)
    except Exception as e:
        print(name, type(e).__name__)
''')


def test_str_predicates_of_str_dtype_give_false_for_missing(tmp_path):
    # pandas' "str" dtype answers False for a missing value, in a bool
    # Series; object and "string" columns keep their own rules
    same_under_accelerator(tmp_path, r'''
import numpy as np
import pandas as pd

for dt in ["str", object, "string"]:
    s = pd.Series(["foo", np.nan, "fooommm__foo", "mmm_", "Ab1"], dtype=dt)
    for r in [s.str.contains("mmm"), s.str.contains("mmm", regex=False), s.str.startswith("f"),
              s.str.endswith("_"), s.str.isalpha(), s.str.isdigit(), s.str.match("f"),
              s.str.fullmatch("foo"), s.str.contains("mmm", na=True), s.str.upper().str.isupper()]:
        print(dt, r.dtype, r.tolist())
''')


def test_resample_result_has_no_freq_when_times_have_nat(tmp_path):
    # DataFrame.resample is pandas' and its count zambezi's: pandas' result
    # has the rule as its freq, but none when the times hold a NaT
    out = same_under_accelerator(tmp_path, r'''
from datetime import datetime
import numpy as np
import pandas as pd

days = [datetime(2014, 10, 1), datetime(2014, 9, 3), datetime(2014, 11, 5),
        datetime(2014, 9, 5), datetime(2014, 7, 15)]
for times in (days, days[:2] + [pd.NaT] + days[2:], [pd.NaT] + days):
    df = pd.DataFrame({"A": pd.DatetimeIndex(times), "B": np.arange(len(times))})
    r = df.set_index("A").resample("ME").count()
    print(r.B.tolist(), r.index.freq)
    r = df.resample("ME", on="A").sum()
    print(r.B.tolist(), r.index.freq)
    r = df.set_index("A").B.resample("2ME").mean()
    print(r.round(6).tolist(), r.index.freq)
''')
    assert out.count("<MonthEnd>") == 2 and out.count("<2 * MonthEnds>") == 1
    assert out.count("None") == 6


def test_merge_on_the_index_labels_are_pandas_own(tmp_path):
    # a join on the index that leaves a label missing gives a float64 index
    # with NaN (pandas' own), not zambezi's Int64 with <NA>; the key column
    # a suffix renamed comes again unsuffixed; a left join keeps the left
    # RangeIndex
    out = same_under_accelerator(tmp_path, r'''
import pandas as pd

left = pd.DataFrame({"k": [1, 2, 3, 2], "a": [10, 20, 30, 40]})
right = pd.DataFrame({"b": [100, 200, 300], "k": [7, 8, 9]}, index=[1, 2, 4])
for how in ("inner", "left", "right", "outer"):
    r = pd.merge(left, right, left_on="k", right_index=True, how=how)
    print(how, r.dtypes.to_dict(), repr(r.index))
    print(r)
    r = pd.merge(right, left, left_index=True, right_on="k", how=how)
    print(how, r.dtypes.to_dict(), repr(r.index))
    print(r)
print(repr(left.join(right[["b"]], on="k", how="outer").index))
''')
    assert "Index([0.0, 1.0, 3.0, nan], dtype='float64')" in out


def test_merge_asof_served_by_zambezi(tmp_path):
    # pd.merge_asof runs on zambezi: the printed results are pandas' own
    # (an integer column with unmatched rows included), and the profile
    # records the calls as zambezi's; a by pair of two dtypes falls back and
    # raises pandas' MergeError
    out, prof = profiled_under_accelerator(tmp_path, r'''
import pandas as pd

trades = pd.DataFrame({"t": pd.to_datetime(["2024-01-01 09:00:01", "2024-01-01 09:00:03",
                                            "2024-01-01 09:00:07"]),
                       "sym": ["a", "b", "a"], "qty": [10, 20, 30]})
quotes = pd.DataFrame({"t": pd.to_datetime(["2024-01-01 09:00:00", "2024-01-01 09:00:02",
                                            "2024-01-01 09:00:05"]),
                       "sym": ["a", "a", "b"], "bid": [1, 2, 3]})
for direction in ("backward", "forward", "nearest"):
    r = pd.merge_asof(trades, quotes, on="t", by="sym", direction=direction)
    print(direction, r.dtypes.to_dict())
    print(r)
r = pd.merge_asof(trades.set_index("t"), quotes, left_index=True, right_on="t")
print(r)
try:
    pd.merge_asof(trades, quotes.astype({"sym": "category"}), on="t", by="sym")
except pd.errors.MergeError as e:
    print("MergeError", e)
''')
    assert out.count("MergeError incompatible merge keys [0]") == 1
    assert prof["pandas.merge_asof"]["fast_calls"] >= 4
