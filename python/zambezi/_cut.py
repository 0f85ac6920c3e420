"""``zb.cut`` and ``zb.qcut``: numbers into bins, as pandas 3 bins them.

The bin of every value is one numpy ``searchsorted`` over the edges
(pandas' own method); the edges of ``bins=n`` and the quantiles of
``qcut`` are computed as pandas computes them (the range widened by 0.1%,
linear quantiles), and the labels are pandas' interval labels rounded the
same way (``precision``).

Difference from pandas (also in docs/api.md): zambezi has no interval
dtype.  The result is a categorical Series whose categories are the
intervals as text, as pandas prints them ("(0.5, 1.0]"), in bin order
(pandas: a Categorical of Interval objects, ordered); ``labels=False``
gives the bins' integer codes with nulls (pandas: float64 with NaN when a
value falls outside); explicit labels that are not str give a column of
those values.  A list or array input gives a Series too (pandas: a
Categorical or an array).
"""

import numpy as np

from zambezi import _base, _core
from zambezi._convert import null_mask, to_column, values_numpy
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, InvalidValueError


def _values(x, what):
    """(Series, float64 values with NaN for missing)."""
    s = x if _base.is_series(x) else _base.series_class()(x)
    col = s._col if s._col.device == "cpu" else s._col.to_device("cpu")
    if col.dtype not in _NUMERIC:
        raise DTypeError(f"{what}: the values must be numbers, not {col.dtype}")
    arr = values_numpy(col).astype(np.float64)
    m = null_mask(col)
    if m is not None:
        arr = np.where(m, np.nan, arr)
    return s, arr


def _round_frac(x, precision):
    if not np.isfinite(x) or x == 0:
        return x
    frac, whole = np.modf(x)
    if whole == 0:
        digits = -int(np.floor(np.log10(abs(frac)))) - 1 + precision
    else:
        digits = precision
    return np.around(x, digits)


def _interval_labels(bins, precision, right, include_lowest):
    """pandas' interval labels for the edges, as text."""
    for p in range(precision, 20):
        levels = np.asarray([_round_frac(b, p) for b in bins])
        if np.unique(levels).size == bins.size:
            precision = p
            break
    breaks = [_round_frac(b, precision) for b in bins]
    if right and include_lowest:
        breaks[0] = breaks[0] - 10 ** (-precision)
    arr = np.asarray(breaks)
    if arr.dtype.kind in "iu":
        text = [str(int(b)) for b in arr]
    else:
        text = [repr(float(b)) for b in arr.astype(np.float64)]
    lo, hi = ("(", "]") if right else ("[", ")")
    return [f"{lo}{text[i]}, {text[i + 1]}{hi}" for i in range(len(text) - 1)]


def _to_cuts(s, arr, bins, right, labels, precision, include_lowest, duplicates, ordered,
             what):
    if duplicates not in ("raise", "drop"):
        raise InvalidValueError(f"{what}: duplicates must be 'raise' or 'drop', not "
                                f"{duplicates!r}")
    unique = np.unique(bins)
    if len(unique) < len(bins) and len(bins) != 2:
        if duplicates == "raise":
            raise InvalidValueError(f"{what}: bin edges must be unique: {list(bins)!r}; drop "
                                    "duplicate edges with duplicates='drop'")
        bins = unique
    ids = np.searchsorted(bins, arr, side="left" if right else "right").astype(np.int64)
    if include_lowest:
        ids[arr == bins[0]] = 1
    na = np.isnan(arr) | (ids == len(bins)) | (ids == 0)
    codes = np.where(na, -1, ids - 1)
    if labels is False:
        col = _core.column_from_buffer(codes.astype(np.int64), mask=na if na.any() else None)
        return s._like(col)
    if labels is None:
        text = _interval_labels(bins, precision, right, include_lowest)
    else:
        if isinstance(labels, str) or not hasattr(labels, "__len__"):
            raise InvalidValueError(f"{what}: labels must be False, None or a list")
        text = list(labels)
        if len(text) != len(bins) - 1:
            raise InvalidValueError(f"{what}: bin labels must be one fewer than the number of "
                                    f"bin edges ({len(text)} labels, {len(bins)} edges)")
        if ordered and len(set(text)) != len(text):
            raise InvalidValueError(f"{what}: labels must be unique if ordered=True; pass "
                                    "ordered=False for duplicate labels")
    pos = _core.column_from_buffer(np.where(na, 0, codes).astype(np.int64),
                                   mask=na if na.any() else None)
    if all(isinstance(t, str) for t in text) and len(set(text)) == len(text):
        dictionary = to_column(text, dtype="string")
        return s._like(_core.categorical_from_codes(codes.astype(np.int32), dictionary))
    return s._like(_core.take(to_column(text), pos))


def cut(x, bins, right=True, labels=None, retbins=False, precision=3, include_lowest=False,
        duplicates="raise", ordered=True):
    """Each number's bin: ``bins`` is a count of equal-width bins over the
    values' range (widened by 0.1% so that the extremes fall inside, as
    pandas) or the bin edges (increasing).  Bins are closed on the right
    ("(a, b]"; ``right=False``: "[a, b)"); ``include_lowest`` closes the
    first bin on the left too.  The result is a categorical Series of the
    interval labels as text (zambezi has no interval dtype; pandas gives
    Interval categories), or the ``labels`` given, or with
    ``labels=False`` the bin numbers (int64, null outside the bins).
    ``retbins=True`` also returns the edges.  A value outside every bin,
    or missing, is null.

    Examples
    --------
    >>> s = zb.Series([1.0, 2.5, 4.0, None, 7.0])
    >>> zb.cut(s, [0, 2, 5, 10]).to_list()
    ['(0, 2]', '(2, 5]', '(2, 5]', None, '(5, 10]']
    >>> zb.cut(s, 3, labels=["low", "mid", "high"]).to_list()
    ['low', 'low', 'mid', None, 'high']
    >>> zb.cut(s, [0, 2, 5], labels=False).to_list()
    [0, 1, 1, None, None]
    """
    s, arr = _values(x, "cut")
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise InvalidValueError("cut: bins should be a positive integer")
        finite = arr[~np.isnan(arr)]
        if finite.size == 0:
            raise InvalidValueError("cut: cannot cut empty array")
        mn, mx = finite.min(), finite.max()
        if np.isinf(mn) or np.isinf(mx):
            raise InvalidValueError("cut: cannot specify integer bins when the data contains "
                                    "infinity")
        if mn == mx:
            mn -= 0.001 * abs(mn) if mn != 0 else 0.001
            mx += 0.001 * abs(mx) if mx != 0 else 0.001
            edges = np.linspace(mn, mx, bins + 1, endpoint=True)
        else:
            edges = np.linspace(mn, mx, bins + 1, endpoint=True)
            adj = (mx - mn) * 0.001
            if right:
                edges[0] -= adj
            else:
                edges[-1] += adj
    else:
        edges = np.asarray(list(bins) if not isinstance(bins, np.ndarray) else bins)
        if edges.dtype.kind not in "iuf":
            raise DTypeError("cut: bins must be an integer or a list of numbers")
        if edges.size and np.any(np.diff(edges) < 0):
            raise InvalidValueError("cut: bins must increase monotonically")
    out = _to_cuts(s, arr, edges, right, labels, precision, include_lowest, duplicates,
                   ordered, "cut")
    return (out, edges) if retbins else out


def qcut(x, q, labels=None, retbins=False, precision=3, duplicates="raise"):
    """Each number's quantile bin: ``q`` quantiles of equal size (an int:
    4 for quartiles) or the quantiles' fractions (increasing, in [0, 1]);
    the edges are the values' quantiles (linear interpolation, as pandas),
    the lowest bin closed on both sides.  Labels as ``cut`` (interval
    text in a categorical, explicit ``labels``, or ``labels=False`` for
    the bin numbers).

    Examples
    --------
    >>> s = zb.Series([1, 2, 3, 4, 5, 6, 7, 8])
    >>> zb.qcut(s, 2).to_list()[3:5]
    ['(0.999, 4.5]', '(4.5, 8.0]']
    >>> zb.qcut(s, [0, 0.25, 1], labels=False).to_list()
    [0, 0, 1, 1, 1, 1, 1, 1]
    """
    s, arr = _values(x, "qcut")
    if isinstance(q, (int, np.integer)) and not isinstance(q, bool):
        if q < 1:
            raise InvalidValueError("qcut: q should be a positive integer")
        qs = np.linspace(0, 1, int(q) + 1)
    else:
        qs = np.asarray(list(q), dtype=np.float64)
        if qs.size and (qs.min() < 0 or qs.max() > 1):
            raise InvalidValueError("qcut: quantiles must be in [0, 1]")
    finite = arr[~np.isnan(arr)]
    if finite.size == 0:
        edges = np.full(len(qs), np.nan)
    else:
        edges = np.quantile(finite, qs)
    out = _to_cuts(s, arr, edges, True, labels, precision, True, duplicates, True, "qcut")
    return (out, edges) if retbins else out
