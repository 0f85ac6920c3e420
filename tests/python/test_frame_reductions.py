"""Differential tests of the DataFrame reductions against pandas: every
reduction with axis=0 and axis=1, skipna on and off, numeric_only, on
random frames with nulls (Int64, float64 with NaN, int64, uint8, bool,
strings) and random string row labels; quantile with a scalar and a list;
idxmax/idxmin (labels); the Series reductions' NaN for empty input; and
apply with a function that gives one value per column.

pandas runs on ``to_pandas()`` of the zambezi frame, so both see the same
dtypes (an integer column without nulls is int64, not Int64).
"""

import math

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import DTypeError
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like

SIZES = [0, 1, 5, 300]


def make_frame(n, seed, kinds):
    rng = np.random.default_rng(seed * 101 + n)
    data = {}
    for k in kinds:
        miss = rng.random(n) < 0.2
        ints = rng.integers(-20, 20, n)
        if k == "Int64":
            data[k] = pd.array(np.where(miss, None, ints), dtype="Int64")
        elif k == "int64":
            data[k] = ints
        elif k == "uint8":
            data[k] = (np.abs(ints) % 50).astype("uint8")
        elif k == "float64":
            v = ints / 4.0
            v[miss] = np.nan
            data[k] = v
        elif k == "bool":
            data[k] = ints % 3 == 0
        elif k == "string":
            data[k] = pd.array(np.where(miss, None, [f"s{abs(x)}" for x in ints]),
                               dtype="string")
    index = [f"r{v}" for v in rng.permutation(n * 3)[:n]]
    z = zb.DataFrame(pd.DataFrame(data, index=index))
    return z, z.to_pandas()


def check(got, want, what):
    if isinstance(want, pd.DataFrame):
        assert_frame_like(got, want, what, **SUM_TOL)
    else:
        assert_series_like(got, want, what, **SUM_TOL)


NUMBERS = ["Int64", "int64", "float64", "uint8"]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("skipna", [True, False])
def test_column_reductions(n, seed, skipna):
    z, p = make_frame(n, seed, NUMBERS + ["bool"])
    for name in ["sum", "prod", "mean", "std", "var", "median"]:
        check(getattr(z, name)(skipna=skipna), getattr(p, name)(skipna=skipna), name)
    for name in ["min", "max"]:  # bool and numbers together: pandas makes object
        check(getattr(z[NUMBERS], name)(skipna=skipna),
              getattr(p[NUMBERS], name)(skipna=skipna), name)
    check(z.var(ddof=0), p.var(ddof=0), "var ddof=0")
    check(z.sum(min_count=3), p.sum(min_count=3), "sum min_count")
    check(z.count(), p.count(), "count")
    check(z.nunique(), p.nunique(), "nunique")
    check(z.nunique(dropna=False), p.nunique(dropna=False), "nunique dropna=False")
    check(z[["int64", "bool"]].any(), p[["int64", "bool"]].any(), "any")
    check(z[["int64", "bool"]].all(), p[["int64", "bool"]].all(), "all")
    check(z[NUMBERS].quantile(0.3), p[NUMBERS].quantile(0.3), "quantile")
    # (pandas casts a list of quantiles of a masked Int64 column back to
    # Int64; zambezi's are float64, like every other column's)
    check(z[NUMBERS[1:]].quantile([0.9, 0.1, 0.5]), p[NUMBERS[1:]].quantile([0.9, 0.1, 0.5]),
          "quantiles")
    for name in ("idxmax", "idxmin"):
        try:
            want = getattr(p[NUMBERS], name)(skipna=skipna)
        except ValueError:  # no value in a column (or a missing one, skipna=False)
            with pytest.raises(ValueError):
                getattr(z[NUMBERS], name)(skipna=skipna)
            continue
        check(getattr(z[NUMBERS], name)(skipna=skipna), want, name)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("skipna", [True, False])
def test_row_reductions(n, seed, skipna):
    # numpy dtypes only: pandas gives object rows when a masked column mixes in
    z, p = make_frame(n, seed, ["int64", "float64", "uint8"])
    for name in ["sum", "prod", "mean", "std", "var", "min", "max"]:
        check(getattr(z, name)(axis=1, skipna=skipna),
              getattr(p, name)(axis=1, skipna=skipna), f"{name}(axis=1)")
    check(z.median(axis=1), p.median(axis=1), "median(axis=1)")
    check(z.count(axis=1), p.count(axis=1), "count(axis=1)")
    check(z.sum(axis=1, min_count=3), p.sum(axis=1, min_count=3), "sum min_count")
    check(z.quantile(0.75, axis=1), p.quantile(0.75, axis=1), "quantile(axis=1)")
    if n:  # (pandas gives float64 for no rows)
        check(z.nunique(axis=1), p.nunique(axis=1), "nunique(axis=1)")
    check(z.any(axis=1), p.any(axis=1), "any(axis=1)")
    check(z.all(axis=1), p.all(axis=1), "all(axis=1)")
    zi, pi = make_frame(n, seed, ["int64", "uint8", "bool"])
    check(zi.sum(axis=1), pi.sum(axis=1), "int sum(axis=1)")
    if n and p.notna().any(axis=1).all() and skipna:
        check(z.idxmax(axis=1), p.idxmax(axis=1), "idxmax(axis=1)")
        check(z.idxmin(axis=1), p.idxmin(axis=1), "idxmin(axis=1)")


@pytest.mark.parametrize("seed", [1, 2])
def test_numeric_only_and_strings(seed):
    z, p = make_frame(40, seed, ["Int64", "float64", "string"])
    for name in ["sum", "mean", "std", "median", "min", "max"]:
        check(getattr(z, name)(numeric_only=True), getattr(p, name)(numeric_only=True),
              f"{name}(numeric_only=True)")
        check(getattr(z, name)(numeric_only=True, axis=1)
              if name != "median" else z[["float64"]].median(axis=1),
              getattr(p, name)(numeric_only=True, axis=1)
              if name != "median" else p[["float64"]].median(axis=1), f"{name} rows")
    # strings: sum concatenates, min/max order, mean raises (pandas: TypeError)
    check(z[["string"]].sum(), p[["string"]].sum(), "string sum")
    check(z[["string"]].min(), p[["string"]].min(), "string min")
    check(z[["string"]].max(), p[["string"]].max(), "string max")
    with pytest.raises(TypeError):
        p.mean()
    with pytest.raises(DTypeError, match="'string'"):
        z.mean()
    # numbers and strings together: pandas makes an object Series; zambezi
    # raises naming the columns
    with pytest.raises(DTypeError, match="numeric_only"):
        z.sum()
    check(z.count(), p.count(), "count")


def test_reductions_of_empty_frames_and_series():
    z, p = make_frame(0, 1, NUMBERS)
    check(z.sum(), p.sum(), "sum")
    check(z.mean(), p.mean(), "mean")
    for dtype in ("float64", "int64"):
        s, ps = zb.Series([], dtype=dtype), pd.Series([], dtype=dtype)
        for name in ("mean", "median", "std", "var", "min", "max"):
            ours, theirs = getattr(s, name)(), getattr(ps, name)()
            assert isinstance(ours, float) and math.isnan(ours) and math.isnan(theirs), name
        assert s.sum() == ps.sum() == 0
    # an integer column with nulls is pandas' Int64: NA, not NaN
    assert zb.Series([None, None], dtype="int64").mean() is None
    assert pd.Series([None, None], dtype="Int64").mean() is pd.NA
    assert math.isnan(zb.Series([1.0, None]).sum(skipna=False))
    assert math.isnan(pd.Series([1.0, None]).sum(skipna=False))


def test_series_idxmax_gives_labels():
    p = pd.Series([3.0, 9.0, None, 9.0, 1.0], index=["a", "b", "c", "d", "e"])
    s = zb.Series(p)
    assert s.idxmax() == p.idxmax() == "b"
    assert s.idxmin() == p.idxmin() == "e"
    assert s.argmax() == p.argmax() == 1
    for obj in (s, p):
        with pytest.raises(ValueError):
            obj.idxmax(skipna=False)
    with pytest.raises(ValueError):
        zb.Series([], dtype="float64").idxmax()


def test_apply_with_scalars_is_indexed_by_columns():
    z, p = make_frame(30, 3, ["int64", "float64"])
    check(z.apply(lambda c: c.max()), p.apply(lambda c: c.max()), "apply max")
    check(z.apply("count"), p.apply("count"), "apply count")


def test_a_dict_result_would_fail():
    # the oracle rejects the old dict results and positional labels
    z, p = make_frame(10, 1, ["int64"])
    with pytest.raises((AssertionError, AttributeError)):
        check(z.sum().to_dict() if hasattr(z.sum(), "to_dict") else {}, p.sum(), "dict")
    wrong = zb.Series(z.sum().to_list())  # numbered 0..k-1
    with pytest.raises(AssertionError):
        check(wrong, p.sum(), "positional")
