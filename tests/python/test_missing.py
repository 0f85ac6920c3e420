"""Differential tests of missing values (zambezi._missing) against pandas:
ffill / bfill (limit, limit_area), fillna (scalars, Series, dicts, frames,
limit), dropna (axis, how, thresh, subset, ignore_index) and isna / notna,
on random data with nulls in every dtype: the nullable integers, float32 /
float64 (NaN), boolean, string, category, dates, timestamps with and
without a timezone.  Sizes cross the engine's 64-row words and its morsels
(ZB_MORSEL_ROWS = 65536 rows), with sparse and dense missing values, runs
at both ends and columns that are all missing; thread counts 1 and 3.

pandas runs side by side; results are compared with pandas_compare
(values, dtypes as to_pandas() shows them, index, names).
"""

import datetime
import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import (
    ColumnNotFoundError,
    DTypeError,
    InvalidValueError,
    UnsupportedError,
    ZambeziIndexError,
)

INTS = ["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"]
DTYPES = INTS + ["float32", "float64", "boolean", "string", "category", "date",
                 "timestamp", "timestamp_tz"]
MORSEL = 65536


# --------------------------------------------------------------------------
# random data
# --------------------------------------------------------------------------


def gen(dtype, n, rng, null_p=0.2, edges=False):
    """A pandas Series of dtype with about null_p missing values (edges:
    the first and last tenth missing too)."""
    mask = rng.random(n) < null_p
    if edges and n:
        mask[: max(n // 10, 1)] = True
        mask[n - max(n // 10, 1):] = True
    if dtype in INTS:
        info = np.iinfo(dtype.lower())
        vals = rng.integers(info.min, info.max, size=n, dtype=dtype.lower(), endpoint=True)
        return pd.Series(pd.arrays.IntegerArray(vals, mask))
    if dtype in ("float32", "float64"):
        vals = (rng.standard_normal(n) * 100).astype(dtype)
        vals[mask] = np.nan
        return pd.Series(vals)
    if dtype == "boolean":
        return pd.Series(pd.arrays.BooleanArray(rng.random(n) < 0.5, mask))
    if dtype == "string":
        words = np.array(["", "a", "ab", "zeta", "Émile", "ß", "a b"], dtype=object)
        vals = words[rng.integers(0, len(words), size=n)]
        vals[mask] = None
        return pd.Series(vals, dtype="string")
    if dtype == "category":
        cats = ["apple", "kiwi", "pear", "plum"]
        codes = rng.integers(0, len(cats), size=n)
        codes[mask] = -1
        return pd.Series(pd.Categorical.from_codes(codes, categories=cats))
    if dtype == "date":
        days = rng.integers(-30000, 30000, size=n)
        vals = np.empty(n, dtype=object)
        vals[:] = [datetime.date(1970, 1, 1) + datetime.timedelta(days=int(d)) for d in days]
        vals[mask] = None
        return pd.Series(vals, dtype=object)
    if dtype.startswith("timestamp"):
        vals = rng.integers(-2 * 10**15, 2 * 10**15, size=n).astype("datetime64[us]")
        vals[mask] = np.datetime64("NaT")
        s = pd.Series(vals)
        return s.dt.tz_localize("UTC") if dtype == "timestamp_tz" else s
    raise AssertionError(dtype)


def Z(ps, name="x"):
    """The zambezi Series of pandas Series ps; an object Series of dates
    becomes date32 (also when empty or all missing, where nothing says the
    values are dates)."""
    if ps.dtype == object:
        ts = pd.to_datetime(ps).to_numpy(dtype="datetime64[D]")
        days = np.where(np.isnat(ts), 0, ts.astype(np.int64)).astype(np.int32)
        return zb.Series(zb._core.column_from_buffer(days, mask=np.isnat(ts), dtype="date32"),
                         name=name)
    return zb.Series(ps, name=name)


def ZF(pdf):
    """The zambezi DataFrame of pandas DataFrame pdf (column by column, as Z)."""
    return zb.DataFrame({c: Z(pdf[c], c) for c in pdf.columns})


# sizes around a word and a morsel; (null probability, missing ends)
SHAPES = [(0, 0.2, False), (1, 0.5, False), (2, 0.5, False), (65, 0.3, True),
          (MORSEL + 3, 0.2, True), (MORSEL + 3, 0.9995, False)]
SHAPE_IDS = [f"n{n}-p{p}{'-edges' if e else ''}" for n, p, e in SHAPES]
LIMITS = [None, 1, 3]
AREAS = [None, "inside", "outside"]

# --------------------------------------------------------------------------
# ffill / bfill
# --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_series_ffill_bfill_vs_pandas(dtype, shape):
    n, null_p, edges = shape
    rng = np.random.default_rng(zlib.crc32(f'{dtype}/{n}/{null_p}'.encode()))
    p = gen(dtype, n, rng, null_p, edges).rename("x")
    z = Z(p)
    for method in ("ffill", "bfill"):
        for limit in LIMITS:
            for area in AREAS:
                what = f"{dtype} {method}(limit={limit}, limit_area={area})"
                exp = getattr(p, method)(limit=limit, limit_area=area)
                got = getattr(z, method)(limit=limit, limit_area=area)
                assert_series_like(got, exp, what)


def test_long_runs_across_morsels_with_threads(threads):
    """Valid values only every 50_000 rows: runs longer than a morsel, and
    limits past one, on 1 and 3 threads."""
    n = 4 * MORSEL + 17
    vals = np.full(n, np.nan)
    vals[7::50_000] = np.arange(len(vals[7::50_000]), dtype=float)
    p = pd.Series(vals, name="v")
    z = Z(p, "v")
    for limit in (None, 1, MORSEL - 1, MORSEL, MORSEL + 1):
        for area in AREAS:
            assert_series_like(z.ffill(limit=limit, limit_area=area),
                               p.ffill(limit=limit, limit_area=area), f"ffill {limit} {area}")
            assert_series_like(z.bfill(limit=limit, limit_area=area),
                               p.bfill(limit=limit, limit_area=area), f"bfill {limit} {area}")


def test_all_missing_and_nothing_missing():
    for p in (pd.Series([None] * 5, dtype="Int64", name="x"),
              pd.Series([np.nan] * 3, name="x"),
              pd.Series(["a", "b"], dtype="string", name="x"),
              pd.Series([1.5, 2.5], name="x")):
        z = Z(p)
        for m in ("ffill", "bfill"):
            assert_series_like(getattr(z, m)(), getattr(p, m)(), f"{p.dtype} {m}")


def test_nan_values_from_arithmetic_are_filled():
    """A NaN made by arithmetic is a value in zambezi's float column, not a
    null; ffill / bfill fill it as pandas fills NaN."""
    a = [0.0, 1.0, 0.0, None, 0.0, 2.0, 0.0]
    zq = zb.Series(a, name="q") / zb.Series([0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0], name="q")
    pq = pd.Series(a, name="q") / pd.Series([0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0], name="q")
    assert np.isnan(zq.to_numpy()).sum() == 5 and zq.null_count == 1  # 4 NaN, 1 null
    for m in ("ffill", "bfill"):
        for limit in (None, 1):
            assert_series_like(getattr(zq, m)(limit=limit), getattr(pq, m)(limit=limit), m)
    assert_series_like(zq.fillna(9.0), pq.fillna(9.0), "fillna")
    assert_series_like(zq.fillna(9.0, limit=2), pq.fillna(9.0, limit=2), "fillna limit")


@pytest.mark.parametrize("method", ["ffill", "bfill"])
def test_frame_ffill_bfill_vs_pandas(method, threads):
    rng = np.random.default_rng(11)
    n = MORSEL + 100
    pdf = pd.DataFrame({d: gen(d, n, rng, 0.4, edges=True)
                        for d in ("Int32", "float64", "string", "category", "timestamp_tz",
                                  "boolean", "date")})
    df = ZF(pdf)
    for limit in LIMITS:
        for area in AREAS:
            assert_frame_like(getattr(df, method)(limit=limit, limit_area=area),
                              getattr(pdf, method)(limit=limit, limit_area=area),
                              f"{method}(limit={limit}, limit_area={area})")
    for axis in (0, "index", None):
        assert_frame_like(getattr(df, method)(axis=axis), getattr(pdf, method)(axis=axis),
                          f"{method}(axis={axis!r})")


def test_ffill_inplace():
    p = pd.Series([1.0, None, 3.0, None], name="x")
    z = Z(p)
    assert z.ffill(inplace=True) is z and p.ffill(inplace=True) is p  # pandas 3.1
    assert_series_like(z, p, "Series.ffill(inplace=True)")
    pdf = pd.DataFrame({"a": [None, 1, None], "b": ["x", None, None]}).astype(
        {"a": "Int64", "b": "string"})
    df = ZF(pdf)
    assert df.bfill(inplace=True) is df and pdf.bfill(inplace=True) is pdf
    assert_frame_like(df, pdf, "DataFrame.bfill(inplace=True)")


def test_ffill_bad_arguments():
    z = zb.Series([1.0, None], name="x")
    p = pd.Series([1.0, None])
    for bad in (0, -1):
        with pytest.raises(ValueError) as pe:
            p.ffill(limit=bad)
        with pytest.raises(InvalidValueError) as ze:
            z.ffill(limit=bad)
        assert str(ze.value) == str(pe.value)
    with pytest.raises(ValueError) as pe:
        p.bfill(limit=1.5)
    with pytest.raises(InvalidValueError) as ze:
        z.bfill(limit=1.5)
    assert str(ze.value) == str(pe.value)
    with pytest.raises(ValueError, match="No axis named 1 for object type Series"):
        z.ffill(axis=1)
    with pytest.raises(InvalidValueError, match="limit_area"):
        z.ffill(limit_area="middle")
    df = zb.DataFrame({"a": [1, None]})
    with pytest.raises(UnsupportedError, match=r"ffill\(axis=1\)"):
        df.ffill(axis=1)
    with pytest.raises(UnsupportedError, match=r"bfill\(axis=1\)"):
        df.bfill(axis="columns")
    with pytest.raises(ValueError, match="No axis named 2 for object type DataFrame"):
        df.ffill(axis=2)
    with pytest.raises(TypeError):
        z.ffill(1)  # keyword-only, as in pandas 3


# --------------------------------------------------------------------------
# fillna
# --------------------------------------------------------------------------

FILL = {"float32": 2.5, "float64": -0.25, "boolean": True, "string": "?",
        "category": "kiwi", "date": datetime.date(2001, 2, 3),
        "timestamp": pd.Timestamp("2020-01-02 03:04:05"),
        "timestamp_tz": pd.Timestamp("2020-01-02 03:04:05", tz="UTC")}


@pytest.mark.parametrize("shape", SHAPES[:5], ids=SHAPE_IDS[:5])
@pytest.mark.parametrize("dtype", DTYPES)
def test_series_fillna_scalar_with_limit_vs_pandas(dtype, shape):
    n, null_p, edges = shape
    rng = np.random.default_rng(zlib.crc32(f'{dtype}/{n}/fill'.encode()))
    p = gen(dtype, n, rng, null_p, edges).rename("x")
    z = Z(p)
    v = FILL.get(dtype, 7)
    for limit in (None, 1, 5, n + 1):
        assert_series_like(z.fillna(v, limit=limit), p.fillna(v, limit=limit),
                           f"{dtype} fillna({v!r}, limit={limit})")


@pytest.mark.parametrize("dtype", ["Int16", "UInt32", "float32", "float64", "string",
                                   "timestamp"])
def test_series_fillna_from_a_series_vs_pandas(dtype):
    """A Series value fills row by row (aligned on the row labels 0..n-1,
    so a shorter one fills only its rows), with and without limit."""
    rng = np.random.default_rng(3)
    n = 1000
    p = gen(dtype, n, rng, 0.3).rename("x")
    z = Z(p)
    for m in (n, n // 2, n + 20):
        other = gen(dtype, m, rng, 0.3).rename("o")
        for limit in (None, 10):
            exp = p.fillna(other, limit=limit)
            assert_series_like(z.fillna(Z(other, "o"), limit=limit), exp, f"zb other {m}")
            assert_series_like(z.fillna(other, limit=limit), exp, f"pandas other {m}")


def test_series_fillna_dict_and_casts():
    p = pd.Series([None, 1, None, None, 4], dtype="Int64", name="x")
    z = Z(p)
    d = {0: 10, 3: 30, 4: 40, 99: 1, "x": 5}
    assert_series_like(z.fillna(d), p.fillna(d), "dict")
    # an integral float Series fills an integer column, keeping its dtype
    other = pd.Series([2.0, 5.0, 6.0, 7.0, 8.0])
    assert_series_like(z.fillna(other), p.fillna(other), "float into Int64")
    with pytest.raises(TypeError):
        p.fillna(pd.Series([2.5] * 5))
    with pytest.raises(DTypeError, match="row 0 of the fill values holds 2.5"):
        z.fillna(zb.Series([2.5] * 5))
    # a float Series into a float32 column stays float32
    pf = pd.Series([None, 1.5], dtype="float32", name="x")
    assert_series_like(Z(pf).fillna(pd.Series([0.25, 9.0])), pf.fillna(pd.Series([0.25, 9.0])))


def test_fillna_none_list_method_inplace():
    p = pd.Series([1.0, None], name="x")
    z = Z(p)
    assert_series_like(z.fillna(None), p.fillna(None), "None fills nothing")
    for bad in ([1, 2], (1,)):
        with pytest.raises(TypeError) as pe:
            p.fillna(bad)
        with pytest.raises(DTypeError) as ze:
            z.fillna(bad)
        assert str(pe.value) in str(ze.value)
    with pytest.raises(TypeError, match="method"):
        z.fillna(method="ffill")  # pandas 3 removed it
    with pytest.raises(TypeError):
        z.fillna()
    with pytest.raises(ValueError, match="Limit must be greater than 0"):
        z.fillna(0, limit=0)
    assert z.fillna(5.0, inplace=True) is z
    assert z.to_list() == [1.0, 5.0]


def test_frame_fillna_vs_pandas():
    rng = np.random.default_rng(5)
    n = 2000
    pdf = pd.DataFrame({"i": gen("Int32", n, rng, 0.4), "f": gen("float64", n, rng, 0.4),
                        "s": gen("string", n, rng, 0.4), "c": gen("category", n, rng, 0.4),
                        "t": gen("timestamp", n, rng, 0.4)})
    df = ZF(pdf)
    d = {"i": 0, "s": "?", "c": "plum", "nope": 1}
    for limit in (None, 1, 30):
        assert_frame_like(df.fillna(d, limit=limit), pdf.fillna(d, limit=limit),
                          f"dict, limit={limit}")
        assert_frame_like(df.fillna(pd.Series(d), limit=limit),
                          pdf.fillna(pd.Series(d), limit=limit), f"Series, limit={limit}")
    # a scalar goes to the columns that can hold it (pandas would also turn
    # the others into object columns)
    assert_frame_like(df.fillna(1.5, limit=3), pdf.fillna({"f": 1.5}, limit=3), "scalar")
    assert_frame_like(df.fillna("kiwi"), pdf.fillna({"s": "kiwi", "c": "kiwi"}), "str scalar")
    assert_frame_like(df.fillna(7, axis=1), pdf.fillna({"i": 7, "f": 7}), "axis=1 scalar")
    other = pd.DataFrame({"i": gen("Int32", n, rng), "f": gen("float64", n, rng),
                          "z": gen("float64", n, rng)})
    # pandas turns the columns the value frame lacks into object columns
    # (values unchanged); zambezi leaves them as they are
    exp = pdf.fillna(other)
    exp[["s", "c", "t"]] = pdf[["s", "c", "t"]]
    assert_frame_like(df.fillna(other), exp, "pandas DataFrame")
    assert_frame_like(df.fillna(zb.from_pandas(other)), exp, "zambezi DataFrame")
    with pytest.raises(TypeError) as pe:
        pdf.fillna([1])
    with pytest.raises(DTypeError) as ze:
        df.fillna([1])
    assert str(pe.value) in str(ze.value)
    with pytest.raises(UnsupportedError):
        df.fillna({"i": 1}, axis=1)
    # a Series maps its labels to columns: row labels 0..n-1 name none
    assert_frame_like(df.fillna(zb.Series([1, 2])), pdf.fillna(pd.Series([1, 2])), "labels")


def test_frame_fillna_inplace_and_none():
    pdf = pd.DataFrame({"a": [1.0, None]})
    df = ZF(pdf)
    assert_frame_like(df.fillna(None), pdf.fillna(None), "None")
    assert df.fillna(0.5, inplace=True) is df and pdf.fillna(0.5, inplace=True) is pdf
    assert_frame_like(df, pdf, "inplace")


# --------------------------------------------------------------------------
# dropna, isna / notna
# --------------------------------------------------------------------------


def _frame(n, rng, null_p=0.3):
    return pd.DataFrame({"i": gen("Int64", n, rng, null_p), "f": gen("float32", n, rng, null_p),
                         "s": gen("string", n, rng, null_p), "b": gen("boolean", n, rng, null_p),
                         "c": gen("category", n, rng, null_p), "d": gen("date", n, rng, null_p),
                         "t": gen("timestamp_tz", n, rng, null_p)})


@pytest.mark.parametrize("n", [0, 1, 7, 1000, MORSEL + 5])
def test_frame_dropna_vs_pandas(n, threads):
    rng = np.random.default_rng(n)
    pdf = _frame(n, rng, 0.5 if n < 100 else 0.12)
    df = ZF(pdf)
    cases = [{}, {"how": "any"}, {"how": "all"}, {"subset": ["i", "s"]},
             {"subset": "f", "how": "all"}, {"subset": ["s", "c"], "how": "all"},
             {"subset": []}, {"subset": [], "how": "all"}]
    cases += [{"thresh": k} for k in range(0, 9)]
    cases += [{"thresh": 2, "subset": ["i", "f", "s"]}, {"thresh": 1, "subset": []}]
    for kw in cases:
        assert_frame_like(df.dropna(**kw), pdf.dropna(**kw), f"rows {kw}")
        assert_frame_like(df.dropna(ignore_index=True, **kw),
                          pdf.dropna(ignore_index=True, **kw), f"rows ignore_index {kw}")
    for kw in [{}, {"how": "all"}] + [{"thresh": k} for k in (0, n // 2, n, n + 1)]:
        for subset in (None, [], [0], [n - 1, 0]) if n else (None, []):
            kw2 = dict(kw, subset=subset)
            assert_frame_like(df.dropna(axis=1, **kw2), pdf.dropna(axis=1, **kw2),
                              f"columns {kw2}")
            assert_frame_like(df.dropna(axis="columns", **kw2),
                              pdf.dropna(axis="columns", **kw2), f"columns {kw2}")


def test_frame_dropna_all_missing_columns():
    pdf = pd.DataFrame({"a": pd.array([None, None, None], dtype="Int64"),
                        "b": [1.0, np.nan, 3.0], "c": pd.array([None] * 3, dtype="string")})
    df = ZF(pdf)
    for kw in ({}, {"how": "all"}, {"thresh": 1}):
        assert_frame_like(df.dropna(axis=1, **kw), pdf.dropna(axis=1, **kw), f"axis=1 {kw}")
        assert_frame_like(df.dropna(**kw), pdf.dropna(**kw), f"axis=0 {kw}")
    # no columns at all
    empty = pd.DataFrame({"a": [1, 2, 3]})[[]]
    ze = zb.DataFrame({"a": [1, 2, 3]})[[]]
    assert len(ze.dropna()) == len(empty.dropna()) == 3
    assert len(ze.dropna(how="all")) == len(empty.dropna(how="all")) == 0


def test_frame_dropna_errors():
    pdf = pd.DataFrame({"a": [1.0, None], "b": ["x", None]})
    df = ZF(pdf)
    with pytest.raises(TypeError) as pe:
        pdf.dropna(how="all", thresh=1)
    with pytest.raises(DTypeError) as ze:
        df.dropna(how="all", thresh=1)
    assert str(ze.value) == str(pe.value)
    for how in ("some", None):
        with pytest.raises(ValueError) as pe:
            pdf.dropna(how=how)
        with pytest.raises(InvalidValueError) as ze:
            df.dropna(how=how)
        assert str(ze.value) == str(pe.value)
    with pytest.raises(ValueError, match="No axis named 2 for object type DataFrame"):
        df.dropna(axis=2)
    with pytest.raises(KeyError):
        pdf.dropna(subset=["zz"])
    with pytest.raises(ColumnNotFoundError, match="zz"):
        df.dropna(subset=["zz"])
    with pytest.raises(KeyError):
        pdf.dropna(axis=1, subset=[5])
    with pytest.raises(KeyError, match=r"\[5\]"):
        df.dropna(axis=1, subset=[5])
    d2 = df.copy()
    with pytest.warns(DeprecationWarning, match="inplace"):   # as pandas 3.1
        assert d2.dropna(inplace=True) is None
    assert_frame_like(d2, pdf.dropna(), "dropna(inplace=True)")
    with pytest.raises(TypeError):
        df.dropna(0)  # keyword-only, as in pandas 3


@pytest.mark.parametrize("dtype", DTYPES)
def test_series_dropna_vs_pandas(dtype):
    rng = np.random.default_rng(2)
    p = gen(dtype, 3000, rng, 0.3).rename("x")
    z = Z(p)
    assert_series_like(z.dropna(), p.dropna(), dtype)
    assert_series_like(z.dropna(ignore_index=True), p.dropna(ignore_index=True), dtype)
    assert_series_like(z.dropna(how="all"), p.dropna(how="all"), dtype)
    with pytest.raises(ValueError, match="No axis named 1"):
        z.dropna(axis=1)
    z2 = z.copy()
    with pytest.warns(DeprecationWarning, match="inplace"):
        assert z2.dropna(inplace=True) is None
    assert_series_like(z2, p.dropna(), dtype)


def test_frame_isna_notna_vs_pandas():
    rng = np.random.default_rng(9)
    pdf = _frame(500, rng)
    df = ZF(pdf)
    for m in ("isna", "isnull", "notna", "notnull"):
        assert_frame_like(getattr(df, m)(), getattr(pdf, m)(), m)
    zq = zb.DataFrame({"q": zb.Series([0.0, 1.0, None]) / zb.Series([0.0, 1.0, 1.0])})
    pq = pd.DataFrame({"q": pd.Series([0.0, 1.0, None]) / pd.Series([0.0, 1.0, 1.0])})
    assert_frame_like(zq.isna(), pq.isna(), "NaN counts as missing")
    assert_frame_like(zb.DataFrame({}).isna(), pd.DataFrame({}).isna(), "no columns")


@pytest.mark.parametrize("index", [None, ["x", "y", "z", "w", "v"]])
@pytest.mark.parametrize("kind", ["str", "category", "float"])
def test_fillna_with_a_series_or_dict_aligns_on_labels(kind, index):
    # pandas reindexes the fill value on the row labels: positions do not count
    base = {"str": ["a", None, "b", None, None], "category": ["a", None, "b", None, None],
            "float": [1.0, None, 2.0, None, None]}[kind]
    p = pd.Series(base, index=index, dtype="category" if kind == "category" else None)
    labels = list(p.index)
    fill = "a" if kind != "float" else 7.0
    values = [pd.Series(fill, index=[labels[1]]), pd.Series([fill, fill], index=labels[3:5]),
              pd.Series({labels[1]: fill, labels[3]: fill}), pd.Series([fill]),
              {labels[1]: fill, "nowhere": fill, 99: fill}]
    for v in values:
        want = p.fillna(v)
        got = zb.Series(p).fillna(zb.Series(v) if isinstance(v, pd.Series) else v)
        assert_series_like(got, want, repr(v))
