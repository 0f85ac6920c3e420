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
import time

from zambezi import _arrow_index, _base, _profile
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


def read_parquet(path, engine="auto", columns=None, *, filters=None, device="cpu", **kwargs):
    """Read a Parquet file or dataset into a DataFrame (pandas.read_parquet).

    zambezi reads the file with its own C reader, in parallel over row
    groups and columns; pyarrow is not needed.  ``path`` is a file, a
    binary file object, a list of paths, a glob or a directory (walked in
    sorted order, names starting with "." or "_" skipped); in a directory,
    ``key=value`` folders are hive partitions and become columns (their
    values percent-decoded, as pyarrow writes them).  The files' frames
    are concatenated.  ``filters`` is pyarrow's form: a list of
    ``(column, op, value)`` tuples that must all hold, or a list of such
    lists of which one must hold (op: = == != < <= > >= in not in), with
    pyarrow's answers: a null passes no comparison, a NaN passes only
    ``!=``, ``in`` matches nulls when the list holds None (NaNs when it
    holds NaN) and ``not in`` is its negation; a ``decimal.Decimal`` value
    compares as a number.  Before any page is decoded, a row group whose
    statistics (min, max, null count) prove that no row can pass is
    skipped, for filters on integer, float, boolean and string columns
    compared with int, float and str values (a profile records the row groups read and
    skipped as the operation "read_parquet_row_groups"); the rows read
    are then filtered exactly. ``columns`` selects columns
    by name, in the order given.  When the file holds pandas metadata (files
    written by pandas or pyarrow), its index columns become the index and a
    stored RangeIndex comes back as a RangeIndex, as in pandas; index columns
    are read whatever ``columns`` says.  ``device``: "cpu", "cuda" /
    "cuda:N" or "auto" (as ``DataFrame.to``): the file is decoded on the
    CPU and the frame then uploaded (zambezi has no GPU Parquet decoder
    yet; a profile records this as a fallback of "read_parquet").

    Types: BOOLEAN, INT32, INT64, FLOAT, DOUBLE and UTF-8 BYTE_ARRAY columns,
    with their logical types (signed and unsigned 8-64 bit integers, DATE,
    TIMESTAMP in ms/us/ns; a UTC-adjusted timestamp has the time zone UTC;
    Spark's INT96 timestamps as ns), DECIMAL stored as INT32, INT64 or
    FIXED_LEN_BYTE_ARRAY (up to 16 bytes) as float64 (the unscaled integer
    divided by 10**scale, within one unit in the last place; pandas with
    pyarrow gives ``decimal.Decimal`` objects), FLOAT16 as float32,
    nulls in every type; data pages v1 and v2, dictionary pages, the
    encodings PLAIN, dictionary, RLE, DELTA_BINARY_PACKED,
    DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT, and the
    codecs UNCOMPRESSED, SNAPPY, GZIP and ZSTD (libsnappy, zlib and libzstd
    are loaded when first needed: a missing one is an error saying how to
    install it).  LIST columns of any of those value types (the 3-level
    layout, the legacy 2-level ones and bare repeated fields; null lists,
    empty lists and null elements) become the list dtype, and so do LISTs
    of such LISTs, to 32 levels (nulls and empty lists at every level); a
    filter on a list column raises ``UnsupportedError``.  Structs, maps and
    lists of structs, other FIXED_LEN_BYTE_ARRAY and binary
    columns, DECIMAL stored as BYTE_ARRAY, and the LZ4/BROTLI codecs raise
    ``UnsupportedError`` naming the column.  A corrupt or truncated file,
    a page whose CRC-32 (when the writer stored one) does not match, or
    repetition/definition levels that break the schema raise
    ``ParseError`` naming the file, column and row group.  The Arrow schema
    a writer stored in the footer (``ARROW:schema``: pyarrow, polars and
    zambezi write one) is read as pyarrow reads it: an INT64 it calls a
    duration is a duration, a UTC timestamp gets its time zone, and a
    dictionary column is a categorical.

    Differences from pandas (with pyarrow): integer columns with nulls stay
    integer (every zambezi dtype is nullable; to_pandas() shows the masked
    dtype); a column the pandas metadata calls categorical becomes a
    categorical whose categories are the values present, sorted (pandas
    keeps the stored categories, unused and ordered ones too), and so does
    one the Arrow schema calls a dictionary; hive partition columns are categoricals
    of their text, or int32 when every value is an integer (pandas makes
    both categoricals); row groups are not pruned on dates, timestamps or
    decimals (their rows are still filtered exactly).  ``engine`` is
    accepted for pandas' signature and ignored; other pandas options raise UnsupportedError.

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
                          else _datasets.with_filter_columns(columns, conditions, ()),
                          conditions)
        frame = _datasets.apply(frame, conditions, columns)
    else:
        root = os.fspath(path) if isinstance(path, (str, os.PathLike)) \
            and os.path.isdir(path) else None
        frame = _datasets.read_many(files, columns, conditions, _read_one, root)
    if device is None or device == "cpu":
        return frame
    t0 = time.perf_counter()
    out = frame.to(device)
    if out.device != "cpu":
        _profile.note("read_parquet", "cpu", out.device, len(out), time.perf_counter() - t0,
                      f"decoded on the CPU (no GPU Parquet decoder), then uploaded to "
                      f"{out.device}", fallback=True)
    return out


_FILTER_OPS = {"=": 0, "==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5, "in": 6,
               "not in": 7}


def _value_kind(v):
    """The engine's kind of a filter value (0 int, 1 float, 2 str) and the
    value, or None when row-group statistics are not compared with it."""
    import numbers

    if isinstance(v, str):
        return 2, v
    if isinstance(v, numbers.Integral):
        v = int(v)
        return (0, v) if -2**63 <= v < 2**63 else None
    if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral):
        return 1, float(v)
    return None


def _pruning_terms(conditions):
    """The filters as the engine's row-group pruning terms: (group, column,
    op, kind, values); a condition on values of another kind (dates,
    timestamps, None, mixed lists) is left out, which only prunes less."""
    terms = []
    for g, conj in enumerate(conditions):
        for col, op, val in conj:
            vals = val if op in ("in", "not in") else [val]
            kinds = [_value_kind(v) for v in vals]
            if any(k is None for k in kinds) or len({k for k, _ in kinds}) > 1:
                continue
            kind = kinds[0][0] if kinds else 0
            terms.append((g, col, _FILTER_OPS[op], kind, [v for _, v in kinds]))
    return terms


def _read_one(path, columns, conditions=None):
    if isinstance(path, (str, bytes, os.PathLike)):
        source = os.fspath(path)
    elif hasattr(path, "read"):
        source = memoryview(path.read())  # bytes would be taken for a path
    else:
        raise InvalidValueError("read_parquet takes a path, a list of paths, a glob, a "
                                "directory or a binary file object, not "
                                + type(path).__name__)
    terms = _pruning_terms(conditions) if conditions is not None else None
    want = None
    if columns is not None:
        # the index columns the pandas metadata names come along (as in pandas)
        _, meta_text, _, _ = _core.read_parquet(source, columns=[])
        fields, _, _ = _index_spec(_pandas_meta(meta_text))
        want = columns + [f for f in fields if f not in columns]
    t0 = time.perf_counter()
    table, meta_text, total, read = _core.read_parquet(source, columns=want, filters=terms)
    if terms is not None:
        _profile.note("read_parquet_row_groups", "cpu", "cpu", table.num_rows,
                      time.perf_counter() - t0,
                      f"{read} of {total} row groups read, {total - read} skipped by their "
                      "statistics")
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
           "uncompressed": "none",
           "gzip": "gzip"}
# codecs pandas accepts that zambezi does not write
_NOT_WRITTEN = {"brotli": "BROTLI", "lzo": "LZO"}


def to_parquet(frame, path=None, engine="auto", compression="snappy", index=None,
               partition_cols=None, *, row_group_size=None, compression_level=None,
               data_page_version="1.0", write_page_checksum=False, **kwargs):
    """DataFrame.to_parquet: write ``frame`` as a Parquet file (pandas'
    arguments; see ``DataFrame.to_parquet``).  Returns the file's bytes
    when path is None; a binary file object receives them.

    ``compression`` is "snappy" (the default), "gzip" (zlib, loaded when
    first needed), "zstd" or None; "brotli" raises UnsupportedError.
    ``compression_level`` applies to zstd (up to 22) and gzip (1-9).
    ``data_page_version`` is pyarrow's keyword: "1.0" (the default) or
    "2.0", data pages v2 (definition levels stored uncompressed before the
    compressed values).  ``write_page_checksum=True`` (pyarrow's keyword)
    stores each page's CRC-32 in its header.  List columns (of any value
    type but categoricals, and of lists of them to 32 levels) are written
    as 3-level LISTs of optional elements (a list of lists: a LIST whose
    element is a LIST), in data pages v1 whatever ``data_page_version``
    says, their strings dictionary-encoded as a string column's are and
    other values PLAIN, with the statistics of their values.

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
    if key in _NOT_WRITTEN:
        raise UnsupportedError(f"to_parquet: the {_NOT_WRITTEN[key]} codec is not supported; "
                               "zambezi writes 'snappy', 'gzip', 'zstd' or None")
    if key not in _CODECS:
        raise InvalidValueError(f"to_parquet: unknown compression {compression!r}; zambezi "
                                "writes 'snappy', 'gzip', 'zstd' or None")
    codec = _CODECS[key]
    if data_page_version not in ("1.0", "2.0"):
        raise InvalidValueError("to_parquet: data_page_version must be '1.0' or '2.0', not "
                                f"{data_page_version!r}")
    page_version = 2 if data_page_version == "2.0" else 1
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
    elif codec == "gzip":
        if isinstance(compression_level, bool) or not isinstance(compression_level, int) \
                or not 1 <= compression_level <= 9:
            raise InvalidValueError("to_parquet: a gzip compression_level is an int from 1 "
                                    f"to 9, not {compression_level!r}")
        level = int(compression_level)
    elif codec != "zstd":
        raise InvalidValueError("to_parquet: compression_level applies to zstd and gzip only")
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
                                        compression_level=compression_level,
                                        data_page_version=data_page_version,
                                        write_page_checksum=write_page_checksum))
        return None
    table, meta = _arrow_index.export_parts(frame, index)
    names = table.names
    if len(set(names)) != len(names):
        raise InvalidValueError("to_parquet: duplicate column names (an index level's name "
                                "may equal a column's)")
    meta = dict(meta, pandas_version=_pandas_version())
    pairs = [("pandas", json.dumps(meta))]
    # as pyarrow: the Arrow schema, for what Parquet types cannot say
    # (categoricals, time zones, second timestamps)
    pairs.append(("ARROW:schema", _arrow_schema.arrow_schema(table, pairs)))
    extra = (pairs, page_version, bool(write_page_checksum))
    if path is None:
        return _core.write_parquet(table, None, codec, level, rg, *extra)
    if isinstance(path, (str, bytes, os.PathLike)):
        _core.write_parquet(table, os.fspath(path), codec, level, rg, *extra)
        return None
    if hasattr(path, "write"):
        path.write(_core.write_parquet(table, None, codec, level, rg, *extra))
        return None
    raise InvalidValueError("to_parquet takes a path, a binary file object or None, not "
                            + type(path).__name__)


def _pandas_version():
    try:
        from importlib.metadata import version
        return version("pandas")
    except Exception:  # noqa: BLE001 - pandas is optional
        return "3.0.0"
