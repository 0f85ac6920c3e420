"""Group-by sem, skew and kurt (zambezi._groupby_moments and the engine's
per-group moments, src/cpu/group_moments.c) against pandas run side by
side: DataFrameGroupBy and SeriesGroupBy, as_index both ways, sort and
dropna, nulls and NaN in the values and in the keys, groups of 0..4 values
and constant groups (missing, as pandas), ddof for sem, skipna=False, and
numeric and bool value dtypes.  Compared with pandas_compare; the moments
are summed in another order than pandas', so within 1e-8 relative."""

import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from conftest import same_under_accelerator
from zambezi.errors import DTypeError

TOL = {"rtol": 1e-8, "atol": 1e-10}


def frame(n, ngroups, seed):
    rng = np.random.default_rng(seed)
    k = rng.integers(0, ngroups, size=n).astype(float)
    k[rng.random(n) < 0.05] = np.nan
    x = rng.standard_normal(n) * 10 + 3
    x[rng.random(n) < 0.1] = np.nan
    i = rng.integers(-50, 50, size=n)
    imask = rng.random(n) < 0.1
    f32 = (rng.standard_normal(n) * 2).astype("float32")
    pdf = pd.DataFrame({
        "k": pd.array(np.where(np.isnan(k), 0, k).astype("int64"), dtype="Int64"),
        "x": x,
        "i": pd.arrays.IntegerArray(i, imask),
        "u": rng.integers(0, 200, size=n).astype("uint8"),
        "f": f32,
        "b": rng.random(n) < 0.3,
    })
    pdf.loc[np.isnan(k), "k"] = pd.NA
    # small groups (1..4 values) and a constant group, past the random keys
    extra = pd.DataFrame({
        "k": pd.array([100, 101, 101, 102, 102, 102, 103, 103, 103, 103, 104, 104, 104, 104],
                      dtype="Int64"),
        "x": [1.0, 2.0, 5.0, 1.0, 2.0, 7.0, 3.0, 3.0, 3.0, 3.0, 1.0, np.nan, 2.0, 9.0],
        "i": pd.array([1, 2, None, 4, 5, 6, 7, 7, 7, 7, 1, 2, 3, 4], dtype="Int64"),
        "u": np.array([1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 1, 2, 3, 250], dtype="uint8"),
        "f": np.array([1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 1, 2, 3, 4], dtype="float32"),
        "b": [True, False, True, True, True, False, True, True, True, True, False, True,
              True, False],
    })
    return pd.concat([pdf, extra], ignore_index=True)


@pytest.mark.parametrize("n,ngroups", [(0, 3), (30, 4), (5000, 50), (70000, 900)])
@pytest.mark.parametrize("how", ["skew", "kurt", "sem"])
def test_groupby_moments_vs_pandas(how, n, ngroups):
    pdf = frame(n, ngroups, zlib.crc32(f"gm/{how}/{n}".encode()))
    zdf = zb.DataFrame(pdf)
    for sort in (True, False):
        for dropna in (True, False):
            what = f"{how} sort={sort} dropna={dropna}"
            g, zg = pdf.groupby("k", sort=sort, dropna=dropna), \
                zdf.groupby("k", sort=sort, dropna=dropna)
            assert_frame_like(getattr(zg, how)(), getattr(g, how)(), what, **TOL)
            assert_series_like(getattr(zg["x"], how)(), getattr(g["x"], how)(), what, **TOL)
    ga = pdf.groupby("k", as_index=False)
    zga = zdf.groupby("k", as_index=False)
    assert_frame_like(getattr(zga, how)(), getattr(ga, how)(), f"{how} as_index=False", **TOL)
    assert_frame_like(getattr(zga[["x", "i"]], how)(), getattr(ga[["x", "i"]], how)(),
                      f"{how} as_index=False selection", **TOL)
    assert_frame_like(getattr(zdf.groupby("k"), how)(skipna=False),
                      getattr(pdf.groupby("k"), how)(skipna=False), f"{how} skipna=False", **TOL)


@pytest.mark.parametrize("values", [[1, 2], [True, False], [1.5, 2.5]])
def test_moments_of_no_rows_keep_the_dtype_as_pandas(values):
    """skew / kurt of an empty frame's groups keep each column's dtype
    (pandas' quirk), as a method and by name in agg."""
    df = pd.DataFrame({"A": values, "B": values, "C": values}).iloc[:0]
    z = zb.from_pandas(df)
    for op in ("skew", "kurt"):
        for keys in (["A"], ["A", "B"]):
            assert_series_like(getattr(z.groupby(keys)["C"], op)(),
                               getattr(df.groupby(keys)["C"], op)(), f"{op} {keys}")
            assert_frame_like(z.groupby(keys)[["C"]].agg(op), df.groupby(keys)[["C"]].agg(op),
                              f"agg {op} {keys}")

@pytest.mark.parametrize("ddof", [0, 1, 2, 5])
def test_groupby_sem_ddof_vs_pandas(ddof):
    pdf = frame(800, 12, ddof)
    zdf = zb.DataFrame(pdf)
    assert_frame_like(zdf.groupby("k").sem(ddof=ddof), pdf.groupby("k").sem(ddof=ddof),
                      f"sem(ddof={ddof})", **TOL)
    assert_series_like(zdf["x"].groupby(zdf["k"]).sem(ddof=ddof),
                       pdf["x"].groupby(pdf["k"]).sem(ddof=ddof), f"Series sem({ddof})", **TOL)


def test_groupby_moments_numeric_only_and_errors():
    pdf = pd.DataFrame({"k": [1, 1, 1, 2, 2, 2, 2], "x": [1.0, 2.0, 4.0, 1.0, 5.0, 2.0, 2.0],
                        "s": list("abcdefg")})
    zdf = zb.DataFrame(pdf)
    for how in ("sem", "skew", "kurt"):
        assert_frame_like(getattr(zdf.groupby("k"), how)(numeric_only=True),
                          getattr(pdf.groupby("k"), how)(numeric_only=True), how, **TOL)
        with pytest.raises(DTypeError, match="'s'"):
            getattr(zdf.groupby("k")["s"], how)()


@pytest.mark.parametrize("n", [0, 50, 4000])
def test_moments_by_name_in_agg_and_transform_vs_pandas(n):
    # agg with a name, a list, a dict or named aggregations, and transform,
    # take "sem", "skew" and "kurt" as pandas does
    pdf = frame(n, 11, n + 3)[["k", "x", "i", "f", "b"]]
    zdf = zb.DataFrame(pdf)
    g, zg = pdf.groupby("k"), zdf.groupby("k")
    assert_frame_like(zg.agg("skew"), g.agg("skew"), "agg('skew')", **TOL)
    fs = ["sum", "skew", "sem", "kurt", "max"]
    assert_frame_like(zg[["x", "i", "b"]].agg(fs), g[["x", "i", "b"]].agg(fs), "agg(list)",
                      **TOL)
    spec = {"x": ["kurt", "sem"], "f": "skew", "i": ["sem", "count"]}
    assert_frame_like(zg.agg(spec), g.agg(spec), "agg(dict)", **TOL)
    assert_frame_like(zg.agg(s=("x", "skew"), e=("i", "sem"), m=("x", "mean")),
                      g.agg(s=("x", "skew"), e=("i", "sem"), m=("x", "mean")), "named", **TOL)
    assert_series_like(zg["x"].agg(["skew", "kurt"])["kurt"], g["x"].agg(["skew", "kurt"])["kurt"],
                       "SeriesGroupBy agg", **TOL)
    assert_series_like(zg["x"].transform("skew"), g["x"].transform("skew"), "transform", **TOL)


# -- under the pandas accelerator: the same bytes as plain pandas ---------------------------------
ACCEL_SCRIPT = r'''
import numpy as np
import pandas as pd
rng = np.random.default_rng(3)
df = pd.DataFrame({"A": list("abcabcabaa"), "B": list("xxyyzzxyxx"), "C": rng.normal(size=10),
                   "D": np.arange(10)})
g = df.groupby("A")
for call in ("sem()", "skew()", "kurt()", "sem(numeric_only=True)", "skew(numeric_only=True)",
             "kurt(numeric_only=True)", "C.skew()", "C.sem(ddof=0)"):
    try:
        res = eval("g." + call)
        print(call, "->", res.round(9).to_string())
    except Exception as e:
        print(call, "->", type(e).__name__, str(e)[:60])
print(df[["C", "D"]].skew(axis=1).round(9).to_string())
print(df["C"].rolling(3).cov(df["D"]).round(9).to_string())
print(pd.Index([1, 1, 2]).union(pd.Index([2, 3, 3])))
print(pd.Series([1, 3, 2], dtype="uint8").diff().to_string())
'''


def test_moments_under_the_accelerator_print_as_pandas(tmp_path):
    # sem / skew / kurt without numeric_only over a string column: pandas
    # raises TypeError, so the accelerator hands those to pandas
    out = same_under_accelerator(tmp_path, ACCEL_SCRIPT)
    assert out.count("TypeError") == 3


@pytest.mark.parametrize("scale", [1e-4, 1e-8, 1e-30, 1e-60, 1.0, 1e9])
def test_moments_of_a_small_spread_at_any_scale(scale):
    """A real spread at any scale has its skew and kurt, as pandas (an
    absolute cut-off for "constant" made [0, 0, 1e-8, -5e-9] missing);
    equal values (whose deviations are only round-off) stay missing."""
    rng = np.random.default_rng(int(-np.log10(scale) * 7) % 1000)
    v = np.concatenate([[0, 0, 1, -0.5], rng.standard_normal(8)]) * scale
    off = [1.0, 1.0, 1.0000001, 1.0, 0.1, 0.1, 0.1, 0.1, 1 / 3, 1 / 3, 1 / 3, 0.7]
    pdf = pd.DataFrame({"g": [0] * 4 + [1] * 8 + [2] * 4 + [3] * 4 + [4] * 4,
                        "v": np.concatenate([v, off])})
    zdf = zb.DataFrame(pdf)
    for how in ("skew", "kurt"):
        assert_series_like(getattr(zdf.groupby("g").v, how)(),
                           getattr(pdf.groupby("g").v, how)(), f"group {how} {scale}", **TOL)
        for part in (v[:4], v, np.array(off[4:8]), np.array(off[:3])):
            got, exp = getattr(zb.Series(part), how)(), getattr(pd.Series(part), how)()
            assert (np.isnan(got) and np.isnan(exp)) or got == pytest.approx(exp, rel=1e-8), \
                f"Series {how} {scale} {list(part)}: {got} vs pandas {exp}"
        got = getattr(zdf.drop(columns="g").T, how)(axis=1).to_pandas()
        exp = getattr(pdf.drop(columns="g").T, how)(axis=1)
        assert np.allclose(got.to_numpy(float), exp.to_numpy(float), rtol=1e-8,
                           equal_nan=True), f"{how}(axis=1) {scale}"



def test_moments_with_unobserved_categories():
    """observed=False: a categorical key's levels with no rows are groups
    with a missing skew / kurt, as pandas (they were left out)."""
    pdf = pd.DataFrame({"k": pd.Categorical(list("aaacccc"), categories=["c", "b", "a"]),
                        "v": [1.0, 2, 4, 3, 3, 7, 1]})
    zdf = zb.DataFrame(pdf)
    for sort in (True, False):
        for how in ("skew", "kurt"):
            assert_series_like(getattr(zdf.groupby("k", observed=False, sort=sort).v, how)(),
                               getattr(pdf.groupby("k", observed=False, sort=sort).v, how)(),
                               f"{how} sort={sort}", **TOL)
            assert_frame_like(getattr(zdf.groupby("k", observed=False, sort=sort)[["v"]], how)(),
                              getattr(pdf.groupby("k", observed=False, sort=sort)[["v"]], how)(),
                              f"frame {how} sort={sort}", **TOL)
