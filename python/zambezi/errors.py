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


class EmptyDataError(ParseError):
    """read_csv found no columns to parse (an empty file), as pandas'
    ``pandas.errors.EmptyDataError``."""


class ParserWarning(UserWarning):
    """read_csv(on_bad_lines="warn") skipped a row; the message names the
    line, as pandas' ``pandas.errors.ParserWarning``.  A warning, not an
    error: it is not a ZambeziError."""


__all__ = [
    "ZambeziError",
    "EmptyDataError",
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
