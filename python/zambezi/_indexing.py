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

from zambezi import _base, _convert, _core, _dtypes
from zambezi.errors import (DTypeError, InvalidValueError, UnsupportedError, ZambeziError,
                            ZambeziIndexError)


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


def aligned_mask(obj, mask, what):
    """A bool engine column selecting obj's rows: a zambezi bool Series
    must have obj's labels (the same index, or an equal one, as pandas
    aligns a boolean Series key); arrays and lists are positional."""
    if _base.is_series(mask) and mask._index is not obj._index and \
            not mask._index.equals(obj._index):
        raise ZambeziIndexError(
            f"{what}: the boolean Series has other row labels than the object it selects "
            "from (unalignable boolean Series)")
    return mask_column(mask, len(obj), what)


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
        col = self.column
        if col.device != data.device:  # an Index kept on the host of a frame on a GPU
            col = col.to_device(data.device)
        if self.kind == "take":
            return _core.take(data, col)
        return _core.filter(data, col)


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

def _int_slice(key):
    return all(v is None or _is_int(v) for v in (key.start, key.stop, key.step))


def refuse_unordered(key):
    """A set or a dict as an indexer (or inside a tuple of them) is refused,
    as pandas 3 refuses it: it has no order to give the rows."""
    for k in key if type(key) is tuple else (key,):
        if isinstance(k, (set, dict)):
            raise DTypeError(f"Passing a {'set' if isinstance(k, set) else 'dict'} as an "
                             f"indexer is not supported. Use a list instead.")


def series_getitem(s, key):
    """``s[key]`` with pandas 3's rules: a scalar or a list is a label (as
    ``s.loc``); a slice of ints is positional (as ``s.iloc``), a slice of
    other values a label slice; a boolean mask selects rows."""
    refuse_unordered(key)
    n = len(s)
    if isinstance(key, slice):
        if _int_slice(key):
            return s._select_rows(row_slice(key, n, f"Series[...] on {s._describe()}"))
        return s.loc[key]
    if is_mask(key):
        return s._select_rows(filter_rows(aligned_mask(s, key, "Series[mask]")))
    return s.loc[key]


def frame_getitem(df, key):
    """``df[key]``: a name is a column (a Series), a list of names a frame
    of those columns; a slice or a boolean mask selects rows.  A frame
    with column labels other than its names (a MultiIndex ...) looks the
    key up among them (zambezi._labels)."""
    from zambezi import index as _ix

    refuse_unordered(key)
    if isinstance(key, _ix.Index) or _convert._is_pandas(key, "Index"):
        key = list(key.to_list() if isinstance(key, _ix.Index) else key.tolist())  # labels
    if df._columns is not None and not isinstance(key, slice) and not is_mask(key) and \
            not _base.is_series(key):
        from zambezi import _labels

        out = _labels.getitem(df, key)
        if out is not NotImplemented:
            return out
    if isinstance(key, str):
        return df._column(key)
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and \
            str(key) in df._table.names:
        # a number label read from pandas (or Dask's to_frame of an unnamed
        # Series) is the column named by its text
        return df._column(str(key))
    if isinstance(key, slice):
        if not _int_slice(key):
            return df.loc[key]
        return df._select_rows(row_slice(key, len(df), "df[...]"))
    if is_mask(key):
        return df._select_rows(filter_rows(aligned_mask(df, key, "df[mask]")))
    if isinstance(key, (list, tuple)):
        for k in key:
            if not isinstance(k, str):
                raise DTypeError(f"df[[...]] takes column names, not {type(k).__name__}")
        return df._select_columns(list(key))
    if _base.is_series(key) or _is_list_like(key):
        # a Series or array that is not boolean: refused by mask_column,
        # naming its dtype
        return df._select_rows(filter_rows(aligned_mask(df, key, "df[mask]")))
    raise DTypeError(
        "df[...] takes a column name, a list of names, a row slice or a boolean mask, "
        f"not {type(key).__name__}")


# --------------------------------------------------------------------------
# Indexers: .iloc (and, with the index, .loc)
# --------------------------------------------------------------------------

class _Indexer:
    """What position- and label-based indexers share.  A key is a row key,
    or for a DataFrame a pair (rows, columns); ``_resolve`` turns the row
    key into ('one', position) or ('rows', selection)."""

    __slots__ = ("_obj",)
    _name = ""

    def __init__(self, obj):
        self._obj = obj

    def _resolve(self, key):
        raise NotImplementedError

    def _columns(self, key):
        """(names, scalar): the columns a column key names."""
        raise NotImplementedError

    def _split(self, key):
        obj = self._obj
        if obj._ndim == 2 and isinstance(key, tuple):
            if len(key) == 2 and not (obj._index.nlevels > 1 and self._name == "loc"
                                      and not _is_column_key(obj, key[1])):
                return key[0], key[1]
            if len(key) > 2 and not (obj._index.nlevels > 1 and self._name == "loc"):
                raise ZambeziIndexError(f"{self._name}: too many indexers ({len(key)})")
        return key, None

    def __getitem__(self, key):
        obj = self._obj
        refuse_unordered(key)
        rkey, ckey = self._split(key)
        if callable(rkey):
            rkey = rkey(obj)
        if callable(ckey):
            ckey = ckey(obj)
        if ckey is not None:
            names, scalar = self._columns(ckey)
            obj = obj._column(names[0]) if scalar else obj._select_columns(names)
        if isinstance(rkey, slice) and rkey == slice(None):
            return obj
        kind, what = self._resolve(rkey)
        if kind == "one":
            return obj._value_at(what)
        out = obj._select_rows(what)
        nlev = obj._index.nlevels
        if self._name == "loc" and nlev > 1 and not isinstance(rkey, (list, slice)) and \
                not is_mask(rkey) and not _base.is_series(rkey):
            if isinstance(rkey, tuple) and any(_level_pick(x) for x in rkey):
                # labels and lists (a Series: and whole-level slices): pandas drops
                # the levels of single labels
                drop = [i for i, x in enumerate(rkey) if not _level_pick(x)]
                slices = [x for x in rkey if isinstance(x, slice)]
                if drop and (not slices or self._obj._ndim == 1 and
                             all(x == slice(None) for x in slices)):
                    out._index = out._index.droplevel(drop)
                return out
            # a partial key of a MultiIndex: pandas drops the levels it fixed
            k = len(rkey) if isinstance(rkey, tuple) else 1
            if k < nlev:
                out._index = out._index.droplevel(list(range(k)))
        return out

    def __setitem__(self, key, value):
        obj = self._obj
        refuse_unordered(key)
        rkey, ckey = self._split(key)
        if callable(rkey):
            rkey = rkey(obj)
        if obj._ndim == 1:
            pos = self._positions(rkey)
            if len(pos) == 1 and _dtypes.is_scalar(rkey) and _is_sequence_value(value):
                raise InvalidValueError("setting an array element with a sequence.")
            if self._name == "loc":
                value = _aligned(obj, pos, value)
            obj._col = _assign(obj._col, pos, value, obj._describe())
            return
        if ckey is None:
            names, creates = list(obj._table.names), False
        else:
            names, _ = self._columns(ckey, create=True)
        pos = self._positions(rkey)
        t = obj._table
        have = t.names
        cols = [t.column(i) for i in range(t.num_columns)]
        out_names = list(have)
        if self._name == "loc" and _base.is_frame(value):
            values = _frame_columns_by_name(value, names)
        else:
            values = _per_column_values(value, len(names), len(pos))
        for name, v in zip(names, values):
            if self._name == "loc":
                v = _aligned(obj, pos, v)
            old = cols[have.index(name)] if name in have else None
            new = _assign(old, pos, v, f"column {name!r}", len(obj))
            if name in have:
                cols[have.index(name)] = new
            else:
                cols.append(new)
                out_names.append(name)
        obj._table = _core.table_from_columns(cols, out_names)

    def _positions(self, rkey):
        """int64 numpy positions of the rows a key names (for setting)."""
        n = len(self._obj)
        if isinstance(rkey, slice) and rkey == slice(None):
            return np.arange(n, dtype=np.int64)
        kind, what = self._resolve(rkey)
        if kind == "one":
            return np.array([what], dtype=np.int64)
        return selection_positions(what, n)


def selection_positions(rows, n):
    """int64 numpy positions of a row selection of n rows."""
    if rows.kind == "slice":
        return np.arange(rows.start, rows.start + rows.length, dtype=np.int64)
    if rows.kind == "take":
        return np.asarray(_convert.values_numpy(rows.column), dtype=np.int64)
    m = np.asarray(_convert.values_numpy(rows.column)).astype(bool)
    nulls = _convert.null_mask(rows.column)
    if nulls is not None:
        m = m & ~nulls
    return np.flatnonzero(m)


def _is_column_key(df, key):
    names = df._table.names
    if isinstance(key, str):
        return key in names
    if isinstance(key, slice):
        return True
    if isinstance(key, (list, np.ndarray)) or _base.is_series(key):
        return True
    return False


def _per_column_values(value, ncols, nrows):
    """The value for each of ncols columns: a scalar for all, a list/array
    of one value per row (one column), a 2-D array or frame (one per
    column), a dict column -> value is not pandas and is refused."""
    if _base.is_frame(value):
        t = value._table
        if t.num_columns != ncols:
            raise InvalidValueError(
                f"setting {ncols} columns from a frame of {t.num_columns} columns")
        return [t.column(i) for i in range(ncols)]
    arr = None
    if isinstance(value, np.ndarray) and value.ndim == 2:
        arr = value
    elif isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)):
        arr = np.asarray(value, dtype=object)
    if arr is not None:
        if arr.shape[1] != ncols:
            raise InvalidValueError(f"setting {ncols} columns from {arr.shape[1]} values per row")
        return [arr[:, j] for j in range(ncols)]
    if ncols > 1 and _is_list_like(value) and not _base.is_series(value) and \
            len(value) == ncols and nrows != ncols:
        return list(value)
    return [value] * ncols


def _frame_columns_by_name(value, names):
    """The columns of frame value that set names through loc: pandas lines
    a frame up with the rows and columns it sets by their labels (iloc
    takes both by position); each a Series, lined up by row label later."""
    have = value._table.names
    missing = [n for n in names if n not in have]
    if missing:
        raise UnsupportedError(
            f"setting columns {missing!r} through loc from a frame without them (pandas "
            f"sets them missing); select the frame's columns or pass .to_numpy()")
    return [value._column(n) for n in names]


def _is_sequence_value(value):
    """Whether value, set at one position, is a sequence pandas refuses
    there (numpy's "setting an array element with a sequence"): a list or
    tuple of any length, an array that is not one value in one dimension.
    A Series is aligned, not refused."""
    if isinstance(value, (list, tuple)):
        return True
    return isinstance(value, np.ndarray) and (value.ndim > 1 or
                                              (value.ndim == 1 and value.size != 1))


def _aligned(obj, pos, value):
    """value, set through loc (or ``s[mask] =``) on the rows of obj at
    positions pos: a Series (zambezi's or pandas') lined up by label with
    those rows, as pandas aligns it (a label it lacks sets a missing value);
    anything else as it is.  iloc sets Series values by position."""
    if _convert._is_pandas(value, "Series"):
        value = _base.series_class()(value)
    if not _base.is_series(value):
        return value
    rows = _core.column_from_buffer(np.ascontiguousarray(pos, dtype=np.int64))
    target = obj._index._take(take_rows(rows))
    if value._index is target or (len(value) == len(pos) and value._index.equals(target)):
        return value
    if (value._index is obj._index or (len(value) == len(obj) and value._index.equals(
            obj._index))) and obj._index.is_unique:
        # the value is labelled as obj is (df.loc[m, c] = df.c * 10): with
        # unique labels, lining up by label is taking the same positions
        return _base.series_class()._from_column(_core.take(value._col, rows),
                                                 index=target)
    if value._index.nlevels != 1 or target.nlevels != 1:
        raise UnsupportedError("setting a Series through loc on a MultiIndex: its labels "
                               "cannot be aligned yet; pass .to_numpy() to set by position")
    return value.reindex(target)


def _assign(old, pos, value, what, n=None):
    """A new column: old (None: a new all-null column) with the rows at
    positions pos set to value (a scalar, or one value per position)."""
    from zambezi._dtypes import is_scalar, py_scalar

    n = old.length if old is not None else n
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]   # a 0-d array is its one value, as pandas sets it
    if is_scalar(value) or value is None:
        if old is not None and _is_nat(value) and (_kind(old.dtype) in ("number", "bool") or
                                                   other_time_kind(value, old.dtype)):
            raise DTypeError(f"setting {what}: {value!r} cannot be held in a column of dtype "
                             f"{old.dtype} (pandas keeps it in an object column)")
        if old is not None and old.dtype == "float32" and isinstance(value, np.floating) and \
                np.dtype(type(value)).itemsize > 4 and np.float32(value) != value and \
                value == value:
            raise DTypeError(f"setting {what}: Invalid value {value!r} for dtype float32 (a "
                             "numpy float it cannot hold exactly; pandas 3 refuses it too)")
        value = py_scalar(value) if value is not None else None
        if isinstance(value, float) and value != value:
            value = None   # NaN: missing, in a column of any dtype
        if value is None:
            if old is None:
                raise DTypeError(f"cannot infer a dtype for new {what} from None")
            _refuse_missing_bool(old, what)
            vcol = _convert.nulls_like(old, 1)
        else:
            vcol = _core.column_from_sequence([value])
        vals = None
    else:
        vcol = value if isinstance(value, _core.Column) else \
            (value._col if _base.is_series(value) else _convert.to_column(value))
        if vcol.length != len(pos):
            raise InvalidValueError(
                f"setting {what}: {vcol.length} values for {len(pos)} rows")
        if old is not None and old.dtype == "float32" and vcol.dtype == "float64" and \
                not isinstance(value, list) and not holds_exactly(vcol, "float32"):
            raise DTypeError(f"setting {what}: Invalid value for dtype float32 (float64 values "
                             "it cannot hold exactly; pandas 3 refuses them too)")
        if old is not None and old.dtype == "string" and isinstance(value, list) and \
                vcol.dtype.startswith("float") and vcol.null_count == vcol.length:
            vcol = _convert.nulls_like(old, vcol.length)   # [nan]: missing text, as pandas
        vals = True
    if old is None:
        old = _convert.nulls_like(vcol, n)
    if vcol.dtype != old.dtype:
        vcol = _cast_value(vcol, old.dtype, what)
    idx = np.arange(n, dtype=np.int64)
    if vals is None:
        idx[pos] = n
    else:
        idx[pos] = n + np.arange(len(pos), dtype=np.int64)
    return _core.take(_core.concat([old, vcol]), _core.column_from_buffer(idx))


def _refuse_missing_bool(col, what):
    """pandas 3's TypeError for a missing value set into a bool column that
    holds none (pandas' numpy bool column; one with missing values is
    pandas' object column, which takes more)."""
    if col.dtype == "bool" and not col.null_count:
        raise DTypeError(f"setting {what}: Invalid value 'nan' for dtype bool (a missing value "
                         "in a bool column without missing values; pandas 3 refuses it too)")


def _kind(dtype):
    """"number", "bool", "string", "time" or None (other dtypes) for dtype."""
    if dtype.startswith(("int", "uint", "float")):
        return "number"
    if dtype.startswith(("timestamp", "duration", "date")):
        return "time"
    return dtype if dtype in ("bool", "string") else None


def _is_nat(value):
    return value is not None and type(value).__name__ in ("NaTType", "datetime64",
                                                          "timedelta64") and value != value


def other_time_kind(value, dtype):
    """Whether value is numpy's datetime for a duration column or a zoned
    one (numpy's are naive), or numpy's timedelta for a timestamp one
    (pd.NaT is either)."""
    return (isinstance(value, np.datetime64) and (dtype.startswith("duration") or
                                                  "tz=" in dtype)) or \
        (isinstance(value, np.timedelta64) and dtype.startswith(("timestamp", "date")))


def finer_time_unit(col, x):
    """Time column col in the unit of x (a datetime or timedelta scalar, or
    a time column of col's kind and zone) where x's is the finer one, as
    pandas works (the result keeps the finer unit; a comparison is exact,
    where the engine would round x to col's unit); else col."""
    unit = _dtypes.time_unit(col.dtype)
    column = isinstance(x, _core.Column)
    xunit = _dtypes.time_unit(x.dtype) if column else _dtypes.scalar_unit(x)
    if unit is None or xunit is None or _dtypes.UNIT_RANK[xunit] <= _dtypes.UNIT_RANK[unit]:
        return col
    dtype = col.dtype.replace(f"[{unit}", f"[{xunit}", 1)
    if column and dtype != x.dtype:
        return col
    return _core.cast(col, dtype)


def _cast_value(vcol, dtype, what):
    """vcol as dtype, refusing, as pandas 3 does, a value the column's
    dtype cannot hold: one that the cast would change (a fraction for an
    integer column, a time finer than the column's unit), text in a number or
    bool column, a bool in a number column, a number in a bool or string
    column, times in any of those or they in a time column (text there is
    parsed)."""
    from zambezi.errors import ZambeziError

    have, want = _kind(vcol.dtype), _kind(dtype)
    if have is not None and want is not None and have != want and \
            not (have == "string" and want == "time"):   # text is parsed as times

        raise DTypeError(f"setting {what}: a {vcol.dtype} value cannot be held in a column of "
                         f"dtype {dtype} (pandas 3 refuses it too)")
    try:
        out = _core.cast(vcol, dtype)
    except ZambeziError as e:
        raise DTypeError(f"setting {what}: cannot hold {vcol.dtype} values in a {dtype} "
                         f"column ({e})") from None
    whole = dtype.startswith(("int", "uint")) and vcol.dtype.startswith("float")
    unit, vunit = _dtypes.time_unit(dtype), _dtypes.time_unit(vcol.dtype)
    finer = unit is not None and vunit is not None and \
        _dtypes.UNIT_RANK[vunit] > _dtypes.UNIT_RANK[unit]
    if (whole or finer) and not _same_after(vcol, out):   # the cast must not change a value
        raise DTypeError(f"setting {what}: a {vcol.dtype} value that a {dtype} column "
                         "cannot hold exactly (pandas 3 refuses it too)")
    return out


def _same_after(col, cast):
    """Whether cast (col cast to another dtype) holds col's values exactly."""
    same = _core.binary("eq", _core.cast(cast, col.dtype), col)
    return not _core.unary("invert", _core.fill_null(same, True)).reduce("sum")


def holds_exactly(col, dtype):
    """Whether a dtype column holds every value of col exactly."""
    from zambezi.errors import ZambeziError

    try:
        return _same_after(col, _core.cast(col, dtype))
    except ZambeziError:
        return False


class _ILocIndexer(_Indexer):
    """``.iloc``: rows by position (an int, a slice with any step, a list or
    array of positions, a boolean mask), and for a frame columns by
    position in a pair ``iloc[rows, cols]``."""

    __slots__ = ()
    _name = "iloc"

    def _resolve(self, key):
        obj = self._obj
        if _is_int(key):
            return "one", row_position(key, len(obj), "iloc")
        what = "DataFrame.iloc" if obj._ndim == 2 else f"iloc on {obj._describe()}"
        return "rows", positional_rows(key, len(obj), what)

    def _columns(self, key, create=False):
        names = self._obj._table.names
        m = len(names)
        if _is_int(key):
            return [names[row_position(key, m, "iloc columns")]], True
        if isinstance(key, slice):
            return [names[i] for i in range(*key.indices(m))], False
        if is_mask(key):
            arr = np.asarray(key, dtype=bool)
            if len(arr) != m:
                raise InvalidValueError(f"iloc: a column mask of {len(arr)} for {m} columns")
            return [nm for nm, k in zip(names, arr) if k], False
        return [names[row_position(i, m, "iloc columns")] for i in key], False


class _LocIndexer(_Indexer):
    """``.loc``: rows by label (a label, a list of labels, a slice between
    two labels with both ends included, a boolean mask, a callable), and
    for a frame columns by name in a pair ``loc[rows, cols]``."""

    __slots__ = ()
    _name = "loc"

    def _resolve(self, key):
        return label_rows(self._obj, key)

    def _columns(self, key, create=False):
        df = self._obj
        names = df._table.names
        if isinstance(key, str):
            if key not in names and not create:
                raise df._missing(key)
            return [key], True
        if isinstance(key, slice):
            lo = 0 if key.start is None else _col_pos(df, key.start)
            hi = len(names) - 1 if key.stop is None else _col_pos(df, key.stop)
            return names[lo: hi + 1: key.step or 1], False
        if is_mask(key):
            arr = np.asarray(key.to_numpy() if _base.is_series(key) else key, dtype=bool)
            return [nm for nm, k in zip(names, arr) if k], False
        keys = list(key)
        if not create:
            for k in keys:
                if k not in names:
                    raise df._missing(k)
        return keys, False


    def __setitem__(self, key, value):
        obj = self._obj
        refuse_unordered(key)
        rkey, ckey = self._split(key)
        if callable(rkey):
            rkey = rkey(obj)
        if _is_new_label(obj, rkey):
            _enlarge(obj, rkey, ckey, value)
            return
        super().__setitem__(key, value)


def _is_new_label(obj, key):
    """Whether key is one row label that obj's index lacks (setting it
    through loc appends a row, as pandas does)."""
    from zambezi import index as _ix

    if isinstance(key, slice) or is_mask(key) or isinstance(key, _ix.Index) or \
            _base.is_series(key) or (_is_list_like(key) and not isinstance(key, tuple)):
        return False
    index = obj._index
    if index.nlevels > 1 and not (isinstance(key, tuple) and len(key) == index.nlevels):
        return False
    if isinstance(key, str) and index.nlevels == 1 and index.dtype.startswith("timestamp") \
            and _ix.partial_date_span(index, key) is not None:
        return False
    try:
        return len(index._lookup().positions(key)) == 0
    except (ZambeziError, TypeError, ValueError):  # a label of a type the index lacks
        return True


def _enlarge(obj, label, ckey, value):
    """``obj.loc[label] = value`` for a label obj lacks: obj gains a row
    labelled label at the end (columns not set are missing there), by one
    concat, as pandas appends it."""
    from zambezi import _concat, _labels

    index = _labels.from_list([label], obj._index.names)
    if obj._ndim == 1:
        if _base.is_series(value) or (_is_list_like(value) and not isinstance(value, str)):
            raise InvalidValueError(f"loc: setting the new label {label!r} takes one value")
        col = _convert.nulls_like(obj._col, 1) if value is None else _one_value(value)
        row = obj._constructor._from_column(col, obj._name, index)
    else:
        t = obj._table
        if ckey is None:
            names = list(t.names)
        else:
            names, _ = _LocIndexer(obj)._columns(ckey, create=True)
        if isinstance(value, dict) or _base.is_series(value):
            get = value.get if isinstance(value, dict) else \
                dict(zip(value.index.to_list(), value.to_list())).get
            values = [get(nm) for nm in names]
        else:
            values = [v.to_pylist()[0] if isinstance(v, _core.Column) else v
                      for v in _per_column_values(value, len(names), 1)]
        cols = []
        for nm, v in zip(names, values):
            if _is_list_like(v) and not isinstance(v, str):
                v = list(v)
                if len(v) != 1:
                    raise InvalidValueError(
                        f"loc: setting the new label {label!r}: {len(v)} values for "
                        f"column {nm!r}, one row")
                v = v[0]
            if v is None:
                if nm not in t.names:
                    raise DTypeError(f"cannot infer a dtype for new column {nm!r} from None")
                cols.append(_convert.nulls_like(t.column(t.names.index(nm)), 1))
            else:
                cols.append(_one_value(v))
        row = obj._constructor._wrap(_core.table_from_columns(cols, names), index)
    obj._take_over(_concat.concat([obj, row]))


def _one_value(value):
    from zambezi._dtypes import py_scalar

    return _core.column_from_sequence([py_scalar(value)])


def _col_pos(df, name):
    names = df._table.names
    if name not in names:
        raise df._missing(name)
    return names.index(name)


class _AtIndexer(_LocIndexer):
    """``.at``: one value by label (``s.at[label]``, ``df.at[label, col]``)."""

    __slots__ = ()
    _name = "at"

    def __getitem__(self, key):
        obj = self._obj
        if obj._ndim == 2 and not (isinstance(key, tuple) and len(key) == 2):
            raise InvalidValueError("DataFrame.at takes a (row label, column) pair")
        out = super().__getitem__(key)
        if isinstance(out, _base.NDFrame):
            raise InvalidValueError(f"at: {key!r} names {len(out)} values, not one")
        return out


class _IAtIndexer(_ILocIndexer):
    """``.iat``: one value by position."""

    __slots__ = ()
    _name = "iat"


def label_rows(obj, key):
    """('one', position) for a scalar label held by one row, else ('rows',
    selection) for the rows a label key names (pandas' loc rules)."""
    from zambezi import index as _ix

    index = obj._index
    n = len(obj)
    if isinstance(key, slice):
        return "rows", _label_slice(index, key, n)
    if is_mask(key):
        return "rows", filter_rows(aligned_mask(obj, key, "loc[mask]"))
    if isinstance(key, _ix.Index) or _base.is_series(key) or \
            (_is_list_like(key) and not isinstance(key, tuple)):
        labels = key.to_list() if hasattr(key, "to_list") else list(key)
        pos = _ix.all_positions(index, labels)
        return "rows", take_rows(_core.column_from_buffer(pos))
    if isinstance(key, str) and index.nlevels == 1 and index.dtype.startswith("timestamp"):
        span = _ix.partial_date_span(index, key)
        if span is not None:
            return "rows", span
    if isinstance(key, tuple) and 1 < index.nlevels and len(key) <= index.nlevels and \
            any(_level_pick(k) for k in key):
        return "rows", _multi_rows(index, key, n)
    pos = index._lookup().positions(key)
    if len(pos) == 0:
        raise _ix.IndexKeyError(f"{key!r} is not in the index")
    if len(pos) == 1 and not (index.nlevels > 1 and isinstance(key, tuple)
                              and len(key) < index.nlevels) and not (
            index.nlevels > 1 and not isinstance(key, tuple)):
        return "one", int(pos[0])
    return "rows", take_rows(_core.column_from_buffer(pos))


def _level_pick(k):
    """A MultiIndex key item that picks several labels of its level."""
    return isinstance(k, slice) or (_is_list_like(k) and not isinstance(k, tuple))


def _multi_rows(index, key, n):
    """The rows of a MultiIndex that a tuple with slices or lists names
    (pandas' ``loc[pd.IndexSlice[...]]``): per level a label, a slice of
    labels (both ends included, compared by value: pandas asks for a sorted
    index there) or a list of labels.  Rows come in index order, except
    that lists order them by their own order, as pandas: the rows sort by
    the key's levels in turn, a list's level by the list's order, a level
    sliced between labels by index order (which decides the rest), and a
    label or a whole level not at all.  Levels are kept here (the caller
    drops those pandas drops)."""
    from zambezi import index as _ix

    series = _base.series_class()
    mask, ranks = None, {}
    levels = [series._from_column(c, None, _ix.default_index(n)) for c in index._levels()]
    for lvl, k in enumerate(key):
        if isinstance(k, slice) and k == slice(None):
            continue
        s = levels[lvl]
        if isinstance(k, slice):
            if k.step is not None:
                raise UnsupportedError(f"loc: a slice of level {lvl} with a step ({k!r})")
            lo = None if k.start is None else s >= k.start
            hi = None if k.stop is None else s <= k.stop
            m = hi if lo is None else lo if hi is None else lo & hi
        elif _level_pick(k):
            labels = list(k.to_list() if hasattr(k, "to_list") else k)
            m = s.isin(labels)
            first = {}
            for i, v in enumerate(labels):  # a repeated label keeps its first place
                first.setdefault(v, i)
            ranks[lvl] = s.map(first)
        else:
            m = s == k
        mask = m if mask is None else mask & m
    if mask is None:
        return slice_rows(0, n)
    pos = np.flatnonzero(mask.fillna(False).to_numpy(dtype=bool))
    if len(pos) == 0:
        raise _ix.IndexKeyError(f"{key!r} is not in the index")
    if ranks:
        keys = []
        for lvl, k in enumerate(key):
            if lvl in ranks:
                keys.append(ranks[lvl].to_numpy(dtype=np.int64, na_value=-1)[pos])
            elif isinstance(k, slice) and k != slice(None):
                keys.append(pos)  # index order from here on
                break
        pos = pos[np.lexsort(keys[::-1])]  # stable; numpy's takes the last key first
    return take_rows(_convert.to_column(pos.astype(np.int64)))


def _label_slice(index, key, n):
    """The rows between two labels, both included (pandas' loc slice)."""
    from zambezi import index as _ix

    if key.step is not None and not _is_int(key.step):
        raise InvalidValueError(f"loc: a slice step must be an int, not {key.step!r}")
    picked = _ix.unsorted_time_slice(index, key.start, key.stop)
    if picked is not None:   # not increasing: the rows between the dates, by value
        if key.step is not None:
            picked = picked[::key.step]
        if len(picked) == n:
            return slice_rows(0, n)
        return take_rows(_convert.to_column(picked.astype(np.int64)))
    lo, hi = _ix.label_bounds(index, key.start, key.stop)
    rows = slice_rows(lo, max(hi - lo, 0))
    if key.step not in (None, 1):
        return row_slice(slice(lo, hi, key.step), n, "loc")
    return rows
