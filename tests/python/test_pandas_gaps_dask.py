"""pandas behaviours Dask relies on inside its tasks (found running the Dask
backend, zambezi.dask), each compared with pandas on random data with
nulls: reductions' numeric_only / axis keywords, astype(errors=),
Series.values / ndim / searchsorted / cat, quantile interpolations,
Index.to_frame, df[Index], rename(columns=func), DataFrame(dict) with
tuple labels, merge with a named Series, drop_duplicates(ignore_index=).
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like
from zambezi.errors import InvalidValueError


def _frame(seed, n=60):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "k": rng.integers(0, 5, n),
        "x": np.where(rng.random(n) < 0.15, np.nan, rng.normal(size=n).round(2)),
        "i": pd.array(np.where(rng.random(n) < 0.15, None, rng.integers(-9, 9, n)),
                      dtype="Int64"),
        "s": pd.array(np.where(rng.random(n) < 0.15, None, rng.choice(list("abcde"), n)),
                      dtype="str"),
    })


@pytest.mark.parametrize("seed", [1, 2])
def test_groupby_numeric_only(seed):
    pdf = _frame(seed)
    z = zb.from_pandas(pdf)
    for op in ["sum", "mean", "min", "max", "median"]:
        got = getattr(z.groupby("k"), op)(numeric_only=True)
        exp = getattr(pdf.groupby("k"), op)(numeric_only=True)
        assert_frame_like(got, exp, f"groupby {op}(numeric_only=True)", **SUM_TOL)
    got = z.groupby("k")["x"].sum(numeric_only=False)
    assert_series_like(got, pdf.groupby("k")["x"].sum(numeric_only=False), "x sum", **SUM_TOL)


def test_series_reduction_keywords():
    pdf = _frame(3)
    z = zb.from_pandas(pdf)
    for op in ["sum", "min", "max", "mean", "var", "std", "median", "prod"]:
        got = getattr(z["x"], op)(axis=0, numeric_only=False)
        exp = getattr(pdf["x"], op)(axis=0, numeric_only=False)
        assert got == pytest.approx(exp, rel=1e-9), op
    with pytest.raises(InvalidValueError, match="one axis"):
        z["x"].sum(axis=1)


@pytest.mark.parametrize("interpolation", ["lower", "higher", "nearest", "midpoint"])
def test_quantile_interpolation(interpolation):
    pdf = _frame(4)
    z = zb.from_pandas(pdf)
    qs = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
    for col in ["x", "k"]:
        got = z[col].quantile(qs, interpolation=interpolation).to_list()
        exp = pdf[col].quantile(qs, interpolation=interpolation).to_list()
        assert got == pytest.approx(exp), (col, got, exp)
        assert z[col].quantile(0.3, interpolation=interpolation) == \
            pytest.approx(pdf[col].quantile(0.3, interpolation=interpolation))
    # strings: pandas only through DataFrame.quantile(method="table"), as Dask calls it
    if interpolation != "midpoint":
        got = z[["s"]].dropna().quantile(qs, interpolation=interpolation, method="table")
        exp = pdf[["s"]].dropna().quantile(qs, interpolation=interpolation,
                                           numeric_only=False, method="table")
        assert got["s"].to_list() == exp["s"].to_list()


@pytest.mark.parametrize("interpolation", ["lower", "higher", "nearest", "midpoint"])
def test_quantile_pick_all_missing_and_timestamps(interpolation):
    # no values: NaN for float data, as pandas (and the linear quantile)
    ps = pd.Series([np.nan] * 4)
    got = zb.Series(ps).quantile(0.5, interpolation=interpolation)
    exp = ps.quantile(0.5, interpolation=interpolation)
    assert np.isnan(got) and np.isnan(exp)
    # a midpoint of timestamps is a Timestamp in pandas: zambezi refuses it
    # rather than answer with a float
    ts = pd.Series(pd.date_range("2018-01-01", periods=5, freq="D"))
    assert isinstance(ts.quantile(0.25, interpolation=interpolation), pd.Timestamp)
    if interpolation == "midpoint":
        with pytest.raises(zb.DTypeError, match="quantile"):
            zb.Series(ts).quantile(0.25, interpolation=interpolation)


def test_searchsorted_values_ndim():
    pdf = _frame(5).sort_values("k")
    z = zb.from_pandas(pdf)
    probe = [-1, 0, 2, 3, 7]
    for side in ["left", "right"]:
        assert z["k"].searchsorted(probe, side=side).tolist() == \
            pdf["k"].searchsorted(probe, side=side).tolist()
        assert z["k"].searchsorted(2, side=side) == pdf["k"].searchsorted(2, side=side)
    np.testing.assert_array_equal(z["x"].values, pdf["x"].values)
    assert (z.ndim, z["x"].ndim) == (pdf.ndim, pdf["x"].ndim)


def test_cat_accessor():
    s = _frame(6)["s"].astype("category")
    z = zb.Series(s)
    assert_series_like(z.cat.codes, s.cat.codes, "cat.codes")
    assert z.cat.categories.to_list() == s.cat.categories.to_list()
    with pytest.raises(AttributeError):
        zb.Series([1, 2]).cat


def test_astype_errors_ignore():
    pdf = pd.DataFrame({"a": ["1", "x", None], "b": ["2", "3", "4"], "c": [1.5, 2.5, None]})
    z = zb.from_pandas(pdf)
    got = z.astype({"a": "int64", "b": "int64", "c": "float64"}, errors="ignore")
    # pandas' errors="ignore" keeps the column that fails, as here
    exp = pdf.astype({"b": "int64"})
    assert_frame_like(got, exp, "astype errors=ignore")
    with pytest.raises(Exception):
        z.astype({"a": "int64"})


def test_index_to_frame_and_getitem_index():
    pdf = _frame(7).set_index(["k", "s"])
    z = zb.from_pandas(pdf)
    assert_frame_like(z.index.to_frame(index=False), pdf.index.to_frame(index=False),
                      "MultiIndex.to_frame")
    assert_frame_like(z.index.to_frame(), pdf.index.to_frame(), "to_frame with index")
    flat = _frame(7)
    zf = zb.from_pandas(flat)
    assert_frame_like(zf[zf.columns[1:3]], flat[flat.columns[1:3]], "df[Index]")


def test_rename_callable_and_tuple_labels():
    pdf = _frame(8)
    z = zb.from_pandas(pdf)
    assert_frame_like(z.rename(columns=lambda c: f"{c}-count"),
                      pdf.rename(columns=lambda c: f"{c}-count"), "rename(func)")
    assert_frame_like(z.rename(columns=lambda c: (c, "n")),
                      pdf.rename(columns=lambda c: (c, "n")), "rename to tuples")
    data = {("x", "sum"): [1.0, 2.0], ("x", "max"): [3.0, None]}
    assert_frame_like(zb.DataFrame(data), pd.DataFrame(data), "DataFrame(tuple keys)")


def test_merge_named_series_and_drop_duplicates_ignore_index():
    pdf = _frame(9)
    z = zb.from_pandas(pdf)
    right = pd.Series([10, 11, 12], index=[0, 2, 4], name="w")
    got = z.merge(zb.Series(right), left_on="k", right_index=True, how="inner")
    exp = pdf.merge(right, left_on="k", right_index=True, how="inner")
    assert_frame_like(got, exp, "merge with a Series")
    got = z["s"].drop_duplicates(ignore_index=True)
    assert_series_like(got, pdf["s"].drop_duplicates(ignore_index=True), "drop_duplicates")


def test_frame_size():
    # Dask's ddf.shape[0] sums the partitions' size
    for pdf in (_frame(3), _frame(4, n=0), _frame(5)[[]]):
        assert zb.from_pandas(pdf).size == pdf.size


@pytest.mark.parametrize("values", [[3.5, 1.0, np.nan, 2.0], ["b", None, "c", "a"], [],
                                    [7, -2, 5]])
def test_index_min_max(values):
    # Dask reads a partition's divisions from its index's min and max
    p = pd.Index(values, dtype="str" if values and isinstance(values[0], str) else None)
    z = zb.Index(p)
    for how in ("min", "max"):
        got, exp = getattr(z, how)(), getattr(p, how)()
        assert (pd.isna(got) and pd.isna(exp)) or got == exp, (how, got, exp)
    r = zb.from_pandas(pd.DataFrame({"a": [4, 5, 6]})).index
    assert (r.min(), r.max()) == (0, 2)
