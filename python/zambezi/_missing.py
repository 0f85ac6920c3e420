"""Missing values on Series and DataFrame, as pandas 3 has them: isna /
notna, fillna, ffill / bfill and dropna (the ``SeriesMissing`` and
``FrameMissing`` mixins).

A value is missing when it is null, or NaN in a float column (pandas counts
NaN as missing; zambezi reads a NaN from Python, numpy or pandas as a null,
but arithmetic such as ``0.0 / 0`` still makes NaN values).  Each method is
a few engine calls per column, with the GIL released: ffill / bfill one
``fill_scan`` (a morsel-parallel scan on the CPU, a CUB scan on the GPU,
then a take), fillna a fill or a where, dropna one mask and one filter.
Nothing here loops over rows.

Differences from pandas, on purpose:

- A frame-wide scalar fills only the columns whose dtype can hold it (a
  str fills string and categorical columns, a number numeric ones ...);
  pandas also fills the others, turning them into object columns.
- ``DataFrame.fillna(other_frame)`` leaves the columns other_frame lacks
  as they are (pandas turns them into object columns).
- A non-scalar fill value for a categorical column, and
  ``DataFrame.ffill / bfill(axis=1)``, raise UnsupportedError.
- ``dropna(inplace=True)`` (deprecated in pandas 3.1) changes the object
  and gives None, with pandas' deprecation warning; fillna, ffill, bfill
  and interpolate take ``inplace=True`` and give the object, as pandas 3.1.
"""

import operator

import numpy as np

from zambezi import _base, _convert, _core, _dtypes, _indexing, _labels
from zambezi._compute import _missing_mask, refuse_finer_unit
from zambezi._dtypes import is_scalar, py_scalar
from zambezi.errors import (
    DTypeError,
    InvalidValueError,
    UnsupportedError,
    ZambeziError,
)

_FLOATS = ("float32", "float64")




# --------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------

def _axis_number(obj, axis):
    """0 or 1 for pandas' axis names (None is 0); a Series has only 0."""
    names = {0: 0, "index": 0, "rows": 0}
    if obj._ndim == 2:
        names.update({1: 1, "columns": 1})
    if axis is None:
        return 0
    try:
        return names[axis]
    except (KeyError, TypeError):
        kind = "DataFrame" if obj._ndim == 2 else "Series"
        raise InvalidValueError(f"No axis named {axis!r} for object type {kind}") from None


def _check_limit(limit):
    """limit as an int > 0, or None (pandas' messages)."""
    if limit is None:
        return None
    if isinstance(limit, bool):
        raise InvalidValueError("Limit must be an integer")
    try:
        limit = operator.index(limit)
    except TypeError:
        raise InvalidValueError("Limit must be an integer") from None
    if limit <= 0:
        raise InvalidValueError("Limit must be greater than 0")
    return limit


def _finish(obj, data, inplace):
    """The result over engine data with obj's rows; with inplace, obj
    itself takes the data and is returned (as pandas 3.1 does)."""
    if not inplace:
        return obj._like(data)
    if obj._ndim == 1:
        obj._col = data
    else:
        obj._table = data
    return obj


def _renumbered(obj, data):
    """A result over engine data numbered 0..n-1 (ignore_index=True)."""
    if obj._ndim == 1:
        return obj._constructor._from_engine(data, obj._name)
    return obj._constructor._from_engine(data)


def _value_type_error(value, allowed):
    return DTypeError(f'"value" parameter must be {allowed}, but you passed a '
                      f'"{type(value).__name__}"')


# --------------------------------------------------------------------------
# filling one column
# --------------------------------------------------------------------------

def _limit_cut(col, limit):
    """The row where fillna's limit stops (the (limit + 1)-th missing row),
    or None when the limit does not stop anything."""
    if limit is None:
        return None
    missing = np.flatnonzero(_convert.to_numpy(_missing_mask(col)))
    return int(missing[limit]) if missing.size > limit else None


def _limited(col, limit, fill):
    """fill(rows, cut) on the rows before fillna's limit stops (cut: their
    number, None for all), the rows from there on as they are."""
    cut = _limit_cut(col, limit)
    if cut is None:
        return fill(col, None)
    head = fill(col.slice(0, cut), cut)
    return _core.concat([head, col.slice(cut, col.length - cut)])


def _fill_scalar(col, value):
    """col with its missing values (nulls; NaN in floats) set to value."""
    if col.dtype in _FLOATS and value is not None and not isinstance(value, str):
        # one where also covers NaN values, on any device
        return _core.column_where(col, _core.unary("invert", _missing_mask(col)), value)
    if col.dtype == "category" and value is not None:
        from zambezi import _categorical  # the value's code, through the codes

        if col.dictionary.dtype != "string":
            return _categorical.fill_value(col, value)
        # text categories fill in the engine; a value that is not one of
        # them is pandas' TypeError
        _categorical.check_category(col, value)
    return _core.fill_null(col, value)


def _as_dtype(other, col, what):
    """other converted to col's dtype for filling col's missing rows
    (pandas keeps the dtype of the filled column)."""
    dt = col.dtype
    if dt == "category":
        return _as_categories(other, col, what)
    if other.dtype == dt:
        return other
    if other.dtype in _FLOATS and (dt.startswith(("int", "uint")) or dt == "bool"):
        # pandas refuses values that the integer dtype cannot hold exactly
        vals = _convert.values_numpy(other if other.device == "cpu" else
                                     other.to_device("cpu"))
        used = (_convert.to_numpy(_missing_mask(col)).astype(bool)
                & ~_convert.to_numpy(_missing_mask(other)).astype(bool))
        with np.errstate(invalid="ignore"):
            bad = used & (vals != np.trunc(vals))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DTypeError(f"{what}: row {i} of the fill values holds {float(vals[i])!r}, "
                             f"which a {dt} column cannot hold")
    try:
        return _core.cast(other, dt)
    except ZambeziError as e:
        raise type(e)(f"{what}: the fill values ({other.dtype}) as {dt}: {e}") from None


def _as_categories(other, col, what):
    """other's values as codes of categorical col's categories; a value
    that is none of them, where it would fill a row, raises as pandas
    ("Cannot setitem on a Categorical with a new category")."""
    from zambezi import _categorical
    from zambezi._concat import _same_categories

    if other.dtype == "category" and not _same_categories([col, other]):
        raise DTypeError(f"{what}: Cannot set a Categorical with another, without identical "
                         "categories")
    if other.dtype != "category":
        try:
            other = _core.cast(other, "category")
        except ZambeziError:
            raise DTypeError(f"{what}: fill values of dtype {other.dtype} for a categorical "
                             "column") from None
    host = col if col.device == "cpu" else col.to_device("cpu")
    out = _categorical.recode(other, host.dictionary, ordered=host.ordered)
    lost = (_convert.to_numpy(_missing_mask(col)).astype(bool)
            & ~_convert.to_numpy(_missing_mask(other)).astype(bool)
            & _convert.to_numpy(_missing_mask(out)).astype(bool))
    if lost.any():
        raise DTypeError(f"{what}: Cannot setitem on a Categorical with a new category, "
                         f"set the categories first (row {int(np.flatnonzero(lost)[0])})")
    return out


def _refuse_mix(col, value, what):
    """A fill value pandas would keep beside the column's values in an
    object column (a bool for numbers, a number for bools or times), or a
    time finer than the column's, is refused; a column without missing
    values takes any value (pandas leaves it as it is)."""
    try:
        _dtypes.refuse_kind_mix(col.dtype, value, what)
        refuse_finer_unit(col, value, what)
    except DTypeError:
        if _missing_mask(col).reduce("sum"):
            raise


def _fill_from(col, other, what):
    """col with its missing rows taken from other (same length)."""
    other = _as_dtype(other, col, what)
    if col.dtype == "category":   # codes of one set of categories: chosen as numbers
        from zambezi._frame_extra import _category_codes, _codes_where

        codes = _category_codes(col)
        return _codes_where(codes >= 0, col, _category_codes(other))
    return _core.column_where(col, _core.unary("invert", _missing_mask(col)), other)


def _may_label(kind, key):
    """Whether a dict key can be a label of an index of dtype kind (a key
    of another kind labels no row: pandas' reindex skips it)."""
    if kind.startswith(("int", "uint", "float")):
        return isinstance(key, (int, float, np.integer, np.floating)) and not isinstance(
            key, (bool, np.bool_))
    if kind == "string":
        return isinstance(key, str)
    return True


def _other_column(value, s):
    """The engine column of len(s) rows a Series, pandas Series or dict fill
    value gives, aligned on s's row labels as pandas reindexes it (a label
    the value lacks fills nothing; the value's own other labels are
    ignored), or None when it fills nothing."""
    from zambezi import _align

    Series = type(s)   # a Series class of zambezi (the base class builds it)
    device = s._col.device
    if isinstance(value, dict):
        kind = str(s._index.dtype) if s._index.nlevels == 1 else ""
        items = [(k, py_scalar(v)) for k, v in value.items() if _may_label(kind, k)]
        if not items:
            return None
        value = Series([v for _, v in items], index=[k for k, _ in items])
    elif not _base.is_series(value):   # a pandas Series
        value = Series(value)
    if not _align.same_labels(value._index, s._index):
        if value._index.nlevels == s._index.nlevels == 1 and not _may_label(
                str(s._index.dtype), value._index[0] if len(value._index) else None):
            return None   # labels of another kind (numbers for text): no row matches
        value = value.reindex(s._index)
    col = value._col
    if col.length == 0:
        return None
    return col if col.device == device else col.to_device(device)


def _fill_value(s, value, limit):
    """The engine column of Series s filled with value (a scalar, dict or
    Series), up to limit missing rows."""
    col = s._col
    what = f"fillna on {s._describe()}"
    try:
        if is_scalar(value):
            v = py_scalar(value)
            if v is None:
                return col
            _refuse_mix(col, v, what)
            return _limited(col, limit, lambda c, cut: _fill_scalar(c, v))
        if not (isinstance(value, dict) or _base.is_series(value)
                or _convert._is_pandas(value, "Series")):
            allowed = ("a scalar, dict or Series" if _base.is_frame(value)
                       or _convert._is_pandas(value, "DataFrame") else "a scalar or dict")
            raise _value_type_error(value, allowed)
        other = _other_column(value, s)
        if other is None:
            return col
        _refuse_mix(col, other, what)
        return _limited(col, limit, lambda c, cut: _fill_from(
            c, other if cut is None else other.slice(0, cut), what))
    except ZambeziError as e:
        if str(e).startswith(what):
            raise
        raise type(e)(f"{what}: {e}") from None


# --------------------------------------------------------------------------
# Series
# --------------------------------------------------------------------------

class SeriesMissing:
    """isna / notna, fillna, ffill / bfill and dropna of zambezi.Series (a
    mixin)."""

    __slots__ = ()

    def isna(self):
        """bool Series: True where the value is missing (null, or NaN in a
        float column, as pandas counts it).

        Examples
        --------
        >>> zb.Series([1.5, None, 3.0]).isna()
        0    False
        1     True
        2    False
        dtype: bool
        """
        return self._like(_missing_mask(self._col))

    isnull = isna

    def notna(self):
        """bool Series: the negation of isna().

        Examples
        --------
        >>> zb.Series(["a", None]).notna().to_list()
        [True, False]
        """
        return self._like(_core.unary("invert", _missing_mask(self._col)))

    notnull = notna

    def fillna(self, value, *, axis=None, inplace=False, limit=None):
        """The Series with missing values (nulls, and NaN in float columns)
        replaced by value: a scalar, converted to the Series' dtype (an
        integer column refuses a non-integral float, a categorical a value
        that is not a category, as pandas does); or a Series or dict giving
        a value per row (dict keys and a pandas Series' index are row
        labels, 0..n-1 here; rows it has no value for stay missing).
        limit: fill only the first limit missing values.  None fills
        nothing.  pandas 3 removed ``method=``: use ffill() / bfill().
        inplace=True changes the Series and returns it.

        Examples
        --------
        >>> zb.Series([1, None, 3]).fillna(0)
        0    1
        1    0
        2    3
        dtype: int64
        >>> zb.Series(["a", None]).fillna("?").to_list()
        ['a', '?']
        >>> zb.Series([None, 2.0, None]).fillna(0.5, limit=1).to_list()
        [0.5, 2.0, None]
        >>> zb.Series([None, 2, None]).fillna(zb.Series([7, 8, 9])).to_list()
        [7, 2, 9]
        """
        _axis_number(self, axis)
        limit = _check_limit(limit)
        inplace = _base.check_inplace(inplace)
        return _finish(self, _fill_value(self, value, limit), inplace)

    def _fill_scan(self, backward, axis, inplace, limit, limit_area):
        _axis_number(self, axis)
        limit = _check_limit(limit)
        inplace = _base.check_inplace(inplace)
        if limit_area not in (None, "inside", "outside"):
            raise InvalidValueError(
                f"limit_area must be None, 'inside' or 'outside', not {limit_area!r}")
        return _finish(self, _core.fill_scan(self._col, backward, limit, limit_area), inplace)

    def ffill(self, *, axis=None, inplace=False, limit=None, limit_area=None):
        """Missing values (nulls, NaN) filled with the last valid value
        before them, for every dtype.  limit: at most that many
        consecutive missing values filled in each run; limit_area='inside'
        fills only missing values with valid ones on both sides, 'outside'
        only those after the last valid value.  inplace=True changes the
        Series and returns it.  Runs in the engine: a parallel scan of
        the last valid row, then one gather.

        Examples
        --------
        >>> s = zb.Series([None, 1.0, None, None, 4.0, None])
        >>> s.ffill().to_list()
        [None, 1.0, 1.0, 1.0, 4.0, 4.0]
        >>> s.ffill(limit=1).to_list()
        [None, 1.0, 1.0, None, 4.0, 4.0]
        >>> s.ffill(limit_area="inside").to_list()
        [None, 1.0, 1.0, 1.0, 4.0, None]
        >>> zb.Series(["a", None, "b", None]).ffill().to_list()
        ['a', 'a', 'b', 'b']
        """
        return self._fill_scan(False, axis, inplace, limit, limit_area)

    @_base.takes_inplace(deprecated=False)
    def interpolate(self, method="linear", *, axis=0, limit=None,
                    limit_direction=None, limit_area=None, **kwargs):
        """Missing values of a number Series filled by linear interpolation
        between the valid values around them, as pandas: over the row
        positions (method "linear"), the numeric labels ("index",
        "values") or the times of a datetime index ("time"); with pandas'
        limit, limit_direction ("forward" by default: missing values
        before the first valid one stay missing) and limit_area (see
        zambezi._interpolate).

        Examples
        --------
        >>> s = zb.Series([None, 1.0, None, None, 4.0, None])
        >>> s.interpolate().to_list()
        [None, 1.0, 2.0, 3.0, 4.0, 4.0]
        >>> s.interpolate(limit=1, limit_direction="both").to_list()
        [1.0, 1.0, 2.0, 3.0, 4.0, 4.0]
        >>> s.interpolate(limit_area="inside").to_list()
        [None, 1.0, 2.0, 3.0, 4.0, None]
        """
        from zambezi import _interpolate as ip

        _axis_number(self, axis)
        limit, direction = ip.check_args(method, limit, limit_direction, limit_area, kwargs)
        col = self._col if self._col.device == "cpu" else self._col.to_device("cpu")
        out = ip.interpolate_column(col, ip.positions(self, method), limit, direction,
                                    limit_area, self._describe())
        return self._like(out.to_device(self._col.device) if out is not col else self._col)

    def bfill(self, *, axis=None, inplace=False, limit=None, limit_area=None):
        """Missing values (nulls, NaN) filled with the next valid value
        after them (see ffill; limit_area='outside' fills only those
        before the first valid value).

        Examples
        --------
        >>> s = zb.Series([None, 1, None, None, 4, None])
        >>> s.bfill()
        0       1
        1       1
        2       4
        3       4
        4       4
        5    <NA>
        dtype: int64
        >>> s.bfill(limit=1).to_list()
        [1, 1, None, 4, 4, None]
        """
        return self._fill_scan(True, axis, inplace, limit, limit_area)

    @_base.takes_inplace(deprecated=True)
    def dropna(self, *, axis=0, how=None, ignore_index=False):
        """The Series without its missing values (nulls, NaN).  how is
        not used (as in pandas).  ignore_index=True numbers the rows from
        0.  inplace=True (deprecated by pandas 3.1, which warns) changes
        this Series and gives None.

        Examples
        --------
        >>> zb.Series([1, None, 3]).dropna()
        0    1
        2    3
        dtype: int64
        """
        _axis_number(self, axis)
        _base.check_bool(ignore_index, "ignore_index")
        rows = _indexing.filter_rows(_core.unary("invert", _missing_mask(self._col)))
        if ignore_index:
            return _renumbered(self, rows.apply(self._col))
        return self._select_rows(rows)


# --------------------------------------------------------------------------
# DataFrame
# --------------------------------------------------------------------------

def _fill_applies(dtype, value):
    """Whether a frame-wide fillna scalar is meant for a column of dtype."""
    import datetime

    if value is None:
        return False
    if isinstance(value, str):
        return dtype in ("string", "category")
    if isinstance(value, bool):
        return dtype == "bool"
    if isinstance(value, int):
        return dtype not in ("string", "category", "date32", "bool") and not \
            dtype.startswith(("timestamp", "duration"))
    if isinstance(value, float):
        return dtype in _FLOATS or (
            dtype.startswith(("int", "uint")) and float(value).is_integer())
    if isinstance(value, datetime.datetime):
        return dtype.startswith("timestamp")
    if isinstance(value, datetime.date):
        return dtype == "date32"
    if isinstance(value, datetime.timedelta):
        return dtype.startswith("duration")
    return False


def _labels_and_values(series):
    """(labels, values) of a zambezi or pandas Series used as a fill
    mapping column label -> value (its row labels; 0..n-1 without an
    index)."""
    if _convert._is_pandas(series, "Series"):
        return list(series.index), list(series)
    index = getattr(series, "index", None)
    labels = list(index) if index is not None else list(range(len(series)))
    return labels, series.to_list()


class FrameMissing:
    """isna / notna, fillna, ffill / bfill and dropna of zambezi.DataFrame
    (a mixin)."""

    __slots__ = ()

    def _map_columns(self, fn):
        t = self._table
        names = t.names
        return self._like(_core.table_from_columns(
            [fn(t.column(i), nm) for i, nm in enumerate(names)], names))

    def isna(self):
        """bool DataFrame: True where the value is missing (null, or NaN in
        a float column), column by column.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None], "b": ["x", None], "c": [0.5, 1.5]})
        >>> df.isna()
              a     b      c
           bool  bool   bool
        0  False  False  False
        1   True   True  False
        <BLANKLINE>
        [2 rows x 3 columns]
        """
        return self._map_columns(lambda c, nm: _missing_mask(c))

    isnull = isna

    def notna(self):
        """bool DataFrame: the negation of isna().

        Examples
        --------
        >>> zb.DataFrame({"a": [1, None], "b": ["x", "y"]}).notna().to_dict("list")
        {'a': [True, False], 'b': [True, True]}
        """
        return self._map_columns(lambda c, nm: _core.unary("invert", _missing_mask(c)))

    notnull = notna

    def fillna(self, value, *, axis=None, inplace=False, limit=None):
        """Missing values (nulls, NaN) filled.  value: a scalar, applied to
        the columns whose dtype can hold it (a str to string and
        categorical columns, a number to numeric ones ...; pandas would
        also fill the others, turning them into object columns); a dict
        {column: value} or a Series (index: column labels), other columns
        unchanged and labels that are no column ignored (as pandas); or a
        DataFrame, filling each column from its namesake row by row.  limit:
        at most that many missing values filled per column.  axis=1 takes
        only a scalar without limit.  None fills nothing.  pandas 3 removed
        ``method=``: use ffill() / bfill().  inplace=True changes the frame
        and returns it.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None, None], "b": ["x", None, "z"]})
        >>> df.fillna(0).to_dict("list")
        {'a': [1, 0, 0], 'b': ['x', None, 'z']}
        >>> df.fillna({"a": -1, "b": "?"}).to_dict("list")
        {'a': [1, -1, -1], 'b': ['x', '?', 'z']}
        >>> df.fillna({"a": 0}, limit=1).to_dict("list")
        {'a': [1, 0, None], 'b': ['x', None, 'z']}
        """
        axis = _axis_number(self, axis)
        limit = _check_limit(limit)
        inplace = _base.check_inplace(inplace)
        t = self._table
        names = t.names
        if axis == 1 and not (is_scalar(value) and limit is None):
            raise UnsupportedError(
                "DataFrame.fillna(axis=1) takes only a scalar value without limit")
        if value is None:
            return _finish(self, t, inplace)
        # items is keyed by column label (an int label 0 is the column "0")
        labels = _labels.label_list(self)
        if is_scalar(value):
            v = py_scalar(value)
            items = {lb: v for i, lb in enumerate(labels) if _fill_applies(t.column(i).dtype, v)}
        elif isinstance(value, dict):
            items = value
        elif _base.is_series(value) or _convert._is_pandas(value, "Series"):
            items = dict(zip(*_labels_and_values(value)))
        elif _base.is_frame(value) or _convert._is_pandas(value, "DataFrame"):
            have = list(value.columns)
            items = {lb: value[lb] for lb in labels if lb in have}
        else:
            raise _value_type_error(value, "a scalar or dict")
        cols = []
        for i, (nm, lb) in enumerate(zip(names, labels)):
            col = t.column(i)
            if lb in items:
                col = _fill_value(self._sliced(col, nm), items[lb], limit)
            cols.append(col)
        return _finish(self, _core.table_from_columns(cols, names), inplace)

    def _fill_scan(self, backward, axis, inplace, limit, limit_area):
        if _axis_number(self, axis) == 1:
            raise UnsupportedError(
                f"DataFrame.{'bfill' if backward else 'ffill'}(axis=1) (along each row, across "
                "columns) is not supported; fill each column (axis=0)")
        limit = _check_limit(limit)
        inplace = _base.check_inplace(inplace)
        if limit_area not in (None, "inside", "outside"):
            raise InvalidValueError(
                f"limit_area must be None, 'inside' or 'outside', not {limit_area!r}")
        t = self._table
        cols = [_core.fill_scan(t.column(i), backward, limit, limit_area)
                for i in range(t.num_columns)]
        return _finish(self, _core.table_from_columns(cols, t.names), inplace)

    def ffill(self, *, axis=None, inplace=False, limit=None, limit_area=None):
        """Each column's missing values (nulls, NaN) filled with the last
        valid value above them (see Series.ffill).  axis=1 (across
        columns) is not supported.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None, None], "b": [None, "y", None]})
        >>> df.ffill()
               a       b
           int64  string
        0      1    <NA>
        1      1       y
        2      1       y
        <BLANKLINE>
        [3 rows x 2 columns]
        >>> df.ffill(limit=1).to_dict("list")
        {'a': [1, 1, None], 'b': [None, 'y', 'y']}
        """
        return self._fill_scan(False, axis, inplace, limit, limit_area)

    @_base.takes_inplace(deprecated=False)
    def interpolate(self, method="linear", *, axis=0, limit=None,
                    limit_direction=None, limit_area=None, **kwargs):
        """Each number column interpolated as Series.interpolate does
        (pandas' methods "linear", "index", "values", "time", limit,
        limit_direction, limit_area); a column of text or other kinds
        raises TypeError, as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1.0, None, 3.0], "b": [None, 2.0, None]})
        >>> df.interpolate().to_dict("list")
        {'a': [1.0, 2.0, 3.0], 'b': [None, 2.0, 2.0]}
        """
        from zambezi import _interpolate as ip

        if _axis_number(self, axis) != 0:
            raise UnsupportedError("interpolate(axis=1) is not supported")
        limit, direction = ip.check_args(method, limit, limit_direction, limit_area, kwargs)
        t = self._table
        if t.device != "cpu":
            t = t.to_device("cpu")
        x = ip.positions(self, method)
        cols = [ip.interpolate_column(t.column(i), x, limit, direction, limit_area,
                                      f"column {nm!r}") for i, nm in enumerate(t.names)]
        out = _core.table_from_columns(cols, list(t.names))
        return self._like(out if self._table.device == "cpu" else out.to_device(
            self._table.device))

    def bfill(self, *, axis=None, inplace=False, limit=None, limit_area=None):
        """Each column's missing values (nulls, NaN) filled with the next
        valid value below them (see Series.bfill).  axis=1 (across
        columns) is not supported.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [None, None, 3], "b": [None, "y", None]})
        >>> df.bfill().to_dict("list")
        {'a': [3, 3, 3], 'b': ['y', 'y', None]}
        """
        return self._fill_scan(True, axis, inplace, limit, limit_area)

    @_base.takes_inplace(deprecated=True)
    def dropna(self, *, axis=0, how=_base.NO_DEFAULT, thresh=_base.NO_DEFAULT, subset=None,
               ignore_index=False):
        """Rows (axis=0) or columns (axis=1) with missing values (nulls,
        NaN) dropped.  how='any' (the default) drops those with any
        missing value, how='all' those with nothing but; thresh=k keeps
        those with at least k values instead (how and thresh together
        raise TypeError, as in pandas).  subset: the columns to look at
        (axis=0), or the row labels (axis=1).  ignore_index=True numbers
        the rows from 0.  inplace=True (deprecated by pandas 3.1, which
        warns) changes this frame and gives None.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None, None], "b": ["x", "y", None]})
        >>> df.dropna()
               a       b
           int64  string
        0      1       x
        <BLANKLINE>
        [1 rows x 2 columns]
        >>> len(df.dropna(how="all")), len(df.dropna(subset=["b"])), len(df.dropna(thresh=1))
        (2, 2, 2)
        >>> df.dropna(axis=1, thresh=2).columns.to_list()
        ['b']
        """
        if how is not _base.NO_DEFAULT and thresh is not _base.NO_DEFAULT:
            raise DTypeError("You cannot set both the how and thresh arguments at the same time.")
        if how is _base.NO_DEFAULT:
            how = "any"
        if how not in ("any", "all"):
            raise InvalidValueError(f"invalid how option: {how}")
        if thresh is not _base.NO_DEFAULT:
            if isinstance(thresh, bool) or not isinstance(thresh, (int, float, np.number)):
                raise DTypeError(f"thresh must be a number, not {type(thresh).__name__}")
            thresh = py_scalar(thresh)
        else:
            thresh = None
        axis = _axis_number(self, axis)
        if isinstance(subset, str) or (subset is not None and is_scalar(subset)):
            subset = [subset]
        elif subset is not None:
            subset = list(subset)
        if axis == 1:
            return self._drop_columns(how, thresh, subset)
        t = self._table
        names = t.names
        if subset is not None:
            subset = _labels.to_names(self, subset)  # labels (an int 0 too) as table names
            missing = [c for c in subset if c not in names]
            if missing:
                raise self._missing(missing[0] if len(missing) == 1 else missing)
            cols = [t.column(names.index(c)) for c in subset]
        else:
            cols = [t.column(i) for i in range(t.num_columns)]
        keep = _rows_to_keep(cols, len(self), how, thresh)
        if keep is None:
            return _renumbered(self, t) if ignore_index else self._like(t)
        rows = (_indexing.slice_rows(0, 0) if keep is False else _indexing.filter_rows(keep))
        if ignore_index:
            return _renumbered(self, rows.apply(t))
        return self._select_rows(rows)

    def _drop_columns(self, how, thresh, subset):
        """dropna(axis=1): the columns with enough values among the rows of
        subset (row labels; all rows when None)."""
        from zambezi import index as _ix

        t = self._table
        rows = None
        if subset is not None:
            pos = _ix.all_positions(self._index, list(subset))
            rows = _indexing.take_rows(_core.column_from_buffer(pos))
        keep = []
        for i, nm in enumerate(t.names):
            col = t.column(i)
            if rows is not None:
                col = rows.apply(col)
            count = col.length - _missing_mask(col).reduce("sum")
            if thresh is not None:
                ok = count >= thresh
            elif how == "all":
                ok = count > 0
            else:
                ok = count == col.length
            if ok:
                keep.append(nm)
        return self._select_columns(keep)


def _rows_to_keep(cols, n, how, thresh):
    """The bool column of the rows dropna keeps, given the columns to look
    at; None: every row, False: none."""
    if not cols:
        if thresh is not None:
            return None if thresh <= 0 else False
        return None if how == "any" else False
    valid = [_core.unary("invert", _missing_mask(c)) for c in cols]
    if thresh is not None:
        # the number of values in each row, summed in the engine
        count = _core.cast(valid[0], "int64")
        for v in valid[1:]:
            count = _core.binary("add", count, v)
        return _core.binary_scalar("ge", count, thresh, False)
    op = "and" if how == "any" else "or"
    keep = valid[0]
    for v in valid[1:]:
        keep = _core.binary(op, keep, v)
    return keep
