"""pandas' order of equal keys in a sort by one key.

zambezi's sorts are stable.  pandas' are too, except where it sorts one
key (``Series.sort_values``, ``DataFrame.sort_values`` by one column,
``sort_index`` of a flat index) with its default ``kind="quicksort"``: it
then hands the key's numpy values (a categorical's codes, in the smallest
integer type pandas keeps them in) to numpy's argsort, which is not
stable, so rows with equal keys come in numpy's order.  Strings sort
stably in pandas too (pyarrow's sort), and so do several keys.

Given ``kind="quicksort"`` (or ``"heapsort"``), the sorts here first sort
as always; only when the sorted key holds equal values do they ask numpy
for pandas' order (one argsort on one core, as pandas itself runs) --
straight away when the values surely repeat (a categorical, integers of
a range narrower than the rows).  The
algorithm is pandas' own documented one: missing values set aside in
their order, the rest argsorted (reversed before and after the argsort
when descending), the missing values put first or last.
"""

import numpy as np

from zambezi import _convert, _core

NUMPY_KINDS = ("quicksort", "heapsort")


def _key_values(col):
    """(values, missing mask) of column col as pandas' argsort sees them,
    or None where pandas sorts it stably (text, lists) or through objects
    (bools with missing values)."""
    if col.device != "cpu":
        col = col.to_device("cpu")
    dt = col.dtype
    mask = _convert.null_mask(col)
    if dt == "category":
        from zambezi._frame_extra import _codes_dtype

        return np.asarray(col.values()).astype(_codes_dtype(col.dictionary.length)), mask
    if dt in ("string", "date32") or dt.startswith("list<"):
        return None
    values = _convert.values_numpy(col)
    if values.dtype.kind == "f":
        nan = np.isnan(values)
        mask = nan if mask is None else mask | nan
    elif mask is not None and values.dtype.kind in "iu":
        values = values.astype(np.float64)   # pandas holds such a column as float64
    elif mask is not None and values.dtype.kind == "b":
        return None
    return values, mask


def _has_ties(sorted_col):
    """Whether a sorted column holds two equal values next to each other
    (missing values aside)."""
    kv = _key_values(sorted_col)
    if kv is None:
        return False
    values, mask = kv
    if mask is not None:
        values = values[~mask]
    return bool(len(values) > 1 and np.any(values[1:] == values[:-1]))


def certain_ties(col, kind):
    """Whether kind asks for numpy's order and col's values surely repeat
    (more rows than a categorical's categories or an integer column's
    range can hold apart): the engine's own sort would then be wasted."""
    if kind not in NUMPY_KINDS:
        return False
    n, dt = col.length, col.dtype
    if dt == "category":
        return n > col.dictionary.length + 1
    if dt == "bool":
        return n > 3
    if dt.startswith(("int", "uint")) and n > 2:
        lo, hi = col.reduce("min"), col.reduce("max")
        return lo is not None and hi - lo + 2 < n
    return False


def sorted_order(col, ascending, na_first, kind):
    """(values, order): col sorted and the positions that sort it, as the
    engine's one-pass sort gives them; or (None, numpy positions) in
    numpy's order of equal values when kind asks for it and there are
    some (see order)."""
    if certain_ties(col, kind):
        pos = order(col, ascending, na_first, kind)
        if pos is not None:
            return None, pos
    values, positions = _core.sort_values(col, bool(ascending), na_first, True)
    pos = order(col, ascending, na_first, kind, values)
    return (values, positions) if pos is None else (None, pos)


def order(col, ascending, na_first, kind, sorted_col=None):
    """int64 numpy positions of col's rows in pandas' order for `kind`, or
    None when zambezi's stable order is pandas' (a stable kind, a key
    pandas sorts stably, or no equal values: sorted_col, col sorted, tells
    that without a second sort)."""
    if kind not in NUMPY_KINDS:
        return None
    if sorted_col is not None and col.dtype != "category" and not _has_ties(sorted_col):
        return None
    kv = _key_values(col)
    if kv is None:
        return None
    values, mask = kv
    pos = np.arange(len(values), dtype=np.int64)
    missing = pos[mask] if mask is not None else pos[:0]
    if mask is not None:
        values, pos = values[~mask], pos[~mask]
    if not ascending:
        values, pos = values[::-1], pos[::-1]
    out = pos[np.argsort(values, kind=kind)]
    if not ascending:
        out = out[::-1]
    return np.concatenate([missing, out] if na_first else [out, missing])
