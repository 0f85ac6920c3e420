"""Row and column keys: the one parser behind ``df[...]``, ``s[...]`` and
``.iloc[...]``.

A key is parsed once, here, into what it selects:

- one row (an int; negatives count from the end);
- a set of rows (``slice_rows``, ``take_rows``, ``filter_rows``): a
  contiguous slice (zero-copy), positions
  to take (a slice with a step, a list or array of ints), or a boolean mask
  to filter with (a bool Series, array or list; a null in the mask drops
  the row);
- for a DataFrame, one column (a name) or several (a list of names).

The selection's ``apply`` runs it on an engine Table or Column, and
``NDFrame._select_rows`` (zambezi._base) on a Series or DataFrame, so every
way of selecting rows meets in one place.  The three entry points agree:
``df[::2]``, ``s[::2]``, ``df.iloc[::2]`` and ``s.iloc[::2]`` select the
same rows, as in pandas; ``df[key]`` differs from ``df.iloc[key]`` only
where pandas' ``[]`` does (a str or a list of str is a column selection;
an int is not a row).

Keys by label (``loc``) come with the index: ``_Indexer`` is the shared
half of an indexer, and a label indexer only has to turn its key into the
same row selections (positions of the labels, a slice between two labels,
a mask) in its ``_rows`` method, as ``_ILocIndexer`` does from positions.
"""

import numpy as np

from zambezi import _base, _convert, _core
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError, ZambeziIndexError


# --------------------------------------------------------------------------
# position and mask columns
# --------------------------------------------------------------------------

def positions_column(indices, n, what="take", required="positions must be integers"):
    """An int64 engine column of row positions in [0, n) from a list, array
    or Series of ints, negatives counting from the end (numpy's rules);
    DTypeError "{what}: {required}, not DTYPE" for other values."""
    if _base.is_series(indices):
        indices = indices.to_numpy()
    arr = np.asarray(indices)
    if arr.ndim != 1:
        raise InvalidValueError(f"{what}: expected a 1-D list of positions, got shape {arr.shape}")
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise DTypeError(f"{what}: {required}, not {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    neg = arr < 0
    if neg.any():
        arr = np.where(neg, arr + n, arr)
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        pos = int(np.argmax(bad))
        raise ZambeziIndexError(
            f"{what}: position {int(np.asarray(indices)[pos])} (at {pos}) is out of range "
            f"for {n} rows")
    return _core.column_from_buffer(np.ascontiguousarray(arr))


def mask_column(mask, n, what):
    """A bool engine column for a boolean Series / array / list of length n."""
    if isinstance(mask, (list, tuple)):
        arr = np.asarray(mask)
        if arr.dtype == np.bool_:
            mask = arr
    col = _convert.column_of_length(mask, n, what)
    if col.dtype != "bool":
        raise DTypeError(f"{what}: a boolean mask is required, got dtype {col.dtype}")
    return col


def is_mask(key):
    """Whether key is a boolean mask (a bool Series, array or list, or a
    pandas bool Series)."""
    if _base.is_series(key):
        return key.dtype == "bool"
    if isinstance(key, np.ndarray):
        return key.dtype == np.bool_
    if isinstance(key, (list, tuple)) and key:
        return isinstance(key[0], (bool, np.bool_))
    return _convert._is_pandas(key, "Series") and str(key.dtype) in ("bool", "boolean")


def _is_int(key):
    return isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_))


def _is_list_like(key):
    return not isinstance(key, (str, bytes, dict)) and hasattr(key, "__len__")


# --------------------------------------------------------------------------
# row selections
# --------------------------------------------------------------------------

class _Rows:
    """A selection of rows: ('slice', start, length), ('take', int64
    positions column) or ('filter', bool mask column).  Made by
    slice_rows, take_rows and filter_rows; ``apply`` runs it on an engine
    Table or Column."""

    __slots__ = ("kind", "start", "length", "column")

    def __init__(self, kind, start=0, length=0, column=None):
        self.kind = kind
        self.start = start
        self.length = length
        self.column = column

    def apply(self, data):
        """The selected rows of an engine Table or Column (a slice shares
        the buffers; positions and masks gather)."""
        if self.kind == "slice":
            return data.slice(self.start, self.length)
        if self.kind == "take":
            return _core.take(data, self.column)
        return _core.filter(data, self.column)


def slice_rows(start, length):
    """The rows start .. start + length - 1 (in range), zero-copy."""
    return _Rows("slice", start, length)


def take_rows(positions):
    """The rows at positions, an int64 engine column of positions in range
    (see positions_column)."""
    return _Rows("take", column=positions)


def filter_rows(mask):
    """The rows where mask, a bool engine column of the same length, is
    true (a null drops the row)."""
    return _Rows("filter", column=mask)


def row_slice(key, n, what):
    """The rows of a positional slice: zero-copy for a step of 1, else the
    positions it names (negative steps run backwards, as in Python)."""
    start, stop, step = key.indices(n)
    if step == 1:
        return slice_rows(start, max(stop - start, 0))
    return take_rows(positions_column(np.arange(start, stop, step, dtype=np.int64), n, what))


def positional_rows(key, n, what):
    """The rows of a positional key: a slice, a boolean mask, or positions (a
    list, tuple, array or Series of ints)."""
    if isinstance(key, slice):
        return row_slice(key, n, what)
    if is_mask(key):
        return filter_rows(mask_column(key, n, what))
    return take_rows(positions_column(
        key, n, what, "a boolean mask or integer positions are required"))


def row_position(key, n, what=None):
    """The position in [0, n) of an int key (negatives from the end)."""
    i = int(key)
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        where = f"{what}: " if what else ""
        raise ZambeziIndexError(f"{where}row {i} is out of range for {n} rows")
    return j


# --------------------------------------------------------------------------
# [] of a Series and of a DataFrame
# --------------------------------------------------------------------------

def series_getitem(s, key):
    """``s[key]``: an int is one value, a slice / mask / positions some
    rows (as ``s.iloc[key]``)."""
    n = len(s)
    if _is_int(key):
        return s._value_at(row_position(key, n))
    if isinstance(key, slice) or _base.is_series(key) or _is_list_like(key):
        return s._select_rows(positional_rows(key, n, f"Series[...] on {s._describe()}"))
    raise InvalidValueError(
        f"Series[...] takes an int, a slice, a boolean mask or a list of positions, "
        f"not {type(key).__name__}")


def frame_getitem(df, key):
    """``df[key]``: a name is a column (a Series), a list of names a frame
    of those columns; a slice or a boolean mask selects rows."""
    if isinstance(key, str):
        return df._column(key)
    if isinstance(key, slice):
        return df._select_rows(row_slice(key, len(df), "df[...]"))
    if is_mask(key):
        return df._select_rows(filter_rows(mask_column(key, len(df), "df[mask]")))
    if isinstance(key, (list, tuple)):
        for k in key:
            if not isinstance(k, str):
                raise DTypeError(f"df[[...]] takes column names, not {type(k).__name__}")
        return df._select_columns(list(key))
    if _base.is_series(key) or _is_list_like(key):
        # a Series or array that is not boolean: refused by mask_column,
        # naming its dtype
        return df._select_rows(filter_rows(mask_column(key, len(df), "df[mask]")))
    raise DTypeError(
        "df[...] takes a column name, a list of names, a row slice or a boolean mask, "
        f"not {type(key).__name__}")


# --------------------------------------------------------------------------
# Indexers: .iloc (and, with the index, .loc)
# --------------------------------------------------------------------------

class _Indexer:
    """What position- and label-based indexers share: ``obj.<indexer>[key]``
    is one row for a scalar key, else the rows ``_rows(key)`` names."""

    __slots__ = ("_obj",)
    _name = ""

    def __init__(self, obj):
        self._obj = obj

    def _row(self, key):
        """The position of a scalar key, or None when key is not one."""
        raise NotImplementedError

    def _rows(self, key):
        """The rows (a selection from slice_rows, take_rows or
        filter_rows) that a non-scalar key names."""
        raise NotImplementedError

    def __getitem__(self, key):
        obj = self._obj
        if isinstance(key, tuple) and obj._ndim == 2:
            raise UnsupportedError(f"{self._name}[rows, columns] is not supported; select "
                                   "columns with df[[...]] first")
        i = self._row(key)
        if i is not None:
            return obj._value_at(i)
        return obj._select_rows(self._rows(key))


class _ILocIndexer(_Indexer):
    """``.iloc``: rows by position (an int, a slice with any step, a list or
    array of positions, a boolean mask)."""

    __slots__ = ()
    _name = "iloc"

    def _row(self, key):
        if _is_int(key):
            return row_position(key, len(self._obj), "iloc")
        return None

    def _rows(self, key):
        obj = self._obj
        what = "DataFrame.iloc" if obj._ndim == 2 else f"iloc on {obj._describe()}"
        return positional_rows(key, len(obj), what)
