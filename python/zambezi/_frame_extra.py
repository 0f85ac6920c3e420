"""The DataFrame methods a pandas user reaches for next, on top of the
engine's operations (the ``FrameExtra`` mixin), and the helpers that the
Series counterparts in zambezi.accessors share:

- columns: ``df.fare`` (a column by attribute), ``del df[c]``, ``insert``,
  ``pop``;
- ``query`` and ``eval`` over the expressions of zambezi._expr;
- ``sample`` (the rows pandas picks for the same ``random_state``);
- elementwise, column by column: ``round``, ``clip``, ``abs``, ``where``,
  ``mask``, ``replace``, ``isin``, and ``select_dtypes``;
- ``apply`` (a function per column), ``pipe``.

Each works column by column through the Series operations (one engine call
per column and operation) or selects rows with one engine call; nothing
here loops over rows.  The differences from pandas listed in
zambezi._compute hold here too.  Others, on purpose:

- ``insert(..., allow_duplicates=True)`` with a name already there raises:
  a frame's column names are unique.
- ``apply``: ``axis=1`` (a function per row) is not supported.
- ``replace`` with a value a column's dtype cannot hold (a str into an
  integer column) raises DTypeError (pandas makes the column object);
  ``replace(x, None)`` makes nulls, and an integer column stays integer
  (pandas makes an int64 or str column object).  A categorical column
  keeps its categories, and a value that is not one raises, as in pandas.
- ``select_dtypes``: pandas' masked names (``"Int64"``, ``"boolean"``,
  ``"Float64"``...) select the zambezi dtype of the same width, whether or
  not the column has nulls (pandas selects them only in columns it shows
  as masked: integer and bool columns with missing values).
- ``query(..., inplace=True)`` changes the frame and gives None, with
  pandas 3.1's deprecation warning; ``eval``, ``replace``, ``clip``,
  ``where`` and ``mask`` take ``inplace=True`` too.
"""

import datetime
import re

import numpy as np

from zambezi import _align, _base, _categorical, _convert, _core, _dtypes, _expr, _indexing, _labels
from zambezi import _numba
from zambezi import index as _ix
from zambezi._compute import _missing_mask, _engine_error
from zambezi._dtypes import FLOATS as _FLOATS, is_missing_scalar, is_scalar, py_scalar
from zambezi._frame_ops import _frame_value_column
from zambezi.errors import (
    DTypeError,
    InvalidValueError,
    UnsupportedError,
    ZambeziError,
    ZambeziIndexError,
)


_INTS = ("int8", "int16", "int32", "int64")
_UINTS = ("uint8", "uint16", "uint32", "uint64")


def _is_number_dtype(dtype):
    return dtype in _INTS or dtype in _UINTS or dtype in _FLOATS


# --------------------------------------------------------------------------
# pipe
# --------------------------------------------------------------------------

def pipe(obj, func, args, kwargs):
    """``func(obj, *args, **kwargs)``; func may be (callable, keyword): obj
    is then passed as that keyword (pandas' pipe)."""
    if isinstance(func, tuple):
        if len(func) != 2 or not isinstance(func[1], str):
            raise InvalidValueError("pipe: a tuple must be (callable, data_keyword)")
        func, target = func
        if target in kwargs:
            raise InvalidValueError(f"{target} is both the pipe target and a keyword argument")
        kwargs = dict(kwargs)
        kwargs[target] = obj
        return func(*args, **kwargs)
    if not callable(func):
        raise DTypeError(f"pipe: func must be callable, not {type(func).__name__}")
    return func(obj, *args, **kwargs)


# --------------------------------------------------------------------------
# sample: pandas' positions for the same random_state
# --------------------------------------------------------------------------

def _random_state(state):
    """pandas.core.common.random_state: an int, array or BitGenerator seeds
    a RandomState; a RandomState or Generator is used as is; None is
    numpy's global state."""
    if isinstance(state, (int, np.integer)) and not isinstance(state, (bool, np.bool_)):
        return np.random.RandomState(state)
    if isinstance(state, (np.ndarray, np.random.BitGenerator)):
        return np.random.RandomState(state)
    if isinstance(state, (np.random.RandomState, np.random.Generator)):
        return state
    if state is None:
        return np.random.mtrand._rand
    raise InvalidValueError(
        "random_state must be an integer, array-like, a BitGenerator, Generator, a numpy "
        f"RandomState, or None, not {type(state).__name__}")


def _sample_size(n, frac, replace):
    if n is None and frac is None:
        return 1
    if n is not None and frac is not None:
        raise InvalidValueError("sample: give n or frac, not both")
    if n is not None:
        if n < 0:
            raise InvalidValueError(
                "sample: a negative number of rows requested; n must be >= 0")
        if n % 1 != 0:
            raise InvalidValueError(f"sample: n must be an integer, not {n!r}")
        return int(n)
    if frac > 1 and not replace:
        raise InvalidValueError("sample: frac > 1 needs replace=True (upsampling)")
    if frac < 0:
        raise InvalidValueError("sample: frac must be >= 0")
    return None


def _weights_array(obj, weights, length, axis):
    if isinstance(weights, str):
        if obj._ndim != 2 or axis != 0:
            raise InvalidValueError(
                "sample: weights may name a column only when sampling a DataFrame's rows")
        weights = obj[weights]
    if _base.is_series(weights):
        w = np.asarray(weights.astype("float64").to_numpy(), dtype=np.float64)
    else:
        try:
            w = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            raise DTypeError("sample: weights must be numbers") from None
    if w.ndim != 1 or len(w) != length:
        raise InvalidValueError(
            f"sample: {w.size} weights for {length} {'rows' if axis == 0 else 'columns'}; "
            "weights and the axis sampled must be of the same length")
    if np.isinf(w).any():
        raise InvalidValueError("sample: weights may not include inf values")
    if (w < 0).any():
        raise InvalidValueError("sample: weights may not include negative values")
    nan = np.isnan(w)
    if nan.any():
        w = np.where(nan, 0.0, w)
    return w


def sample_positions(obj, length, n, frac, replace, weights, random_state, axis=0):
    """int64 positions in [0, length) drawn as pandas' NDFrame.sample draws
    them (RandomState.choice), so the same seed picks the same rows."""
    rs = _random_state(random_state)
    size = _sample_size(n, frac, replace)
    if size is None:
        size = round(frac * length)
    p = None
    if weights is not None:
        w = _weights_array(obj, weights, length, axis)
        total = w.sum()
        if total == 0:
            raise InvalidValueError("sample: invalid weights, they sum to zero")
        p = w / total
        if not replace and size * p.max() > 1:
            raise InvalidValueError(
                "sample: weighted sampling cannot be achieved with replace=False; set "
                "replace=True or use smaller weights")
    if not replace and size > length:
        raise InvalidValueError(
            f"sample: cannot take {size} of {length} without replacement; set replace=True")
    try:
        pos = rs.choice(length, size=size, replace=replace, p=p)
    except ValueError as e:
        raise InvalidValueError(f"sample: {e}") from None
    return np.ascontiguousarray(np.asarray(pos, dtype=np.int64))


def _axis_number(axis, what):
    if axis in (None, 0, "index", "rows"):
        return 0
    if axis in (1, "columns"):
        return 1
    raise InvalidValueError(f"{what}: axis must be 0/'index' or 1/'columns', not {axis!r}")


# --------------------------------------------------------------------------
# replace
# --------------------------------------------------------------------------

def _matches(dtype, value):
    """Whether value could equal a value of a dtype column (pandas compares
    numbers with numbers, str with str, ...; else there is nothing to
    replace)."""
    if isinstance(value, (bool, np.bool_)):
        return dtype == "bool"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return _is_number_dtype(dtype)
    if isinstance(value, str):
        return dtype in ("string", "category")
    if isinstance(value, (datetime.datetime, np.datetime64)):
        return dtype.startswith("timestamp")
    if isinstance(value, (datetime.timedelta, np.timedelta64)):
        return dtype.startswith("duration")
    if isinstance(value, datetime.date):
        return dtype == "date32"
    return False


def _replace_pairs(to_replace, value, what):
    """(old, new) pairs of a Series-level replace."""
    olds = to_replace if isinstance(to_replace, (dict, list, tuple)) else [to_replace]
    if any(isinstance(o, re.Pattern) for o in olds):
        # pandas takes a compiled pattern as a regular expression
        raise UnsupportedError(f"{what}: a compiled regular expression as to_replace is not "
                               f"supported")
    if isinstance(to_replace, dict):
        if value is not _base.NO_DEFAULT:
            raise InvalidValueError(
                f"{what}: with a dict to_replace, value must not be given")
        return list(to_replace.items())
    if value is _base.NO_DEFAULT:
        raise InvalidValueError(f"{what}: give value (what to replace with), or a dict")
    olds = list(to_replace) if isinstance(to_replace, (list, tuple, np.ndarray)) else [to_replace]
    if isinstance(value, (list, tuple, np.ndarray)):
        news = list(value)
        if not isinstance(to_replace, (list, tuple, np.ndarray)):
            raise InvalidValueError(f"{what}: a list value needs a list to_replace")
        if len(news) != len(olds):
            raise InvalidValueError(
                f"{what}: replacement lists must match in length: expecting {len(olds)}, "
                f"got {len(news)}")
        return list(zip(olds, news))
    return [(o, value) for o in olds]


def _host(col):
    return col if col.device == "cpu" else col.to_device("cpu")


def _category_codes(col):
    """A categorical's codes as an int32 numpy array, -1 where null."""
    col = _host(col)
    codes = np.array(col.values(), dtype=np.int32)
    mask = _convert.null_mask(col)
    if mask is not None:
        codes[mask] = -1
    return codes


def _codes_dtype(n):
    """The integer type pandas keeps the codes of n categories in (the
    smallest signed one that holds them, -1 included)."""
    return np.int8 if n < 127 else np.int16 if n < 32767 else np.int32


def _codes_where(keep, col, other_codes):
    """The categorical col where keep (a bool array), else other_codes
    (codes of col's categories, -1: missing): chosen as numbers."""
    return _from_codes(np.where(keep, _category_codes(col), other_codes), col)


def _from_codes(codes, like):
    """A categorical with like's categories (and device) over numpy codes
    (-1: null)."""
    host = _host(like)
    out = _core.categorical_from_codes(np.ascontiguousarray(codes, dtype=np.int32),
                                       host.dictionary, ordered=bool(host.ordered))
    return out if like.device == "cpu" else out.to_device(like.device)


def _null_or_false(col):
    """col's null mask as a numpy bool array (all False when it has none)."""
    mask = _convert.null_mask(col)
    return np.zeros(col.length, dtype=bool) if mask is None else mask


def _new_category(s, value):
    return DTypeError(
        f"{s._describe()}: {value!r} is not one of its categories; add it to the "
        "categories first (as pandas)")


def where_categorical(s, cond, other, mask):
    """Series.where / mask of a categorical Series, keeping the category
    dtype as pandas does: other is missing, one of the categories, or a
    categorical column with the same categories.  None for another other
    (the caller then works on the strings).  numpy on the int32 codes."""
    col = s._col
    cats = _host(col).dictionary.to_pylist()
    if other is None or (is_scalar(other) and is_missing_scalar(py_scalar(other))):
        o = -1
    elif isinstance(other, str):
        if other not in cats:
            raise _new_category(s, other)
        o = cats.index(other)
    elif isinstance(other, _core.Column) and other.dtype == "category":
        if _host(other).dictionary.to_pylist() != cats:
            return None
        o = _category_codes(other)
    elif isinstance(other, _core.Column):   # values, each a category or missing (pandas)
        coded = _categorical.with_categories(other, _host(col).dictionary)
        if coded.null_count > other.null_count:
            new = _convert.null_mask(coded) & ~_null_or_false(other)
            raise _new_category(s, other.slice(int(np.flatnonzero(new)[0]), 1).to_pylist()[0])
        o = _category_codes(coded)
    else:
        return None
    cond = _host(cond)
    c = np.asarray(_convert.values_numpy(cond), dtype=bool)
    keep = ~c if mask else c
    null = _convert.null_mask(cond)
    if null is not None:
        keep = keep & ~null  # a null cond replaces the value
    return s._like(_codes_where(keep, col, o))


def _replace_categorical(s, pairs):
    """Replace among a categorical's categories: the codes are mapped
    through a small table (numpy); the categories stay, as in pandas."""
    col = s._col
    cats = _host(col).dictionary.to_pylist()
    index = {c: i for i, c in enumerate(cats)}
    table = np.arange(len(cats), dtype=np.int32)
    fill = -1

    def at(x):   # x's position among the categories (of any dtype), or None
        try:
            return index.get(x)
        except TypeError:   # unhashable: no category
            return None

    for old, new in pairs:
        old, new = py_scalar(old), py_scalar(new)
        if not is_missing_scalar(new) and at(new) is None:
            if is_missing_scalar(old) or at(old) is not None:
                raise _new_category(s, new)
            continue
        code = -1 if is_missing_scalar(new) else at(new)
        if is_missing_scalar(old):
            fill = code
        elif at(old) is not None:
            table[at(old)] = code
    if (table == np.arange(len(cats))).all() and (fill == -1 or col.null_count == 0):
        return s
    codes = _category_codes(col)
    # table[-1] would read the last entry: route nulls to an extra slot
    full = np.append(table, np.int32(fill))
    return s._like(_from_codes(full[codes].astype(np.int32), col))


def replace_series(s, pairs):
    """s with each old value of pairs replaced by its new one; every match
    is found in the original values (so {1: 2, 2: 3} turns 1 into 2, not
    3, as pandas)."""
    col = s._col
    dtype = col.dtype
    if dtype == "category":
        return _replace_categorical(s, pairs)
    hits = []
    for old, new in pairs:
        old = py_scalar(old)
        if is_missing_scalar(old):
            if col.null_count == 0 and dtype not in _FLOATS:
                continue
            m = _missing_mask(col)
        elif _matches(dtype, old):
            try:
                m = _core.fill_null(_core.binary_scalar("eq", col, old, False), False)
            except ZambeziError:
                continue  # out of the dtype's range: no value equals it
        else:
            continue
        if m.reduce("sum"):  # no match leaves the dtype as it is, as in pandas
            new = py_scalar(new)
            _dtypes.refuse_kind_mix(dtype, new, f"replace on {s._describe()}")
            hits.append((m, new))
    out = col
    try:
        for m, new in hits:
            out = _core.column_where(out, m, new, mask=True)
    except ZambeziError as e:
        raise _engine_error(e, f"replace on {s._describe()}") from None
    return s._like(out)


# --------------------------------------------------------------------------
# select_dtypes
# --------------------------------------------------------------------------

def _timestamp_zone(dtype):
    parts = _dtypes.timestamp_parts(dtype)
    return None if parts is None else parts[1]


_KIND_TESTS = {
    # pandas' 'number' takes timedelta64 columns too
    "number": lambda d: _is_number_dtype(d) or d.startswith("duration"),
    "integer": lambda d: d in _INTS or d in _UINTS,
    "signedinteger": lambda d: d in _INTS,
    "unsignedinteger": lambda d: d in _UINTS,
    "floating": lambda d: d in _FLOATS,
    "bool": lambda d: d == "bool",
    # pandas 3 still selects str columns with 'object' (deprecated there);
    # dates are object columns in pandas
    "object": lambda d: d in ("string", "date32"),
    "string": lambda d: d == "string",
    "category": lambda d: d == "category",
    "datetime": lambda d: d.startswith("timestamp") and _timestamp_zone(d) is None,
    "datetimetz": lambda d: d.startswith("timestamp") and _timestamp_zone(d) is not None,
    "timedelta": lambda d: d.startswith("duration"),
    "none": lambda d: False,
}
_KIND_NAMES = {
    "number": "number", "integer": "integer", "signedinteger": "signedinteger",
    "int": "signedinteger", "unsignedinteger": "unsignedinteger", "floating": "floating",
    "float": "floating", "bool": "bool", "object": "object", "O": "object",
    "string": "string", "str": "string", "category": "category", "datetime": "datetime",
    "datetime64": "datetime", "M": "datetime", "datetimetz": "datetimetz",
    "timedelta": "timedelta", "timedelta64": "timedelta", "m": "timedelta", "complex": "none",
}
_KIND_TYPES = [
    (np.bool_, "bool"), (np.signedinteger, "signedinteger"),
    (np.unsignedinteger, "unsignedinteger"), (np.integer, "integer"),
    (np.floating, "floating"), (np.complexfloating, "none"), (np.number, "number"),
    (np.object_, "object"), (np.str_, "string"), (np.datetime64, "datetime"),
    (np.timedelta64, "timedelta"),
]
_PY_KINDS = {int: "signedinteger", float: "floating", bool: "bool", str: "string",
             object: "object", complex: "none"}
# pandas' extension dtype classes (not instances) as kinds, by class name
_PANDAS_DTYPE_CLASSES = {"CategoricalDtype": "category", "DatetimeTZDtype": "datetimetz",
                         "StringDtype": "string"}


def _is_pandas_dtype_class(spec):
    return isinstance(spec, type) and spec.__module__.startswith("pandas") and \
        spec.__name__ in _PANDAS_DTYPE_CLASSES


def _dtype_test(spec):
    """A predicate on zambezi dtype names for one include/exclude entry."""
    if isinstance(spec, str) and spec in _KIND_NAMES:
        return _KIND_TESTS[_KIND_NAMES[spec]]
    if _numpy_text_dtype(spec):
        raise DTypeError("select_dtypes: numpy string dtypes are not allowed, use 'str' or "
                         "'object' instead")
    if isinstance(spec, type):
        if spec in _PY_KINDS:
            return _KIND_TESTS[_PY_KINDS[spec]]
        if spec.__module__.startswith("pandas") and spec.__name__ in _PANDAS_DTYPE_CLASSES:
            return _KIND_TESTS[_PANDAS_DTYPE_CLASSES[spec.__name__]]
        if issubclass(spec, np.generic):
            if spec in (np.generic,):
                return lambda d: True
            for t, kind in _KIND_TYPES:
                if spec is t:
                    return _KIND_TESTS[kind]
    if isinstance(spec, (bytes, np.bytes_)) or spec in ("bytes", "S", np.bytes_):
        raise DTypeError("select_dtypes: numpy string dtypes are not allowed, use 'str' or "
                         "'object' instead")
    kind = _time_kind_test(spec)
    if kind is not None:
        return kind
    name = _dtypes.canonical(spec)
    return lambda d: d == name


def _numpy_text_dtype(spec):
    """Whether spec names numpy's fixed-width text (np.str_, "U1", "S5",
    np.dtype("U5")), which pandas refuses in select_dtypes."""
    if spec is np.str_ or spec is np.bytes_:
        return True
    if isinstance(spec, np.dtype) or (isinstance(spec, str) and spec[:1] in ("U", "S", "<", "|")
                                      and spec not in _KIND_NAMES):
        try:
            return np.dtype(spec).kind in "US"
        except TypeError:
            return False
    return False


def _time_kind_test(spec):
    """numpy's datetime64 / timedelta64 without a unit (np.dtype("m8")) as
    the kind, every unit, as pandas; a multiple of a unit ("10s") is no
    column's resolution: ValueError, as pandas.  None for other specs."""
    try:
        nd = np.dtype(spec) if isinstance(spec, (str, np.dtype)) else None
    except TypeError:
        return None
    if nd is None or nd.kind not in "mM":
        return None
    unit, count = np.datetime_data(nd)
    if unit == "generic":
        return _KIND_TESTS["timedelta" if nd.kind == "m" else "datetime"]
    if count != 1 or unit not in ("s", "ms", "us", "ns"):
        raise InvalidValueError(f"select_dtypes: {spec!r} is not a supported "
                                "datetime64/timedelta64 resolution")
    return None


def _dtype_tests(specs, what):
    if specs is None:
        return []
    if isinstance(specs, (str, type)) or not hasattr(specs, "__iter__"):
        specs = [specs]
    return [(spec, _dtype_test(spec)) for spec in specs]


# --------------------------------------------------------------------------
# isin
# --------------------------------------------------------------------------

def _isin_values(series, values):
    """series.isin(values) with the values a column of this dtype could
    hold (pandas compares a mixed list without raising; numbers and bools
    compare with each other, True == 1)."""
    dtype = series.dtype
    if dtype == "category":
        dtype = "string"
    values = [py_scalar(v) for v in values]
    if _is_number_dtype(dtype) or dtype == "bool":
        keep = [v for v in values if isinstance(v, (bool, int, float)) and not is_missing_scalar(v)]
        if any(not isinstance(v, bool) for v in keep):
            # bools as 0 / 1; ints and floats stay themselves, which Series.isin
            # compares each in its own kind (2**53 + 1 is not 2.0**53)
            keep = [int(v) if isinstance(v, bool) else v for v in keep]
    else:
        keep = [v for v in values if _matches(dtype, v)]
    return series.isin(keep)


def _eq_or_false(a, b):
    """a == b (pandas' comparison rule for missing values); all False when
    the dtypes cannot be compared (pandas compares them as objects)."""
    try:
        return a == b
    except DTypeError:
        return a._like(_false_column(len(a)))


def _masked(s):
    """Whether pandas holds s in a masked dtype (Int64, boolean): an
    integer or bool column with nulls, whose comparisons give NA."""
    return s.dtype.startswith(("int", "uint", "bool")) and s.null_count > 0


def _aligned_to(values, frame):
    """values (a Series or DataFrame) with its rows in the order of frame's
    index labels, as pandas' isin aligns it (``values.reindex_like(frame)``)
    rather than by position; and a bool column, True where values has the
    row's label (None when it has every label in order)."""
    if not values._index.is_unique:
        raise InvalidValueError("cannot compute isin with a duplicate axis.")
    if _align.same_labels(values._index, frame._index):
        return values, None
    has = frame._index.isin(values._index)
    return values.reindex(frame._index), _core.column_from_buffer(has)


def _eq_aligned(s, v, v_masked, has):
    """s == v for isin, v aligned to s's labels (see _aligned_to).  A row
    whose label v lacks is null after the alignment; pandas fills it with
    NaN, so it compares False -- unless s or the values before alignment
    (v_masked) are pandas' masked dtypes, which keep it as NA."""
    out = _eq_or_false(s, v)
    if has is not None and not v_masked and not _masked(s):
        out = out._like(_core.column_where(out._col, has, _false_column(len(s))))
    return out


def _eq_missing(s):
    """s == a missing value, as pandas compares with the NaN a missing
    column aligns to: null for an integer or bool column with nulls
    (pandas' masked dtypes give NA), else False."""
    n = len(s)
    if s.dtype.startswith(("int", "uint", "bool")) and s.null_count:
        return s._like(_core.column_from_buffer(np.zeros(n, dtype=np.bool_),
                                                mask=np.ones(n, dtype=np.bool_)))
    return s._like(_false_column(n))


def _false_column(n):
    return _core.column_from_buffer(np.zeros(n, dtype=np.bool_))


class FrameExtra:
    """Columns by attribute, insert/pop, query/eval, sample and the
    column-by-column methods of zambezi.DataFrame (a mixin)."""

    __slots__ = ()

    # -- columns ----------------------------------------------------------
    def __getattr__(self, name):
        # only reached when no attribute, method or property has the name
        if not name.startswith("_"):
            try:
                names = object.__getattribute__(self, "_table").names
            except AttributeError:
                names = ()
            if name in names:
                return self._column(name)
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute {name!r}"
            + ("" if name.startswith("_") else " and no column of that name"))

    def __dir__(self):
        cols = [c for c in self._table.names if c.isidentifier()]
        return sorted(set(object.__dir__(self)) | set(cols))

    def __delitem__(self, name):
        """``del df[name]``: removes the column (the frame's table is
        replaced; no data is copied)."""
        cols, names = self._cols()
        if not isinstance(name, str) or name not in names:
            raise self._missing(name)
        i = names.index(name)
        del cols[i], names[i]
        self._table = _core.table_from_columns(cols, names)

    def insert(self, loc, column, value, allow_duplicates=False):
        """Insert a column at position loc (0 <= loc <= number of columns),
        in place; value is a Series, list, array or scalar (repeated), as
        for ``df[column] = value``.  A name already there raises (a frame's
        names are unique: ``allow_duplicates=True`` cannot help).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "c": [5, 6]})
        >>> df.insert(1, "b", ["x", "y"])
        >>> df
               a       b      c
           int64  string  int64
        0      1       x      5
        1      2       y      6
        <BLANKLINE>
        [2 rows x 3 columns]
        """
        if not isinstance(column, str):
            raise DTypeError(f"column names must be str, not {type(column).__name__}")
        cols, names = self._cols()
        if column in names:
            if allow_duplicates:
                raise UnsupportedError(
                    f"insert: cannot insert a second column named {column!r}; zambezi "
                    "column names are unique")
            raise InvalidValueError(f"cannot insert {column!r}, already exists")
        if not isinstance(loc, (int, np.integer)) or isinstance(loc, (bool, np.bool_)):
            raise DTypeError(f"insert: loc must be int, not {type(loc).__name__}")
        if not 0 <= loc <= len(names):
            raise ZambeziIndexError(
                f"insert: loc must be an integer between 0 and {len(names)}, not {loc}")
        if _base.is_frame(value):
            if value.shape[1] != 1:
                raise InvalidValueError(
                    "insert: expected a one-dimensional object, got a DataFrame with "
                    f"{value.shape[1]} columns")
            value = value[value.columns[0]]
        col = _frame_value_column(self, column, value)
        cols.insert(int(loc), col)
        names.insert(int(loc), column)
        self._table = _core.table_from_columns(cols, names)

    def pop(self, item):
        """Remove the column item and return it (a Series).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [3, 4]})
        >>> df.pop("a").to_list()
        [1, 2]
        >>> df.columns.to_list()
        ['b']
        """
        s = self._column(item) if isinstance(item, str) else None
        if s is None:
            raise self._missing(item)
        del self[item]
        return s

    # -- query / eval -----------------------------------------------------
    def query(self, expr, *, parser="pandas", engine=None, local_dict=None, global_dict=None,
              resolvers=None, level=0, inplace=False):
        """The rows where the boolean expression expr is true; renumbered
        from 0.  The text is parsed (Python's ast module) and each part
        becomes a column operation -- it is never run as Python.  An
        expression holds, as pandas': column names (`quoted` when not
        identifiers), ``@name`` for the caller's variables (or those in
        local_dict / global_dict; level picks a frame further up),
        constants and lists of them, ``+ - * / // % **``, comparisons
        (chained: ``1 < a < 3``), ``in`` / ``not in`` a list or a column
        (``==`` / ``!=`` with a list mean the same), ``and or not`` and
        ``& | ~`` -- which bind like ``and`` / ``or``, as in pandas
        (``a > 1 & b < 2`` is ``(a > 1) & (b < 2)``).  Attribute access,
        calls and subscripts raise UnsupportedError; an unknown name
        UndefinedVariableError.  A null in the result drops the row (pandas
        raises).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Lusaka"], "fare": [7.0, None, 9.5],
        ...                    "km": [3, 8, 12]})
        >>> df.query("fare > 7 or km < 5")
             city     fare     km
           string  float64  int64
        0    Maun        7      3
        2  Lusaka      9.5     12
        <BLANKLINE>
        [2 rows x 3 columns]
        >>> limit = 10
        >>> df.query("km < @limit & city in ['Tete', 'Lusaka']")["city"].to_list()
        ['Tete']
        """
        _check_eval_options(parser, engine, resolvers)
        loc, glob = _expr.caller_scope(level)
        mask = _expr.run_query(self, expr, loc if local_dict is None else local_dict,
                               glob if global_dict is None else global_dict)
        if not _base.is_series(mask) or mask.dtype != "bool":
            got = mask.dtype if _base.is_series(mask) else type(mask).__name__
            raise InvalidValueError(
                f"query: {expr!r} must give a boolean column, not {got}")
        out = self._filter(mask, f"query({expr!r})")
        if not inplace:   # (no decorator: level counts the caller's frames)
            return out
        _base.become(self, out)
        _base.warn_inplace(self, "query", stacklevel=3)
        return None

    def eval(self, expr, *, parser="pandas", engine=None, local_dict=None, global_dict=None,
             resolvers=None, level=0, target=None, inplace=False):
        """The value of the expression expr over the columns (a Series or a
        scalar), as ``query`` reads it; with assignments (``"c = a + b"``,
        one per line, each line may use the columns made above it) a new
        frame with those columns added or replaced (the frame itself with
        ``inplace=True``).  A `quoted name` on the left makes that column
        (pandas 3.1 names it ``BACKTICK_QUOTED_STRING_...``).

        Examples
        --------
        >>> df = zb.DataFrame({"fare": [10.0, 4.0], "km": [5, 2]})
        >>> df.eval("fare / km").to_list()
        [2.0, 2.0]
        >>> df.eval("per_km = fare / km\\ncheap = per_km < 3")
              fare     km   per_km  cheap
           float64  int64  float64   bool
        0       10      5        2   True
        1        4      2        2   True
        <BLANKLINE>
        [2 rows x 4 columns]
        """
        _check_eval_options(parser, engine, resolvers)
        if target is not None:
            raise UnsupportedError("eval: target is not supported")
        loc, glob = _expr.caller_scope(level)
        value, frame = _expr.run_eval(self, expr, loc if local_dict is None else local_dict,
                                      glob if global_dict is None else global_dict)
        if frame is None:
            if inplace:
                raise InvalidValueError("eval: cannot operate inplace without an assignment")
            return value
        if inplace:
            self._table = frame._table
            return None
        return frame

    # -- sample -----------------------------------------------------------
    def sample(self, n=None, frac=None, replace=False, weights=None, random_state=None,
               axis=None, ignore_index=False):
        """A random sample of n rows (or a fraction frac of them), drawn as
        pandas draws them: with the same integer random_state (or numpy
        RandomState) the same rows, in the same order.  weights (a column
        name, or one number per row; missing counts as 0) make rows more
        likely; replace=True may pick a row more than once.  axis=1 samples
        columns.  Renumbered from 0 (ignore_index is accepted).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [10, 20, 30, 40, 50]})
        >>> df.sample(3, random_state=1)["a"].to_list()
        [30, 20, 50]
        >>> df.sample(frac=0.4, random_state=1, weights=[0, 0, 1, 1, 0])["a"].to_list()
        [30, 40]
        """
        ax = _axis_number(axis, "sample")
        length = len(self) if ax == 0 else self._table.num_columns
        pos = sample_positions(self, length, n, frac, replace, weights, random_state, ax)
        if ax == 0:
            return self._select_rows(_indexing.take_rows(_core.column_from_buffer(pos)))
        names = self._table.names
        if len(set(pos.tolist())) != len(pos):
            raise UnsupportedError(
                "sample(axis=1, replace=True) picked a column twice; column names are unique")
        return self._select_columns([names[i] for i in pos])

    # -- column by column ---------------------------------------------------
    def _each(self, fn, names=None):
        """A frame of fn(column Series) for each column (or those in names;
        the others unchanged)."""
        cols, all_names = self._cols()
        out = []
        for col, nm in zip(cols, all_names):
            if names is None or nm in names:
                out.append(fn(self._sliced(col, nm))._col)
            else:
                out.append(col)
        return self._with_columns(out, all_names)

    def _done(self, result, inplace):
        """clip / where / mask / replace: with inplace the frame takes the
        result and is returned (pandas 3.1)."""
        if inplace:
            self._table = result._table
            return self
        return result

    def round(self, decimals=0):
        """Numeric columns rounded to decimals (an int, or a dict column
        label -> int; other columns unchanged), as Series.round (half to
        even).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1.25, 2.35], "n": [14, 26], "s": ["x", "y"]})
        >>> df.round(1).to_dict("list")
        {'a': [1.2, 2.4], 'n': [14, 26], 's': ['x', 'y']}
        >>> df.round({"n": -1}).to_dict("list")
        {'a': [1.25, 2.35], 'n': [10, 30], 's': ['x', 'y']}
        """
        if isinstance(decimals, dict):
            for d in decimals.values():
                if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
                    raise DTypeError("round: the values in decimals must be integers")
        elif not isinstance(decimals, (int, np.integer)) or isinstance(decimals, bool):
            raise DTypeError(
                f"round: decimals must be an int or a dict, not {type(decimals).__name__}")
        # a dict is keyed by column label (an int label too), the columns
        # are worked on by table name
        t = self._table
        per_name = {}
        for i, (nm, lb) in enumerate(zip(t.names, _labels.label_list(self))):
            if isinstance(decimals, dict) and lb not in decimals:
                continue
            if _is_number_dtype(t.column(i).dtype):
                per_name[nm] = int(decimals[lb] if isinstance(decimals, dict) else decimals)
        return self._each(lambda s: s.round(per_name[s.name]), set(per_name))

    def _bound_series(self, bound, what):
        s = bound if _base.is_series(bound) else self._constructor_sliced(bound)
        if len(s) != len(self):
            raise InvalidValueError(
                f"clip: {what} has {len(s)} values for a frame of {len(self)} rows")
        return s

    def clip(self, lower=None, upper=None, *, axis=None, inplace=False):
        """Values limited to [lower, upper], column by column.  Bounds are
        scalars (None or NaN: no bound), or one per row (a Series, list or
        array) with axis=0 -- a missing one is no bound there; a float
        column keeps its type (the bounds are cast to it), an integer one
        with float bounds becomes float64.  Every column must be numeric.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 5, 9], "b": [0.5, None, 7.5]})
        >>> df.clip(2, 6).to_dict("list")
        {'a': [2, 5, 6], 'b': [2.0, None, 6.0]}
        >>> df.clip(lower=[0, 6, 0], axis=0).to_dict("list")
        {'a': [1, 6, 9], 'b': [0.5, None, 7.5]}
        """
        lo_scalar = lower is None or is_scalar(lower)
        hi_scalar = upper is None or is_scalar(upper)
        if lo_scalar and hi_scalar:
            return self._done(self._each(lambda s: s.clip(lower, upper)), inplace)
        if _axis_number(axis, "clip") != 0 or axis is None:
            raise UnsupportedError(
                "clip: bounds per row need axis=0 (bounds per column, axis=1, need an index)")
        lo = None if lo_scalar else self._bound_series(lower, "lower")
        hi = None if hi_scalar else self._bound_series(upper, "upper")

        def one(s):
            s = s.clip(lower if lo_scalar else None, upper if hi_scalar else None)
            for b, below in ((lo, True), (hi, False)):
                if b is not None:
                    if s.dtype in _FLOATS and b.dtype != s.dtype:
                        b = b.astype(s.dtype)  # a float32 column stays float32
                    out = (s < b) if below else (s > b)
                    s = s.mask(out.fillna(False), b)
            return s

        return self._done(self._each(one), inplace)

    def abs(self):
        """Absolute values of every column (numeric columns only, as pandas).

        Examples
        --------
        >>> zb.DataFrame({"a": [-1, 2], "b": [-0.5, None]}).abs().to_dict("list")
        {'a': [1, 2], 'b': [0.5, None]}
        """
        return self._each(lambda s: s.abs())

    def _cond_for(self, cond, name, i):
        if _base.is_frame(cond):
            if name not in cond._zb_columns:
                return None  # pandas: a column missing from cond is False
            return cond[name]
        if _base.is_series(cond):
            return cond
        if isinstance(cond, np.ndarray) and cond.ndim == 2:
            return self._constructor_sliced(np.ascontiguousarray(cond[:, i]))
        raise DTypeError(
            f"where/mask: cond must be a bool DataFrame, Series or 2-D array, not "
            f"{type(cond).__name__}")

    def _other_for(self, other, name, i, axis):
        if other is None or is_scalar(other):
            return other
        if _base.is_frame(other):
            return other[name] if name in other._zb_columns else None
        if _base.is_series(other) or isinstance(other, (list, tuple)) or (
                isinstance(other, np.ndarray) and other.ndim == 1):
            if _axis_number(axis, "where") != 0 or axis is None:
                raise UnsupportedError(
                    "where/mask: a Series other needs axis=0 (one value per row)")
            return other
        if isinstance(other, np.ndarray) and other.ndim == 2:
            return self._constructor_sliced(np.ascontiguousarray(other[:, i]))
        raise DTypeError(f"where/mask: unsupported other {type(other).__name__}")

    def _where(self, cond, other, mask, axis, inplace):
        if callable(cond):
            cond = cond(self)
        if callable(other):
            other = other(self)
        if isinstance(cond, np.ndarray) and cond.shape != self.shape:
            raise InvalidValueError(
                f"where/mask: Array conditional must be same shape as self (cond has shape "
                f"{cond.shape}, the frame {self.shape})")
        if isinstance(other, np.ndarray) and other.ndim == 2 and other.shape != self.shape:
            raise InvalidValueError(
                f"where/mask: other must be the same shape as self when an ndarray (other has "
                f"shape {other.shape}, the frame {self.shape})")
        cols, names = self._cols()
        out = []
        # a frame cond / other is matched by column label (an int label 0 is
        # the column named "0")
        for i, (col, nm, lb) in enumerate(zip(cols, names, _labels.label_list(self))):
            s = self._sliced(col, nm)
            c = self._cond_for(cond, lb, i)
            o = self._other_for(other, lb, i, axis)
            if c is None:
                r = s.where(s._like(_false_column(len(s))), o)
            else:
                r = s.mask(c, o) if mask else s.where(c, o)
            out.append(r._col)
        return self._done(self._with_columns(out, names), inplace)

    def where(self, cond, other=None, *, inplace=False, axis=None, level=None):
        """Each value where cond is true, else other (default: null).  cond is
        a bool DataFrame (matched by column name; a column it lacks is all
        False), a bool Series (the same rows for every column), a 2-D bool
        array, or a callable taking the frame; a null in cond replaces the
        value.  other is a scalar, a DataFrame (by column name), one value
        per row with axis=0, or a callable.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 5, 9], "b": [2.0, 6.0, None]})
        >>> df.where(df.apply(lambda col: col > 4)).to_dict("list")
        {'a': [None, 5, 9], 'b': [None, 6.0, None]}
        >>> df.where(df["a"] < 6, 0).to_dict("list")
        {'a': [1, 5, 0], 'b': [2.0, 6.0, 0.0]}
        """
        if level is not None:
            raise UnsupportedError("where: level is not supported (zambezi has no index)")
        return self._where(cond, other, False, axis, inplace)

    def mask(self, cond, other=None, *, inplace=False, axis=None, level=None):
        """Each value where cond is false, else other: the opposite of
        ``where`` (a null in cond, or a column cond lacks, replaces the
        value, as in pandas).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 5, 9], "b": [2.0, 6.0, 1.0]})
        >>> df.mask(df.apply(lambda col: col > 4), -1).to_dict("list")
        {'a': [1, -1, -1], 'b': [2.0, -1.0, 1.0]}
        """
        if level is not None:
            raise UnsupportedError("mask: level is not supported (zambezi has no index)")
        return self._where(cond, other, True, axis, inplace)

    # -- dtypes -----------------------------------------------------------
    def select_dtypes(self, include=None, exclude=None):
        """The columns whose dtype is in include and not in exclude (no data
        copied).  Each entry is a dtype ('int64', 'float32', 'category',
        'datetime64[us, UTC]' ...) or a kind, with pandas' names: 'number'
        (integers and floats, not bool), 'integer', 'signedinteger' / 'int'
        / int, 'unsignedinteger', 'floating' / 'float' / float, 'bool',
        'string' / 'str' / str, 'object' / object (strings and dates, which
        pandas shows as objects), 'category', 'datetime' (timestamps
        without a zone), 'datetimetz' (with one); numpy's abstract types
        (np.number, np.integer, np.floating ...) too.  A frame without
        columns has no rows in zambezi (pandas keeps the row count).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "f": [0.5, 1.5], "s": ["x", "y"],
        ...                    "b": [True, False]})
        >>> df.select_dtypes("number").columns.to_list()
        ['a', 'f']
        >>> df.select_dtypes(exclude=["number", "bool"]).columns.to_list()
        ['s']
        """
        inc = _dtype_tests(include, "include")
        exc = _dtype_tests(exclude, "exclude")
        if not inc and not exc:
            raise InvalidValueError("select_dtypes: at least one of include or exclude "
                                    "must be nonempty")
        inc_names = {repr(s) for s, _ in inc}
        # a pandas dtype class and its kind's name are one spec (pandas 3.1:
        # "datetimetz" and DatetimeTZDtype)
        classes = [t for s, t in inc + exc if _is_pandas_dtype_class(s)]
        overlap = [repr(s) for s, t in exc if repr(s) in inc_names or
                   any(t is c for c in classes) and any(t is u for _, u in inc)]
        if overlap:
            raise InvalidValueError(
                f"select_dtypes: include and exclude overlap on {', '.join(overlap)}")
        keep = []
        tab = self._table
        for name, dtype in zip(tab.names, [tab.column(i).dtype for i in range(tab.num_columns)]):
            if inc and not any(t(dtype) for _, t in inc):
                continue
            if any(t(dtype) for _, t in exc):
                continue
            keep.append(name)
        return self._select_columns(keep)

    def _get_numeric_data(self):
        """The numeric and bool columns (no data copied): pandas' private
        method, which Dask calls on a collection's meta (numeric_only
        reductions, cov / corr, group-by checks).  Durations are not
        numeric here, as in pandas.

        Examples
        --------
        >>> zb.DataFrame({"a": [1], "s": ["x"], "b": [True]})._get_numeric_data().columns.to_list()
        ['a', 'b']
        """
        num = self.select_dtypes(include=["number", "bool"])
        tab = num._table
        return num._select_columns([nm for i, nm in enumerate(tab.names)
                                    if not tab.column(i).dtype.startswith("duration")])

    # -- values -----------------------------------------------------------
    def replace(self, to_replace=None, value=_base.NO_DEFAULT, *, inplace=False, regex=False):
        """Values replaced, in every column where they can occur: one value
        by another (``replace(0, 5)``), a list by a list or by one value, a
        dict ``{old: new}``, per column ``{column: {old: new}}`` or
        ``({column: old}, new)``.  ``None`` or NaN as the old value means
        the missing values.  Every match is found in the original values.
        A value the column's dtype cannot hold raises DTypeError (pandas
        makes the column object).  With regex=True the patterns apply to
        the text columns (see Series.replace).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [0, 1, 2], "s": ["x", "y", None]})
        >>> df.replace({0: 10, "x": "z"}).to_dict("list")
        {'a': [10, 1, 2], 's': ['z', 'y', None]}
        >>> df.replace({"a": {1: 100}, "s": {None: "?"}}).to_dict("list")
        {'a': [0, 100, 2], 's': ['x', 'y', '?']}
        """
        if regex is not False:
            from zambezi import _replace_regex as rr

            pairs = rr.regex_pairs(to_replace, value, regex, "replace")
            return self._done(self._each(
                lambda s: rr.replace_text(s, pairs, "replace") if rr.is_text(s) else s),
                inplace)
        per_column = None  # column label -> pairs
        if isinstance(to_replace, dict) and to_replace and all(
                isinstance(v, dict) for v in to_replace.values()):
            if value is not _base.NO_DEFAULT:
                raise InvalidValueError("replace: with a nested dict, value must not be given")
            per_column = {c: list(d.items()) for c, d in to_replace.items()}
        elif isinstance(to_replace, dict) and value is not _base.NO_DEFAULT:
            # {column: old(s)} with one value, or {column: new} per column
            per_column = {}
            for c, olds in to_replace.items():
                new = value[c] if isinstance(value, dict) else value
                if isinstance(value, dict) and c not in value:
                    continue
                olds = olds if isinstance(olds, (list, tuple)) else [olds]
                per_column[c] = [(o, new) for o in olds]
        elif isinstance(value, dict):
            olds = to_replace if isinstance(to_replace, (list, tuple)) else [to_replace]
            per_column = {c: [(o, new) for o in olds] for c, new in value.items()}
        if per_column is not None:
            by_label = _labels.names_by_label(self)
            per_name = {}
            for c, pairs in per_column.items():
                if c not in by_label:
                    raise self._missing(c)
                per_name.update((nm, pairs) for nm in by_label[c])
            result = self._each(lambda s: replace_series(s, per_name[s.name]), set(per_name))
        else:
            pairs = _replace_pairs(to_replace, value, "replace")
            result = self._each(lambda s: replace_series(s, pairs))
        return self._done(result, inplace)

    def isin(self, values):
        """bool frame: whether each value is in values -- a list (for every
        column), a dict column -> list (columns it lacks are all False), a
        Series (row by row, as ``df[c] == values`` once values is aligned
        on the frame's index labels, as pandas does) or a DataFrame (by
        column label and index label).  A missing value, or a label values
        lacks, is False, except that an integer or bool column with nulls
        compared with a Series or DataFrame gives null there (pandas' NA)
        -- and everywhere when the DataFrame lacks the column, as pandas
        compares it with missing values.  values' index must be unique.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "s": ["x", "y", "z"]})
        >>> df.isin([1, "z"]).to_dict("list")
        {'a': [True, False, False], 's': [False, False, True]}
        >>> df.isin({"s": ["y"]}).to_dict("list")
        {'a': [False, False, False], 's': [False, True, False]}
        """
        n = len(self)
        # dict keys and a frame's columns are column labels (an int label 0
        # is the column named "0")
        label_of = dict(zip(self._table.names, _labels.label_list(self)))
        if isinstance(values, dict):
            def one(s):
                lb = label_of[s.name]
                if lb not in values:
                    return s._like(_false_column(n))
                v = values[lb]
                if isinstance(v, str) or not hasattr(v, "__iter__"):
                    raise DTypeError(
                        f"isin: the values for column {lb!r} must be list-like, not "
                        f"{type(v).__name__}")
                return _isin_values(s, list(v))
            return self._each(one)
        if _base.is_series(values):
            v_masked = _masked(values)
            values, has = _aligned_to(values, self)
            return self._each(lambda s: _eq_aligned(s, values, v_masked, has))
        if _base.is_frame(values):
            if not values._zb_columns.is_unique:
                raise InvalidValueError("cannot compute isin with a duplicate axis.")
            masked = {lb: _masked(values[lb]) for lb in values._zb_columns}
            values, has = _aligned_to(values, self)
            return self._each(
                lambda s: _eq_aligned(s, values[label_of[s.name]], masked[label_of[s.name]], has)
                if label_of[s.name] in masked else _eq_missing(s))
        if isinstance(values, str) or not hasattr(values, "__iter__"):
            raise DTypeError(
                "isin: only list-like or dict-like objects are allowed, not "
                f"{type(values).__name__}")
        vals = list(values)
        return self._each(lambda s: _isin_values(s, vals))

    # -- functions --------------------------------------------------------
    def apply(self, func, axis=0, raw=False, result_type=None, args=(), by_row="compat",
              engine=None, engine_kwargs=None, **kwargs):
        """func applied to each column (a Series; a numpy array with
        raw=True), with args and kwargs.  When func gives one value per
        column, a Series of them indexed by the column names; when it
        gives a column of the frame's length, a DataFrame of them.  axis=1
        calls func once per row in Python (slow), with a ``Row`` (a mapping
        column -> value; pandas passes a Series): one value per row gives a
        Series, a dict per row a DataFrame (see zambezi._apply).

        ``engine="numba"`` with ``raw=True`` compiles func with Numba and
        calls it with each row (axis=1) or column (axis=0) as a 1-D numpy
        array (numeric columns; nulls as NaN) over every core with the GIL
        released: one value per call.  Needs ``pip install "zambezi[numba]"``.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [10, 20, 30]})
        >>> df.apply(lambda col: col.max() - col.min())
        a     2
        b    20
        dtype: int64
        >>> df.apply(lambda col: col * 2).to_dict("list")
        {'a': [2, 4, 6], 'b': [20, 40, 60]}
        >>> df.apply(lambda row: row["a"] + row["b"], axis=1).to_list()
        [11, 22, 33]
        """
        if _numba.check_engine(engine, engine_kwargs, "apply"):
            if not raw or args or kwargs or result_type is not None or not callable(func):
                raise UnsupportedError("apply: engine='numba' needs raw=True and a function "
                                       "of one array, with no args, kwargs or result_type")
            ax = _axis_number(axis, "apply")
            col = _numba.frame_apply(self, func, ax, engine_kwargs)
            if ax == 1:
                return self._constructor_sliced._from_column(col, None, self._index)
            labels = _ix.Index._from_columns([_convert.to_column(list(self._cols()[1]),
                                                                 dtype="string")], [None])
            return self._constructor_sliced._from_column(col, None, labels)
        if _axis_number(axis, "apply") != 0:
            return self._apply_rows(func, raw, result_type, args, kwargs)  # zambezi._apply
        if result_type is not None:
            raise UnsupportedError("apply: result_type is not supported")
        if isinstance(func, str):
            name = func
            func = lambda s, *a, **k: getattr(s, name)(*a, **k)  # noqa: E731
        elif not callable(func):
            raise DTypeError(f"apply: func must be callable, not {type(func).__name__}")
        cols, names = self._cols()
        n = len(self)
        results = []
        for col, nm in zip(cols, names):
            s = self._sliced(col, nm)
            results.append(func(s.to_numpy() if raw else s, *args, **kwargs))
        if not results:
            return self._constructor_sliced._from_engine(_convert.to_column([]), None)
        if all(is_scalar(r) for r in results):
            # one value per column: a Series indexed by the column names
            values = [py_scalar(r) for r in results]
            labels = _ix.Index._from_columns([_convert.to_column(list(names), dtype="string")],
                                             [None])
            return self._constructor_sliced._from_column(_convert.to_column(values), None,
                                                         labels)
        out = []
        for nm, r in zip(names, results):
            if is_scalar(r) or isinstance(r, dict) or _base.is_frame(r):
                raise UnsupportedError(
                    "apply: func must give one value for every column, or a column of the "
                    f"frame's length for every column (column {nm!r} gave "
                    f"{type(r).__name__})")
            col = r._col if _base.is_series(r) else _convert.to_column(r, name=nm)
            if col.length != n:
                raise UnsupportedError(
                    f"apply: func gave {col.length} values for column {nm!r}, not {n}; "
                    "results of another length need an index")
            out.append(col)
        return self._with_columns(out, names)

    def pipe(self, func, *args, **kwargs):
        """``func(df, *args, **kwargs)``, so that calls chain left to right;
        func may be a tuple (callable, keyword) to pass the frame as that
        keyword.

        Examples
        --------
        >>> def add(df, col, value):
        ...     return df.assign(**{col: df[col] + value})
        >>> zb.DataFrame({"a": [1, 2]}).pipe(add, "a", value=10).to_dict("list")
        {'a': [11, 12]}
        """
        return pipe(self, func, args, kwargs)


def _check_eval_options(parser, engine, resolvers):
    if parser not in ("pandas", "python"):
        raise InvalidValueError(f"parser must be 'pandas' or 'python', not {parser!r}")
    if engine not in (None, "python", "numexpr"):
        raise InvalidValueError(f"engine must be None, 'python' or 'numexpr', not {engine!r}")
    if resolvers is not None:
        raise UnsupportedError("resolvers are not supported; pass local_dict")
