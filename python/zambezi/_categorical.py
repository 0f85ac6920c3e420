"""Categoricals whose categories are any flat dtype, ordered or not.

An engine categorical is int32 codes plus a dictionary: the categories, a
null-free column of any flat dtype (bool, integers, floats, string, date32,
timestamp, duration), and an ``ordered`` flag carried with the dictionary
(DESIGN.md section 2).  This module builds them (``encode``: the values'
sorted distinct non-missing values as categories, as pandas'
``astype("category")``; ``with_categories``: given categories, values not
among them missing) and re-codes them onto other categories (``recode``).

Per-row work is numpy over whole arrays (``np.unique`` /
``np.searchsorted``) or the engine; Python loops only over categories.
"""

import numpy as np

from zambezi import _core
from zambezi.errors import DTypeError, InvalidValueError, ZambeziError


def _host(col):
    return col if col.device == "cpu" else col.to_device("cpu")


def _sortable(col):
    """A numpy array whose order and equality are the column's values' (null
    rows hold arbitrary values), and a bool mask of the missing rows (null,
    or NaN for floats)."""
    from zambezi import _convert

    if col.dtype == "string":
        # Arrow text has no numpy view: Python strings in an object array
        # (numpy sorts and searches them); nulls hold ""
        m = _convert.null_mask(col)
        arr = _convert._object_array(col.to_pylist())
        missing = np.zeros(len(arr), dtype=bool) if m is None else m.copy()
        arr[missing] = ""
        return arr, missing
    arr = _convert.values_numpy(col)
    if col.dtype == "bool":
        arr = arr.astype(np.uint8)
    elif col.dtype.startswith(("timestamp", "duration")):
        arr = arr.view(np.int64)
    m = _convert.null_mask(col)
    missing = np.zeros(len(arr), dtype=bool) if m is None else m.copy()
    if arr.dtype.kind == "f":
        missing |= np.isnan(arr)
    return arr, missing


def _dictionary_like(col, positions):
    """Rows `positions` of col (a non-categorical column) as a dictionary:
    the column's own dtype, unit and timezone kept."""
    return _core.take(col, _core.column_from_buffer(np.ascontiguousarray(positions,
                                                                         dtype=np.int64)))


def encode(col, ordered=False):
    """col (any flat dtype) as a categorical whose categories are its
    distinct non-missing values in sorted order (pandas' astype('category'))."""
    if col.dtype == "category":
        return set_ordered(col, ordered)
    if col.dtype.startswith("list<"):
        raise DTypeError(f"astype('category') of a {col.dtype} column is not supported")
    if col.dtype == "string":
        out = _core.cast(col, "category")
        return set_ordered(out, ordered) if ordered else out
    device = col.device
    col = _host(col)
    # the engine's sorted group ids are the codes; each group's first row
    # gives its category
    ids_np, first = group_codes(col, True)
    dictionary = _dictionary_like(col, first)
    codes = ids_np.astype(np.int32)
    out = _core.categorical_from_codes(codes, dictionary, ordered=bool(ordered))
    return out if device == "cpu" else out.to_device(device)


def group_codes(col, sort=True):
    """(codes, first) of a host column: each row's number among the
    distinct non-missing values (int64, -1 for a missing value; in sorted
    order with sort, else in order of first appearance) -- the engine's
    group ids, one hash grouping -- and each value's first row."""
    ids, n_groups = _core.group_ids(_core.table_from_columns([col], ["k"]), [0], True,
                                    bool(sort))
    codes = np.asarray(ids.values()).astype(np.int64)
    m = ids.null_mask()
    if m is not None:
        codes[np.frombuffer(m, dtype=np.bool_)] = -1
    seen = codes >= 0
    first = np.zeros(n_groups, dtype=np.int64)
    first[codes[seen][::-1]] = np.flatnonzero(seen)[::-1]  # the last write is the first row
    return codes, first


def set_ordered(col, ordered):
    """The categorical col with its `ordered` flag set (codes shared)."""
    if bool(ordered) == col.ordered:
        return col
    host = _host(col)
    codes = np.asarray(host.values()).astype(np.int32)
    m = host.null_mask()
    if m is not None:
        codes = np.where(np.frombuffer(m, dtype=np.bool_), np.int32(-1), codes)
    out = _core.categorical_from_codes(codes, host.dictionary, ordered=bool(ordered))
    return out if col.device == "cpu" else out.to_device(col.device)


def categories_column(values, like, what, strict=True):
    """values (a list-like of categories) as a dictionary column: unique,
    no missing values, cast to `like`'s dtype (a dictionary column) when
    the values hold that dtype's values; when they do not, DTypeError, or
    with strict=False the values in their own dtype (set_categories: the
    old values then match none of them)."""
    from zambezi import _convert

    if isinstance(values, str):
        raise DTypeError(f"{what}: expected a list-like of categories, got the string "
                         f"{values!r}")
    if isinstance(values, _core.Column):
        col = values
    else:
        if hasattr(values, "to_list") and not hasattr(values, "__arrow_c_array__"):
            values = values.to_list()
        elif hasattr(values, "tolist") and isinstance(values, np.ndarray) and \
                values.dtype.kind == "O":
            values = values.tolist()
        if isinstance(values, (list, tuple)) and len(values) == 0:
            dt = like.dtype if like is not None else "string"
            return _core.cast(_core.column_from_sequence([], dtype="string"), dt) \
                if dt != "string" else _core.column_from_sequence([], dtype="string")
        col = _convert.to_column(list(values) if isinstance(values, tuple) else values)
    if col.dtype == "category":
        col = _core.cast(col, col.dictionary.dtype)
    if col.null_count:
        raise InvalidValueError(f"{what}: categories must not contain missing values")
    if like is not None and col.dtype != like.dtype and len(like):
        if _family(col.dtype) != _family(like.dtype):  # no text <-> number casts
            if not strict:
                return categories_column(col, None, what)
            raise DTypeError(f"{what}: categories of dtype {col.dtype} do not match the "
                             f"existing categories' dtype {like.dtype}")
        try:
            col = _core.cast(col, like.dtype)
        except Exception as e:
            if not strict:
                return categories_column(col, None, what)
            raise DTypeError(f"{what}: categories of dtype {col.dtype} do not match the "
                             f"existing categories' dtype {like.dtype}: {e}") from None
    if len(col) and _core.nunique(col, False) != len(col):
        raise InvalidValueError(f"{what}: categories must be unique")
    return col


def _family(dtype):
    """Which dtypes cast into each other as categories: numbers (and
    bools), times, durations, text."""
    if dtype.startswith(("timestamp", "date")):
        return "time"
    if dtype.startswith("duration"):
        return "duration"
    return "text" if dtype == "string" else "number"


def lookup(values, dictionary):
    """Each value's position in dictionary (a column of the same dtype), -1
    where it is missing or not there: numpy over both arrays."""
    values, dictionary = _host(values), _host(dictionary)
    arr, missing = _sortable(values)
    d, _ = _sortable(dictionary)
    if len(d) == 0:
        return np.full(len(arr), -1, dtype=np.int32)
    if d.dtype != arr.dtype:
        common = np.result_type(d.dtype, arr.dtype)
        d, arr = d.astype(common), arr.astype(common)
    order = np.argsort(d, kind="stable")
    pos = np.searchsorted(d[order], arr)
    pos = np.minimum(pos, len(d) - 1)
    hit = (d[order][pos] == arr) & ~missing
    return np.where(hit, order[pos], -1).astype(np.int32)


def with_categories(col, dictionary, ordered=False):
    """col (any flat dtype, or a categorical) as a categorical over the given
    categories (a dictionary column): values not among them are missing
    (pandas' astype(CategoricalDtype(categories))."""
    if col.dtype == "category":
        return recode(col, dictionary, ordered=ordered)
    device = col.device
    col = _host(col)
    if col.dtype == "string" or _family(col.dtype) != _family(dictionary.dtype):
        # strings, or values of another kind: encode (engine), then re-code
        # its few categories (none match across kinds)
        return recode(encode(col), dictionary, ordered=ordered)
    if col.dtype != dictionary.dtype and _family(col.dtype) != "number":
        col = _core.cast(col, dictionary.dtype)  # times in the categories' unit
    codes = lookup(col, dictionary)  # numbers compare in their common type
    out = _core.categorical_from_codes(codes, dictionary, ordered=bool(ordered))
    return out if device == "cpu" else out.to_device(device)


def recode(col, dictionary, ordered=None, rename=False):
    """The categorical col over new categories `dictionary` (a column):
    each row keeps its value when it is among them (else missing), or, with
    rename, keeps its code.  ordered None keeps col's flag."""
    from zambezi._frame_extra import _category_codes

    if ordered is None:
        ordered = col.ordered
    device = col.device
    host = _host(col)
    codes = _category_codes(host)
    if not rename:
        old = host.dictionary
        if _family(old.dtype) != _family(dictionary.dtype):
            dictionary_as_old = None  # text never equals a number: nothing matches
        elif old.dtype != dictionary.dtype and len(dictionary) and len(old):
            try:
                dictionary_as_old = _core.cast(dictionary, old.dtype)
            except Exception:
                dictionary_as_old = None
        else:
            dictionary_as_old = dictionary
        if dictionary_as_old is None or len(old) == 0:
            lut = np.full(len(old) + 1, -1, dtype=np.int32)
        elif old.dtype == "string":
            where = {c: i for i, c in enumerate(dictionary_as_old.to_pylist())}
            lut = np.array([where.get(c, -1) for c in old.to_pylist()] + [-1], dtype=np.int32)
        else:
            lut = np.append(lookup(old, dictionary_as_old), np.int32(-1))
        codes = lut[codes]
    out = _core.categorical_from_codes(np.ascontiguousarray(codes, dtype=np.int32), dictionary,
                                       ordered=bool(ordered))
    return out if device == "cpu" else out.to_device(device)


def from_pandas_dtype(col, dtype):
    """col cast to a pandas CategoricalDtype (categories None: col's own)."""
    if dtype.categories is None:
        return encode(col, ordered=bool(dtype.ordered))
    # the categories keep their own dtype (pandas'); the values are matched
    # against them
    cats = categories_column(dtype.categories, None, "astype(CategoricalDtype)")
    return with_categories(col, cats, ordered=bool(dtype.ordered))


def category_position(value, dictionary):
    """The position of the scalar value among the categories (a host
    dictionary column), -1 when it is not one.  Numbers are looked up in
    their common type (2.5 is not the category 2); other kinds are cast to
    the categories' dtype (a value that does not cast is not a category)."""
    probe = _core.column_from_sequence([value])
    try:
        if probe.dtype != dictionary.dtype and not (
                _family(probe.dtype) == "number" == _family(dictionary.dtype)):
            probe = _core.cast(probe, dictionary.dtype)
        return int(lookup(probe, dictionary)[0])
    except (ZambeziError, TypeError, ValueError):
        return -1


_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def compare_ordered(series, other, op, reflected):
    """series <op> other (lt le gt ge) where one side is a categorical, as
    pandas: only an ordered categorical compares, by category order
    (its codes), with a category (a scalar: text, a number, a time) or a
    categorical of the same categories; missing rows compare False.  A
    scalar that is not a category raises DTypeError (a TypeError, as
    pandas)."""
    from zambezi import _base, _dtypes
    from zambezi._frame_extra import _category_codes

    if reflected:
        op = _FLIP[op]
    col = series._col
    if col.dtype != "category":  # the other side is the categorical
        raise DTypeError("Cannot compare a Categorical with a non-categorical Series "
                         "for order")
    if not col.ordered:
        raise DTypeError("Unordered Categoricals can only compare equality or not")
    codes = _category_codes(col)
    if _base.is_series(other):
        ocol = other._col
        if ocol.dtype != "category" or not ocol.ordered or \
                ocol.dictionary.dtype != col.dictionary.dtype or \
                ocol.dictionary.to_pylist() != col.dictionary.to_pylist():
            raise DTypeError("Categoricals can only be compared if 'categories' are the "
                             "same and both are ordered")
        if len(ocol) != len(col):
            raise InvalidValueError("Can only compare identically-labeled Series objects")
        right = _category_codes(ocol)
        missing = (codes < 0) | (right < 0)
    else:
        value = _dtypes.py_scalar(other)
        pos = category_position(value, col.dictionary)
        if pos < 0:
            raise DTypeError(f"Cannot compare a Categorical for op {op} with a scalar, "
                             f"which is not a category ({other!r})")
        right = np.int32(pos)
        missing = codes < 0
    res = {"lt": codes < right, "le": codes <= right, "gt": codes > right,
           "ge": codes >= right}[op] & ~missing
    out = _core.column_from_buffer(np.ascontiguousarray(res))
    return out if col.device == "cpu" else out.to_device(col.device)


def min_max(col, want_max, skipna=True):
    """The smallest / largest category present in the ordered categorical
    col (by category order); None (pandas' NaN) when there is none, or
    with skipna=False when a row is missing."""
    from zambezi._frame_extra import _category_codes

    codes = _category_codes(col)
    valid = codes[codes >= 0]
    if len(valid) == 0 or (not skipna and len(valid) < len(codes)):
        return None
    code = int(valid.max() if want_max else valid.min())
    return _host(col).dictionary.slice(code, 1).to_pylist()[0]


def check_category(col, value):
    """value's position among the categorical col's categories; DTypeError
    (a TypeError, as pandas) when it is not one of them."""
    from zambezi import _dtypes

    pos = category_position(_dtypes.py_scalar(value), _host(col.dictionary))
    if pos < 0:
        raise DTypeError(f"Cannot setitem on a Categorical with a new category ({value!r}), "
                         "set the categories first")
    return pos


def fill_value(col, value):
    """The categorical col with its missing rows set to value, which must be
    one of its categories (pandas raises TypeError otherwise)."""
    from zambezi._frame_extra import _category_codes

    host = _host(col)
    pos = check_category(host, value)
    codes = _category_codes(host)
    codes[codes < 0] = pos
    out = _core.categorical_from_codes(codes, host.dictionary)
    return out if col.device == "cpu" else out.to_device(col.device)


def value_counts(col, sort, ascending, dropna, normalize):
    """pandas' value_counts of a categorical: every category (unused ones
    count 0) in category order, then, with dropna=False and missing rows,
    a missing value; sort orders by count, stably (ties in that order).
    Returns (values, counts) columns.  One bincount over the codes."""
    from zambezi._frame_extra import _category_codes

    host = _host(col)
    k = len(host.dictionary)
    codes = _category_codes(host)
    counts = np.bincount(codes[codes >= 0], minlength=k).astype(np.int64)
    order = np.arange(k, dtype=np.int32)
    n_missing = int((codes < 0).sum())
    if not dropna and n_missing:
        counts = np.append(counts, np.int64(n_missing))
        order = np.append(order, np.int32(-1))
    if sort:
        perm = np.argsort(counts if ascending else -counts, kind="stable")
        counts, order = counts[perm], order[perm]
    values = _core.categorical_from_codes(np.ascontiguousarray(order), host.dictionary)
    if normalize:
        total = counts.sum()
        out = _core.column_from_buffer(counts / total if total else counts.astype(np.float64))
    else:
        out = _core.column_from_buffer(np.ascontiguousarray(counts))
    if col.device != "cpu":
        values, out = values.to_device(col.device), out.to_device(col.device)
    return values, out
