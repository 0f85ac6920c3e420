"""Comparing a zambezi result with pandas' answer, for the tests.

``assert_frame_like(got, exp, what)`` checks, in this order: the column
labels, the index (its levels with the dtypes ``shown_dtype`` gives, as
for columns; where pandas keeps row labels that zambezi renumbers, the
caller resets pandas' index at that place and says why), each column's
dtype as ``to_pandas()`` shows it, and every value -- exactly for
integers, bools, strings, categories, dates and timestamps and for the
row order; floats exactly too unless the caller states a tolerance (sums,
means, variances are computed in another order than pandas').
``assert_series_like`` does the same for a Series, name included.

The dtype zambezi must show for a pandas result column is ``shown_dtype``:
the one place that states the deliberate dtype differences.  zambezi's
dtypes are all nullable, and ``to_pandas()`` (zambezi._convert) picks the
numpy dtype when a column has no nulls:

  * pandas' masked dtypes (Int8..UInt64, boolean): the numpy dtype (int64,
    bool...) when the column has no missing value, else the masked dtype;
  * Float32 / Float64: float32 / float64, missing values as NaN;
  * the NA-backed ``string`` dtype: pandas' default ``str`` dtype;
  * every other dtype (numpy numbers, bool, datetime64[unit], str,
    category, object) as pandas has it.

Other documented differences (an integer column that gains missing rows in
a merge stays integer, pandas' row labels that zambezi renumbers ...) are
not ours to guess here: each test adjusts pandas' answer where it happens,
with a comment naming the difference.
"""

import inspect

import numpy as np
import pandas as pd

# Tolerance for floats that zambezi and pandas compute in different orders
# (sums, means, variances, correlations of float64): relative 1e-9, plus an
# absolute 1e-12 for results that cancel to about zero.
SUM_TOL = {"rtol": 1e-9, "atol": 1e-12}

_MASKED_TO_NUMPY = {
    "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
    "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
    "boolean": "bool",
}
_MASKED_FLOATS = {"Float32": "float32", "Float64": "float64"}


# a freq zambezi's DatetimeIndex carries (resample results) is compared
# with pandas'; where it carries none, pandas' is not asked for (zambezi
# keeps no freq elsewhere yet)
_HAS_CHECK_FREQ = "check_freq" in inspect.signature(pd.testing.assert_index_equal).parameters


def _check_freq(got):
    if not _HAS_CHECK_FREQ:
        return {}
    return {"check_freq": getattr(got, "freq", None) is not None}

def shown_dtype(s):
    """The dtype zambezi's to_pandas() must give for pandas result column s
    (a Series): see the module docstring."""
    name = str(s.dtype)
    if name in _MASKED_TO_NUMPY:
        return s.dtype if s.isna().any() else np.dtype(_MASKED_TO_NUMPY[name])
    if name in _MASKED_FLOATS:
        return np.dtype(_MASKED_FLOATS[name])
    if isinstance(s.dtype, pd.StringDtype) and s.dtype.na_value is pd.NA:
        return pd.Series(["a"]).dtype  # pandas' default string dtype ('str')
    return s.dtype


def shown_index(idx):
    """pandas index idx as zambezi's to_pandas() must show it: each level
    with the dtype shown_dtype gives a column of its values (index levels
    are engine columns like any other)."""
    if isinstance(idx, pd.RangeIndex):
        return idx
    if isinstance(idx, pd.MultiIndex):
        arrays = [_shown_level(idx.get_level_values(i)) for i in range(idx.nlevels)]
        return pd.MultiIndex.from_arrays(arrays, names=idx.names)
    level = _shown_level(idx)
    # the index itself where its dtype is already shown so (a DatetimeIndex
    # keeps its freq, which zambezi's resample results carry too)
    if level is idx:
        return idx
    if isinstance(idx, pd.DatetimeIndex) and idx.freq is not None:
        return pd.DatetimeIndex(level, name=idx.name, freq=idx.freq)
    return pd.Index(level, name=idx.name)


def _shown_level(level):
    s = pd.Series(level, copy=False)
    want = shown_dtype(s)
    return level if s.dtype == want else s.astype(want).array


def _label_list(columns):
    """Column labels as a list, a missing label (NaN, NA, None) as None."""
    def one(v):
        if isinstance(v, tuple):
            return tuple(one(x) for x in v)
        return None if pd.api.types.is_scalar(v) and pd.isna(v) else v
    return [one(v) for v in columns]


def _is_float(dtype):
    return isinstance(dtype, np.dtype) and dtype.kind == "f"


def _null_mask(s):
    return s.isna().to_numpy(dtype=bool)


def _valid_values(s, mask):
    """The non-missing values of s as Python objects (ints, bools, strs,
    Timestamps, dates ...), in row order."""
    return s[~mask].astype(object).tolist()


def _sort_key(s):
    """Per row, a key that orders rows by this column (nulls first); floats
    rounded so that values equal within a tolerance sort alike."""
    mask = _null_mask(s)
    vals = s.astype(object).tolist()
    if _is_float(s.dtype) or str(s.dtype) in _MASKED_FLOATS:
        return [(0,) if m else (1, float(f"{v:.9g}")) for v, m in zip(vals, mask)]
    return [(0,) if m else (1, v) for v, m in zip(vals, mask)]


def _row_order(df):
    keys = [_sort_key(df.iloc[:, j]) for j in range(df.shape[1])]
    return sorted(range(len(df)), key=lambda i: tuple(k[i] for k in keys))


def _compare_column(a, b, what, rtol, atol):
    """a (zambezi's column, dtype already checked) holds b's values."""
    ma, mb = _null_mask(a), _null_mask(b)
    if not np.array_equal(ma, mb):
        i = int(np.flatnonzero(ma != mb)[0])
        raise AssertionError(f"{what}: row {i}: zambezi {a.iloc[i]!r}, pandas {b.iloc[i]!r}")
    if _is_float(a.dtype):
        x = a.to_numpy(dtype=np.float64)[~ma]
        y = b.to_numpy(dtype=np.float64, na_value=np.nan)[~mb]
        if rtol == 0 and atol == 0:
            ok = (x == y) | (np.isnan(x) & np.isnan(y))
        else:
            ok = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        if not ok.all():
            i = int(np.flatnonzero(~ma)[np.flatnonzero(~ok)[0]])
            raise AssertionError(
                f"{what}: row {i}: zambezi {a.iloc[i]!r}, pandas {b.iloc[i]!r} "
                f"(rtol={rtol}, atol={atol})")
        return
    x, y = _valid_values(a, ma), _valid_values(b, mb)
    if x != y:
        rows = np.flatnonzero(~ma)
        j = next(j for j, (u, v) in enumerate(zip(x, y)) if u != v)
        raise AssertionError(f"{what}: row {int(rows[j])}: zambezi {x[j]!r}, pandas {y[j]!r}")


def assert_frame_like(got, exp, what="", rtol=0.0, atol=0.0, any_order=False, approx=None):
    """got (a zambezi DataFrame, or its to_pandas()) holds pandas' answer
    exp: same columns, index, dtypes (shown_dtype) and values.  Floats
    within rtol/atol (exact by default) -- in the columns named in approx,
    or in every column when approx is None.  any_order: the row order is
    not defined (compared as a multiset of rows, a row's labels with it)."""
    if hasattr(got, "to_pandas"):
        got = got.to_pandas()
    if any_order and not isinstance(exp.index, pd.RangeIndex):
        # labels (group keys ...) in another order too: compared as columns
        got, exp = got.reset_index(), exp.reset_index()
        exp.index = pd.RangeIndex(len(exp))
        got.index = pd.RangeIndex(len(got))
    assert _label_list(got.columns) == _label_list(exp.columns), (
        f"{what}: columns {list(got.columns)}, pandas {list(exp.columns)}")
    assert len(got) == len(exp), f"{what}: {len(got)} rows, pandas {len(exp)}"
    pd.testing.assert_index_equal(got.index, shown_index(exp.index), exact="equiv",
                                  obj=f"{what}: index", **_check_freq(got.index))
    # columns by position: a label pandas cannot look up (a missing value
    # in a MultiIndex) is still compared
    for j, c in enumerate(exp.columns):
        want = shown_dtype(exp.iloc[:, j])
        assert got.iloc[:, j].dtype == want, (
            f"{what}: column {c!r}: dtype {got.iloc[:, j].dtype}, expected {want} "
            f"(pandas {exp.iloc[:, j].dtype})")
    if any_order:
        got = got.iloc[_row_order(got)]
        exp = exp.iloc[_row_order(exp)]
    for j, c in enumerate(exp.columns):
        tol = (rtol, atol) if approx is None or c in approx else (0.0, 0.0)
        _compare_column(got.iloc[:, j], exp.iloc[:, j], f"{what}: column {c!r}", *tol)


def assert_series_like(got, exp, what="", rtol=0.0, atol=0.0):
    """got (a zambezi Series, or its to_pandas()) holds pandas' Series exp:
    same name, index, dtype and values (see assert_frame_like)."""
    if hasattr(got, "to_pandas"):
        got = got.to_pandas()
    assert got.name == exp.name, f"{what}: name {got.name!r}, pandas {exp.name!r}"
    assert_frame_like(got.to_frame("x"), exp.to_frame("x"), what, rtol=rtol, atol=atol)
