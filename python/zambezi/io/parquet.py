"""Reading and writing Parquet: ``zb.read_parquet``, ``DataFrame.to_parquet``.

The file is read by the engine's own reader (src/io/parquet/, in C, on
every core, the GIL released): pyarrow is not needed.  This module shapes
pandas' arguments and applies the ``pandas`` metadata that pandas and
pyarrow store in the file's footer: the index columns it names become the
index (a stored ``RangeIndex`` becomes a RangeIndex again), and the index
levels get their names back.
"""

import json
import os

from zambezi import _arrow_index, _base
from zambezi.io import _arrow_schema, _datasets
from zambezi.errors import InvalidValueError, UnsupportedError
from zambezi import _core
from zambezi import index as _ix

__all__ = ["read_parquet", "to_parquet"]


def _pandas_meta(text):
    """The parsed ``pandas`` metadata, or None when absent or unreadable."""
    if text is None:
        return None
    try:
        meta = json.loads(text)
    except ValueError:
        return None
    return meta if isinstance(meta, dict) else None


def _index_spec(meta):
    """(index field names, RangeIndex description or None, field -> label)."""
    if meta is None:
        return [], None, {}
    labels = {}
    for c in meta.get("columns") or []:
        if isinstance(c, dict) and isinstance(c.get("field_name"), str):
            labels[c["field_name"]] = c.get("name")
    fields, rng = [], None
    for ic in meta.get("index_columns") or []:
        if isinstance(ic, str):
            fields.append(ic)
        elif isinstance(ic, dict) and ic.get("kind") == "range":
            rng = ic
    return fields, rng, labels


def _level_name(field, labels):
    name = labels.get(field, field)
    if name is None or (isinstance(field, str) and field.startswith("__index_level_")
                        and name == field):
        return None
    return name


def read_parquet(path, columns=None, engine="auto", filters=None, **kwargs):
    """Read a Parquet file or dataset into a DataFrame (pandas.read_parquet).

    zambezi reads the file with its own C reader, in parallel over row
    groups and columns; pyarrow is not needed.  ``path`` is a file, a
    binary file object, a list of paths, a glob or a directory (walked in
    sorted order, names starting with "." or "_" skipped); in a directory,
    ``key=value`` folders are hive partitions and become columns.  The
    files' frames are concatenated.  ``filters`` is pyarrow's form: a list
    of ``(column, op, value)`` tuples that must all hold, or a list of such
    lists of which one must hold (op: = == != < <= > >= in not in); rows
    whose column is null are dropped (except by ``not in``), as pyarrow
    does. ``columns`` selects columns
    by name, in the order given.  When the file holds pandas metadata (files
    written by pandas or pyarrow), its index columns become the index and a
    stored RangeIndex comes back as a RangeIndex, as in pandas; index columns
    are read whatever ``columns`` says.

    Types: BOOLEAN, INT32, INT64, FLOAT, DOUBLE and UTF-8 BYTE_ARRAY columns,
    with their logical types (signed and unsigned 8-64 bit integers, DATE,
    TIMESTAMP in ms/us/ns; a UTC-adjusted timestamp has the time zone UTC;
    Spark's INT96 timestamps as ns),
    nulls in every type; data pages v1 and v2, dictionary pages, the
    encodings PLAIN, dictionary, RLE, DELTA_BINARY_PACKED,
    DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT, and the
    codecs UNCOMPRESSED, SNAPPY and ZSTD (libsnappy and libzstd are loaded
    when first needed: a missing one is an error saying how to install it).
    Nested columns, DECIMAL, FIXED_LEN_BYTE_ARRAY and binary columns,
    and the GZIP/LZ4/BROTLI codecs, raise ``UnsupportedError`` naming the
    column.  A corrupt or truncated file raises ``ParseError`` naming the
    file, column and row group.

    Differences from pandas (with pyarrow): integer columns with nulls stay
    integer (every zambezi dtype is nullable; to_pandas() shows the masked
    dtype); a column the pandas metadata calls categorical becomes a
    categorical whose categories are the values present, sorted (pandas
    keeps the stored categories, unused and ordered ones too), other
    dictionary-encoded columns are strings;
    a time zone other than UTC stored in the pandas metadata is not
    restored (the values are UTC); hive partition columns are categoricals
    of their text, or int32 when every value is an integer (pandas makes
    both categoricals); filters are applied after reading (no row group is
    skipped by its statistics yet).  ``engine`` is accepted for pandas'
    signature and ignored; other pandas options raise UnsupportedError.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "frame.parquet")
    >>> pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"]}).to_parquet(path)
    >>> df = zb.read_parquet(path)
    >>> df.to_dict("list")
    {'a': [1, 2, 3], 'b': ['x', None, 'z']}
    >>> zb.read_parquet(path, columns=["b"]).to_dict("list")
    {'b': ['x', None, 'z']}
    >>> zb.read_parquet(path, filters=[("a", ">=", 2)]).to_dict("list")
    {'a': [2, 3], 'b': [None, 'z']}
    """
    if kwargs:
        raise UnsupportedError("read_parquet: options not supported yet: "
                               + ", ".join(sorted(kwargs)))
    if engine not in ("auto", "pyarrow", "fastparquet", "zambezi"):
        raise InvalidValueError(f"read_parquet: unknown engine {engine!r}")
    if columns is not None:
        if isinstance(columns, str) or not hasattr(columns, "__iter__"):
            raise InvalidValueError("read_parquet: columns must be a list of column names")
        columns = list(columns)
        for c in columns:
            if not isinstance(c, str):
                raise InvalidValueError(
                    f"read_parquet: column names must be str, not {type(c).__name__}")
        if len(set(columns)) != len(columns):
            raise InvalidValueError("read_parquet: duplicate names in columns")
    conditions = _datasets.parse_filters(filters)
    files = _datasets.sources(path)
    if files is None:  # one file, or a file object
        frame = _read_one(path, columns if conditions is None
                          else _datasets.with_filter_columns(columns, conditions, ()))
        return _datasets.apply(frame, conditions, columns)
    return _datasets.read_many(files, columns, conditions, _read_one)


def _read_one(path, columns):
    if isinstance(path, (str, bytes, os.PathLike)):
        source = os.fspath(path)
    elif hasattr(path, "read"):
        source = memoryview(path.read())  # bytes would be taken for a path
    else:
        raise InvalidValueError("read_parquet takes a path, a list of paths, a glob, a "
                                "directory or a binary file object, not "
                                + type(path).__name__)
    if columns is not None:
        # the index columns the pandas metadata names come along (as in pandas)
        _, meta_text = _core.read_parquet(source, columns=[])
        fields, _, _ = _index_spec(_pandas_meta(meta_text))
        want = columns + [f for f in fields if f not in columns]
        table, meta_text = _core.read_parquet(source, columns=want)
    else:
        table, meta_text = _core.read_parquet(source)
    return _with_index(table, _pandas_meta(meta_text))


def _categoricals(table, meta):
    """The columns the pandas metadata calls categorical, as categoricals
    (their categories: the values present, sorted), and those it calls
    timedelta64[unit] (INT64 in Parquet, which has no duration type) as
    durations."""
    if meta is None:
        return table
    described = [c for c in meta.get("columns") or [] if isinstance(c, dict)]
    cat = {c.get("field_name") for c in described if c.get("pandas_type") == "categorical"}
    dur = {c.get("field_name"): c["numpy_type"][len("timedelta64["):-1] for c in described
           if str(c.get("numpy_type", "")).startswith("timedelta64[")
           and c["numpy_type"][len("timedelta64["):-1] in ("s", "ms", "us", "ns")}
    names = table.names
    if not cat.intersection(names) and not set(dur).intersection(names):
        return table
    cols = [table.column(i) for i in range(len(names))]
    for i, n in enumerate(names):
        if n in cat and cols[i].dtype == "string":
            cols[i] = _core.cast(cols[i], "category")
        elif n in dur and cols[i].dtype == "int64":
            cols[i] = _core.cast(cols[i], f"duration[{dur[n]}]")
    return _core.table_from_columns(cols, names)


def _with_index(table, meta):
    frame = _base.frame_class()
    table = _categoricals(table, meta)
    fields, rng, labels = _index_spec(meta)
    names = table.names
    present = [f for f in fields if f in names]
    if fields and len(present) == len(fields):
        data = [i for i, n in enumerate(names) if n not in set(fields)]
        pos = [names.index(f) for f in fields]
        idx = _ix.Index._from_columns([table.column(i) for i in pos],
                                      [_level_name(f, labels) for f in fields])
        return frame._wrap(table.select(data), idx)
    if rng is not None and not fields:
        try:
            start, step = int(rng.get("start", 0)), int(rng.get("step", 1))
        except (TypeError, ValueError):
            return frame._wrap(table)
        n = table.num_rows
        if step != 0 and int(rng.get("stop", start + step * n)) == start + step * n:
            return frame._wrap(table, _ix.RangeIndex(start, start + step * n, step,
                                                     name=rng.get("name")))
    return frame._wrap(table)


_CODECS = {"snappy": "snappy", "zstd": "zstd", "none": "none", None: "none",
           "uncompressed": "none"}


def to_parquet(frame, path=None, engine="auto", compression="snappy", index=None,
               partition_cols=None, *, row_group_size=None, compression_level=None,
               **kwargs):
    """DataFrame.to_parquet: write ``frame`` as a Parquet file (pandas'
    arguments; see ``DataFrame.to_parquet``).  Returns the file's bytes
    when path is None; a binary file object receives them.

    Examples
    --------
    >>> import io
    >>> df = zb.DataFrame({"k": ["a", "b", "a"], "v": [1.5, None, 3.0]})
    >>> data = zb.io.to_parquet(df, compression=None)
    >>> data[:4], data[-4:]
    (b'PAR1', b'PAR1')
    >>> zb.read_parquet(io.BytesIO(data)).to_dict("list")
    {'k': ['a', 'b', 'a'], 'v': [1.5, None, 3.0]}
    """
    if kwargs:
        raise UnsupportedError("to_parquet: options not supported yet: "
                               + ", ".join(sorted(kwargs)))
    if engine not in ("auto", "pyarrow", "fastparquet", "zambezi"):
        raise InvalidValueError(f"to_parquet: unknown engine {engine!r}")
    key = compression.lower() if isinstance(compression, str) else compression
    if key not in _CODECS:
        raise InvalidValueError(f"to_parquet: unknown compression {compression!r}; zambezi "
                                "writes 'snappy', 'zstd' or None")
    codec = _CODECS[key]
    if index not in (None, True, False):
        raise InvalidValueError(f"to_parquet: index must be None, True or False, not {index!r}")
    if row_group_size is None:
        rg = 0
    elif isinstance(row_group_size, bool) or not isinstance(row_group_size, int) \
            or row_group_size <= 0:
        raise InvalidValueError("to_parquet: row_group_size must be a positive int, not "
                                f"{row_group_size!r}")
    else:
        rg = int(row_group_size)
    if compression_level is None:
        level = 0
    elif codec != "zstd":
        raise InvalidValueError("to_parquet: compression_level applies to zstd only")
    elif isinstance(compression_level, bool) or not isinstance(compression_level, int) \
            or not -131072 <= compression_level <= 22:
        raise InvalidValueError("to_parquet: compression_level must be an int up to 22, not "
                                f"{compression_level!r}")
    else:
        level = int(compression_level)
    frame = frame.to("cpu") if getattr(frame, "device", "cpu") != "cpu" else frame
    if partition_cols is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidValueError("to_parquet: partition_cols needs a directory path")
        _datasets.write_partitioned(frame, os.fspath(path), partition_cols, index,
                                    lambda sub, p, ix: to_parquet(
                                        sub, p, compression=compression, index=ix,
                                        row_group_size=row_group_size,
                                        compression_level=compression_level))
        return None
    table, meta = _arrow_index.export_parts(frame, index)
    names = table.names
    for i, nm in enumerate(names):  # Parquet's nested (repeated) columns are not written yet
        if table.column(i).dtype.startswith("list<"):
            raise UnsupportedError(f"to_parquet: column {nm!r} is {table.column(i).dtype}: "
                                   "list columns are not written to Parquet yet; explode "
                                   "them, or pickle the frame")
    if len(set(names)) != len(names):
        raise InvalidValueError("to_parquet: duplicate column names (an index level's name "
                                "may equal a column's)")
    meta = dict(meta, pandas_version=_pandas_version())
    pairs = [("pandas", json.dumps(meta))]
    # as pyarrow: the Arrow schema, for what Parquet types cannot say
    # (categoricals, time zones, second timestamps)
    pairs.append(("ARROW:schema", _arrow_schema.arrow_schema(table, pairs)))
    if path is None:
        return _core.write_parquet(table, None, codec, level, rg, pairs)
    if isinstance(path, (str, bytes, os.PathLike)):
        _core.write_parquet(table, os.fspath(path), codec, level, rg, pairs)
        return None
    if hasattr(path, "write"):
        path.write(_core.write_parquet(table, None, codec, level, rg, pairs))
        return None
    raise InvalidValueError("to_parquet takes a path, a binary file object or None, not "
                            + type(path).__name__)


def _pandas_version():
    try:
        from importlib.metadata import version
        return version("pandas")
    except Exception:  # noqa: BLE001 - pandas is optional
        return "3.0.0"
