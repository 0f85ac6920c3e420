"""``zb.to_numeric`` and ``zb.factorize`` / ``Series.factorize``, as
pandas.

to_numeric reads text as numbers in the engine: one regular-expression
test of every row (PCRE2) says which rows are numbers, and one engine cast
reads them -- int64 when every number is an integer, else float64, with
missing values (empty text, errors="coerce") as NaN.  ``downcast`` picks
the smallest dtype that holds every value.  factorize numbers each
distinct value by its first appearance (or in sorted order) with the
engine's distinct values and their lookup.
"""

import numbers

import numpy as np

from zambezi import _base
from zambezi.errors import DTypeError, InvalidValueError

_NUMBER = (r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[Ii]nf(?:inity)?|INF(?:INITY)?"
           r"|[Nn]a[Nn])\s*")
_INTEGER = r"\s*[+-]?\d{1,18}\s*"
_DOWNCASTS = ("integer", "signed", "unsigned", "float")


def _smallest(s, downcast):
    """s in the smallest dtype of the downcast kind that holds its values
    (s unchanged when none does), as pandas."""
    if downcast is None or len(s) == 0:
        return s
    if downcast not in _DOWNCASTS:
        raise InvalidValueError(f"to_numeric: downcast must be one of {_DOWNCASTS}, not "
                                f"{downcast!r}")
    if downcast == "float":
        if s.dtype.startswith(("int", "uint", "float")):
            return s.astype("float32") if _same_after(s, "float32") else s
        return s
    if not s.dtype.startswith(("int", "uint")) or s._col.null_count:
        return s
    lo, hi = s.min(), s.max()
    kinds = ("uint8", "uint16", "uint32", "uint64") if downcast == "unsigned" else \
        ("int8", "int16", "int32", "int64")
    if downcast == "unsigned" and lo < 0:
        return s
    for kind in kinds:
        info = np.iinfo(kind)
        if info.min <= lo and hi <= info.max:
            return s.astype(kind)
    return s


def _same_after(s, dtype):
    back = s.astype(dtype).astype(s.dtype)
    return bool((back == s).fillna(True).all())


def _text_to_number(s, errors, what):
    valid = s.str.fullmatch(_NUMBER)
    blank = s.str.strip() == ""
    bad = (~valid & ~blank).fillna(False)
    if errors == "raise" and bad.any():
        pos = int(np.flatnonzero(np.asarray(bad.to_numpy(), dtype=bool))[0])
        raise InvalidValueError(f"{what}: Unable to parse string {s.iloc[pos]!r} at position "
                                f"{pos}")
    keep = valid.fillna(False)
    numbers_only = s.where(keep)
    ints = s.str.fullmatch(_INTEGER).fillna(False)
    if bool((ints | ~keep).all()) and numbers_only._col.null_count == 0:
        return numbers_only.str.strip().astype("int64")
    return numbers_only.str.strip().astype("float64")


def to_numeric(arg, errors="raise", downcast=None, dtype_backend=None):
    """Numbers from text (or numbers kept): a Series gives a Series, a
    list or array a numpy array, a scalar a number.  Text that is not a
    number raises ValueError naming it and its position, or becomes NaN
    with errors="coerce"; empty text is NaN.  Integers give int64 (float64
    when a value is missing), others float64; ``downcast`` ("integer",
    "signed", "unsigned", "float") the smallest such dtype that holds them.

    Examples
    --------
    >>> zb.to_numeric(zb.Series(["1", " 22", "-3"])).to_list()
    [1, 22, -3]
    >>> zb.to_numeric(zb.Series(["1.5", "x", None]), errors="coerce").to_list()
    [1.5, None, None]
    >>> zb.to_numeric(zb.Series([1, 200]), downcast="integer").dtype
    'int16'
    """
    if errors not in ("raise", "coerce"):
        raise InvalidValueError(f"to_numeric: errors must be 'raise' or 'coerce', not "
                                f"{errors!r}")
    if dtype_backend is not None:
        raise InvalidValueError("to_numeric: dtype_backend is not supported")
    series_cls = _base.series_class()
    if isinstance(arg, (str, bytes)) or isinstance(arg, numbers.Number) or arg is None:
        if isinstance(arg, numbers.Number) and not isinstance(arg, bool):
            return arg
        out = to_numeric(series_cls([arg]), errors=errors)
        value = out.iloc[0]
        return np.nan if value is None else value
    given = arg
    s = arg if _base.is_series(arg) else series_cls(arg)
    if s.dtype in ("string", "category"):
        text = s if s.dtype == "string" else s.astype("string")
        s = _text_to_number(text, errors, "to_numeric")
    elif not s.dtype.startswith(("int", "uint", "float", "bool")):
        if s.dtype.startswith(("timestamp", "duration", "date")):
            s = s.astype("int64")
        else:
            raise DTypeError(f"to_numeric: cannot read {s.dtype} values as numbers")
    s = _smallest(s, downcast)
    return s if _base.is_series(given) else s.to_numpy()


def factorize(values, sort=False, use_na_sentinel=True, size_hint=None):
    """(codes, uniques): each value's number among the distinct values
    (an int64 numpy array, -1 for a missing value), and the distinct
    values in order of first appearance (sorted with ``sort``) -- an Index
    for a Series or Index, as pandas' ``factorize``.

    Examples
    --------
    >>> codes, uniques = zb.factorize(zb.Series(["b", "a", None, "b"]))
    >>> codes.tolist(), uniques.to_list()
    ([0, 1, -1, 0], ['b', 'a'])
    """
    from zambezi import _categorical, _core
    from zambezi import index as _ix

    if not use_na_sentinel:
        raise InvalidValueError("factorize: use_na_sentinel=False is not supported")
    if isinstance(values, _ix.Index):
        if values.nlevels != 1:
            raise InvalidValueError("factorize of a MultiIndex is not supported")
        col, name = values._levels()[0], values.name
    else:
        s = values if _base.is_series(values) else _base.series_class()(values)
        col, name = s._col, None
    if col.device != "cpu":
        col = col.to_device("cpu")
    # the engine's group ids are the codes: in order of first appearance,
    # or of the sorted values with sort
    codes, first = _categorical.group_codes(col, sort)
    uniq = _core.take(col, _core.column_from_buffer(first))
    if isinstance(values, _ix.RangeIndex):
        name = values.name   # pandas keeps a RangeIndex's name
    elif isinstance(values, _ix.Index):
        name = None
    uniques = _ix.Index._from_columns([uniq], [name])
    if not (_base.is_series(values) or isinstance(values, _ix.Index)):
        return codes, uniques.to_numpy()
    return codes, uniques


class SeriesFactorize:
    """Series.factorize (a mixin of zambezi.Series)."""

    __slots__ = ()

    def factorize(self, sort=False, use_na_sentinel=True):
        """(codes, uniques) of the values: see ``zb.factorize``.

        Examples
        --------
        >>> codes, uniques = zb.Series([3, 1, 3]).factorize(sort=True)
        >>> codes.tolist(), uniques.to_list()
        ([1, 0, 1], [1, 3])
        """
        return factorize(self, sort=sort, use_na_sentinel=use_na_sentinel)
