"""describe, info, memory_usage, corr and cov (zambezi._frame_summary)
against pandas run side by side on random data with nulls in every dtype.

Documented differences the tests apply to pandas' answer:
- describe's object columns (counts mixed with values) are string columns
  in zambezi holding each value as pandas prints it (``_as_text``);
- memory_usage counts 0 bytes for a RangeIndex (pandas: 132);
- info shows zambezi's dtype names (the frames compared use dtypes whose
  names agree: int64, float64, bool without nulls).
"""

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def random_frame(n, seed=0, null_rate=0.25, units=("s", "ms")):
    """A pandas frame with one column per zambezi dtype (timestamps in the
    given units, plus one with a zone), random values and nulls."""
    rng = np.random.default_rng(seed)
    cols = {}
    for name in INTS:
        info = np.iinfo(name)
        lo, hi = max(info.min, -10**6), min(info.max, 10**6)
        v = rng.integers(lo, hi, n, dtype=name, endpoint=True)
        cols[name] = pd.array(v, dtype=name.capitalize().replace("Ui", "UI"))
    cols["float32"] = pd.array(rng.normal(size=n).astype("float32"))
    cols["float64"] = pd.array(rng.normal(size=n) * 1e3)
    cols["bool"] = pd.array(rng.random(n) < 0.5, dtype="boolean")
    cols["string"] = pd.Series(rng.choice(["", "a", "Lusaka", "Maun", "ñandú"], n), dtype="str")
    cols["category"] = pd.Series(rng.choice(["red", "green", "blue"], n)).astype("category")
    days = rng.integers(-2000, 3000, n)
    cols["date"] = pd.Series(list((np.datetime64("2000-01-01") + days).astype("datetime64[D]")
                                  .astype(object)), dtype="object")
    # seconds since 1970, so that pandas' float64 means of the integer
    # values are exact and both sides cut them to the same timestamp
    stamps = rng.integers(0, 2 * 10**9, n)
    for unit in units:
        cols[f"ts_{unit}"] = pd.Series(stamps.astype("datetime64[s]").astype(f"datetime64[{unit}]"))
    cols["ts_tz"] = pd.Series(stamps.astype("datetime64[s]")).dt.tz_localize("UTC") \
        .dt.tz_convert("Africa/Lusaka")
    pdf = pd.DataFrame(cols)
    for c in pdf.columns:
        pdf[c] = pdf[c].where(pd.Series(rng.random(n) >= null_rate))
    return pdf


def _as_text(exp):
    """pandas' describe answer with its object columns as zambezi shows them:
    str of each value, missing values kept missing."""
    exp = exp.copy()
    for c in exp.columns:
        if exp[c].dtype == object:
            exp[c] = pd.Series([None if pd.isna(v) else str(v) for v in exp[c]],
                               index=exp.index, dtype="str")
    return exp


def assert_described(got, exp, what):
    """got equals pandas' describe answer exp (object columns as text);
    float32 columns within float32's precision (pandas' nullable Float32
    computes std in float32)."""
    exp = _as_text(exp)
    got = got.to_pandas()
    narrow = [c for c in exp.columns if c.startswith("float32")]
    wide = [c for c in exp.columns if c not in narrow]
    assert list(got.columns) == list(exp.columns), what
    if wide:
        assert_frame_like(got[wide], exp[wide], what, **SUM_TOL)
    if narrow:
        assert_frame_like(got[narrow], exp[narrow], what, rtol=1e-6, atol=1e-9)


def _series_text(exp):
    return _as_text(exp.to_frame("x"))["x"].rename(exp.name)


# -- describe ---------------------------------------------------------------

@pytest.mark.parametrize("seed,n", [(0, 1), (1, 2), (2, 57), (3, 400)])
@pytest.mark.parametrize("include", [None, "all"])
def test_describe_matches_pandas(seed, n, include):
    pdf = random_frame(n, seed)
    df = zb.DataFrame(pdf)
    assert_described(df.describe(include=include), pdf.describe(include=include),
                     f"describe(include={include!r})")


def test_describe_non_numeric_frames_and_selections():
    pdf = random_frame(80, seed=5)
    df = zb.DataFrame(pdf)
    cases = [
        (["string", "category", "bool", "date"], {}),  # no numbers: every column
        (None, {"include": ["number"]}),
        (None, {"include": "category"}),
        (None, {"exclude": ["number"]}),
        (None, {"include": ["datetime"], "percentiles": [0.1, 0.9]}),
        (["ts_s", "ts_tz"], {}),
        (["float64", "int8"], {"percentiles": [0.01999, 0.02001, 0.5, 0.666666, 0.9999]}),
        (["float64", "int8"], {"percentiles": []}),
    ]
    for cols, kwargs in cases:
        z = df if cols is None else df[cols]
        p = pdf if cols is None else pdf[cols]
        assert_described(z.describe(**kwargs), p.describe(**kwargs), f"describe {cols} {kwargs}")


@pytest.mark.parametrize("seed", [0, 4])
def test_series_describe_matches_pandas(seed):
    pdf = random_frame(120, seed, units=("s", "ms"))
    df = zb.DataFrame(pdf)
    for c in pdf.columns:
        got = df[c].describe(percentiles=[0.05, 0.5])
        exp = pdf[c].describe(percentiles=[0.05, 0.5])
        if exp.dtype == object:
            exp = _series_text(exp)
        tol = {"rtol": 1e-6, "atol": 1e-9} if c == "float32" else SUM_TOL
        assert_series_like(got, exp, f"Series {c!r}.describe", **tol)


def test_describe_ties_and_empty_columns():
    # top ties: categories in category order, other values by first appearance
    pdf = pd.DataFrame({
        "cat": pd.Categorical(["b", "a", None, "a", "b"], categories=["b", "a", "z"]),
        "cat2": pd.Categorical(["a", "b", "b", "a", None], categories=["b", "a"]),
        "s": pd.Series(["y", "x", "x", "y", None], dtype="str"),
        "flag": pd.array([False, True, True, False, None], dtype="boolean"),
        "none": pd.Series([None] * 5, dtype="str"),
    })
    assert_frame_like(zb.DataFrame(pdf).describe(), _as_text(pdf.describe()), "ties")
    empty = pd.DataFrame({"f": pd.Series([], dtype="float64"), "s": pd.Series([], dtype="str")})
    assert_frame_like(zb.DataFrame(empty).describe(include="all"),
                      _as_text(empty.describe(include="all")), "empty")


def test_describe_hand_computed():
    got = zb.DataFrame({"x": [4, 1, None, 3, 2]}).describe().to_dict("list")["x"]
    # count 4, mean 2.5, std of 1..4, min 1, quartiles 1.75 2.5 3.25, max 4
    assert got == [4.0, 2.5, pytest.approx(np.sqrt(5 / 3)), 1.0, 1.75, 2.5, 3.25, 4.0]
    s = zb.Series(pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02 00:00:00.5", None],
                                           format="ISO8601")))
    assert s.describe().to_list() == ["2", "2024-01-01 12:00:00.250000",
                                      "2024-01-01 00:00:00", "2024-01-01 06:00:00.125000",
                                      "2024-01-01 12:00:00.250000",
                                      "2024-01-01 18:00:00.375000",
                                      "2024-01-02 00:00:00.500000"]


def test_describe_errors():
    df = zb.DataFrame({"a": [1, 2], "s": ["x", "y"]})
    with pytest.raises(InvalidValueError, match="interval"):
        df.describe(percentiles=[1.5])
    with pytest.raises(InvalidValueError, match="duplicates"):
        df.describe(percentiles=[0.5, 0.5])
    with pytest.raises(InvalidValueError, match="exclude must be None"):
        df.describe(include="all", exclude=["number"])
    with pytest.raises(InvalidValueError, match="no columns match"):
        df.describe(include=["category"])
    with pytest.raises(InvalidValueError, match="no columns"):
        zb.DataFrame().describe()


def test_describe_keeps_working_on_a_labelled_frame():
    pdf = random_frame(30, seed=9)[["int64", "float64", "string"]]
    pdf.index = pd.Index([f"r{i}" for i in range(30)], name="row")
    got = zb.DataFrame(pdf).describe()
    assert_frame_like(got, _as_text(pdf.describe()), "labelled", **SUM_TOL)


# -- memory_usage and info ----------------------------------------------------

def test_memory_usage_hand_computed_and_pandas():
    df = zb.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 2.0], "s": ["x", "yz", None]})
    # int64: 3 * 8; float64: 3 * 8 + 1 validity byte; string: 4 int64
    # offsets + 3 bytes + 1 validity byte
    assert df.memory_usage().to_dict() == {"Index": 0, "a": 24, "b": 25, "s": 36}
    assert df.memory_usage(index=False).index.to_list() == ["a", "b", "s"]
    assert df.set_index("a").memory_usage()["Index"] == 24
    # numpy dtypes without nulls: the same bytes as pandas' data
    pdf = pd.DataFrame({"i": np.arange(100), "f": np.linspace(0, 1, 100),
                        "i8": np.arange(100, dtype="int8")}, index=np.arange(100) * 2)
    got = zb.DataFrame(pdf).memory_usage(deep=True)
    assert_series_like(got, pdf.memory_usage(deep=True), "memory_usage")
    assert zb.Series([1, 2, 3]).memory_usage() == 24
    assert zb.Series([1.0, None], index=["a", "b"]).memory_usage(index=False) == 17


def _info(obj, **kwargs):
    buf = io.StringIO()
    assert obj.info(buf=buf, **kwargs) is None
    return buf.getvalue()


@pytest.mark.parametrize("index", [None, ["a", "b", "c", "d"], [10, 11, 12, 13]])
def test_info_layout_matches_pandas(index):
    pdf = pd.DataFrame({"n": [1, 2, 3, 4], "a much longer name": [0.5, np.nan, 2.0, np.nan],
                        "flag": [True, False, True, True]}, index=index)
    df = zb.DataFrame(pdf)
    for kwargs in [{}, {"verbose": False}, {"show_counts": False}, {"max_cols": 2},
                   {"memory_usage": False}]:
        got, exp = _info(df, **kwargs), _info(pdf, **kwargs)
        got_lines, exp_lines = got.split("\n"), exp.split("\n")
        assert got_lines[0] == "<class 'zambezi.frame.DataFrame'>"
        if index is not None and isinstance(index[0], int):
            # pandas keeps an increasing integer list as a RangeIndex
            exp_lines[1] = exp_lines[1].replace("RangeIndex", "Index")
        # everything but the class and the memory line is pandas' text
        assert got_lines[1:-2] == exp_lines[1:-2], kwargs
        if kwargs.get("memory_usage") is False:
            assert got_lines[-1] == exp_lines[-1]
        else:
            total = int(df.memory_usage().sum())
            assert got_lines[-2] == f"memory usage: {total:3.1f} bytes" and got_lines[-1] == ""


def test_info_empty_and_wide_frames():
    assert _info(zb.DataFrame()) == _info(pd.DataFrame()).replace(
        "<class 'pandas.DataFrame'>", "<class 'zambezi.frame.DataFrame'>")
    wide = pd.DataFrame({f"c{i}": [i] for i in range(120)})
    got = _info(zb.DataFrame(wide)).split("\n")
    assert got[2] == "Columns: 120 entries, c0 to c119" == _info(wide).split("\n")[2]
    big = zb.DataFrame({"x": np.zeros(3 * 2**20)})
    assert "x" in _info(big) and "KB" not in _info(big)
    assert _info(big).split("\n")[-2] == "memory usage: 24.0 MB"


# -- corr and cov ---------------------------------------------------------------

def numeric_frame(n, seed, null_rate=0.2):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    pdf = pd.DataFrame({
        "f": base + rng.normal(scale=0.5, size=n),
        "i": pd.array(rng.integers(-5, 5, n), dtype="Int64"),  # many ties
        "u8": pd.array(rng.integers(0, 200, n).astype("uint8"), dtype="UInt8"),
        "g": pd.array((2 * base + rng.normal(size=n)).astype("float32")),
        "b": pd.array(rng.random(n) < 0.3, dtype="boolean"),
        "k": np.full(n, 7.0),  # constant: NaN correlations
    })
    for c in pdf.columns:
        if c != "k":
            pdf[c] = pdf[c].where(pd.Series(rng.random(n) >= null_rate))
    return pdf


@pytest.mark.parametrize("seed,n", [(0, 3), (1, 25), (2, 300)])
@pytest.mark.parametrize("method", ["pearson", "spearman"])
@pytest.mark.parametrize("min_periods", [1, 10])
def test_corr_matches_pandas(seed, n, method, min_periods):
    pdf = numeric_frame(n, seed)
    got = zb.DataFrame(pdf).corr(method=method, min_periods=min_periods)
    exp = pdf.corr(method=method, min_periods=min_periods)
    # pearson: pandas' nancorr steps, so its digits (spearman within 1e-9)
    tol = {} if method == "pearson" else {"rtol": 1e-9, "atol": 1e-12}
    assert_frame_like(got, exp, f"corr {method}", **tol)


@pytest.mark.parametrize("null_rate", [0.0, 0.2])
@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_corr_without_missing_values(null_rate, method):
    pdf = numeric_frame(200, 7, null_rate=null_rate).drop(columns=["b"])
    tol = {} if method == "pearson" else {"rtol": 1e-9, "atol": 1e-12}
    assert_frame_like(zb.DataFrame(pdf).corr(method=method), pdf.corr(method=method),
                      "corr", **tol)


@pytest.mark.parametrize("seed,n", [(0, 2), (3, 40), (4, 300)])
@pytest.mark.parametrize("min_periods", [None, 5, 1000])
def test_cov_matches_pandas(seed, n, min_periods):
    for null_rate in (0.0, 0.3):
        pdf = numeric_frame(n, seed, null_rate)
        got = zb.DataFrame(pdf).cov(min_periods=min_periods)
        exp = pdf.cov(min_periods=min_periods)
        assert_frame_like(got, exp, f"cov nulls={null_rate}")
    # ddof: pandas applies it when no value is missing (zambezi always does)
    full = numeric_frame(50, seed, 0.0)
    assert_frame_like(zb.DataFrame(full).cov(ddof=0), full.cov(ddof=0), "ddof=0")


@pytest.mark.parametrize("n,k", [(1, 1), (5, 3), (3000, 9), (70000, 6)])
@pytest.mark.parametrize("missing", ["none", "nan", "inf and nan"])
def test_corr_and_cov_in_pandas_digits(n, k, missing, threads):
    # pandas' nancorr: Welford's steps per pair in row order; a column
    # correlates with itself to exactly 1 (a test like corr < 1 then keeps
    # the diagonal out, as with pandas)
    rng = np.random.default_rng(n + k)
    pdf = pd.DataFrame({f"c{i}": rng.normal(size=n) * 10.0 ** rng.integers(-3, 6)
                        + rng.integers(-5, 5) for i in range(k)})
    if missing != "none":
        for c in pdf.columns[::2]:
            pdf.loc[rng.random(n) < 0.05, c] = np.nan
    if missing == "inf and nan" and n > 3:
        pdf.iloc[1, 0] = np.inf
        pdf.iloc[2, -1] = -np.inf
    df = zb.DataFrame(pdf)
    for kw in [{}, {"min_periods": max(n // 2, 1)}]:
        assert_frame_like(df.corr(**kw), pdf.corr(**kw), f"corr {kw}")
        with np.errstate(all="ignore"):
            assert_frame_like(df.cov(**kw), pdf.cov(**kw), f"cov {kw}")
    diag = np.diag(df.corr().to_pandas().to_numpy())
    assert ((diag == 1.0) | np.isnan(diag)).all()


def test_cov_ddof_with_missing_values_hand_computed():
    df = zb.DataFrame({"a": [1.0, 2.0, 3.0, None], "b": [2.0, 4.0, 7.0, 1.0]})
    # pairs (1, 2), (2, 4), (3, 7): deviations (-1, 0, 1) x (-2.33, -0.33, 2.67);
    # with a value missing ddof does not apply (1), as pandas documents
    assert df.cov(ddof=0)["b"].to_list()[0] == pytest.approx(5.0 / 2)
    assert df.cov(ddof=1)["b"].to_list()[0] == pytest.approx(5.0 / 2)
    assert df.cov(ddof=0).to_pandas().equals(df.to_pandas().cov(ddof=0))
    full = zb.DataFrame({"a": [1.0, 2.0, 3.0], "b": [2.0, 4.0, 7.0]})
    assert full.cov(ddof=0)["b"].to_list()[0] == pytest.approx(5.0 / 3)


def test_corr_numeric_only_and_errors():
    pdf = numeric_frame(30, 3)
    pdf["s"] = pd.Series(["x"] * 30, dtype="str")
    pdf["t"] = pd.Series(pd.date_range("2024-01-01", periods=30))
    df = zb.DataFrame(pdf)
    assert_frame_like(df.corr(numeric_only=True), pdf.corr(numeric_only=True), "numeric_only",
                      rtol=1e-9, atol=1e-12)
    # pandas' cov refuses a frame holding timestamps even with numeric_only
    assert_frame_like(df.cov(numeric_only=True), pdf.drop(columns="t").cov(numeric_only=True),
                      "cov", rtol=1e-9, atol=1e-12)
    with pytest.raises(DTypeError, match="'s' is string"):
        df.corr()
    with pytest.raises(DTypeError, match="numeric_only"):
        df.cov()
    with pytest.raises(InvalidValueError, match="method"):
        df.corr(method="pearsn", numeric_only=True)
    with pytest.raises(UnsupportedError, match="kendall"):
        df.corr(method="kendall", numeric_only=True)


def test_spearman_ranks_hand_computed():
    # ranks of a: 1 2.5 2.5 4; of b: 4 3 2 1  -> Pearson of the ranks
    df = zb.DataFrame({"a": [1, 5, 5, 9], "b": [8, 3, 2, 0]})
    ra, rb = np.array([1, 2.5, 2.5, 4]), np.array([4, 3, 2, 1.0])
    want = np.corrcoef(ra, rb)[0, 1]
    assert df.corr("spearman")["a"].to_list()[1] == pytest.approx(want)


def test_series_corr_and_cov_match_pandas():
    pdf = numeric_frame(150, 11)
    for a, b in [("f", "g"), ("i", "u8"), ("f", "b"), ("f", "k")]:
        x, y = zb.Series(pdf[a]), zb.Series(pdf[b])
        for method in ("pearson", "spearman"):
            exp = pdf[[a, b]].corr(method=method).iloc[0, 1]
            got = x.corr(y, method=method)
            assert (np.isnan(got) and np.isnan(exp)) or got == pytest.approx(exp, rel=1e-9)
        exp = pdf[a].cov(pdf[b])
        assert x.cov(y) == pytest.approx(exp, rel=1e-9)
        assert x.cov(y, ddof=0) == pytest.approx(pdf[a].cov(pdf[b], ddof=0), rel=1e-9)
    assert np.isnan(zb.Series([1.0]).corr(zb.Series([2.0])))
    assert np.isnan(zb.Series([1.0, 2.0]).cov(zb.Series([2.0, 1.0]), min_periods=3))


@pytest.mark.parametrize("seed", range(4))
def test_series_corr_and_cov_are_pandas_bit_for_bit(seed):
    # the same value and type (numpy float64, or pandas' float NaN where it
    # gives up early): constant sides, infinities, ties, too few rows
    rng = np.random.default_rng(seed)
    for i in range(60):
        n = int(rng.integers(0, 30))
        x = rng.standard_normal(n) * 10.0 ** int(rng.integers(-3, 4))
        y = x * rng.standard_normal() + rng.standard_normal(n)
        x[rng.random(n) < 0.2] = np.nan
        if i % 5 == 0:
            y = np.round(y)
        if i % 9 == 0:
            y[:] = 1.0
        if i % 7 == 0 and n:
            x[0] = np.inf
        px, py, zx, zy = pd.Series(x), pd.Series(y), zb.Series(x), zb.Series(y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for method in ("pearson", "spearman"):
                assert repr(zx.corr(zy, method=method)) == repr(px.corr(py, method=method))
            for mp in (None, 5):
                assert repr(zx.cov(zy, min_periods=mp)) == repr(px.cov(py, min_periods=mp))


def test_frame_corr_leaves_out_infinities_as_pandas():
    pdf = pd.DataFrame({"a": [1.0, 2.0, np.inf, 4.0, 5.0], "b": [2.0, 1.0, 3.0, 5.0, 4.0],
                        "c": [1.0, -np.inf, 0.5, 2.0, 3.0]})
    for method in ("pearson", "spearman"):
        np.testing.assert_allclose(zb.DataFrame(pdf).corr(method=method).to_pandas().values,
                                   pdf.corr(method=method).values, rtol=1e-12)


def test_series_corr_aligns_on_labels():
    rng = np.random.default_rng(5)
    a = pd.Series(rng.normal(size=40), index=rng.permutation(40) + 100)
    b = pd.Series(rng.normal(size=30), index=rng.permutation(np.arange(90, 130))[:30])
    got = zb.Series(a).corr(zb.Series(b))
    assert got == pytest.approx(a.corr(b), rel=1e-9)
    assert zb.Series(a).cov(zb.Series(b)) == pytest.approx(a.cov(b), rel=1e-9)
    with pytest.raises(DTypeError):
        zb.Series(["x"]).corr(zb.Series([1]))
