"""Series.str, Series.dt and the elementwise extras (clip, round, between,
where, mask) compared with pandas (object-dtype strings, which apply
Python's own str methods), numpy and plain Python on random data with nulls:
multi-byte UTF-8, empty strings, dates before 1970 and around leap days,
timestamps in every unit; sizes 0, 1, 2, 1000 and 100_001; 1 and 3 threads
giving identical results."""

import datetime as dt

import functools

import numpy as np
import pandas as pd
import pytest
from conftest import missing_as_none, rand_strings

import zambezi as zb
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

SIZES = [0, 1, 2, 1000, 100_001]
ALPHABET = list("abcAB Zx\t\n") + ["é", "€", "😀", "\xa0", "\u3000", "ß", "ab", "  "]

rand_strings = functools.partial(rand_strings, alphabet=ALPHABET, max_len=8)
as_list = missing_as_none


# ---------------------------------------------------------------------------
# strings
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_upper_lower_beyond_ascii(seed, threads):
    """Unicode simple case mapping against pandas' pyarrow strings: Latin
    accents, Greek (final sigma, ypogegrammeni), Cyrillic, Armenian, Turkish
    dotted and dotless i, "ß" -> "ẞ", characters whose UTF-8 width changes
    ("ı" 2 bytes -> "I" 1, "ɐ" 2 -> "Ɐ" 3), emoji and CJK (no case), over
    several morsels, with nulls and a sliced column; an all-ASCII column
    keeps the one-pass path."""
    rng = np.random.default_rng(seed)
    letters = list("aZ ÉéÀàÑñÆæØøÅåΣσςΑαΩωᾳᾼЖжЁёՁձİıiIßẞɐⱯſK€😀漢") + ["ǅ", "ǆ", "Ǆ"]
    n = 140_000
    lens = rng.integers(0, 7, n)
    flat = rng.choice(letters, int(lens.sum()))
    ends = np.cumsum(lens)
    words = ["".join(flat[e - k:e]) for e, k in zip(ends, lens)]
    p = pd.Series(words, dtype="string[pyarrow]")
    p[rng.random(n) < 0.05] = pd.NA
    s = zb.Series(p)
    for f in ("upper", "lower"):
        assert getattr(s.str, f)().to_list() == as_list(getattr(p.str, f)()), f
        part = s.iloc[5:]
        assert getattr(part.str, f)().to_list() == as_list(getattr(p.iloc[5:].str, f)()), f
    ascii_words = pd.Series(["Maun", "TETE", None, "lusaka 7"], dtype="string[pyarrow]")
    z = zb.Series(ascii_words)
    assert z.str.upper().to_list() == as_list(ascii_words.str.upper())
    assert z.str.lower().to_list() == as_list(ascii_words.str.lower())


@pytest.mark.parametrize("n", SIZES)
def test_str_methods_match_pandas(n, threads):
    data = rand_strings(n, seed=n + 1)
    p = pd.Series(data, dtype=object)
    s = zb.Series(data, name="s")
    ps = p.str

    def check(got, want):
        assert got.to_list() == as_list(want)

    check(s.str.len(), ps.len())
    for pat in ["a", "ab", "€", "😀a", "", " "]:
        check(s.str.contains(pat, regex=False), ps.contains(pat, regex=False))
        check(s.str.startswith(pat), ps.startswith(pat))
        check(s.str.endswith(pat), ps.endswith(pat))
    # case mapping: pandas' pyarrow strings (Arrow's utf8_upper / utf8_lower)
    arrow = pd.Series(data, dtype="string[pyarrow]").str
    check(s.str.lower(), arrow.lower())
    check(s.str.upper(), arrow.upper())
    check(s.str.strip(), ps.strip())
    check(s.str.lstrip(), ps.lstrip())
    check(s.str.rstrip(), ps.rstrip())
    check(s.str.strip("a😀 "), ps.strip("a😀 "))
    check(s.str.rstrip("€\t"), ps.rstrip("€\t"))
    for start, stop, step in [(None, None, None), (1, 4, None), (-3, None, None),
                              (None, -1, None), (None, None, 2), (None, None, -1),
                              (5, 1, -2), (-2, -8, -1), (2, 100, 3), (-100, 100, 1),
                              (100, None, -1)]:
        check(s.str.slice(start, stop, step), ps.slice(start, stop, step))
    check(s.str[1:3], ps[1:3])
    for i in (0, 1, -1, 3, -4):   # a position: str.get (missing where too short)
        check(s.str[i], ps[i])
    for pat, repl, cnt in [("a", "XY", -1), ("a", "", 1), ("ab", "€", -1), ("", "-", -1),
                           ("", "-", 2), ("😀", "smile", 2)]:
        check(s.str.replace(pat, repl, n=cnt, regex=False),
              ps.replace(pat, repl, n=cnt, regex=False))


@pytest.mark.parametrize("n", SIZES)
def test_str_cat_matches_pandas(n, threads):
    a, b = rand_strings(n, seed=7), rand_strings(n, seed=8)
    pa_, pb = pd.Series(a, dtype=object), pd.Series(b, dtype=object)
    za, zb_ = zb.Series(a), zb.Series(b)
    assert za.str.cat(zb_, sep="|").to_list() == as_list(pa_.str.cat(pb, sep="|"))
    assert za.str.cat(b).to_list() == as_list(pa_.str.cat(pb))
    assert za.str.cat(sep=", ") == pa_.str.cat(sep=", ")
    assert za.str.cat() == pa_.str.cat()


@pytest.mark.parametrize("n", [0, 1000])
def test_plus_concatenates_strings_as_pandas(n):
    a, b = rand_strings(n, seed=9), rand_strings(n, seed=10)
    pa_, pb = pd.Series(a, dtype="str"), pd.Series(b, dtype="str")
    za, zb_ = zb.Series(a), zb.Series(b)
    assert (za + "-" + zb_).to_list() == as_list(pa_ + "-" + pb)
    assert ("<" + za).to_list() == as_list("<" + pa_)
    assert (za + zb_).to_list() == as_list(pa_ + pb)
    # misaligned labels line up first
    pb2 = pb.iloc[::-1]
    zb2 = zb.Series(pb2)
    assert (za + zb2).to_list() == as_list(pa_ + pb2)


def test_str_results_do_not_depend_on_threads():
    data = rand_strings(100_001, seed=3)
    s = zb.Series(data)
    results = []
    for t in (1, 3):
        zb.set_num_threads(t)
        results.append([s.str.replace("a", "€€").to_list(), s.str.slice(None, None, -2).to_list(),
                        s.str.strip().to_list(), s.str.contains("b").to_list(),
                        s.str.cat(s, sep="-").to_list()])
    assert results[0] == results[1]


def test_str_on_categorical():
    data = rand_strings(1000, seed=5)
    p = pd.Series(pd.Categorical(data))
    s = zb.Series(p)
    assert s.dtype == "category"
    po = pd.Series(data, dtype=object)
    assert s.str.len().to_list() == as_list(po.str.len())
    assert s.str.upper().to_list() == as_list(pd.Series(data, dtype="string[pyarrow]").str.upper())
    assert s.str.contains("a", regex=False).to_list() == as_list(po.str.contains("a", regex=False))
    assert s.str.slice(1, None).to_list() == as_list(po.str.slice(1, None))
    assert s.str.cat(s, sep="+").to_list() == as_list(po.str.cat(po, sep="+"))


def test_str_errors_and_pandas_parity():
    s = zb.Series(["a.b", "xyz", None])
    # regex=True is pandas' default for contains: "." matches any character
    # (regular expressions: tests/python/test_str_regex.py).
    assert s.str.contains("xy").to_list() == [False, True, None]
    assert s.str.contains("a.b").to_list() == [True, False, None]
    assert zb.Series(["axb"]).str.contains("a.b").to_list() == [True]
    assert s.str.contains("a.b", regex=False).to_list() == [True, False, None]
    assert zb.Series(["axb"]).str.contains("a.b", regex=False).to_list() == [False]
    with pytest.raises(UnsupportedError):
        s.str.replace("a.", lambda m: "", regex=True)
    with pytest.raises(InvalidValueError):
        s.str.slice(0, 2, 0)
    with pytest.raises(InvalidValueError):
        s.str.cat("x")
    with pytest.raises(InvalidValueError):
        s.str.cat(zb.Series(["a"]))
    ints = zb.Series([1, 2])
    with pytest.raises(AttributeError):
        ints.str
    with pytest.raises(DTypeError):
        ints.str
    assert not hasattr(ints, "str") and not hasattr(s, "dt")
    # Unicode simple case mapping (as pandas' pyarrow strings), one
    # character to one: "ß" -> "ẞ", not Python's "SS"
    assert zb.Series(["Éa", "straße"]).str.lower().to_list() == ["éa", "straße"]
    assert zb.Series(["Éa", "straße"]).str.upper().to_list() == ["ÉA", "STRAẞE"]


# ---------------------------------------------------------------------------
# dates and timestamps
# ---------------------------------------------------------------------------

FIELDS = ["year", "month", "day", "hour", "minute", "second", "dayofweek", "dayofyear"]


def pandas_field(p, f):
    with np.errstate(all="ignore"):
        return getattr(p.dt, {"dayofweek": "day_of_week", "dayofyear": "day_of_year"}.get(f, f))


@pytest.mark.parametrize("n", SIZES)
def test_date32_fields_match_pandas(n, threads):
    rng = np.random.default_rng(n)
    days = rng.integers(-80_000, 80_000, n)  # about 1751 .. 2189
    days[::7] = rng.integers(-2, 2, len(days[::7]))  # around the epoch
    leap = np.array([11_016, 11_017, -25_508, -25_509, 19_051], dtype=np.int64)  # 2000-02-29 ...
    days[: min(n, 5)] = leap[: min(n, 5)]
    arr = days.astype("datetime64[D]")
    nulls = rng.random(n) < 0.1
    arr[nulls] = np.datetime64("NaT")
    s = zb.Series(arr, dtype="date32")   # numpy's days alone are timestamp[s], as pandas
    assert s.dtype == "date32"
    p = pd.Series(arr.astype("datetime64[s]"))
    for f in ["year", "month", "day", "dayofweek", "dayofyear"]:
        assert s.dt.__getattribute__(f).to_list() == as_list(pandas_field(p, f)), f
    with pytest.raises(DTypeError):
        s.dt.hour


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("n", SIZES)
def test_timestamp_fields_match_pandas(n, unit, threads):
    rng = np.random.default_rng(n + 11)
    per = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    secs = rng.integers(-5_000_000_000, 5_000_000_000, n)  # about 1811 .. 2128
    if unit == "ns":
        secs = rng.integers(-9_000_000_000, 9_000_000_000, n) // 2  # within ns range
    vals = secs * per + rng.integers(0, per, n)
    vals[::5] = rng.integers(-3 * per, 3 * per, len(vals[::5]))  # around the epoch
    arr = vals.view(f"datetime64[{unit}]").copy()
    arr[rng.random(n) < 0.1] = np.datetime64("NaT")
    p = pd.Series(arr)
    s = zb.Series(p)
    assert s.dtype == f"timestamp[{unit}]"
    for f in FIELDS:
        assert getattr(s.dt, f).to_list() == as_list(pandas_field(p, f)), f
    pu = p.dt.tz_localize("UTC")
    su = zb.Series(pu)
    for f in ["hour", "day", "dayofweek"]:
        assert getattr(su.dt, f).to_list() == as_list(pandas_field(pu, f)), f


def test_timezones():
    p = pd.Series(pd.to_datetime(["2021-03-01 22:30:00", None, "1960-01-01 00:10:00"]))
    fixed = p.dt.tz_localize(dt.timezone(dt.timedelta(hours=5, minutes=30)))
    s = zb.Series(fixed)
    for f in FIELDS:
        assert getattr(s.dt, f).to_list() == as_list(pandas_field(fixed, f)), f
    neg = p.dt.tz_localize(dt.timezone(-dt.timedelta(hours=8)))
    s = zb.Series(neg)
    for f in FIELDS:
        assert getattr(s.dt, f).to_list() == as_list(pandas_field(neg, f)), f
    # named zones: fields in wall time, the offset per row (DST)
    utc = pd.Series(pd.to_datetime(["2021-03-28 00:59:59", "2021-03-28 01:00:00", None,
                                    "2021-10-31 00:30", "2021-10-31 01:30", "1911-03-11 00:30"],
                                   format="ISO8601"))
    for zone in ("Europe/Paris", "Australia/Sydney", "America/Sao_Paulo"):
        named = utc.dt.tz_localize("UTC").dt.tz_convert(zone)
        s = zb.Series(named)
        for f in FIELDS:
            assert getattr(s.dt, f).to_list() == as_list(pandas_field(named, f)), (zone, f)


def test_date_difference():
    from zambezi.accessors import date_sub

    a = np.array([0, 10, -400, None, 19_000], dtype="datetime64[D]")
    b = np.array([5, 10, 300, 1, None], dtype="datetime64[D]")
    got = date_sub(zb.Series(a), zb.Series(b))
    assert got.dtype == "duration[s]"
    want = pd.Series(a).astype("datetime64[s]") - pd.Series(b).astype("datetime64[s]")
    pd.testing.assert_series_equal(got.to_pandas(), want)
    ta = pd.Series(pd.to_datetime(["2020-01-01 00:00:01", None]).astype("datetime64[s]"))
    tb = pd.Series(pd.to_datetime(["2019-12-31 23:59:59.5", "2020-01-01 00:00:00.0"]).astype(
        "datetime64[ms]"))
    got = date_sub(zb.Series(ta), zb.Series(tb))
    assert got.dtype == "duration[ms]"
    pd.testing.assert_series_equal(got.to_pandas(), ta - tb)


@pytest.mark.parametrize("threads", [1, 3])
def test_date_and_timestamp_subtraction_operator(threads):
    """``a - b`` of two date or two timestamp Series, or of one and a date /
    datetime scalar on either side: a duration (seconds for dates, the finer
    unit for timestamps), against pandas' timedeltas; across morsels."""
    zb.set_num_threads(threads)
    rng = np.random.default_rng(3)
    n = 150_001
    pa = pd.Series(rng.integers(-20_000, 20_000, n).astype("datetime64[D]")).astype("datetime64[s]")
    pb = pa.sample(frac=1.0, random_state=1).reset_index(drop=True)
    pa[rng.random(n) < 0.05] = pd.NaT
    pb[rng.random(n) < 0.05] = pd.NaT
    za = zb.Series(pa.to_numpy().astype("datetime64[D]"), dtype="date32")
    zd = zb.Series(pb.to_numpy().astype("datetime64[D]"), dtype="date32")
    assert za.dtype == "date32"
    assert (za - zd).dtype == "duration[s]"
    same = pd.testing.assert_series_equal
    same((za - zd).to_pandas(), pa - pb)
    day0 = dt.date(2000, 2, 29)
    same((za - day0).to_pandas(), pa - pd.Timestamp(day0))
    same((day0 - za).to_pandas(), pd.Timestamp(day0) - pa)
    # timestamps of two units: the difference in the finer (ms)
    ta = (pa + pd.to_timedelta(rng.integers(0, 86_400_000, n), unit="ms")).astype("datetime64[ms]")
    ts, tm = zb.Series(ta), zb.Series(pb)
    same((ts - tm).to_pandas(), ta - pb)
    same((tm - ts).to_pandas(), pb - ta)
    t0 = pd.Timestamp("1999-12-31 23:59:59.5")
    # the finer of the column's unit and the scalar's (us here), as pandas
    same((ts - t0).to_pandas(), ta - t0)
    same((t0.to_pydatetime() - ts).to_pandas(), t0 - ta)
    with pytest.raises(DTypeError):
        ts - za  # a timestamp and a date


# ---------------------------------------------------------------------------
# clip, round, between, where, mask
# ---------------------------------------------------------------------------

def rand_floats(n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.integers(-100_000, 100_000, n) / 400.0)  # many exact ties
    x[rng.random(n) < 0.03] = np.nan
    nulls = rng.random(n) < 0.1
    return x, nulls


def with_nulls(x, nulls):
    """A zambezi Series of x with nulls where nulls is set (NaN stays a value)."""
    import pyarrow as pa

    return zb.Series(pa.array(x, mask=nulls))


def pandas_nullable(x, nulls):
    return pd.Series(pd.arrays.IntegerArray(x.copy(), nulls.copy()))


def expect(values, nulls):
    """numpy result values -> list with None at nulls (NaN kept as NaN)."""
    return [None if m else v for v, m in zip(values.tolist(), nulls.tolist())]


def same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None or g is None:
            assert g is None and w is None
        elif isinstance(w, float) and np.isnan(w):
            assert isinstance(g, float) and np.isnan(g)
        else:
            assert g == w


@pytest.mark.parametrize("n", SIZES)
def test_round_clip_between_match_numpy(n, threads):
    x, nulls = rand_floats(n, seed=n)
    s = with_nulls(x, nulls)
    for d in [0, 1, 2, -1, -2]:
        same(s.round(d).to_list(), expect(np.round(x, d), nulls))
    x32 = x.astype(np.float32)
    s32 = with_nulls(x32, nulls)
    same(s32.round(1).to_list(), expect(np.round(x32, 1).astype(np.float64), nulls))
    same(s.clip(-10, 50.5).to_list(), expect(np.clip(x, -10, 50.5), nulls))
    same(s.clip(upper=3).to_list(), expect(np.minimum(x, 3, where=True), nulls))
    same(s.clip(lower=np.nan).to_list(), expect(x, nulls))
    with np.errstate(invalid="ignore"):
        for inc, lo_op, hi_op in [("both", np.greater_equal, np.less_equal),
                                  ("neither", np.greater, np.less),
                                  ("left", np.greater_equal, np.less),
                                  ("right", np.greater, np.less_equal)]:
            # a missing float is False, as pandas' float64 (nulls are not NaN
            # here, so numpy's answer is masked by hand)
            want = lo_op(x, -20) & hi_op(x, 30) & ~nulls
            assert s.between(-20, 30, inclusive=inc).to_list() == want.tolist()
    # an integer column with nulls is pandas' Int64: between keeps NA
    ints = np.random.default_rng(n).integers(-1000, 1000, n)
    si = with_nulls(ints, nulls)
    want = (ints >= -300) & (ints <= 250)
    assert si.between(-300, 250).to_list() == expect(want, nulls)
    assert si.round(-1).to_list() == expect(np.round(ints, -1), nulls)
    assert si.round(-2).to_list() == expect(np.round(ints, -2), nulls)
    assert si.round(2).to_list() == expect(ints, nulls)
    assert si.clip(-5, 7).to_list() == expect(np.clip(ints, -5, 7), nulls)
    same(si.clip(0.5).to_list(), expect(np.clip(ints, 0.5, None), nulls))


@pytest.mark.parametrize("n", SIZES)
def test_where_mask_match_pandas(n, threads):
    x, nulls = rand_floats(n, seed=n + 3)
    y, ynulls = rand_floats(n, seed=n + 4)
    rng = np.random.default_rng(n)
    c = rng.random(n) < 0.5
    cnull = rng.random(n) < 0.1
    s, o = with_nulls(x, nulls), with_nulls(y, ynulls)
    cond = zb.Series(pd.Series(pd.arrays.BooleanArray(c, cnull)))
    take_w = c & ~cnull  # a null cond replaces the row (pandas does the same)
    take_m = ~c & ~cnull
    same(s.where(cond, o).to_list(),
         [xv if t else yv for t, xv, yv in zip(take_w, expect(x, nulls), expect(y, ynulls))])
    same(s.mask(cond, o).to_list(),
         [xv if t else yv for t, xv, yv in zip(take_m, expect(x, nulls), expect(y, ynulls))])
    same(s.where(cond, 0).to_list(), [xv if t else 0.0 for t, xv in zip(take_w, expect(x, nulls))])
    same(s.where(cond).to_list(), [xv if t else None for t, xv in zip(take_w, expect(x, nulls))])
    # The same as pandas for nullable dtypes (NaN-free data: pandas folds NaN into NA).
    xi = rng.integers(-50, 50, n)
    pi = pandas_nullable(xi, nulls)
    pc = pd.Series(pd.arrays.BooleanArray(c, cnull))
    si = zb.Series(pi)
    assert si.where(cond, -1).to_list() == as_list(pi.where(pc, -1))
    assert si.mask(cond, -1).to_list() == as_list(pi.mask(pc, -1))
    assert si.where(cond).to_list() == as_list(pi.where(pc))
    strs = rand_strings(n, seed=n + 9)
    ss = zb.Series(strs)
    po = pd.Series(strs, dtype=object)
    want = [v if t else "zz" for t, v in zip(take_w, strs)]
    assert ss.where(cond, "zz").to_list() == want
    other = rand_strings(n, seed=n + 10)
    assert ss.mask(cond, zb.Series(other)).to_list() == [
        v if t else w for t, v, w in zip(take_m, strs, other)]
    assert po.shape[0] == n


def test_extras_errors():
    s = zb.Series(["a", "b"])
    with pytest.raises(DTypeError):
        s.clip(0, 1)
    with pytest.raises(DTypeError):
        s.round(1)
    with pytest.raises(InvalidValueError):
        zb.Series([1, 2]).between(0, 1, inclusive="sometimes")
    with pytest.raises(InvalidValueError):  # a list is positional: its length must match
        zb.Series([1, 2]).where([True])
    # a Series cond is aligned on the labels, as pandas: label 1 it lacks is False
    assert zb.Series([1, 2]).where(zb.Series([True])).to_list() == [1, None]
    with pytest.raises(DTypeError):
        zb.Series([1, 2]).where(zb.Series([1, 0]))
    # a missing str is False, as pandas' str dtype
    assert zb.Series(["b", "c", None, "a"]).between("a", "b").to_list() == [True, False, False,
                                                                           True]
    d = zb.Series(np.array([0, 10, -5], dtype="datetime64[D]"))
    assert d.between(dt.date(1970, 1, 1), dt.date(1970, 1, 5)).to_list() == [True, False, False]
    assert zb.Series(np.array([1, 2, 3], dtype=np.int8)).clip(-1000, 2).to_list() == [1, 2, 2]


def test_timestamp_between_and_where():
    p = pd.Series(pd.to_datetime(["2020-01-01 00:00:00", "2020-01-02 12:00:00", None,
                                  "2019-12-31 23:59:59"]).astype("datetime64[ns]"))
    s = zb.Series(p)
    lo, hi = pd.Timestamp("2020-01-01"), pd.Timestamp("2020-01-02 12:00:00")
    # NaT is False, as in pandas' datetime64
    assert s.between(lo, hi).to_list() == p.between(lo, hi).tolist()
    assert s.between(dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 2), "neither").to_list() == [
        False, False, False, False]
    cond = zb.Series([True, False, True, False])
    other = pd.Timestamp("2020-01-01 00:00:00.000000001")  # nanoseconds kept
    got = s.where(cond, other).to_pandas()
    assert str(got.dtype) == "datetime64[ns]"
    assert got.tolist()[:2] == [p[0], other] and got.tolist()[3] == other
    assert got.isna().tolist() == [False, False, True, False]


def test_timestamps_come_back_as_timestamps():
    """to_list, min and max give pandas' Timestamps for timestamps, as
    pandas: naive, or aware in the column's zone; nanoseconds kept; NaT
    where missing; years outside datetime's 1..9999 too."""
    p = pd.Series(pd.to_datetime(["2020-02-29 23:59:59.999999", None, "1969-12-31 00:00:00.000001",
                                  "1677-09-22 00:00:00"], format="ISO8601"))
    s = zb.Series(p)
    got = s.to_list()
    assert all(isinstance(v, pd.Timestamp) for v in got if v is not pd.NaT) and got[1] is pd.NaT
    assert got == p.tolist()
    assert s.min() == p.min() and s.max() == p.max()
    berlin = p.dt.tz_localize("UTC").dt.tz_convert("Europe/Berlin")
    zs = zb.Series(berlin)
    got = zs.to_list()
    assert got[0].utcoffset() == berlin[0].utcoffset() == dt.timedelta(hours=1)
    assert got == berlin.tolist()
    assert zs.max() == berlin.max()
    ns = zb.Series(pd.Series(pd.to_datetime(["2020-01-01 00:00:00.123456789"])))
    assert ns.dtype == "timestamp[ns]"
    assert ns.to_list() == [pd.Timestamp("2020-01-01 00:00:00.123456789")]
    far = np.array([0, 400 * 366 * 86400 * 10**6 * 25], dtype="datetime64[us]")
    assert zb.Series(far).to_list() == pd.Series(far).to_list()
    assert "NaT" in repr(zb.Series(p))  # printing reads the raw values
