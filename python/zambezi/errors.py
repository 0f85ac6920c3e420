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

__all__ = [
    "ZambeziError",
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
