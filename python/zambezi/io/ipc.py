"""Arrow IPC files (Feather v2): ``zb.read_feather``, ``zb.read_ipc``,
``DataFrame.to_feather``, ``DataFrame.to_ipc`` and ``zb.write_ipc``.

The file is read and written by the engine's own C code (src/io/ipc/):
pyarrow is not needed.  Names follow pandas (``read_feather``,
``to_feather``) and polars (``read_ipc``, ``write_ipc``); Feather v2 and the
Arrow IPC file format are the same thing, so every name reads and writes
the same files.  The ``pandas`` metadata pyarrow stores in the schema is
honoured as ``read_parquet`` does it (the index columns it names become
the index, a stored RangeIndex comes back as one), with the same helpers.
"""

import json
import os

from zambezi import _arrow_index, _core
from zambezi.errors import InvalidValueError, UnsupportedError
from zambezi.io import parquet as _parquet

__all__ = ["read_feather", "read_ipc", "to_feather", "write_ipc"]


def _source(path, who):
    """A path (str) for the engine to map, or a memoryview of a whole file
    (bytes are a file's contents, as polars takes them)."""
    if isinstance(path, (str, os.PathLike)):
        return os.fspath(path)
    if hasattr(path, "read"):
        return memoryview(path.read())
    try:
        return memoryview(path)  # bytes, bytearray, pyarrow Buffer, mmap...
    except TypeError:
        raise InvalidValueError(f"{who} takes a path, a binary file object or a bytes-like "
                                f"object, not {type(path).__name__}") from None


def _columns(columns, who):
    if columns is None:
        return None
    if isinstance(columns, str) or not hasattr(columns, "__iter__"):
        raise InvalidValueError(f"{who}: columns must be a list of column names")
    columns = list(columns)
    for c in columns:
        if not isinstance(c, str):
            raise InvalidValueError(f"{who}: column names must be str, not {type(c).__name__}")
    if len(set(columns)) != len(columns):
        raise InvalidValueError(f"{who}: duplicate names in columns")
    return columns


def _read(path, columns, who):
    # with columns, index columns stored as columns are not added (pandas'
    # read_feather reads only the columns named; a stored RangeIndex still
    # applies)
    table, meta_text = _core.read_ipc(_source(path, who), columns=_columns(columns, who))
    return _parquet._with_index(table, _parquet._pandas_meta(meta_text))


def read_feather(path, columns=None, use_threads=True, storage_options=None, **kwargs):
    """Read a Feather (v2) file into a DataFrame (pandas.read_feather).

    A Feather v2 file is an Arrow IPC file: see ``zb.read_ipc`` for what
    is read and how.  ``path`` is a path, a binary file object or a
    bytes-like object; ``columns`` selects columns by name, in the order
    given.  When the file holds pandas metadata (files written by pandas or
    pyarrow), its index columns become the index and a stored RangeIndex
    comes back as a RangeIndex, as in pandas (with ``columns``, as in
    pandas, index columns stored as columns are read only when named).  ``use_threads`` is accepted
    for pandas' signature (the engine always uses its thread pool).

    Differences from pandas: integer columns with nulls stay integer
    (every zambezi dtype is nullable), strings are zambezi strings, a
    dictionary column becomes a categorical whose categories are the
    dictionary's (unordered), and the Arrow null type becomes an all-null
    string column (pandas: object).  Feather v1 files (before Arrow 0.17)
    are not read.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "frame.feather")
    >>> pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"]}).to_feather(path)
    >>> zb.read_feather(path).to_dict("list")
    {'a': [1, 2, 3], 'b': ['x', None, 'z']}
    >>> zb.read_feather(path, columns=["b"]).to_dict("list")
    {'b': ['x', None, 'z']}
    """
    if storage_options is not None:
        raise UnsupportedError("read_feather: storage_options is not supported")
    if kwargs:
        raise UnsupportedError("read_feather: options not supported yet: "
                               + ", ".join(sorted(kwargs)))
    return _read(path, columns, "read_feather")


def read_ipc(source, columns=None, **kwargs):
    """Read an Arrow IPC file (or stream) into a DataFrame (polars.read_ipc).

    zambezi maps the file and reads it with its own C reader; pyarrow is
    not needed.  A file of one uncompressed record batch (as
    ``DataFrame.to_ipc`` writes) becomes columns over the mapped file,
    without a copy; compressed buffers (LZ4_FRAME, ZSTD: liblz4 and libzstd
    are loaded when first needed) are decompressed in parallel, and several
    record batches are concatenated.  ``source``: a path, a binary file
    object or a bytes-like object; ``columns`` selects columns by name, in
    the order given (the others are not decompressed).

    Columns read without a copy keep the file mapped while they live.
    Writing a frame to the path it was read from (``to_ipc``,
    ``to_feather``, ``to_csv``, ``to_parquet``) is safe: zambezi writes a
    new file under the name and the old one lives on for the frame.
    Another program that truncates or rewrites the file in place while the
    frame lives makes it crash (SIGBUS) or change, as with pyarrow's
    ``memory_map=True``; read from bytes (``open(path, "rb").read()``) when
    that can happen.

    Types: int8..int64, uint8..uint64, float32/64, bool, utf8 and
    large_utf8, dictionary-encoded strings (categorical), timestamp with
    its unit and time zone, date32 and date64 (as date32), duration; the
    Arrow null type becomes an all-null string column; list and
    large_list of those (but dictionaries; utf8_view values become
    strings), nested to 32 levels (lists of lists, List and LargeList
    levels mixed, as pyarrow and polars write them), become the list
    dtype.  Other types (structs, maps, decimal, binary, float16, lists of
    those...) raise ``UnsupportedError`` naming the column when it is read
    (select other columns to skip it).
    The pandas metadata is honoured as in ``read_feather``.  A truncated or
    corrupt file raises ``ParseError`` naming the file.

    Differences from polars: the result is a pandas-style DataFrame (with
    the stored pandas index, if any); ``n_rows``, ``row_index_name`` and
    the other polars options raise UnsupportedError.

    Examples
    --------
    >>> df = zb.DataFrame({"k": ["a", "b", "a"], "v": [1.5, None, 3.0]})
    >>> data = df.to_ipc()
    >>> data[:6], data[-6:]
    (b'ARROW1', b'ARROW1')
    >>> zb.read_ipc(data).to_dict("list")
    {'k': ['a', 'b', 'a'], 'v': [1.5, None, 3.0]}
    >>> zb.read_ipc(data, columns=["v"]).to_dict("list")
    {'v': [1.5, None, 3.0]}
    """
    if kwargs:
        raise UnsupportedError("read_ipc: options not supported yet: "
                               + ", ".join(sorted(kwargs)))
    return _read(source, columns, "read_ipc")


_CODECS = {None: "none", "none": "none", "uncompressed": "none", "lz4": "lz4",
           "lz4_frame": "lz4", "zstd": "zstd"}


def _write(frame, path, compression, compression_level, chunksize, index, who):
    key = compression.lower() if isinstance(compression, str) else compression
    if key not in _CODECS:
        raise InvalidValueError(f"{who}: unknown compression {compression!r}; zambezi writes "
                                "'lz4', 'zstd' or 'uncompressed'")
    codec = _CODECS[key]
    if compression_level is None:
        level = 0
    elif codec != "zstd":
        raise InvalidValueError(f"{who}: compression_level applies to zstd only")
    elif isinstance(compression_level, bool) or not isinstance(compression_level, int) \
            or not -131072 <= compression_level <= 22:
        raise InvalidValueError(f"{who}: compression_level must be an int up to 22, not "
                                f"{compression_level!r}")
    else:
        level = int(compression_level)
    if chunksize is None:
        # one batch (read back without a copy) unless compressed: then
        # batches of 2^20 rows are compressed in parallel
        batch = 0 if codec == "none" else 1 << 20
    elif isinstance(chunksize, bool) or not isinstance(chunksize, int) or chunksize <= 0:
        raise InvalidValueError(f"{who}: chunksize must be a positive int, not {chunksize!r}")
    else:
        batch = int(chunksize)
    if index not in (None, True, False):
        raise InvalidValueError(f"{who}: index must be None, True or False, not {index!r}")
    frame = frame.to("cpu") if getattr(frame, "device", "cpu") != "cpu" else frame
    table, meta = _arrow_index.export_parts(frame, index)
    names = table.names
    if len(set(names)) != len(names):
        raise InvalidValueError(f"{who}: duplicate column names (an index level's name may "
                                "equal a column's)")
    meta = dict(meta, pandas_version=_parquet._pandas_version())
    pairs = [("pandas", json.dumps(meta))]
    if path is None:
        return _core.write_ipc(table, None, codec, level, batch, pairs)
    if isinstance(path, (str, bytes, os.PathLike)):
        _core.write_ipc(table, os.fspath(path), codec, level, batch, pairs)
        return None
    if hasattr(path, "write"):
        path.write(_core.write_ipc(table, None, codec, level, batch, pairs))
        return None
    raise InvalidValueError(f"{who} takes a path, a binary file object or None, not "
                            + type(path).__name__)


def to_feather(frame, path, compression=None, compression_level=None, chunksize=None,
               version=2, index=None, **kwargs):
    """DataFrame.to_feather: write ``frame`` as a Feather v2 file (see
    ``DataFrame.to_feather``).

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> zb.io.to_feather(zb.DataFrame({"a": [1, 2]}), buf, compression="zstd")
    >>> zb.read_feather(io.BytesIO(buf.getvalue())).to_dict("list")
    {'a': [1, 2]}
    """
    if kwargs:
        raise UnsupportedError("to_feather: options not supported yet: "
                               + ", ".join(sorted(kwargs)))
    if version != 2:
        raise UnsupportedError("to_feather: only Feather version 2 (Arrow IPC) is written")
    if compression is None:  # pyarrow's default: lz4 when it can
        compression = "lz4" if _core.lz4_available() else "uncompressed"
    if path is None:
        raise InvalidValueError("to_feather: path is required (use to_ipc() for bytes)")
    return _write(frame, path, compression, compression_level, chunksize, index, "to_feather")


def write_ipc(frame, path=None, compression="uncompressed", *, compression_level=None,
              chunksize=None, index=None):
    """Write ``frame`` as an Arrow IPC file (polars' ``write_ipc``; the same
    as ``frame.to_ipc(path, ...)``, see ``DataFrame.to_ipc``).  Returns
    the file's bytes when path is None.

    Examples
    --------
    >>> data = zb.write_ipc(zb.DataFrame({"a": [1, 2]}), None, compression="lz4")
    >>> zb.read_ipc(data).to_dict("list")
    {'a': [1, 2]}
    """
    return _write(frame, path, compression, compression_level, chunksize, index, "write_ipc")
