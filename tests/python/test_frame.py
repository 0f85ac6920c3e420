"""DataFrame and Series behaviour: construction and dtype inference, row and
column selection, rename, repr, reductions against pandas on every numeric
dtype with nulls (at 1, 2 and 3 engine threads and via ZAMBEZI_NUM_THREADS),
and reductions from several Python threads at once (the GIL is released).
"""

import datetime as dt
import math
import os
import subprocess
import sys
import threading

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


# --------------------------------------------------------------------------
# construction and inference
# --------------------------------------------------------------------------

def test_construct_from_dict_of_everything():
    pdf_col = pd.Series([1.5, None, 3.0], dtype="Float64")
    df = zb.DataFrame({
        "list": [1, 2, 3],
        "np": np.array([1.0, np.nan, 2.0]),
        "series": zb.Series(["a", "b", None]),
        "pandas": pdf_col,
        "tuple": (True, False, None),
    })
    assert df.shape == (3, 5)
    assert len(df) == 3
    assert list(df.columns) == ["list", "np", "series", "pandas", "tuple"]
    assert df.dtypes.to_dict() == {"list": "int64", "np": "float64", "series": "string",
                         "pandas": "float64", "tuple": "bool"}
    assert df["np"].to_list() == [1.0, None, 2.0]
    assert df["pandas"].to_list() == [1.5, None, 3.0]
    assert df["tuple"].to_list() == [True, False, None]
    assert df.device == "cpu"
    assert "list" in df and "nope" not in df


@pytest.mark.parametrize("kw", [
    dict(columns=["a", "b"]),
    dict(columns=["a", "b"], dtype="float64"),
    dict(columns=["a"], index=[5, 6]),
    dict(data={"a": [1, 2]}, columns=["c", "a"]),
    dict(data={"a": [1.5, 2.5]}, columns=["a", "c"], dtype="float32"),
    dict(data={0: [1], 1: [2]}, columns=[1, 0]),
    dict(data={0: [1], 1: [2]}, columns=[1, 0, 2], dtype="int64"),
])
def test_columns_the_data_lacks_are_missing_values(kw):
    # pandas fills a label of columns= that the dict lacks with NaN (an
    # object column; here string, or dtype=): DataFrame(columns=[...]) is
    # the empty frame with those columns
    got, want = zb.DataFrame(**kw), pd.DataFrame(**kw)
    assert list(got.columns) == list(want.columns)
    assert list(got.index) == list(want.index)
    for c in want.columns:
        assert got[c].isna().to_list() == want[c].isna().to_list()
        if want[c].dtype != object:
            assert got[c].dropna().to_list() == want[c].dropna().to_list()
            # (pandas widens int64 to float64 for the NaN it fills in; zambezi's
            # int64 holds the nulls)
            assert str(got[c].dtype) == kw.get("dtype", str(want[c].dtype))
        else:
            assert got[c].dtype == "string"


@pytest.mark.parametrize("values,dtype,expected", [
    ([1, 2, None], "int64", [1, 2, None]),
    ([2**63, 1, None], "uint64", [2**63, 1, None]),
    ([2**64 - 1, 0], "uint64", [2**64 - 1, 0]),
    ([-(2**63), 2**63 - 1], "int64", [-(2**63), 2**63 - 1]),
    ([1, 2.5, None], "float64", [1.0, 2.5, None]),
    ([1.0, float("nan"), 3.0], "float64", [1.0, None, 3.0]),
    ([float("nan"), None], "float64", [None, None]),
    ([True, None, False], "bool", [True, None, False]),
    (["x", None, "ÿ✓"], "string", ["x", None, "ÿ✓"]),
    ([None, None], "string", [None, None]),
    ([], "string", []),
    ([dt.date(2020, 2, 29), None, dt.date(1, 1, 1)], "date32",
     [dt.date(2020, 2, 29), None, dt.date(1, 1, 1)]),
    ([dt.datetime(1970, 1, 1, 0, 0, 1, 5), None], "timestamp[us]",
     [pd.Timestamp(1_000_005, unit="us"), pd.NaT]),
    # one fixed offset for them all: kept, as pandas keeps it (UTC+02:00)
    ([dt.datetime(2000, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2)))],
     "timestamp[us, tz=+02:00]", [dt.datetime(1999, 12, 31, 22, 0, tzinfo=dt.timezone.utc)]),
    ([np.int64(5), np.int32(-3)], "int64", [5, -3]),
    # numpy scalars count as the Python values they stand for
    ([np.True_, None, np.False_], "bool", [True, None, False]),
    ([np.float32(1.5), np.float64("nan"), None, 2], "float64", [1.5, None, None, 2.0]),
    # np.datetime64 as pandas reads it: a timestamp of (at least) seconds
    ((np.datetime64("2020-02-29"), None), "timestamp[s]", [pd.Timestamp("2020-02-29"), pd.NaT]),
    ([np.datetime64("2020-01-01T00:00:01.123456789"), np.datetime64("NaT")], "timestamp[ns]",
     [pd.Timestamp("2020-01-01 00:00:01.123456789"), pd.NaT]),
    ([np.str_("a"), "b"], "string", ["a", "b"]),
])
def test_sequence_inference(values, dtype, expected):
    s = zb.Series(values, name="c")
    assert s.dtype == dtype
    assert s.to_list() == expected
    assert s.null_count == sum(v is None or v is pd.NaT for v in expected)


@pytest.mark.parametrize("values,dtype,expected", [
    ([1, 2, None], "int8", [1, 2, None]),
    ([1, 2.0, True], "float32", [1.0, 2.0, 1.0]),
    ([1, 0, None], "bool", [True, False, None]),
    ([1, "a", 2.5], "string", ["1", "a", "2.5"]),
    (["b", "a", None, "b"], "category", ["b", "a", None, "b"]),
    ([0, 365], "date32", [dt.date(1970, 1, 1), dt.date(1971, 1, 1)]),
    ([dt.datetime(1970, 1, 1, 0, 0, 2)], "timestamp[ms]", [dt.datetime(1970, 1, 1, 0, 0, 2)]),
    ([5, None], "uint16", [5, None]),
])
def test_sequence_explicit_dtype(values, dtype, expected):
    s = zb.Series(values, dtype=dtype)
    assert s.dtype == dtype
    assert s.to_list() == expected


def test_numpy_scalars_in_lists_leave_the_list_alone():
    vals = [np.True_, np.False_]
    assert zb.Series(vals).to_list() == [True, False]
    assert all(type(v) is np.bool_ for v in vals)  # the caller's list is not changed
    s = zb.Series([True, False, None])
    assert s.isin([np.True_]).to_list() == [True, False, False]
    assert zb.Series([1.5, 2.5]).isin([np.float32(1.5)]).to_list() == [True, False]
    # numpy timedelta64 values make a duration column (pandas: timedelta64)
    import datetime

    assert zb.Series([np.timedelta64(1, "s")]).to_list() == [datetime.timedelta(seconds=1)]


def test_object_ndarray_and_mask():
    arr = np.array([1, "skip", 3], dtype=object)
    col = zb._core.column_from_sequence(arr, mask=np.array([False, True, False]), name="m")
    assert col.dtype == "int64" and col.to_pylist() == [1, None, 3]


def test_categorical_from_codes():
    cats = zb._core.column_from_sequence(["lo", "mid", "hi"])
    col = zb._core.categorical_from_codes(np.array([2, -1, 0, 1], dtype=np.int8), cats)
    assert col.dtype == "category"
    assert col.to_pylist() == ["hi", None, "lo", "mid"]
    assert col.dictionary.to_pylist() == ["lo", "mid", "hi"]


def test_buffer_timestamps_and_dates():
    ints = np.array([0, 86_400_000, np.iinfo(np.int64).min], dtype=np.int64)
    col = zb._core.column_from_buffer(ints, unit="ms", tz="Europe/Paris")
    assert col.dtype == "timestamp[ms, tz=Europe/Paris]"
    assert col.unit == "ms" and col.timezone == "Europe/Paris"
    assert col.to_pylist(True) == [0, 86_400_000, None]  # raw values; NaT is null
    paris = col.to_pylist()  # aware datetimes in the column's zone
    assert paris[:2] == [dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc),
                         dt.datetime(1970, 1, 2, tzinfo=dt.timezone.utc)]
    assert paris[0].utcoffset() == dt.timedelta(hours=1) and paris[2] is None
    days = np.array([0, -1, 18262], dtype=np.int32)
    d = zb._core.column_from_buffer(days, dtype="date32")
    assert d.to_pylist() == [dt.date(1970, 1, 1), dt.date(1969, 12, 31), dt.date(2020, 1, 1)]


# --------------------------------------------------------------------------
# selection, rename, repr
# --------------------------------------------------------------------------

def _frame(n=30):
    return zb.DataFrame({
        "a": np.arange(n, dtype=np.int64),
        "b": [f"s{i}" if i % 7 else None for i in range(n)],
        "c": np.arange(n) * 0.5,
    })


def test_head_tail_slice_select():
    df = _frame()
    assert df.head().to_dict("list")["a"] == [0, 1, 2, 3, 4]
    assert df.head(3)["b"].to_list() == [None, "s1", "s2"]
    assert df.tail()["a"].to_list() == [25, 26, 27, 28, 29]
    assert df.tail(2)["b"].to_list() == [None, "s29"]
    assert df.head(100).shape == (30, 3) and df.tail(0).shape == (0, 3)
    assert df.head(-25)["a"].to_list() == [0, 1, 2, 3, 4]
    assert df[10:13]["a"].to_list() == [10, 11, 12]
    assert df[-3:]["a"].to_list() == [27, 28, 29]
    assert df[20:10].shape == (0, 3)
    assert df[10:20][3:5]["b"].to_list() == ["s13", None]
    sel = df[["c", "a"]]
    assert list(sel.columns) == ["c", "a"] and sel["a"].to_list() == list(range(30))
    assert df["a"][5] == 5 and df["b"].iloc[-2] is None and df["b"].iloc[-1] == "s29"
    assert df["a"][3:6].to_list() == [3, 4, 5]
    assert df["a"].head(2).to_list() == [0, 1] and df["a"].tail(2).to_list() == [28, 29]


def test_rename_and_copy():
    df = _frame(4)
    r = df.rename(columns={"a": "x", "c": "z"})
    assert list(r.columns) == ["x", "b", "z"]
    assert list(df.columns) == ["a", "b", "c"]  # the original is unchanged
    assert r["x"].to_list() == [0, 1, 2, 3]
    c = df.copy()
    assert list(c.columns) == list(df.columns) and c.to_dict("list") == df.to_dict("list")


def test_repr_small_and_large():
    small = zb.DataFrame({"num": [1, None, 3], "txt": ["x", "yy", None]})
    text = repr(small)
    lines = text.splitlines()
    assert lines[0].split() == ["num", "txt"]
    assert lines[1].split() == ["int64", "string"]
    assert lines[2].split() == ["0", "1", "x"]
    assert lines[3].split() == ["1", "<NA>", "yy"]
    assert lines[4].split() == ["2", "3", "<NA>"]
    assert lines[-1] == "[3 rows x 2 columns]"

    big = _frame(100)
    text = repr(big)
    body = text.splitlines()
    assert body[-1] == "[100 rows x 3 columns]"
    rows = [ln.split()[0] for ln in body[2:-2]]
    assert rows == ["0", "1", "2", "3", "4", "...", "95", "96", "97", "98", "99"]
    assert "s99" in text and "s50" not in text

    html = zb.DataFrame({"<b>": ["<script>&"]})._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;&amp;" in html and "&lt;b&gt;" in html
    assert "1 rows &times; 1 columns" in html

    srepr = repr(zb.Series([1.5, None], name="v"))
    assert srepr.splitlines()[-1] == "Name: v, dtype: float64"
    assert "NaN" in srepr
    long = repr(big["a"]).splitlines()
    assert long[-1] == "Name: a, Length: 100, dtype: int64" and "..." in long


def test_repr_of_dates_and_timestamps():
    df = zb.DataFrame({
        "d": [dt.date(2024, 5, 6)],
        "t": [dt.datetime(2024, 5, 6, 7, 8, 9)],
    })
    text = repr(df)
    assert "2024-05-06" in text and "2024-05-06 07:08:09" in text
    assert "timestamp[us]" in text


# --------------------------------------------------------------------------
# reductions against pandas
# --------------------------------------------------------------------------

NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64", "bool"]
SIZES = [0, 1, 2, 1000, 100_001]


def _random(dtype, n, rng):
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("float"):
        return (rng.standard_normal(n) * 1e3).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    if dtype == "int64":
        lo, hi = -(2**44), 2**44  # sums of 100k values stay inside int64
    if dtype == "uint64":
        hi = 2**47
    return rng.integers(lo, hi, size=n, dtype=dtype, endpoint=True)


def _pandas_series(values, null):
    dtype = values.dtype
    if dtype.kind == "f":
        v = values.copy()
        v[null] = np.nan
        return pd.Series(v)
    if dtype.kind == "b":
        return pd.Series(pd.arrays.BooleanArray(values, null))
    return pd.Series(pd.arrays.IntegerArray(values, null))


def _same(got, want, dtype, op, abs_sum):
    if want is None:
        assert got is None, (op, got)
    elif want == "nan":
        assert isinstance(got, float) and math.isnan(got), (op, got)
    elif op == "mean" or (op == "sum" and dtype.startswith("float")):
        assert isinstance(got, float), (op, got)
        assert math.isclose(got, float(want), rel_tol=1e-12,
                            abs_tol=1e-12 * max(1.0, abs_sum)), (op, got, want)
    elif dtype == "bool" and op in ("min", "max"):
        assert got is bool(want), (op, got, want)
    elif dtype.startswith("float") and op != "count":
        assert isinstance(got, float) and got == float(want), (op, got, want)
    else:
        assert isinstance(got, int) and not isinstance(got, bool), (op, got)
        assert got == int(want), (op, got, want)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("n", SIZES)
def test_reductions_match_pandas(dtype, n):
    for seed in range(3 if n < 100_000 else 2):
        rng = np.random.default_rng(seed * 1000 + n)
        values = _random(dtype, n, rng)
        null_rate = [0.0, 0.3, 1.0][seed % 3]
        null = rng.random(n) < null_rate
        ps = _pandas_series(values, null)
        s = zb.Series(ps)
        assert s.dtype == dtype
        assert s.null_count == int(null.sum())
        abs_sum = float(np.abs(values[~null].astype(np.float64)).sum())
        # the oracle: pandas itself (float32 sums in float32, in numpy's
        # order, as zambezi does)
        po = ps
        expected = {
            "sum": po.sum(), "min": po.min(), "max": po.max(), "mean": po.mean(),
            "count": int(po.count()),
        }
        if n == 0 or null.all():
            # no value: pandas' NA where to_pandas() shows a masked dtype (an
            # integer or bool column with nulls), else NaN
            masked = n > 0 and not dtype.startswith("float")
            expected["min"] = expected["max"] = expected["mean"] = None if masked else "nan"
        for threads in (1, 2, 3):
            zb.set_num_threads(threads)
            assert zb.get_num_threads() == threads
            for op, want in expected.items():
                got = getattr(s, op)()
                _same(got, want, dtype, op, abs_sum)
        # a slice at an odd offset reduces over exactly its rows
        if n >= 1000:
            sub = s[3:n - 5]
            _same(sub.sum(), po.iloc[3:n - 5].sum(), dtype, "sum", abs_sum)
            assert sub.count() == int(ps.iloc[3:n - 5].count())


def test_uint64_above_int64_min_max_and_sum():
    values = np.array([2**63 + 5, 3, 2**64 - 1, 2**63], dtype=np.uint64)
    s = zb.Series(values)
    assert s.min() == 3 and s.max() == 2**64 - 1
    assert s.sum() == int(values.sum())  # wraps modulo 2**64, as numpy does
    assert s.to_list() == [int(v) for v in values]


@pytest.mark.parametrize("seed", range(31, 41))
def test_integer_sums_exact_over_full_range(seed):
    """Sums and means of integers over their whole range, with words of 64
    rows without nulls (summed as unsigned halves, with 2^64 taken off per
    negative value) next to words with nulls: the mean is the exact
    quotient correctly rounded (converting the sum, then dividing, misses
    it about one time in four past 2^53), the sum wraps to 64 bits as
    numpy's does.  Oracle: Python integers and fractions."""
    from fractions import Fraction
    NULLABLE = {np.int64: "Int64", np.int32: "Int32", np.int8: "Int8", np.uint64: "UInt64",
                np.uint32: "UInt32"}
    rng = np.random.default_rng(seed)
    n = 200_003 + seed
    for dtype in (np.int64, np.int32, np.int8, np.uint64, np.uint32):
        info = np.iinfo(dtype)
        vals = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        vals[:64] = info.min
        vals[64:128] = info.max
        for with_nulls in (False, True):
            valid = np.ones(n, dtype=bool)
            if with_nulls:
                valid[rng.integers(0, n, 300)] = False
            ps = pd.Series(pd.array(vals, dtype=NULLABLE[dtype]))
            ps[~valid] = pd.NA
            s = zb.from_pandas(pd.DataFrame({"v": ps}))["v"]
            kept = [int(v) for v in vals[valid]]
            total = sum(kept)
            want_sum = total % 2**64
            if info.min < 0 and want_sum >= 2**63:
                want_sum -= 2**64
            if dtype in (np.int64, np.uint64):
                assert s.sum() == want_sum, (dtype, with_nulls)
            else:
                assert s.sum() == total, (dtype, with_nulls)
            assert s.mean() == float(Fraction(total, len(kept))), (dtype, with_nulls)


def test_num_threads_from_environment():
    code = ("import numpy as np, zambezi as zb; "
            "s = zb.Series(np.arange(300_001, dtype=np.int64)); "
            "print(zb.get_num_threads(), s.sum(), s.mean())")
    for threads in (1, 2, 3):
        env = dict(os.environ, ZAMBEZI_NUM_THREADS=str(threads))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        assert out == [str(threads), str(300_000 * 300_001 // 2), "150000.0"]


def test_memory_settings_from_environment():
    # Huge-page advice on, and the block cache off or tiny: blocks of 4 MiB
    # and more go through both paths; the answers must not change.
    code = ("import numpy as np, zambezi as zb; "
            "a = np.arange(2_000_001, dtype=np.int64); s = zb.Series(a); "
            "f = s[s % 3 == 0]; s2 = f.sort_values(ascending=False); "
            "print(int(f.sum()), len(f), s2.to_numpy()[0], s2.to_numpy()[-1])")
    want = [str(sum(range(0, 2_000_001, 3))), str(666_667), "1999998", "0"]
    for huge, cache in (("1", "0"), ("1", "5"), ("0", "")):
        env = dict(os.environ, ZAMBEZI_HUGE_PAGES=huge, ZAMBEZI_HOST_CACHE_MB=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        assert out == want, (huge, cache)


def test_reductions_in_python_threads():
    n = 4_000_000
    rng = np.random.default_rng(42)
    ints = rng.integers(-1000, 1000, n)
    floats = rng.standard_normal(n)
    s_int = zb.Series(ints)
    s_float = zb.Series(floats)
    want_int = int(ints.sum())
    want_float = math.fsum(floats)
    results, errors = [], []

    def work(k):
        try:
            for _ in range(5):
                results.append(("i", s_int.sum()))
                results.append(("f", s_float.sum()))
                results.append(("m", s_int.max()))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 30
    for kind, value in results:
        if kind == "i":
            assert value == want_int
        elif kind == "f":
            assert math.isclose(value, want_float, rel_tol=1e-12,
                                abs_tol=1e-12 * np.abs(floats).sum())
        else:
            assert value == int(ints.max())


def test_series_conversions():
    s = zb.Series(np.array([3, 1, 2], dtype=np.int16), name="k")
    assert s.name == "k" and len(s) == 3 and s.shape == (3,)
    assert s.to_list() == [3, 1, 2] and list(s) == [3, 1, 2]
    p = s.to_pandas()
    assert p.name == "k" and p.dtype == np.int16 and p.tolist() == [3, 1, 2]
    assert s.rename("z").name == "z"
    assert s.device == "cpu" and s.to("cpu").to_list() == [3, 1, 2]
    df = zb.DataFrame({"k": s})
    assert df.to("cpu").device == "cpu"


def test_pandas_arrays_keep_their_dtype():
    cat = pd.Categorical.from_codes([0, 1, -1, 2], ["a", "b", "c"])
    ints = pd.array([1, None, 3, 4], dtype="Int8")
    days = pd.DatetimeIndex(["2024-01-01", None, "2024-01-03", "2024-01-04"])
    df = zb.DataFrame({"c": cat, "i": ints, "t": days})
    assert df.dtypes["c"] == "category"
    assert df.dtypes["i"] == "int8"
    assert df["c"].to_list() == ["a", "b", None, "c"]
    assert df["i"].to_list() == [1, None, 3, 4]
    assert df["t"].isna().sum() == 1


@pytest.mark.parametrize("unit", ["Y", "M", "D", "h", "m", "s", "ms"])
def test_numpy_datetimes_of_any_unit_as_pandas(unit):
    # pandas keeps s / ms / us / ns and makes coarser units seconds (days
    # too: datetime64[D] is datetime64[s], not dates)
    a = np.arange(4, dtype=np.int64).view(f"M8[{unit}]")
    a[2] = np.datetime64("NaT")
    want = pd.Series(a, name="x")
    got = zb.Series(a, name="x")
    pd.testing.assert_series_equal(got.to_pandas(), want)
    df = zb.DataFrame({"i": [1, 2, 3, 4]})
    df["x"] = a
    pd.testing.assert_series_equal(df["x"].to_pandas(), want)
    dates = zb.Series(a, dtype="date32")   # asked for: the days, as dates
    assert dates.dtype == "date32"
    assert dates.to_list() == [None if v is pd.NaT else v.date() for v in want]


_SET_VALUES = ["1", "x", 1.5, 1.0, 1, True, np.int64(1), np.float64(1.0), pd.NaT, 1 + 2j,
               None, np.nan, np.float64(1.1), 1.1, np.float16(1.1)]


@pytest.mark.parametrize("dtype,data", [("int64", [1, 2]), ("int8", [1, 2]),
                                        ("float64", [1.0, 2.0]), ("bool", [True, False]),
                                        ("str", ["a", "b"]), ("float32", [1.5, 2.5])])
@pytest.mark.parametrize("how", ["setitem", "iloc", "loc", "list"])
def test_setting_a_value_the_dtype_cannot_hold_raises_as_pandas(dtype, data, how):
    # pandas 3 refuses a value its column's dtype cannot hold (text in a
    # number or bool column, a bool in a number column, a number in a bool
    # or string column, NaT in a number column) with TypeError; zambezi
    # raises DTypeError (a TypeError) where pandas raises, and sets the
    # same value where pandas sets it (a missing value as None)
    for value in _SET_VALUES:
        if how == "list" and dtype.startswith("int") and isinstance(value, (int, float, np.number)):
            continue   # pandas refuses a list of floats even if whole, or of other widths
        p = pd.Series(data, dtype=dtype)
        z = zb.Series(data, dtype="string" if dtype == "str" else dtype)

        def put(s):
            if how == "setitem":
                s[0] = value
            elif how == "iloc":
                s.iloc[0] = value
            elif how == "loc":
                s.loc[0] = value
            else:
                s[[0]] = [value]

        try:
            put(p)
        except TypeError:
            with pytest.raises(TypeError):
                put(z)
            continue
        put(z)
        want = p.tolist()[0]
        assert z.to_list()[0] == (None if pd.isna(want) else want), (value, dtype, how)


def test_float32_and_bool_columns_refuse_what_pandas_3_refuses():
    # float64 values a float32 column cannot hold exactly (a numpy scalar,
    # an array, a Series) are refused; a list of Python floats is rounded
    for value, ok in ((np.array([1.1, 2.2]), False), (pd.Series([1.1, 2.2]), False),
                      (np.array([1.5, 2.5]), True), ([1.1, 2.2], True)):
        p = pd.Series(np.array([1, 2, 3], dtype="float32"))
        z = zb.Series(np.array([1, 2, 3], dtype="float32"))
        zv = zb.from_pandas(value) if isinstance(value, pd.Series) else value
        if not ok:
            with pytest.raises(TypeError, match="Invalid value"):
                p[0:2] = value
            with pytest.raises(TypeError, match="Invalid value"):
                z[0:2] = zv
            continue
        p[0:2] = value
        z[0:2] = zv
        assert z.dtype == "float32" and z.to_list() == p.tolist()
    # a bool column that holds missing values already (pandas: object) takes one more
    z = zb.Series([True, None, False])
    z[0] = None
    assert z.to_list() == [None, None, False]


@pytest.mark.parametrize("how", ["s[k]", "s.loc[k]", "s.iloc[k]", "s.at[k]", "s.iat[k]",
                                 "s[[k]]", "s[:1]"])
def test_a_sequence_set_at_one_position_raises_as_pandas(how):
    # pandas refuses a list, a tuple or an array of other than one value
    # for one position (numpy's "setting an array element with a
    # sequence"): zambezi set a one-element list's value.  A 0-d array is
    # its value, and a list key or a slice takes a list of its length.
    for value in ([0.0], (0.0,), [0.0, 1.0], [], np.array([0.0, 1.0]), np.array([[0.0, 1.0]]),
                  np.array([5.0]), np.array(7.0), np.array(7)):
        p, z = pd.Series([1.0, 2.0]), zb.Series([1.0, 2.0])
        code = how.replace("k", "0") + " = v"
        try:
            exec(code, {"s": p, "v": value})
        except ValueError:
            with pytest.raises(ValueError):
                exec(code, {"s": z, "v": value})
            continue
        exec(code, {"s": z, "v": value})
        assert z.to_list() == p.tolist(), (how, value)


@pytest.mark.parametrize("key", [{1}, {1: 1}, ({1},)])
@pytest.mark.parametrize("how", ["getitem", "setitem", "loc", "iloc", "frame", "frame.loc"])
def test_a_set_or_dict_as_an_indexer_raises_as_pandas(key, how):
    # pandas 3 refuses a set or a dict as an indexer (it has no order):
    # zambezi took a set as a list of labels
    def run(mod):
        s = mod.Series([1, 2, 3])
        df = mod.DataFrame({"a": [1, 2], "b": [3, 4]})
        if how == "getitem":
            return s[key]
        if how == "setitem":
            s[key] = 1
        elif how == "loc":
            return s.loc[key]
        elif how == "iloc":
            return s.iloc[key]
        elif how == "frame":
            return df[{"a"} if isinstance(key, set) else key]
        else:
            return df.loc[:, {"a"}]

    try:
        run(pd)
    except TypeError as e:
        with pytest.raises(TypeError, match=str(e).split(" as ")[0]):
            run(zb)
    else:
        run(zb)


@pytest.mark.parametrize("data,other", [([1, 2, 3], True), ([1.5, 2.5, 3.5], np.True_),
                                        ([True, False, True], 1), ([True, False, True], 2.5),
                                        ([True, False, True], "series_int"),
                                        ([1, 2, 3], "series_bool"), ([1, 2, 3], 1.5),
                                        ([True, False, True], False), ([1, 2, 3], 7)])
@pytest.mark.parametrize("how", ["where", "mask", "frame"])
def test_where_mixing_bools_and_numbers_as_pandas(data, other, how):
    # pandas keeps bools beside numbers in an object column (s.where(c,
    # True) on ints gives True, not 1); zambezi has no such dtype and
    # refuses them (the accelerator then runs pandas): it gave 1 / 1.0
    def run(mod):
        s = mod.Series(data)
        o = {"series_int": mod.Series([7, 8, 9]),
             "series_bool": mod.Series([True, True, False])}.get(other, other) \
            if isinstance(other, str) else other
        cond = mod.Series([True, False, True])
        if how == "frame":
            axis = 0 if isinstance(other, str) else None   # a Series other lines up by row
            return mod.DataFrame({"a": s}).where(mod.DataFrame({"a": cond}), o, axis=axis)["a"]
        return s.where(cond, o) if how == "where" else s.mask(cond, o)

    p = run(pd)
    if p.dtype == object:
        with pytest.raises(TypeError, match="object column"):
            run(zb)
    else:
        z = run(zb)
        assert str(z.dtype) == str(p.dtype)
        assert z.to_list() == p.tolist()


_MIXES = {
    "fillna float with True": lambda m: m.Series([1.5, None, 2.5]).fillna(True),
    "fillna float with 0": lambda m: m.Series([1.5, None, 2.5]).fillna(0),
    "fillna float from bools": lambda m: m.Series([1.5, None]).fillna(m.Series([True, True])),
    "fillna int without missing": lambda m: m.Series([1, 2]).fillna(True),
    "replace 1 by True": lambda m: m.Series([1, 2, 3]).replace(1, True),
    "replace True by 1": lambda m: m.Series([True, False]).replace(True, 1),
    "replace True by False": lambda m: m.Series([True, False]).replace(True, False),
    "replace 9 by True (no match)": lambda m: m.Series([1, 2]).replace(9, True),
    "shift bools with 0": lambda m: m.Series([True, False]).shift(1, fill_value=0),
    "shift ints with True": lambda m: m.Series([1, 2]).shift(1, fill_value=True),
    "shift ints with 0": lambda m: m.Series([1, 2]).shift(1, fill_value=0),
    "transpose bools and ints": lambda m: m.DataFrame({"a": [1, 2], "b": [True, False]}).T[0],
    "transpose ints and floats": lambda m: m.DataFrame({"a": [1, 2], "b": [0.5, 1.5]}).T[0],
    "fillna times with 0": lambda m: m.Series(m.to_datetime(["2024-01-01", None])).fillna(0),
    "where times with 0": lambda m: m.Series(m.to_datetime(["2024-01-01", "2024-01-02"])).where(
        m.Series([True, False]), 0),
    "fillna times with a time": lambda m: m.Series(m.to_datetime(["2024-01-01", None])).fillna(
        m.Timestamp("2020-01-01")),
}


@pytest.mark.parametrize("case", list(_MIXES))
def test_bools_beside_numbers_as_pandas(case):
    # pandas keeps a bool beside numbers (or a number beside bools) in an
    # object column; zambezi, without that dtype, refuses it (TypeError)
    # where pandas gives object, and otherwise gives pandas' values
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # pandas deprecates some of these
        p = _MIXES[case](pd)
    if p.dtype == object:
        with pytest.raises(TypeError, match="object (column|dtype)"):
            _MIXES[case](zb)
    else:
        z = _MIXES[case](zb).to_pandas()
        assert z.dtype == p.dtype
        assert z.tolist() == p.tolist()


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "uint64"])
@pytest.mark.parametrize("data", [[7, 8, 1, 12], [1, 2], [100, 5]])
@pytest.mark.parametrize("lower,upper", [(0, 8.0), (0, 7.5), (-1.0, 8), (None, 300.0),
                                         (np.float64(2.0), None), (1.5, None), (None, 4.5),
                                         (-0.5, 100.5), (np.nan, 3.5), (2, 4)])
def test_clip_of_integers_by_a_float_bound_keeps_the_dtype_as_pandas(dtype, data, lower, upper):
    # pandas keeps an integer dtype when the dtype holds the float bound
    # (8.0) or no value passes a bound it cannot hold (7.5 above every
    # value): it sets the bound only where values pass it.  zambezi gave
    # float64 for every float bound.
    p = pd.Series(data, dtype=dtype).clip(lower, upper)
    z = zb.Series(data, dtype=dtype).clip(lower, upper).to_pandas()
    assert z.dtype == p.dtype
    assert z.tolist() == p.tolist()


def test_categorical_searchsorted_ufunc_reduce_and_compiled_patterns_as_pandas():
    # pandas places and reduces a categorical by its categories' order
    # (numpy goes by the values: np.minimum.reduce gave "a", pandas "d"),
    # and takes a compiled pattern in replace as a regular expression
    # (zambezi compared the values with the pattern object and replaced
    # nothing): zambezi reduces as pandas and refuses the other two
    import re

    cat = pd.Categorical(["a", "b", "c", "d"], categories=["d", "c", "b", "a"], ordered=True)
    p, z = pd.Series(cat), zb.Series(pd.Series(cat))
    assert (np.minimum.reduce(p), p.sort_values().searchsorted("b")) == ("d", 2)
    assert (np.minimum.reduce(z), np.maximum.reduce(z)) == ("d", "a")
    with pytest.raises(zb.errors.UnsupportedError):
        z.sort_values().searchsorted("b")
    s = ["apple", "kiwi"]
    assert pd.Series(s).replace(re.compile("^a"), "A").tolist() == ["Apple", "kiwi"]
    for to_replace in (re.compile("^a"), [re.compile("^a")], {re.compile("^a"): "A"}):
        with pytest.raises(zb.errors.UnsupportedError):
            if isinstance(to_replace, dict):
                zb.Series(s).replace(to_replace)
            else:
                zb.Series(s).replace(to_replace, "A")


@pytest.mark.parametrize("how", ["max", "min", "sum", "mean", "prod"])
def test_frame_reductions_of_bools_beside_numbers_as_pandas(how):
    # pandas keeps a bool column's max (True) beside the numbers' in an
    # object Series; zambezi made it 1.0 in a float64 one: it refuses that
    # (the accelerator runs pandas), and gives pandas' values elsewhere
    data = {"a": [1, 5], "z": [True, False], "f": [0.5, 1.5]}
    p = getattr(pd.DataFrame(data), how)(numeric_only=True)
    if p.dtype == object:
        with pytest.raises(TypeError, match="object Series"):
            getattr(zb.DataFrame(data), how)(numeric_only=True)
    else:
        z = getattr(zb.DataFrame(data), how)(numeric_only=True).to_pandas()
        assert z.dtype == p.dtype and z.tolist() == p.tolist()
