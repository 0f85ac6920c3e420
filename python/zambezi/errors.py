"""The exceptions zambezi raises.

Every error from the engine is a ``ZambeziError``; each kind also subclasses
the built-in exception a Python user would catch for it (``ValueError``,
``TypeError``, ``MemoryError``, ``KeyError``...).  The classes are created by
the C extension (``zambezi._core``) and re-exported here.
"""

from zambezi._core import (
    ColumnNotFoundError,
    DeviceError,
    DTypeError,
    InvalidValueError,
    OutOfMemoryError,
    ParseError,
    UnsupportedError,
    ZambeziError,
    ZambeziIndexError,
    ZambeziIOError,
    ZambeziOverflowError,
)


# The classes above come from the C extension with one-line docstrings;
# these are the docstrings help() and docs/api.md show.
_DOCS = {
    ZambeziError: """Base class of every error raised by zambezi.  Each kind
    also subclasses the built-in exception that fits, so ``except ValueError``
    (or KeyError, TypeError ...) keeps working.

    Examples
    --------
    >>> df = zb.DataFrame({"a": [1, 2]})
    >>> try:
    ...     df["b"]
    ... except zb.ZambeziError as e:
    ...     print(type(e).__name__)
    ColumnNotFoundError
    """,
    InvalidValueError: """An argument or value is not acceptable (also a
    ValueError): lengths that differ, an unknown option, nothing to
    concatenate ...

    Examples
    --------
    >>> zb.DataFrame({"a": [1, 2, 3], "b": [1, 2]})
    Traceback (most recent call last):
        ...
    zambezi.errors.InvalidValueError: column 'b' has 2 values but column 'a' has 3; all columns
    of a DataFrame must have the same length
    """,
    ParseError: r"""Malformed input data (an InvalidValueError, so also a
    ValueError); the message names the line, and the column when there is
    one.

    Examples
    --------
    >>> zb.read_csv(b"a\n1\nx\n", dtype={"a": "int64"})
    Traceback (most recent call last):
        ...
    zambezi.errors.ParseError: CSV line 3, column 'a': cannot parse 'x' as int64
    """,
    DTypeError: """A value or column has the wrong dtype for the operation
    (also a TypeError).

    Examples
    --------
    >>> zb.Series([1, 2]) == "a"
    Traceback (most recent call last):
        ...
    zambezi.errors.DTypeError: Series None (int64) == 'a': eq is not defined for int64 and string
    """,
    OutOfMemoryError: """Host or GPU memory is exhausted (also a
    MemoryError).  zambezi frees what the failed call allocated, so the
    program can go on, with fewer rows or on another device.

    Examples
    --------
    >>> issubclass(zb.OutOfMemoryError, MemoryError)
    True
    """,
    ZambeziIndexError: """A row position is out of range (also an
    IndexError).

    Examples
    --------
    >>> zb.Series([1, 2]).iloc[5]
    Traceback (most recent call last):
        ...
    zambezi.errors.ZambeziIndexError: iloc: row 5 is out of range for 2 rows
    """,
    ColumnNotFoundError: """No column has this name (also a KeyError); the
    message lists the columns there are.

    Examples
    --------
    >>> zb.DataFrame({"a": [1]})["b"]
    Traceback (most recent call last):
        ...
    zambezi.errors.ColumnNotFoundError: "no column named 'b'; the columns are ['a']"
    """,
    UnsupportedError: """Not supported (yet, or here); also a
    NotImplementedError.  zambezi raises it rather than ignore an option.

    Examples
    --------
    >>> zb.MultiIndex()
    Traceback (most recent call last):
        ...
    zambezi.errors.UnsupportedError: build a MultiIndex with MultiIndex.from_arrays, from_tuples
    or from_frame
    """,
    DeviceError: """A GPU is missing or failed: the message says which device
    and why (``python -m zambezi doctor`` says more).

    Examples
    --------
    >>> zb.DataFrame({"a": [1]}).to("cuda:99")
    Traceback (most recent call last):
        ...
    zambezi.errors.DeviceError: cannot use device 'cuda:99': ...
    """,
    ZambeziIOError: """A file or stream failed (also an OSError).

    Examples
    --------
    >>> zb.read_csv("no/such/file.csv")
    Traceback (most recent call last):
        ...
    zambezi.errors.ZambeziIOError: cannot open 'no/such/file.csv': No such file or directory
    """,
    ZambeziOverflowError: """A value does not fit its dtype (also an
    OverflowError); the message names the row.

    Examples
    --------
    >>> zb.Series([1, 300], name="n").astype("int8")
    Traceback (most recent call last):
        ...
    zambezi.errors.ZambeziOverflowError: astype('int8') of Series 'n' (int64): cannot cast int64
    to int8: row 1 holds 300, out of range
    """,
}
for _cls, _doc in _DOCS.items():
    _cls.__doc__ = _doc
del _cls, _doc


class EmptyDataError(ParseError):
    """read_csv found no columns to parse (an empty file), as pandas'
    ``pandas.errors.EmptyDataError``.

    Examples
    --------
    >>> zb.read_csv(b"")
    Traceback (most recent call last):
        ...
    zambezi.errors.EmptyDataError: No columns to parse from file
    """


class UndefinedVariableError(ZambeziError, NameError):
    """A name in a ``query`` / ``eval`` expression is neither a column nor
    (as ``@name``) a variable of the caller; also a NameError, as pandas'
    ``pandas.errors.UndefinedVariableError``.

    Examples
    --------
    >>> zb.DataFrame({"fare": [1.5]}).query("far > 1")
    Traceback (most recent call last):
        ...
    zambezi.errors.UndefinedVariableError: name 'far' is not defined: no column of that name
    (the columns are ['fare']); write @far for a Python variable (in 'far > 1')
    """


class ParserWarning(UserWarning):
    r"""read_csv(on_bad_lines="warn") skipped a row; the message names the
    line, as pandas' ``pandas.errors.ParserWarning``.  A warning, not an
    error: it is not a ZambeziError.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     df = zb.read_csv(b"a,b\n1,2\n4,5,6\n", on_bad_lines="warn")
    >>> df.to_dict("list"), str(caught[0].message)
    ({'a': [1], 'b': [2]}, 'Skipping line 3: expected 2 fields, saw 3')
    >>> caught[0].category is zb.errors.ParserWarning
    True
    """


__all__ = [
    "ZambeziError",
    "EmptyDataError",
    "UndefinedVariableError",
    "ParserWarning",
    "InvalidValueError",
    "ParseError",
    "DTypeError",
    "OutOfMemoryError",
    "ZambeziIndexError",
    "ColumnNotFoundError",
    "UnsupportedError",
    "DeviceError",
    "ZambeziIOError",
    "ZambeziOverflowError",
]
