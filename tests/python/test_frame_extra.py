"""Differential tests of the DataFrame/Series surface methods of
zambezi._frame_extra, zambezi._expr and the Series counterparts
(accessors.SeriesExtras) against pandas, on random data with nulls.

The pandas frames are built with the dtypes zambezi's ``to_pandas()``
shows (integer and bool columns with missing values as ``Int64`` /
``boolean``, without as numpy's; floats float64 with NaN; strings pandas'
``str``; categories; datetime64[us]; dates as objects), so pandas computes
on what a zambezi user sees.  Where zambezi differs on purpose, the test
adjusts pandas' answer at that place and names the difference:

* a boolean mask with nulls drops those rows (pandas' query raises), so
  the query oracle filters with the NA rows dropped;
* ``select_dtypes``' masked names (Int64, boolean) select the dtype of
  the same width whether or not the column has nulls.
"""

import datetime
import warnings

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import (
    ColumnNotFoundError,
    DTypeError,
    InvalidValueError,
    UndefinedVariableError,
    UnsupportedError,
    ZambeziIndexError,
)

KINDS = ["i64", "i32", "u8", "f64", "f32", "str", "cat", "bool", "ts", "date"]
SIZES = [0, 1, 7, 300, 2500]
CATS = ["kiwi", "apple", "pear", "plum"]


def shown(s):
    """s with the dtype to_pandas() gives it: masked integer / bool
    without NA become numpy's."""
    if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) and s.dtype.kind in "iub" \
            and not s.isna().any():
        return s.astype(s.dtype.numpy_dtype)
    return s


def pcol(kind, n, rng, nullp=0.2, lo=-5, hi=6):
    """A pandas column of kind with about nullp missing values."""
    nulls = rng.random(n) < nullp
    v = rng.integers(lo, hi, n)
    if kind == "i64":
        s = pd.Series(pd.arrays.IntegerArray(v.astype(np.int64), nulls))
    elif kind == "i32":
        s = pd.Series(pd.arrays.IntegerArray(v.astype(np.int32), nulls))
    elif kind == "u8":
        s = pd.Series(pd.arrays.IntegerArray(np.abs(v).astype(np.uint8), nulls))
    elif kind in ("f64", "f32"):
        x = (v / 2.0).astype(np.float64 if kind == "f64" else np.float32)
        x[nulls] = np.nan
        s = pd.Series(x)
    elif kind == "str":
        vals = np.array([f"s{x}" for x in v], dtype=object)
        vals[nulls] = None
        s = pd.Series(vals, dtype="str")
    elif kind == "cat":
        codes = np.abs(v) % len(CATS)
        codes[nulls] = -1
        s = pd.Series(pd.Categorical.from_codes(codes, categories=CATS))
    elif kind == "bool":
        s = pd.Series(pd.arrays.BooleanArray(v % 2 == 0, nulls))
    elif kind == "ts":
        x = (np.datetime64("2024-01-01T00:00:00", "us")
             + (v * 3_600_000_000).astype("timedelta64[us]"))
        x[nulls] = np.datetime64("NaT")
        s = pd.Series(x)
    elif kind == "date":
        base = datetime.date(2024, 1, 10)
        vals = np.array([base + datetime.timedelta(days=int(x)) for x in v], dtype=object)
        vals[nulls] = None
        s = pd.Series(vals, dtype=object)
    else:
        raise AssertionError(kind)
    return shown(s)


def pframe(kinds, n, seed, nullp=0.2):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({k: pcol(k, n, rng, nullp) for k in kinds})


def zframe(pdf):
    """The zambezi frame of pdf (object columns hold dates: say so, for a
    frame of no rows gives nothing to infer the dtype from)."""
    import pyarrow as pa

    z = zb.DataFrame({c: zb.Series(pa.array(pdf[c].tolist(), type=pa.date32()))
                      if pdf[c].dtype == object else pdf[c] for c in pdf.columns})
    assert_frame_like(z, pdf, "the data itself")
    return z


# --------------------------------------------------------------------------
# 1. columns: attribute access, del, insert, pop
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 5, 300])
def test_attribute_access_del_insert_pop(n):
    pdf = pframe(KINDS, n, seed=n)
    z = zframe(pdf)
    for c in KINDS:
        assert_series_like(getattr(z, c), getattr(pdf, c), f"df.{c}")
    # a column named like a method stays the method, as in pandas
    p2 = pd.DataFrame({"count": [1, 2], "x y": [3, 4]})
    z2 = zb.DataFrame(p2)
    assert callable(z2.count) and callable(p2.count)
    with pytest.raises(AttributeError, match="nope"):
        z.nope
    with pytest.raises(AttributeError):
        z._private
    assert "i64" in dir(z) and "x y" not in dir(z2)

    zd, pdd = z.copy(), pdf.copy()
    del zd["str"], pdd["str"]
    assert_frame_like(zd, pdd, "del")
    assert list(z.columns) == list(pdf.columns)  # the copy's del left the original
    with pytest.raises(ColumnNotFoundError):
        del zd["str"]

    rng = np.random.default_rng(n + 1)
    zi, pi = z.copy(), pdf.copy()
    for name, value in [("new1", pcol("f64", n, rng)), ("new2", pcol("str", n, rng)),
                        ("new3", 7), ("new4", list(range(n)) if n else np.arange(0))]:
        loc = int(rng.integers(0, len(pi.columns) + 1))
        zv = zb.Series(value) if isinstance(value, pd.Series) else value
        if n == 0 and name == "new3":
            continue  # a scalar into a frame of no rows: tested below
        zi.insert(loc, name, zv)
        pi.insert(loc, name, value)
        assert_frame_like(zi, pi, f"insert {name} at {loc}")
    with pytest.raises(ValueError, match="already exists"):
        zi.insert(0, "i64", 1)
    with pytest.raises(UnsupportedError):
        zi.insert(0, "i64", 1, allow_duplicates=True)
    with pytest.raises(IndexError):
        zi.insert(len(zi.columns) + 1, "x", 1)
    with pytest.raises(ZambeziIndexError):
        zi.insert(-1, "x", 1)
    with pytest.raises(TypeError):
        zi.insert("0", "x", 1)

    zp, pp = z.copy(), pdf.copy()
    assert_series_like(zp.pop("cat"), pp.pop("cat"), "pop")
    assert_frame_like(zp, pp, "after pop")
    with pytest.raises(KeyError):
        zp.pop("cat")


# --------------------------------------------------------------------------
# 2. query and eval
# --------------------------------------------------------------------------

QUERIES = [
    "a > 1", "a > 1 & b < 2", "a > 1 and b < 2", "a < -2 | b > 1", "a < -2 or b > 1",
    "~(b > 0)", "not b > 0", "1 < a < 4", "-3 <= b < 1.5", "a == [1, 3]", "a != [1, 3]",
    "a in [1, 3]", "a not in (1, 3)", "s in ['s1', 's2', 's-3']", "s == 's1'",
    "s != 's1'", "s > 's0'", "c == 'kiwi'", "c != 'pear'", "`my col` > 0",
    "`my col` + a > 1", "a + b > 1", "a * 2 - b / 2 <= 3", "a ** 2 > 4",
    "a // 2 == 1", "a % 3 == 1", "-a < -1", "a > @x", "@x < b", "b == b",
    "a != a", "a in @lst", "t > @when", "(a > 0) & (b > 0) | (s == 's2')",
    "a > 0 & b > 0 | s == 's2'", "b < 2.5 & ~(a == 1)", "i > 0 and i < 3",
    "a == i", "a < b", "u in [0, 2, 4]", "b != 1.5",
]


FLOAT64_NOT_FLOAT64_MASKED = {"a + b > 1", "a * 2 - b / 2 <= 3"}


def query_frame(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": pcol("i64", n, rng), "b": pcol("f64", n, rng), "s": pcol("str", n, rng),
        "c": pcol("cat", n, rng), "t": pcol("ts", n, rng),
        "my col": pcol("i64", n, rng, nullp=0.0), "i": pcol("i32", n, rng, nullp=0.0),
        "u": pcol("u8", n, rng)})


@pytest.mark.parametrize("n,seed", [(0, 0), (1, 1), (9, 2), (400, 3), (3000, 4)])
def test_query_and_eval_vs_pandas(n, seed):
    pdf = query_frame(n, seed)
    z = zframe(pdf)
    x = 1  # noqa: F841 (read by @x in the expressions)
    lst = [2, -1]  # noqa: F841
    when = pd.Timestamp("2024-01-01 02:00:00")  # noqa: F841
    for expr in QUERIES:
        r = pdf.eval(expr)
        if r.isna().any():
            # documented: a null in the mask drops the row (pandas' query
            # raises on a mask with NA)
            exp = pdf[r.fillna(False).astype(bool)]
        else:
            exp = pdf.query(expr)
        assert_frame_like(z.query(expr), (exp), f"query {expr!r}")
        got = z.eval(expr)
        if expr in FLOAT64_NOT_FLOAT64_MASKED:
            # documented (zambezi._compute): Int64-with-nulls arithmetic with a
            # float gives float64 (pandas: Float64), whose missing values
            # compare as False
            r = r.fillna(False).astype(bool)
        assert_series_like(got, r, f"eval {expr!r}")
    for expr in ["a + b", "a * 2 + 1", "b / 4 - a", "-b", "a ** 2", "`my col` % 4",
                 "a + @x", "s == 's3'"]:
        assert_series_like(z.eval(expr), pdf.eval(expr), f"eval {expr!r}")
    assert z.eval("2 * 3 + 1") == pdf.eval("2 * 3 + 1") == 7


def test_eval_assignments_vs_pandas():
    pdf = query_frame(500, 9)
    z = zframe(pdf)
    k = 3  # noqa: F841
    for expr in ["c2 = a + b", "a = a * 2", "d = b * @k\ne = d + 1", "`new col` = b > 0",
                 "f = 5"]:
        exp = pdf.eval(expr)
        # pandas 3.1 names a `quoted` target BACKTICK_QUOTED_STRING_new_col;
        # zambezi names it as written (documented in zambezi._expr)
        exp = exp.rename(columns={"BACKTICK_QUOTED_STRING_new_col": "new col"})
        assert_frame_like(z.eval(expr), exp, f"eval {expr!r}")
    assert list(z.columns) == list(pdf.columns)  # eval made new frames
    z2, p2 = z.copy(), pdf.copy()
    assert z2.eval("g = b - a", inplace=True) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas 3.1 deprecates inplace
        p2.eval("g = b - a", inplace=True)
    assert_frame_like(z2, p2, "eval inplace")
    with pytest.raises(InvalidValueError, match="assignment"):
        z.eval("a + 1\nb + 1")
    with pytest.raises(InvalidValueError):
        z.eval("a + 1", inplace=True)


def test_query_errors_and_safety():
    z = zb.DataFrame({"a": [1, 2, 3], "s": ["x", "y", "z"]})
    with pytest.raises(UndefinedVariableError, match="'nope'") as e:
        z.query("nope > 1")
    assert isinstance(e.value, NameError)
    with pytest.raises(UndefinedVariableError, match="local variable 'missing'"):
        z.query("a > @missing")
    with pytest.raises(UnsupportedError, match="attribute"):
        z.query("s.str.len() > 1")
    for evil in ["__import__('os').system('true')", "(lambda: 1)() == 1", "a[0] > 1",
                 "[x for x in a] == 1", "a.__class__ == 1", "{'k': 1} == a"]:
        with pytest.raises((UnsupportedError, InvalidValueError)):
            z.query(evil)
    with pytest.raises(InvalidValueError, match="invalid expression"):
        z.query("a >")
    with pytest.raises(InvalidValueError, match="boolean column"):
        z.query("a + 1")
    with pytest.raises(InvalidValueError, match="boolean column"):
        z.query("True")
    zq = z.copy()
    with pytest.warns(DeprecationWarning, match="inplace"):
        assert zq.query("a > 1", inplace=True) is None
    assert zq.to_dict("list") == z.query("a > 1").to_dict("list")
    # local_dict / global_dict replace the caller's variables
    assert z.query("a > @lim", local_dict={"lim": 2})["a"].to_list() == [3]
    assert z.query("a >= @g", global_dict={"g": 3})["a"].to_list() == [3]
    # a quote inside a string, and & inside a string, are left alone
    z2 = zb.DataFrame({"s": ["it's", "a&b", None]})
    p2 = pd.DataFrame({"s": pd.Series(["it's", "a&b", None], dtype="str")})
    for expr in ['s == "it\'s"', "s == 'a&b'", "s != 'a&b'"]:
        assert_frame_like(z2.query(expr), (p2.query(expr)), expr)


def _helper_query(df, level):
    secret = 99  # noqa: F841 (visible at level 0 only)
    return df.query("a < @secret", level=level)


def test_query_level_reads_the_callers_frame():
    z = zb.DataFrame({"a": [1, 100]})
    assert _helper_query(z, 0)["a"].to_list() == [1]
    secret = 1000  # noqa: F841
    assert _helper_query(z, 1)["a"].to_list() == [1, 100]


# --------------------------------------------------------------------------
# 3. sample
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 10, 777])
@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_sample_picks_pandas_rows(n, seed):
    pdf = pframe(KINDS, n, seed=seed + n)
    z = zframe(pdf)
    w = np.random.default_rng(seed).random(n)
    w[::3] = 0
    w[0] = 1.0
    zw = zb.Series(np.where(np.arange(n) % 5 == 1, np.nan, w))  # NaN weight counts as 0
    pw = pd.Series(np.where(np.arange(n) % 5 == 1, np.nan, w))
    cases = [dict(), dict(n=min(n, 3)), dict(frac=0.5), dict(frac=1.0),
             dict(n=2 * n, replace=True), dict(frac=2.5, replace=True),
             dict(n=1, weights=list(w)), dict(frac=0.3, replace=True, weights=w)]
    for kw in cases:
        got = z.sample(random_state=seed, **kw)
        exp = pdf.sample(random_state=seed, **kw)
        assert_frame_like(got, (exp), f"sample {kw}")
        s_got = z["f64"].sample(random_state=seed, **kw)
        assert_series_like(s_got, (pdf["f64"].sample(random_state=seed, **kw)),
                           f"Series.sample {kw}")
    # weights from a Series with missing values, and from a column
    kw = dict(n=1, replace=True)
    assert_frame_like(z.sample(weights=zw, random_state=seed, **kw),
                      (pdf.sample(weights=pw, random_state=seed, **kw)), "Series w")
    zc, pc = z.copy(), pdf.copy()
    zc["w"], pc["w"] = zw, pw
    assert_frame_like(zc.sample(n=min(n, 2), weights="w", random_state=seed, replace=True),
                      (pc.sample(n=min(n, 2), weights="w", random_state=seed,
                                           replace=True)), "column weights")
    # a RandomState and a Generator are used as they are
    got = z.sample(n=min(n, 4), random_state=np.random.RandomState(seed))
    exp = pdf.sample(n=min(n, 4), random_state=np.random.RandomState(seed))
    assert_frame_like(got, (exp), "RandomState")
    got = z.sample(frac=0.7, random_state=np.random.default_rng(seed))
    exp = pdf.sample(frac=0.7, random_state=np.random.default_rng(seed))
    assert_frame_like(got, (exp), "Generator")
    # columns
    got = z.sample(n=4, axis=1, random_state=seed)
    assert_frame_like(got, pdf.sample(n=4, axis=1, random_state=seed), "axis=1")


def test_sample_errors():
    z = zb.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(InvalidValueError, match="not both"):
        z.sample(n=1, frac=0.5)
    with pytest.raises(InvalidValueError, match="replace=True"):
        z.sample(frac=1.5)
    with pytest.raises(InvalidValueError, match="replace=True"):
        z.sample(n=4)
    with pytest.raises(InvalidValueError, match="negative"):
        z.sample(n=1, weights=[1, -1, 1])
    with pytest.raises(InvalidValueError, match="same length"):
        z.sample(n=1, weights=[1, 1])
    with pytest.raises(InvalidValueError, match="zero"):
        z.sample(n=1, weights=[0, 0, 0])
    with pytest.raises(InvalidValueError, match="inf"):
        z.sample(n=1, weights=[1, np.inf, 0])
    with pytest.raises(ColumnNotFoundError):
        z.sample(n=1, weights="nope")
    with pytest.raises(InvalidValueError, match="random_state"):
        z.sample(n=1, random_state="seed")
    with pytest.raises(InvalidValueError, match="column"):
        z["a"].sample(n=1, weights="a")


# --------------------------------------------------------------------------
# 4. astype(dict), round, clip, abs, where/mask, select_dtypes, replace,
#    isin, apply, pipe, copy
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_astype_dict_vs_pandas(n):
    pdf = pframe(["i64", "i32", "u8", "f64", "str", "bool"], n, seed=n)
    pdf["fint"] = pcol("f64", n, np.random.default_rng(n)).round()  # integral floats
    z = zframe(pdf)
    spec = {"i64": "float64", "i32": "Int64", "u8": "float32", "fint": "Int64",
            "str": "category", "bool": "str"}
    exp = pdf.astype(spec)
    # documented (Series.astype): astype(str) keeps missing values missing
    # (pandas' str dtype shows them as NaN too, so nothing to adjust)
    assert_frame_like(z.astype(spec), exp, "astype dict")
    with pytest.raises(ColumnNotFoundError):
        z.astype({"nope": "int64"})


@pytest.mark.parametrize("n", SIZES)
def test_round_clip_abs_vs_pandas(n):
    pdf = pframe(["i64", "i32", "f64", "f32", "u8", "str", "bool"], n, seed=n + 5)
    rng = np.random.default_rng(n)
    pdf["f64"] = pdf["f64"] * 1.37 + rng.random(n)  # digits to round
    z = zframe(pdf)
    for d in [0, 1, 2, -1]:
        got = z.round(d)
        assert_frame_like(got, pdf.round(d), f"round({d})", rtol=1e-6, approx=["f32"])
    spec = {"f64": 1, "i64": -1, "str": 2, "nope": 3}
    assert_frame_like(z.round(spec), pdf.round(spec), "round(dict)")
    with pytest.raises(DTypeError):
        z.round(1.5)

    num = ["i64", "i32", "f64", "f32"]
    zn, pn = z[num], pdf[num]
    for lo, hi in [(-2, 3), (None, 1), (0, None), (-1, -1)]:
        assert_frame_like(zn.clip(lo, hi), pn.clip(lo, hi), f"clip({lo}, {hi})")
    # per-row bounds (axis=0); a missing bound is no bound
    lo = pcol("f64", n, rng)
    hi = lo + 2
    pf = pdf[["f64", "f32"]]
    zf = z[["f64", "f32"]]
    assert_frame_like(zf.clip(zb.Series(lo), zb.Series(hi), axis=0),
                      pf.clip(lo, hi, axis=0), "clip rows", rtol=1e-6)
    li = pcol("i64", n, rng, nullp=0.0)
    assert_frame_like(z[["i64"]].clip(lower=zb.Series(li), axis=0),
                      pdf[["i64"]].clip(lower=li, axis=0), "clip int rows")
    with pytest.raises(UnsupportedError):
        zf.clip(zb.Series(lo))
    with pytest.raises(DTypeError):
        z[["str"]].clip(0, 1)

    assert_frame_like(zn.abs(), pn.abs(), "abs")
    with pytest.raises(DTypeError):
        z[["str"]].abs()


def masked_frame(n, seed):
    """Integers and bools as pandas' masked dtypes even without nulls: where
    / mask make nulls, and zambezi's columns keep their dtype (pandas'
    numpy int64 would become float64)."""
    rng = np.random.default_rng(seed)
    cols = {}
    for k in ["i64", "i32", "f64", "str", "bool", "cat"]:
        s = pcol(k, n, rng)
        if s.dtype.kind in "iub" and not isinstance(s.dtype, pd.api.extensions.ExtensionDtype):
            s = s.astype({"i": "Int", "u": "UInt", "b": "boolean"}[s.dtype.kind]
                         + ("" if s.dtype.kind == "b" else str(s.dtype.itemsize * 8)))
        cols[k] = s
    return pd.DataFrame(cols)


@pytest.mark.parametrize("seed", range(3))
def test_where_keeps_the_dtype_that_holds_other_as_pandas(seed):
    """where / mask keep a number column's dtype when it holds the values
    put in exactly (float32 and float64 values that are float32 values, an
    int column and whole floats), and widen it otherwise, as pandas; the
    dtype is compared too."""
    rng = np.random.default_rng(seed)
    n = 50
    f32 = pd.Series(rng.normal(size=n), dtype="float32")
    f32[rng.random(n) < 0.2] = np.nan
    i8 = pd.Series(rng.integers(-50, 50, n), dtype="int8")
    whole = pd.Series(rng.integers(-9, 9, n).astype("float64"))
    others = {
        "f32": [pd.Series(rng.integers(0, 9, n)), whole, whole + 0.1, whole * 2**40,
                pd.Series(rng.integers(0, 9, n), dtype="int8"), 2.5, 2, 7.0],
        "i8": [pd.Series(rng.integers(0, 9, n)), whole, whole + 0.5, whole * 1000,
               whole.where(rng.random(n) < 0.8), 3.0, 3.5, 3, np.float32(4)],
    }
    for name, col in (("f32", f32), ("i8", i8)):
        z = zb.from_pandas(col)
        cond = col.fillna(0) > 0
        for o in others[name]:
            zo = zb.from_pandas(o) if isinstance(o, pd.Series) else o
            for method in ("where", "mask"):
                want = getattr(col, method)(cond, o)
                got = getattr(z, method)(zb.from_pandas(cond), zo)
                assert got.dtype == str(want.dtype), (name, method, o)
                assert_series_like(got, want, f"{name} {method} {o!r}")


@pytest.mark.parametrize("n", SIZES)
def test_where_mask_vs_pandas(n):
    pdf = masked_frame(n, seed=n + 2)
    z = zb.DataFrame(pdf)
    rng = np.random.default_rng(n)
    pcond = pd.DataFrame({c: pd.Series(pd.arrays.BooleanArray(rng.random(n) < 0.5,
                                                              rng.random(n) < 0.1))
                          for c in pdf.columns})
    zcond = zb.DataFrame(pcond)
    for method in ("where", "mask"):
        zf, pf = getattr(z, method), getattr(pdf, method)
        assert_frame_like(zf(zcond), pf(pcond), f"{method}(frame)")
        part = ["i64", "str"]  # columns cond lacks are replaced, in both
        assert_frame_like(zf(zcond[part]), pf(pcond[part]), f"{method}(part)")
        ps = pcond["f64"].fillna(True)
        assert_frame_like(zf(zb.Series(ps)), pf(ps), f"{method}(series)")
        num = ["i64", "i32", "f64"]
        assert_frame_like(getattr(z[num], method)(zcond, -1),
                          getattr(pdf[num], method)(pcond, -1), f"{method}(cond, -1)")
        other = masked_frame(n, seed=n + 3)
        assert_frame_like(zf(zcond, zb.DataFrame(other)), pf(pcond, other),
                          f"{method}(cond, frame)")
        row = pcol("f64", n, rng)
        assert_frame_like(getattr(z[["f64"]], method)(zcond, zb.Series(row), axis=0),
                          getattr(pdf[["f64"]], method)(pcond, row, axis=0),
                          f"{method}(cond, row other)")
        # a callable cond, as in pandas
        assert_frame_like(getattr(z[num], method)(lambda d: d.apply(lambda c: c > 0)),
                          getattr(pdf[num], method)(lambda d: d > 0), f"{method}(callable)")
    with pytest.raises(UnsupportedError):
        z.where(zcond, zb.Series(pcol("f64", n, rng)))


def test_where_refuses_what_pandas_refuses_and_keeps_categories():
    rng = np.random.default_rng(7)
    pdf = pd.DataFrame(rng.normal(size=(5, 3)), columns=["A", "B", "C"])
    z = zb.DataFrame(pdf)
    # a 2-D other or cond of another shape: pandas' ValueError (other's rows
    # were aligned by label, the missing ones NaN)
    for call in (lambda d: d.where(d > 0, (d + 1).to_numpy()[0:2, :]),
                 lambda d: d.where((d > 0).to_numpy()[:2, :], d + 1)):
        with pytest.raises(ValueError, match="same shape as self"):
            call(pdf)
        with pytest.raises(ValueError, match="same shape as self"):
            call(z)
    # a categorical's other given as values: each a category (the result
    # stays categorical) or a new one (TypeError)
    cat = pd.Series(pd.Categorical(["a", "b", "a", "b"]))
    cond = pd.Series([True, False, True, False])
    for other in (["b", "a", None, "a"], np.array(["b", "a", "b", "a"], dtype=object),
                  pd.Series(["a", "a", "b", "b"])):
        zo = zb.from_pandas(other) if isinstance(other, pd.Series) else other
        for method in ("where", "mask"):
            want = getattr(cat, method)(cond, other)
            got = getattr(zb.from_pandas(cat), method)(zb.from_pandas(cond), zo)
            assert_series_like(got, want, f"{method} {other!r}")
    with pytest.raises(TypeError, match="new category"):
        cat.where(cond, ["z"] * 4)
    with pytest.raises(TypeError, match="not one of its categories"):
        zb.from_pandas(cat).where(zb.from_pandas(cond), ["z"] * 4)


def test_select_dtypes_vs_pandas():
    pdf = pframe(KINDS, 50, seed=3)
    pdf["tz"] = pd.Series(pd.date_range("2024-01-01", periods=50, freq="h", tz="UTC")
                          .astype("datetime64[us, UTC]"))
    pdf["i64_full"] = pcol("i64", 50, np.random.default_rng(1), nullp=0.0)
    z = zframe(pdf)
    specs = ["number", "integer", "int", int, "int64", "int32", "uint8", "signedinteger",
             "unsignedinteger", "floating", "float", float, "float64", "float32", "bool", bool,
             "object", object, "O", "string", "str", str, "category", "datetime",
             "datetime64", np.datetime64, "datetime64[us]", "datetime64[ns]", "datetimetz",
             "datetime64[us, UTC]", "timedelta", np.number, np.integer, np.floating,
             np.bool_, np.object_, "complex", ["number", "bool"], ["category", "str"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas 3's note on 'object' selecting str
        for spec in specs:
            for kw in ({"include": spec}, {"exclude": spec}):
                exp = pdf.select_dtypes(**kw)
                got = z.select_dtypes(**kw)
                if exp.shape[1] == 0:  # no columns: the rows (and labels) stay
                    assert got.shape == exp.shape, kw
                    assert got.index.to_list() == list(exp.index), kw
                    continue
                assert_frame_like(got, exp, f"{kw}")
        exp = pdf.select_dtypes(include="number", exclude=["int32", "uint8"])
        assert_frame_like(z.select_dtypes(include="number", exclude=["int32", "uint8"]), exp,
                          "include and exclude")
    # documented: masked names select the dtype of the same width, nulls or not
    assert list(z.select_dtypes("Int64").columns) == ["i64", "i64_full"]
    assert list(z.select_dtypes("boolean").columns) == ["bool"]
    with pytest.raises(InvalidValueError, match="nonempty"):
        z.select_dtypes()
    with pytest.raises(InvalidValueError, match="overlap"):
        z.select_dtypes(include="number", exclude="number")
    with pytest.raises(DTypeError):
        z.select_dtypes(include="nonsense")


def test_to_numpy_int64_is_numpy_int64():
    # numpy's longlong is another type than int64 on LP64: pandas'
    # select_dtypes and isinstance checks must see int64
    a = zb.Series([1, 2]).to_numpy()
    assert a.dtype.type is np.int64 and isinstance(a[0], np.int64)
    assert zb.Series(np.array([1], dtype=np.uint64)).to_numpy().dtype.type is np.uint64


@pytest.mark.parametrize("vals,pd_dtype,kw", [
    ([1, None, 3], "Int64", {"dtype": "float64"}),
    ([1, None, 3], "Int64", {"dtype": "int64", "na_value": -1}),
    ([1.5, None], None, {"na_value": 0}),
    (["a", None], None, {"na_value": ""}),
    ([True, None], "boolean", {"dtype": bool, "na_value": False}),
    ([1, 2], None, {"dtype": "float32"}),
    ([1, 2], None, {"copy": True}),
])
def test_series_to_numpy_arguments(vals, pd_dtype, kw):
    want = pd.Series(vals, dtype=pd_dtype).to_numpy(**kw)
    got = zb.Series(vals).to_numpy(**kw)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if kw.get("copy"):
        got[0] = 7   # an array of its own
        assert zb.Series(vals).to_numpy()[0] == vals[0]


def test_series_to_numpy_missing_in_an_integer_dtype():
    with pytest.raises(ValueError, match="missing values, which int64 cannot hold"):
        zb.Series([1, None]).to_numpy(dtype="int64")


@pytest.mark.parametrize("n", SIZES)
def test_replace_series_vs_pandas(n):
    rng = np.random.default_rng(n + 40)
    cases = {
        "i64": [(1, 10), ([1, 2], [2, 3]), ([0, -1, 5], 100), ({1: 2, 2: 3, -3: 0}, None),
                (np.nan, 0), (1.5, 9), (True, 5), ("s1", 4)],
        "f64": [(0.5, -0.5), ([1.0, -1.5], [2.0, np.nan]), (np.nan, 7.5), (1, 2.25)],
        "str": [("s1", "one"), (["s1", "s2"], ["s2", "s1"]), ({"s0": "z", "s3": None}, None),
                (np.nan, "missing"), (1, "x")],
        "cat": [("kiwi", "pear"), ({"kiwi": "plum", "plum": "kiwi"}, None), ("pear", np.nan),
                ("none of them", "apple"), (np.nan, "plum")],
        "bool": [(True, False)],
        "ts": [(pd.Timestamp("2024-01-01 03:00:00"), pd.Timestamp("2000-01-01"))],
    }
    for kind, reps in cases.items():
        p = pcol(kind, n, rng, lo=-3, hi=4)
        if kind == "i64" and n:
            p = p.astype("Int64")
        s = zb.Series(p)
        for to_replace, value in reps:
            args = (to_replace,) if value is None else (to_replace, value)
            exp = p.replace(*args)
            if exp.dtype == object and p.dtype == "str":
                # documented: None makes nulls in a str column (pandas: object)
                exp = exp.astype("str")
            assert_series_like(s.replace(*args), exp, f"{kind}.replace{args}")
    # an int64 column (no nulls) with a float value becomes float64, as pandas
    p = pcol("i64", n, rng, nullp=0.0)
    assert_series_like(zb.Series(p).replace(1, 1.5), p.replace(1, 1.5), "int -> float")
    # documented differences
    assert zb.Series([1, 2]).replace(1, None).to_list() == [None, 2]  # pandas: object
    with pytest.raises(DTypeError):
        zb.Series([1, 2]).replace(1, "x")  # pandas: object
    with pytest.raises(DTypeError, match="categories"):
        zb.Series(["a", "b"], dtype="category").replace("a", "new")  # pandas raises too
    with pytest.raises(InvalidValueError, match="length"):
        zb.Series([1, 2]).replace([1, 2], [3])
    # regex=True: tests/python/test_text_of_times.py
    assert zb.Series(["a"]).replace("a", "b", regex=True).to_list() == \
        pd.Series(["a"]).replace("a", "b", regex=True).to_list()


@pytest.mark.parametrize("n", SIZES)
def test_replace_frame_vs_pandas(n):
    pdf = pframe(["i64", "f64", "str", "cat"], n, seed=n + 8)
    z = zframe(pdf)
    num = ["i64", "f64"]
    for args, kw, cols in [
        ((1, 100), {}, num), ((-1.5, 0.25), {}, num), (([1, 2], [3, 4]), {}, num),
        (({1: 3, "s2": "two", "kiwi": "apple"}, ), {}, None),
        (({"i64": {1: 5, 2: 6}, "str": {"s1": "x"}},), {}, None),
        (({"i64": 0, "f64": 0.5}, -9), {}, None),
        (({"str": "s0", "cat": "plum"}, np.nan), {}, None),
        (("s3", {"str": "three"}), {}, None),
        ((np.nan, {"i64": 0, "f64": -1.0, "str": "?"}), {}, None),
        (([], []), {}, None),
    ]:
        zf, pf = (z, pdf) if cols is None else (z[cols], pdf[cols])
        exp = pf.replace(*args, **kw)
        assert_frame_like(zf.replace(*args, **kw), exp, f"replace{args}")
    zi, pi = z.copy(), pdf.copy()
    assert zi.replace("s1", "S", inplace=True) is zi   # pandas 3.1 gives the object
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas 3.1 deprecates inplace
        pi.replace("s1", "S", inplace=True)
    assert_frame_like(zi, pi, "replace inplace")
    with pytest.raises(ColumnNotFoundError):
        z.replace({"nope": {1: 2}})


@pytest.mark.parametrize("n", SIZES)
def test_isin_vs_pandas(n):
    pdf = pframe(["i64", "f64", "str", "cat", "bool", "date"], n, seed=n + 21)
    z = zframe(pdf)
    for values in [[1, 2, "s1", "kiwi"], [0.5, -1], [], [True], ["s0", "s5"],
                   [datetime.date(2024, 1, 10), 3]]:
        assert_frame_like(z.isin(values), pdf.isin(values), f"isin({values})")
    d = {"i64": [1, -2], "str": ["s3"], "nope": [1]}
    assert_frame_like(z.isin(d), pdf.isin(d), "isin(dict)")
    ps = pcol("i64", n, np.random.default_rng(n))
    num = ["i64", "f64"]
    assert_frame_like(z[num].isin(zb.Series(ps)), pdf[num].isin(ps), "isin(Series)")
    other = pframe(["i64", "f64", "str"], n, seed=n + 22)
    assert_frame_like(z.isin(zb.DataFrame(other)), pdf.isin(other), "isin(DataFrame)")
    with pytest.raises(DTypeError):
        z.isin("s1")


def test_isin_aligns_series_and_frame_by_label():
    # pandas compares with values.reindex_like(df): by index label, not by
    # position; a label values lacks is False (NA in an Int64 column)
    p = pd.DataFrame({"a": [1, 2, 3], "b": [3, 2, 1]})
    pn = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "b": [3.0, 2.0, np.nan],
                       "t": [True, False, True]})
    pi = p.set_index(pd.Index([10, 11, 12]))
    for frame, values in [
        (p, pd.Series([1, 2, 3], index=[2, 1, 0])),
        (p, pd.Series([1, 2], index=[0, 5])),
        (pi, pd.Series([3, 2, 1], index=[12, 11, 10])),
        (pn, pd.Series([3.0, 1.0], index=[2, 0])),
        (p, pd.Series(pd.array([2, None], dtype="Int64"), index=[1, 5])),
        (p, pd.DataFrame({"a": [3, 2], "b": [1, 0]}, index=[2, 0])),
        (pn, pd.DataFrame({"a": [1, 5], "b": [3.0, 2.0]}, index=[1, 0])),
    ]:
        zv = zb.Series(values) if isinstance(values, pd.Series) else zb.DataFrame(values)
        pd.testing.assert_frame_equal(zb.DataFrame(frame).isin(zv).to_pandas(),
                                      frame.isin(values))
    with pytest.raises(ValueError, match="duplicate axis"):
        zb.DataFrame(p).isin(zb.Series([1, 2], index=[0, 0]))


@pytest.mark.parametrize("n", [1, 7, 500])
def test_apply_pipe_copy_vs_pandas(n):
    pdf = pframe(["i64", "i32", "f64", "f32"], n, seed=n + 30)
    z = zframe(pdf)
    # one value per column: a Series indexed by the column names
    for fn in [lambda c: c.count(), lambda c: c.max(), lambda c: c.sum()]:
        exp = pdf.apply(fn)
        got = z.apply(fn)
        assert_series_like(got, exp, "apply scalar", rtol=1e-9)
    exp = pdf.apply(lambda c: c * 2 + 1)
    assert_frame_like(z.apply(lambda c: c * 2 + 1), exp, "apply column")
    assert_frame_like(z.apply(lambda c, k, m=0: c * k - m, args=(3,), m=1),
                      pdf.apply(lambda c, k, m=0: c * k - m, args=(3,), m=1), "apply args")
    assert_series_like(z.apply("count"), pdf.apply("count"), "apply str")
    full = pframe(["i64", "f64"], n, seed=n, nullp=0.0)
    assert_series_like(zb.DataFrame(full).apply(np.sum, raw=True),
                       full.apply(np.sum, raw=True), "raw")
    # a function that gives back its row: the rows make the frame again
    assert_frame_like(z.apply(lambda r: r, axis=1), pdf.apply(lambda r: r, axis=1),
                      "apply row")
    with pytest.raises(UnsupportedError):
        z.apply(lambda c: c.head(1) if n > 1 else c.head(0))

    def f(df, k, add=0):
        return df.assign(q=df["i64"] * k + add)
    assert_frame_like(z.pipe(f, 2, add=1), pdf.pipe(f, 2, add=1), "pipe")

    def g(k, data):
        return data["f64"] * k
    assert_series_like(z.pipe((g, "data"), 3), pdf.pipe((g, "data"), 3), "pipe tuple")
    assert_series_like(z["f64"].pipe(lambda s, k: s + k, 1), pdf["f64"].pipe(
        lambda s, k: s + k, 1), "Series.pipe")
    with pytest.raises(InvalidValueError, match="both"):
        z.pipe((g, "data"), 3, data=1)

    c = z.copy()
    c["extra"] = 1
    assert "extra" not in z.columns
    assert_frame_like(z.copy(deep=False), pdf.copy(deep=False), "copy")
    assert_series_like(z["f64"].copy(), pdf["f64"].copy(), "Series.copy")


# --------------------------------------------------------------------------
# 5. count on every dtype; comparisons and between as pandas' dtype has them
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_count_every_dtype(n):
    pdf = pframe(KINDS, n, seed=n + 50)
    z = zframe(pdf)
    for c in KINDS:
        assert z[c].count() == pdf[c].count(), c
    nan = zb.Series([0.0, 1.0, None]) / 0.0  # a computed NaN is missing too
    assert nan.count() == 1 == nan.to_pandas().count()


SCALARS = {"i64": 1, "i32": -2, "u8": 3, "f64": 0.5, "f32": -1.0, "str": "s1",
           "cat": "kiwi", "bool": True, "ts": pd.Timestamp("2024-01-01 02:00:00"),
           "date": datetime.date(2024, 1, 11)}
BETWEEN = {"i64": (-1, 2), "i32": (0, 3), "u8": (1, 4), "f64": (-1.0, 1.5),
           "f32": (-2, 0.5), "str": ("s0", "s3"), "ts": (pd.Timestamp("2023-12-31 23:00"),
                                                       pd.Timestamp("2024-01-01 03:00")),
           "date": (datetime.date(2024, 1, 8), datetime.date(2024, 1, 12))}
OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
       "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("nullp", [0.0, 0.3])
def test_comparisons_follow_the_shown_dtype(n, nullp):
    """float, str, datetime64, category and object (date) columns compare a
    missing value as False (!= True); Int64 / boolean keep NA."""
    a = pframe(KINDS, n, seed=n + 60, nullp=nullp)
    b = pframe(KINDS, n, seed=n + 61, nullp=nullp)
    za, zb_ = zframe(a), zframe(b)
    for k in KINDS:
        ops = ["==", "!="] if k in ("cat", "bool") else list(OPS)
        for op in ops:
            fn = OPS[op]
            v = SCALARS[k]
            assert_series_like(fn(za[k], v), fn(a[k], v), f"{k} {op} {v!r}")
            assert_series_like(fn(v, za[k]), fn(v, a[k]), f"{v!r} {op} {k}")
            if k != "cat":  # pandas: categoricals of other categories do not compare
                assert_series_like(fn(za[k], zb_[k]), fn(a[k], b[k]), f"{k} {op} {k}")
        if k in BETWEEN:
            lo, hi = BETWEEN[k]
            for inc in ("both", "neither", "left", "right"):
                assert_series_like(za[k].between(lo, hi, inclusive=inc),
                                   a[k].between(lo, hi, inclusive=inc), f"{k} between {inc}")
    # mixed: a float column against an integer column with nulls gives NA
    # where either is missing (pandas' Int64 rule); without nulls, numpy's
    for x, y in [("f64", "i64"), ("i32", "f32"), ("u8", "f64")]:
        for op, fn in OPS.items():
            assert_series_like(fn(za[x], zb_[y]), fn(a[x], b[y]), f"{x} {op} {y}")


def _int_labelled():
    # pivot_table's columns are the key's values: int labels, as pandas
    data = {"k": [1, 1, 2, 2, 3], "j": [0, 3, 0, 3, 3],
            "v": [1.234, 5.678, np.nan, 2.5, -0.25]}
    p = pd.DataFrame(data).pivot_table(index="k", columns="j", values="v")
    z = zb.DataFrame(data).pivot_table(index="k", columns="j", values="v")
    assert z.to_pandas().columns.tolist() == [0, 3]
    return p, z


def test_methods_taking_column_labels_on_int_labels():
    # a dict / frame keyed by column label, and labels in results, work on
    # int labels (not only on the str names the columns are stored under)
    p, z = _int_labelled()
    assert_frame_like(z.round(1), p.round(1), "round")
    assert_frame_like(z.round({0: 1}), p.round({0: 1}), "round dict")
    assert_frame_like(z * 10, p * 10, "times a scalar")
    assert_frame_like(z > 2, p > 2, "compared with a scalar")
    assert_frame_like(z - z, p - p, "minus itself")
    assert_frame_like(z.fillna({0: -1.0}), p.fillna({0: -1.0}), "fillna dict")
    assert_frame_like(z.fillna(pd.Series({3: 7.0})), p.fillna(pd.Series({3: 7.0})), "fillna Series")
    assert_frame_like(z.fillna(z * 0 + 9), p.fillna(p * 0 + 9), "fillna frame")
    assert_frame_like(z.replace({0: {1.234: 9.0}}), p.replace({0: {1.234: 9.0}}), "replace")
    assert_frame_like(z.isin({0: [1.234]}), p.isin({0: [1.234]}), "isin dict")
    assert_frame_like(z.isin(z), p.isin(p), "isin frame")
    assert_frame_like(z.where(z > 2, z * 10), p.where(p > 2, p * 10), "where frame")
    assert_frame_like(z.mask(z > 2), p.mask(p > 2), "mask frame")
    for how in ("idxmax", "idxmin"):
        got, want = getattr(z, how)(axis=1), getattr(p, how)(axis=1)
        assert_series_like(got, want, f"{how}(axis=1)")


def test_column_selecting_methods_take_int_labels():
    # drop, astype, rename, sort_values, nlargest / nsmallest and
    # dropna(subset) find a column by its int label, as pandas
    p, z = _int_labelled()
    assert_frame_like(z.drop(columns=[0]), p.drop(columns=[0]), "drop")
    assert_frame_like(z.drop(columns=3), p.drop(columns=3), "drop one")
    assert_frame_like(z.astype({0: "float32"}), p.astype({0: "float32"}), "astype")
    assert_frame_like(z.rename(columns={0: 10}), p.rename(columns={0: 10}), "rename")
    assert_frame_like(z.sort_values(3), p.sort_values(3), "sort_values")
    assert_frame_like(z.sort_values([0, 3], ascending=False),
                      p.sort_values([0, 3], ascending=False), "sort_values two")
    assert_frame_like(z.nlargest(2, 3), p.nlargest(2, 3), "nlargest")
    assert_frame_like(z.nsmallest(1, [3]), p.nsmallest(1, [3]), "nsmallest")
    assert_frame_like(z.dropna(subset=[0]), p.dropna(subset=[0]), "dropna subset")
    with pytest.raises(KeyError):
        z.drop(columns=[7])
    with pytest.raises(KeyError):
        z.astype({7: "float32"})
