"""Differential tests of the cumulative and shift-based operations
(zambezi._window) against pandas: cumsum / cumprod / cummin / cummax with
skipna true and false, shift (fill_value), diff and pct_change, on Series,
DataFrames and group-bys (null keys, dropna), on random data with nulls in
every dtype they take: the nullable integers over their whole range (so
sums and products overflow and wrap, as pandas' int64), float32 / float64
(NaN), boolean, timestamps, and for shift also strings and categoricals.
Sizes cross the engine's 64-row words and its morsels (65536 rows), with
thread counts 1 and 3, and labelled indexes that results must keep.

pandas runs side by side; results are compared with pandas_compare.
Where zambezi differs on purpose (zambezi._window's docstring) the oracle
is pandas run on the input converted first, with a comment saying why.
"""

import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

INTS = ["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"]
MORSEL = 65536
CUM_OPS = ["cumsum", "cumprod", "cummin", "cummax"]
F32_TOL = {"rtol": 2e-5, "atol": 1e-3}
F64_TOL = {"rtol": 1e-9, "atol": 1e-9}


def gen(dtype, n, rng, null_p=0.2, prod=False):
    """A pandas Series of dtype with about null_p missing values; prod:
    floats near 1, so that products stay finite."""
    mask = rng.random(n) < null_p
    if dtype in INTS:
        info = np.iinfo(dtype.lower())
        vals = rng.integers(info.min, info.max, size=n, dtype=dtype.lower(), endpoint=True)
        return pd.Series(pd.arrays.IntegerArray(vals, mask))
    if dtype in ("float32", "float64"):
        if prod:
            vals = rng.uniform(0.995, 1.005, n).astype(dtype)
        else:
            vals = (rng.standard_normal(n) * 100).astype(dtype)
        vals[mask] = np.nan
        return pd.Series(vals)
    if dtype == "boolean":
        return pd.Series(pd.arrays.BooleanArray(rng.random(n) < 0.7, mask))
    if dtype == "string":
        words = np.array(["", "a", "ab", "zeta", "ß"], dtype=object)
        vals = words[rng.integers(0, len(words), size=n)]
        vals[mask] = None
        return pd.Series(vals, dtype="string")
    if dtype == "category":
        codes = rng.integers(0, 3, size=n)
        codes[mask] = -1
        return pd.Series(pd.Categorical.from_codes(codes, categories=["x", "y", "z"]))
    if dtype.startswith("timestamp"):
        vals = rng.integers(-2 * 10**15, 2 * 10**15, size=n).astype("datetime64[us]")
        vals[mask] = np.datetime64("NaT")
        s = pd.Series(vals)
        return s.dt.tz_localize("UTC") if dtype == "timestamp_tz" else s
    raise AssertionError(dtype)


def tol(dtype):
    """Float sums and products fold morsel totals in another order than
    pandas' sequential loop: equal within rounding."""
    return F32_TOL if dtype == "float32" else F64_TOL if dtype == "float64" else {}


SIZES = [0, 1, 70, MORSEL + 5, 3 * MORSEL + 11]
NUM_DTYPES = INTS + ["float32", "float64", "boolean"]


def cum_takes(dtype, op):
    return not dtype.startswith("timestamp") or op in ("cummin", "cummax")


# --------------------------------------------------------------------------
# cumulative ops on a Series
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NUM_DTYPES + ["timestamp", "timestamp_tz"])
def test_series_cumulative_vs_pandas(dtype, n, threads):
    rng = np.random.default_rng(zlib.crc32(f"cum/{dtype}/{n}".encode()))
    for op in CUM_OPS:
        if not cum_takes(dtype, op):
            continue
        p = gen(dtype, n, rng, 0.1 if n > 1000 else 0.3, prod=op == "cumprod").rename("x")
        z = zb.Series(p, name="x")
        for skipna in (True, False):
            exp = getattr(p, op)(skipna=skipna)
            assert_series_like(getattr(z, op)(skipna=skipna), exp,
                               f"{dtype} {op}(skipna={skipna}) n={n}", **tol(dtype))


def test_series_cumulative_dense_nulls_and_all_missing():
    rng = np.random.default_rng(5)
    for null_p in (0.0, 0.999, 1.0):
        p = gen("float64", MORSEL * 2 + 1, rng, null_p)
        z = zb.Series(p)
        for op in CUM_OPS:
            for skipna in (True, False):
                assert_series_like(getattr(z, op)(skipna=skipna), getattr(p, op)(skipna=skipna),
                                   f"{op} p={null_p} skipna={skipna}", **F64_TOL)


def test_series_cumulative_exact_first_morsel_and_same_bits_any_threads():
    """The first morsel is pandas' own sequential loop to the last bit; the
    rest folds the morsels' totals (four lanes for float64 sums), the same
    for 1 and 3 threads.  Null rates 0 and 0.001 take the word-at-a-time
    paths (every row present), 0.3 the masked ones; -0.0 sums stay -0.0
    (the lanes start from -0.0, not 0.0)."""
    n = 3 * MORSEL + 77
    rng = np.random.default_rng(21)
    for null_p in (0.0, 0.001, 0.3):
        vals = rng.standard_normal(n) * 1e3
        vals[rng.random(n) < null_p] = np.nan
        p = pd.Series(vals)
        for op in CUM_OPS:
            for skipna in (True, False):
                got = {}
                for th in (1, 3):
                    zb.set_num_threads(th)
                    got[th] = getattr(zb.Series(p), op)(skipna=skipna).to_numpy()
                exp = getattr(p, op)(skipna=skipna).to_numpy()
                what = f"{op}(skipna={skipna}) null_p={null_p}"
                assert got[1].tobytes() == got[3].tobytes(), what
                assert np.array_equal(got[1][:MORSEL], exp[:MORSEL], equal_nan=True), what
                # a running sum passing near zero keeps the error of its scale
                scale = np.nanmax(np.abs(exp)) if not np.isnan(exp).all() else 1.0
                np.testing.assert_allclose(got[1], exp, rtol=1e-9, atol=1e-12 * scale,
                                           err_msg=what)
    zeros = pd.Series(np.full(2 * MORSEL + 3, -0.0))
    z = zb.Series(zeros).cumsum().to_numpy()
    assert np.signbit(z).all() and np.signbit(zeros.cumsum().to_numpy()).all()


def test_cumulative_overflow_wraps_as_pandas():
    p = pd.Series([2**62, 2**62, 2**62, -5], dtype="int64")
    z = zb.Series(p)
    assert_series_like(z.cumsum(), p.cumsum(), "int64 cumsum wraps")
    assert_series_like(z.cumprod(), p.cumprod(), "int64 cumprod wraps")
    p = pd.Series([200, 100, 255], dtype="uint8")
    assert_series_like(zb.Series(p).cumsum(), p.cumsum(), "uint8 cumsum is uint64")
    p = pd.Series([2**63, 2**63, 7], dtype="uint64")
    assert_series_like(zb.Series(p).cumsum(), p.cumsum(), "uint64 cumsum wraps")


def test_series_cumulative_keeps_the_index():
    p = pd.Series([3.0, None, 1.0, 2.0], index=["d", "c", "b", "a"], name="v")
    z = zb.Series(p)
    for op in CUM_OPS:
        assert_series_like(getattr(z, op)(), getattr(p, op)(), op)


def test_cumulative_errors():
    with pytest.raises(DTypeError, match="cumsum.*string"):
        zb.Series(["a", "b"]).cumsum()
    with pytest.raises(DTypeError, match="cumprod.*timestamp"):
        zb.Series(pd.Series(pd.to_datetime(["2020-01-01"]))).cumprod()
    with pytest.raises(DTypeError, match=r"cummin.*'c'.*category"):
        zb.DataFrame({"a": [1], "c": pd.Categorical(["x"])}).cummin()
    with pytest.raises(InvalidValueError):
        zb.Series([1]).cumsum(axis=3)
    with pytest.raises(UnsupportedError):
        zb.DataFrame({"a": [1]}).cumsum(axis=1)


# --------------------------------------------------------------------------
# DataFrame
# --------------------------------------------------------------------------


def frame(n, rng, dtypes, null_p=0.2, index=None):
    data = {f"c{i}_{d}": gen(d, n, rng, null_p, prod=True).to_numpy() if d.startswith("float")
            else gen(d, n, rng, null_p) for i, d in enumerate(dtypes)}
    pdf = pd.DataFrame({k: pd.Series(v) for k, v in data.items()})
    if index is not None:
        pdf.index = index
    return pdf


@pytest.mark.parametrize("n", [0, 7, MORSEL + 9])
def test_frame_cumulative_vs_pandas(n):
    rng = np.random.default_rng(zlib.crc32(f"fcum/{n}".encode()))
    pdf = frame(n, rng, ["Int32", "UInt8", "float64", "float32", "boolean"])
    pdf.index = pd.RangeIndex(10, 10 + 3 * n, 3)
    zdf = zb.DataFrame(pdf)
    for op in CUM_OPS:
        for skipna in (True, False):
            assert_frame_like(getattr(zdf, op)(skipna=skipna), getattr(pdf, op)(skipna=skipna),
                              f"frame {op} skipna={skipna}", rtol=2e-5, atol=1e-6)


def test_frame_cumulative_numeric_only():
    pdf = pd.DataFrame({"a": [1, 2, 3], "s": ["x", "y", "z"], "b": [True, False, True]})
    zdf = zb.DataFrame(pdf)
    assert_frame_like(zdf.cumsum(numeric_only=True), pdf.cumsum(numeric_only=True), "numeric")
    # pandas concatenates the strings; zambezi refuses them (documented)
    with pytest.raises(DTypeError, match="'s'"):
        zdf.cumsum()


# --------------------------------------------------------------------------
# group-by
# --------------------------------------------------------------------------


def group_frame(n, rng, ngroups, dtypes, null_p=0.2):
    keys = rng.integers(0, ngroups, n).astype(object)
    keys[rng.random(n) < 0.05] = None
    pdf = pd.DataFrame({"k": pd.Series(keys, dtype="string")})
    for i, d in enumerate(dtypes):
        pdf[f"v{i}"] = gen(d, n, rng, null_p, prod=True)
    return pdf


@pytest.mark.parametrize("n,ngroups", [(0, 3), (50, 1), (300, 7), (MORSEL + 77, 1000),
                                       # several chunks of rows in row order (carries
                                       # between chunks), and groups too many for that
                                       # with 3 threads (the group-by CSR)
                                       (3 * MORSEL + 5, 40), (3 * MORSEL + 5, 150000)])
def test_groupby_cumulative_vs_pandas(n, ngroups, threads):
    rng = np.random.default_rng(zlib.crc32(f"gcum/{n}/{ngroups}".encode()))
    dtypes = ["Int64", "UInt16", "float64", "boolean", "Int8"]
    pdf = group_frame(n, rng, ngroups, dtypes)
    zdf = zb.DataFrame(pdf)
    for op in CUM_OPS:
        for skipna in (True, False):
            # (pandas computes integer sums in 64 bits and casts them back to
            # the column's dtype when every value fits: zambezi too)
            exp = getattr(pdf.groupby("k"), op)(skipna=skipna)
            got = getattr(zdf.groupby("k"), op)(skipna=skipna)
            assert_frame_like(got, exp, f"groupby {op} skipna={skipna}", **F64_TOL)
            exp = getattr(pdf.groupby("k")["v0"], op)(skipna=skipna)
            got = getattr(zdf.groupby("k")["v0"], op)(skipna=skipna)
            assert_series_like(got, exp, f"groupby['v0'] {op}")


def test_groupby_cumulative_timestamps_and_dropna_false():
    rng = np.random.default_rng(11)
    pdf = group_frame(500, rng, 5, ["timestamp", "float64"])
    pdf.index = pd.RangeIndex(1000, 0, -2)
    zdf = zb.DataFrame(pdf)
    for op in ("cummin", "cummax"):
        for dropna in (True, False):
            # pandas' group-by cummin of timestamps takes NaT for the smallest
            # value (it stays NaT from the first one on); the oracle is
            # Series.cummin per group, which skips NaT as zambezi does
            exp = pdf.groupby("k", dropna=dropna)[["v0", "v1"]].transform(
                lambda s, op=op: getattr(s, op)())
            assert_frame_like(getattr(zdf.groupby("k", dropna=dropna), op)(), exp,
                              f"{op} dropna={dropna}")


def test_groupby_cumulative_numeric_only():
    pdf = pd.DataFrame({"k": ["a", "b", "a"], "s": ["x", "y", "z"], "n": [1, 2, 3]})
    zdf = zb.DataFrame(pdf)
    assert_frame_like(zdf.groupby("k").cumsum(numeric_only=True),
                      pdf.groupby("k").cumsum(numeric_only=True), "numeric_only")
    with pytest.raises(DTypeError, match="'s'"):
        zdf.groupby("k").cumsum()


# --------------------------------------------------------------------------
# shift, diff, pct_change
# --------------------------------------------------------------------------

SHIFT_DTYPES = INTS + ["float32", "float64", "boolean", "string", "category", "timestamp_tz"]


@pytest.mark.parametrize("n", [0, 1, 5, 130, MORSEL + 3])
@pytest.mark.parametrize("dtype", SHIFT_DTYPES)
def test_series_shift_vs_pandas(dtype, n):
    rng = np.random.default_rng(zlib.crc32(f"shift/{dtype}/{n}".encode()))
    p = gen(dtype, n, rng).rename("x")
    p.index = pd.RangeIndex(5, 5 + n)
    z = zb.Series(p)
    for periods in (1, 3, -2, 0, n + 2, -(n + 1)):
        assert_series_like(z.shift(periods), p.shift(periods), f"{dtype} shift({periods})")


def test_series_shift_fill_value():
    p = pd.Series([1, 2, 3, 4], dtype="Int64", index=list("abcd"))
    z = zb.Series(p)
    assert_series_like(z.shift(2, fill_value=0), p.shift(2, fill_value=0), "fill 0")
    p = pd.Series(["a", None, "c"], dtype="str")
    assert_series_like(zb.Series(p).shift(-1, fill_value="z"), p.shift(-1, fill_value="z"),
                       "str fill")
    # every split of the rows kept and moved in (slice + concat), both ways
    rng = np.random.default_rng(11)
    for dtype, fill in (("Int64", -7), ("float64", 0.5), ("string", "z"),
                        ("timestamp_tz", pd.Timestamp("2000-01-01", tz="UTC"))):
        p = gen(dtype, 70, rng).rename("x")
        p.index = pd.RangeIndex(3, 73)
        z = zb.Series(p)
        for periods in (1, 64, 69, 70, 71, -1, -5, -64, -70, -99):
            assert_series_like(z.shift(periods, fill_value=fill), p.shift(periods, fill_value=fill),
                               f"{dtype} shift({periods}, fill_value)")
    with pytest.raises(DTypeError, match="fill_value"):
        zb.Series([1, 2]).shift(1, fill_value="x")
    with pytest.raises(UnsupportedError):
        zb.Series([1, 2]).shift(1, freq="D")
    with pytest.raises(DTypeError):
        zb.Series([1, 2]).shift(1.5)


def diff_oracle(p):
    """The pandas Series whose diff zambezi's must equal.  An integer
    column with missing values is pandas' masked Int8..UInt64 (its diff
    keeps the dtype, wrapping); one without is numpy's (its diff is float,
    unsigned ones wrapping in their width first): zambezi's dtypes cannot
    tell a masked column without nulls from a numpy one, and to_pandas()
    shows the numpy dtype."""
    if str(p.dtype) in INTS and not p.isna().any():
        return p.astype(str(p.dtype).lower())
    return p


def group_diff_oracle(p):
    """As diff_oracle, for a group-by's diff: pandas converts numpy
    integers to float64 (float32 for int8 / int16) before it subtracts
    (exact, no wrapping), and an empty one stays integer there."""
    if str(p.dtype) in INTS and not p.isna().any():
        small = str(p.dtype) in ("Int8", "Int16")
        return p.astype("float32" if small else "float64")
    return p


@pytest.mark.parametrize("n", [0, 1, 6, MORSEL + 3])
@pytest.mark.parametrize("dtype", INTS + ["float32", "float64"])
def test_series_diff_pct_change_vs_pandas(dtype, n):
    rng = np.random.default_rng(zlib.crc32(f"diff/{dtype}/{n}".encode()))
    p = gen(dtype, n, rng).rename("x")
    z = zb.Series(p)
    o = diff_oracle(p)
    for periods in (1, 2, -1, 0, n, -n, n + 1, -(n + 3)):
        exp = o.diff(periods)
        assert_series_like(z.diff(periods), exp, f"{dtype} diff({periods})", rtol=1e-6)
        exp = p.pct_change(periods)
        # pandas divides float32 in float32, zambezi in float64 (then rounds)
        t = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12}
        assert_series_like(z.pct_change(periods), exp.astype(str(exp.dtype).lower()),
                           f"{dtype} pct_change({periods})", **t)


@pytest.mark.parametrize("dtype", ["Int64", "UInt8", "Int16", "float32", "float64"])
def test_diff_one_pass_exact_across_morsels(dtype):
    # the engine's one-pass diff: partners a morsel or more away, a column
    # that starts inside its buffers (a slice), nulls on both sides of a
    # subtraction, exact values (pandas subtracts in the result type too)
    rng = np.random.default_rng(zlib.crc32(f"diff1/{dtype}".encode()))
    n = 2 * MORSEL + 301
    p = gen(dtype, n + 7, rng, null_p=0.1).rename("x")
    z = zb.Series(p).iloc[7:]
    o = diff_oracle(p).iloc[7:]
    for periods in (1, 63, 64, 65, -1, -64, -70, MORSEL + 5, -(MORSEL - 1), 2 * MORSEL):
        exp = o.diff(periods)
        assert_series_like(z.diff(periods), exp, f"{dtype} diff({periods})")


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64"])
def test_diff_numpy_integers_wrap_as_pandas(dtype):
    # numpy integers without missing values: pandas subtracts unsigned,
    # int32 and int64 values in their own width (3 - 5 in uint8 is 254.0,
    # max - min in int64 wraps) and int8 / int16 exactly in float32
    rng = np.random.default_rng(zlib.crc32(f"diffwrap/{dtype}".encode()))
    info = np.iinfo(dtype)
    n = MORSEL + 77
    vals = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    vals[:4] = [info.min, info.max, info.min, 0]
    p = pd.Series(vals, name="x", index=pd.RangeIndex(5, 5 + 3 * n, 3))
    z = zb.Series(p)
    for periods in (1, -1, 2, 64, -(MORSEL + 1)):
        assert_series_like(z.diff(periods), p.diff(periods), f"{dtype} diff({periods})")
    pdf = pd.DataFrame({"a": p, "b": p[::-1].to_numpy()})
    assert_frame_like(zb.DataFrame(pdf).diff(3), pdf.diff(3), f"{dtype} frame diff")


@pytest.mark.parametrize("n", [0, 1, 130, MORSEL + 9])
def test_diff_bools_and_masked_integers_vs_pandas(n):
    # bools: whether the value changed, missing without a partner.  pandas'
    # boolean dtype gives exactly that; numpy bools give the same values as
    # objects (NaN missing), which zambezi shows as boolean (the oracle is
    # pandas' object result converted).  Integers with missing values are
    # pandas' masked ones: the diff keeps the dtype and wraps.
    rng = np.random.default_rng(zlib.crc32(f"diffbool/{n}".encode()))
    b = pd.Series(rng.random(n) < 0.5, name="b")
    nb = gen("boolean", n, rng)
    i8 = gen("Int8", n, rng, null_p=0.3)
    u64 = gen("UInt64", n, rng, null_p=0.3)
    zs = {c: zb.Series(v) for c, v in (("b", b), ("nb", nb), ("i8", i8), ("u64", u64))}
    for periods in (1, -1, 3, n + 1):
        exp = b.diff(periods).astype("boolean")  # object True / False / NaN
        assert_series_like(zs["b"].diff(periods), exp, f"bool diff({periods})")
        assert_series_like(zs["nb"].diff(periods), nb.diff(periods), f"boolean diff({periods})")
        for c, p in (("i8", i8), ("u64", u64)):
            if p.isna().any():
                assert_series_like(zs[c].diff(periods), p.diff(periods), f"{c} diff({periods})")
    pdf = pd.DataFrame({"nb": nb, "i8": i8})
    if n > 1 and i8.isna().any():
        assert_frame_like(zb.DataFrame(pdf).diff(), pdf.diff(), "frame diff")


def test_diff_errors():
    with pytest.raises(DTypeError, match="diff.*string"):
        zb.Series(["a"]).diff()
    with pytest.raises(InvalidValueError, match="fill_method"):
        zb.Series([1.0]).pct_change(fill_method="ffill")


def test_frame_shift_diff_pct_change_vs_pandas():
    rng = np.random.default_rng(3)
    n = 200
    pdf = pd.DataFrame({"a": gen("Int64", n, rng), "f": gen("float64", n, rng),
                        "s": gen("string", n, rng)}, index=pd.RangeIndex(n, 0, -1))
    zdf = zb.DataFrame(pdf)
    for periods in (1, -3):
        assert_frame_like(zdf.shift(periods), pdf.shift(periods), f"shift({periods})")
    num = pdf[["a", "f"]]
    # "a" has missing values: pandas' Int64, whose diff stays Int64
    assert_frame_like(zdf[["a", "f"]].diff(), num.diff(), "diff")
    exp = num.pct_change(2)
    exp["a"] = exp["a"].astype("float64")
    assert_frame_like(zdf[["a", "f"]].pct_change(2), exp, "pct_change", rtol=1e-12)
    with pytest.raises(DTypeError, match="'s'"):
        zdf.diff()


@pytest.mark.parametrize("n,ngroups", [(0, 2), (40, 1), (500, 9), (MORSEL + 50, 300)])
def test_groupby_shift_diff_vs_pandas(n, ngroups):
    rng = np.random.default_rng(zlib.crc32(f"gshift/{n}/{ngroups}".encode()))
    pdf = group_frame(n, rng, ngroups, ["Int32", "float64", "string"])
    pdf.index = pd.RangeIndex(7, 7 + 2 * n, 2)
    zdf = zb.DataFrame(pdf)
    for periods in (1, 2, -1):
        assert_frame_like(zdf.groupby("k").shift(periods), pdf.groupby("k").shift(periods),
                          f"groupby shift({periods})")
        assert_series_like(zdf.groupby("k")["v0"].shift(periods, fill_value=-1),
                           pdf.groupby("k")["v0"].shift(periods, fill_value=-1),
                           f"groupby shift({periods}, fill_value)")
        num = pdf[["k", "v0", "v1"]].copy()
        num["v0"] = group_diff_oracle(num["v0"])
        exp = num.groupby("k").diff(periods)
        assert_frame_like(zdf[["k", "v0", "v1"]].groupby("k").diff(periods), exp,
                          f"groupby diff({periods})")
        exp = pdf.groupby("k")["v1"].pct_change(periods)
        assert_series_like(zdf.groupby("k")["v1"].pct_change(periods), exp,
                           f"groupby pct_change({periods})", rtol=1e-12)


@pytest.mark.parametrize("n,ngroups", [(1, 1), (200, 1), (3000, 2500), (MORSEL + 70, 40)])
def test_groupby_shift_partner_rows_vs_pandas(n, ngroups):
    # the engine's row-order pass (group_lag) for small |periods|, and the
    # numpy fallback where ngroups * |periods| outgrows the data; periods
    # 0, past a group's rows and past every row; bool and timestamp values;
    # dropped (missing) keys; categorical keys with unused categories
    rng = np.random.default_rng(zlib.crc32(f"glag/{n}/{ngroups}".encode()))
    pdf = group_frame(n, rng, ngroups, ["boolean", "float64", "timestamp[us]", "Int64"])
    zdf = zb.DataFrame(pdf)
    for periods in (0, 1, -1, 3, -7, 60, n + 1, -(n + 5), 1500):
        exp = pdf.groupby("k").shift(periods)
        assert_frame_like(zdf.groupby("k").shift(periods), exp, f"shift({periods})")
        exp = pdf.assign(v3=group_diff_oracle(pdf["v3"])).groupby("k")["v3"].diff(periods)
        assert_series_like(zdf.groupby("k")["v3"].diff(periods), exp, f"diff({periods})")
        assert_series_like(zdf.groupby("k")["v1"].shift(periods, fill_value=0.5),
                           pdf.groupby("k")["v1"].shift(periods, fill_value=0.5),
                           f"shift({periods}, fill_value)")
        assert_series_like(zdf.groupby("k")["v1"].pct_change(periods),
                           pdf.groupby("k")["v1"].pct_change(periods),
                           f"pct_change({periods})", rtol=1e-12)
    cats = pdf.assign(k=pd.Categorical(pdf["k"], categories=[str(i) for i in
                                                             range(ngroups + 3)]))
    assert_series_like(zb.DataFrame(cats).groupby("k", observed=True)["v1"].shift(-1),
                       cats.groupby("k", observed=True)["v1"].shift(-1), "categorical keys")
