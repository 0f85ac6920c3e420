"""Reading and writing JSON: ``zb.read_json`` and ``DataFrame.to_json``.

Both run in the C engine (src/io/json_read.c, src/io/json_write.c) with
the GIL released, in parallel; this module only shapes pandas' arguments
into the engine's options, moves bytes, and applies pandas' column
conversions that are whole-column operations (floats that are all whole
numbers become int64; date-named columns become timestamps).

Formats: ``orient="records"`` runs in C -- JSON lines (``lines=True``: one
object per line) or one array of objects (``lines=False``, pandas'
default).  The other orients (pandas' default of ``to_json``, "columns",
included: write records with ``df.to_json(orient="records", lines=True)``
to stay in C), ``typ="series"``, ``chunksize`` and the other options the C
reader lacks, and a top-level JSON object to read, are handed to pandas
(zambezi.io.via_pandas): pandas' text, or pandas' reading made a zambezi
frame.  The defaults are pandas', so ``zambezi.pandas`` gives pandas'
output for every call.

Differences from pandas:
  - a column of JSON arrays whose elements are of one kind (numbers,
    strings, booleans, or such arrays again) is a list column
    (``list<T>``; pandas: Python lists in an object column); other nested
    objects and arrays are read as their JSON text in a string column
    (pandas: Python dicts and lists); a column
    that mixes kinds (strings and numbers that are not all numeric, or
    booleans with anything else) is a string column of the values' text
    (pandas: an object column of mixed Python values).
  - every dtype is nullable: integer and boolean columns with missing
    values stay int64 / bool with nulls (pandas: float64).
  - floats are always parsed correctly rounded (pandas' ``precise_float=True``;
    its default parser may differ in the last bit).
  - ``date_format`` defaults to ``"epoch"`` without pandas' FutureWarning;
    durations cannot be written with ``date_format="iso"``.
"""

import inspect
import io
import mmap
import os

from zambezi import _base, _core
from zambezi.errors import InvalidValueError
from zambezi.io.csv import (
    _compression_of,
    _decompress,
    _open_compressed,
    _recoding,
    _write_file_object,
)

__all__ = ["read_json", "to_json"]

_UNITS = {"s": 0, "ms": 1, "us": 2, "ns": 3}


def _date_like(name):
    """pandas' keep_default_dates rule for a column name."""
    if not isinstance(name, str):
        return False
    low = name.lower()
    return (low.endswith(("_at", "_time")) or low in ("modified", "date", "datetime")
            or low.startswith("timestamp"))


def _source_bytes(path_or_buf, compression):
    """The input as a buffer (bytes, memoryview or mmap) and a closer."""
    if isinstance(path_or_buf, (bytes, bytearray, memoryview)):
        data = path_or_buf
        method = _compression_of(None, compression, head=bytes(data[:4]))
        return (_decompress(data, method) if method else data), None
    if isinstance(path_or_buf, (str, os.PathLike)):
        path = os.fspath(path_or_buf)
        method = _compression_of(path, compression)
        with open(path, "rb") as f:
            if method is not None:
                return _decompress(f.read(), method), None
            try:
                m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (ValueError, OSError):  # empty file, pipe
                return f.read(), None
            return m, m.close
    if hasattr(path_or_buf, "read"):
        data = path_or_buf.read()
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        method = _compression_of(None, compression, head=bytes(data[:4]))
        return (_decompress(data, method) if method else data), None
    raise InvalidValueError(f"read_json: expected a path, bytes or a file object, not "
                            f"{type(path_or_buf).__name__}")


def _whole_floats_to_int(df):
    """pandas' dtype=True: a float64 column without missing values whose
    values are all whole numbers (in int64's range) becomes int64."""
    for name in list(df.columns):
        s = df[name]
        if str(s.dtype) != "float64" or len(s) == 0 or s.isna().any():
            continue
        a = s.abs()
        if not bool(a.max() < 9.2e18) or not bool((s == s.round()).all()):
            continue
        df[name] = s.astype("int64")
    return df


def _to_dates(df, names):
    """pandas' convert_dates for the columns `names`: strings that all parse
    as dates, or numbers past one year of seconds (the unit picked by
    magnitude: s, ms, us or ns), become timestamps; others stay."""
    from zambezi._times import to_datetime

    for name in names:
        if name not in df.columns:
            continue
        s = df[name]
        dt = str(s.dtype)
        if len(s) == 0:
            continue
        try:
            if dt == "string":
                df[name] = to_datetime(s)
            elif dt.startswith(("int", "uint", "float")):
                valid = s.dropna()
                if len(valid) == 0 or not bool((valid > 31536000).all()):
                    continue
                top = float(valid.abs().max())
                unit = ("s" if top < 9.2e9 else "ms" if top < 9.2e12 else
                        "us" if top < 9.2e15 else "ns")
                df[name] = to_datetime(s, unit=unit)
        except (ValueError, OverflowError, TypeError):
            continue
    return df


def read_json(path_or_buf, *, orient=None, typ="frame", dtype=None, convert_axes=None,
              convert_dates=True, keep_default_dates=True, precise_float=False,
              date_unit=None, encoding="utf-8", encoding_errors="strict", lines=False,
              chunksize=None, compression="infer", nrows=None, storage_options=None,
              dtype_backend=None, engine="ujson"):
    r"""Read JSON lines, or a JSON array of objects, into a DataFrame
    (pandas.read_json's arguments for ``orient="records"``).

    The input is parsed in C on every core: JSON lines are cut into chunks
    at line ends and the chunks parsed in parallel.  Columns are the keys in
    the order they are first seen; a missing key or ``null`` is a missing
    value.  Types: numbers give int64 (uint64 past int64) or float64, and
    float64 columns of whole numbers without missing values become int64 as
    in pandas; ``true``/``false`` give bool; strings give string, or numbers
    when every string is numeric (pandas' ``dtype=True``).  Nested objects
    and arrays are kept as their JSON text in a string column (there is no
    list dtype yet).  Columns named like dates (``date``, ``datetime``,
    ``modified``, ``*_at``, ``*_time``, ``timestamp*``) or listed in
    ``convert_dates`` become timestamps when their values parse as dates or
    are epoch numbers, as in pandas.  Escapes (including ``\uXXXX``
    surrogate pairs) are decoded and strings must be UTF-8.

    Parameters
    ----------
    path_or_buf : str, path object, bytes or file-like
        A path (memory-mapped), the JSON bytes, or an object with ``read()``.
    orient : str, optional
        "records" (an object per row; None reads it too when the input is
        an array or JSON lines) is read in C; the other orients, and a
        top-level object with lines=False (pandas' "columns" form), are
        read by pandas (see the module docstring), as are typ="series",
        chunksize, date_unit, encodings other than UTF-8, dtype_backend
        and engine="pyarrow".
    precise_float : bool, default False
        Ignored: numbers are always parsed correctly rounded (as pandas'
        precise_float=True; its default parser can be off by an ulp).
    dtype : bool or dict, optional
        None/True: infer and coerce numeric strings; False: keep strings and
        floats as read; a dict: cast those columns afterwards.
    convert_dates : bool or list of str, default True
        Columns to parse as dates (True: the date-like names).
    keep_default_dates : bool, default True
        With a list in convert_dates, also convert the date-like names.
    lines : bool, default False
        True: one JSON object per line; False: the input is one JSON array
        of objects.
    compression : str or None, default "infer"
        gzip, bz2, xz, zstd, by extension or magic number.
    nrows : int, optional
        With lines=True, read only the first nrows non-blank lines.

    Returns
    -------
    DataFrame

    Raises
    ------
    ParseError
        Malformed JSON (a ValueError), naming the line and column: a
        truncated line, a bad escape, invalid UTF-8, a line that is not an
        object.
    UnsupportedError
        Input the C reader does not take and pandas is not installed.

    Notes
    -----
    Differences from pandas: arrays of one kind of value are list columns
    (``list<T>``), other nested values JSON text, not Python objects; a
    column mixing kinds (words and numbers, booleans and anything else) is
    a string column of the values' text, not an object column; integer and boolean columns with missing values stay
    nullable int64 / bool (pandas: float64); floats are always parsed
    correctly rounded (pandas' ``precise_float=True``); JSON that pandas'
    parser lets through but the JSON grammar forbids (a lone high
    surrogate, a leading zero, a line that is not an object) is a
    ParseError.

    Examples
    --------
    >>> data = b'{"a": 1, "b": "x"}\n{"a": 2.5, "c": [1, 2]}\n'
    >>> df = zb.read_json(data, lines=True)
    >>> df.dtypes.to_dict()
    {'a': 'float64', 'b': 'string', 'c': 'list<int64>'}
    >>> df.to_dict("list")
    {'a': [1.0, 2.5], 'b': ['x', None], 'c': [None, [1, 2]]}
    >>> zb.read_json(b'[{"n": "7"}, {"n": "8"}]')["n"].to_list()
    [7, 8]
    """
    given = _given(locals(), _READ_DEFAULTS)
    if typ not in ("frame", None) or chunksize is not None or date_unit is not None or \
            convert_axes not in (None, True) or encoding not in (None, "utf-8", "utf8", "UTF-8") \
            or encoding_errors != "strict" or storage_options or dtype_backend is not None or \
            engine != "ujson" or orient not in (None, "records"):
        return _pandas_read(path_or_buf, given)
    if nrows is not None:
        if not lines:
            raise InvalidValueError("read_json: nrows can only be passed if lines=True")
        if int(nrows) < 0:
            raise InvalidValueError("read_json: nrows must be a non-negative integer")
    data, close = _source_bytes(path_or_buf, compression)
    try:
        if not lines and bytes(data[:64]).lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
            # a top-level object: pandas' orient "columns" (or "index", "split")
            return _pandas_read(io.BytesIO(bytes(data)), dict(given, compression=None))
        table = _core.read_json(data, lines=bool(lines),
                                nrows=-1 if nrows is None else int(nrows),
                                coerce_numbers=dtype is not False)
    finally:
        if close is not None:
            close()
    df = _base.frame_class()._wrap(table)
    if dtype is not False:
        df = _whole_floats_to_int(df)
    if convert_dates is not False:
        names = []
        if isinstance(convert_dates, (list, tuple)):
            names = list(convert_dates)
        if convert_dates is True or keep_default_dates:
            names += [c for c in df.columns if _date_like(c) and c not in names]
        df = _to_dates(df, names)
    if isinstance(dtype, dict):
        df = df.astype({k: v for k, v in dtype.items() if k in df.columns})
    return df


def to_json(df, path_or_buf=None, *, orient=None, date_format=None, double_precision=10,
            force_ascii=True, date_unit="ms", default_handler=None, lines=False,
            compression="infer", index=None, indent=None, storage_options=None, mode="w"):
    r"""DataFrame.to_json for ``orient="records"``: one JSON object per row,
    as JSON lines (``lines=True``) or one array (``lines=False``).  Returns
    the text when path_or_buf is None.  Written in C, in parallel.

    Values as pandas writes them: floats to ``double_precision`` decimals
    with trailing zeros dropped (``1.0``, ``0.3333333333``; ``1e+20``
    beyond 1e16), NaN, infinities and missing values as ``null``;
    timestamps as epoch milliseconds (``date_unit``) or, with
    ``date_format="iso"``, ISO 8601 text (``Z`` for a column with a time
    zone); non-ASCII text as ``\uXXXX`` unless ``force_ascii=False``; ``/``
    as ``\/``; list columns (lists of lists too) as JSON arrays, a null
    list as ``null``.  The index is not written (orient "records").

    Other orients, pandas' default included (``orient=None``, "columns"
    for a DataFrame), ``indent`` and ``default_handler`` are written by
    pandas on a pandas copy (pass ``orient="records"`` to stay in C).
    Differences from pandas: ``date_format`` defaults to
    ``"epoch"`` without pandas' deprecation warning; durations cannot be
    written with ``date_format="iso"``; date32 columns are written as
    timestamps at midnight.

    Examples
    --------
    >>> df = zb.DataFrame({"a": [1.5, None], "b": ["x", "é"]})
    >>> print(df.to_json(orient="records", lines=True), end="")
    {"a":1.5,"b":"x"}
    {"a":null,"b":"\u00e9"}
    >>> df.to_json(orient="records", force_ascii=False)
    '[{"a":1.5,"b":"x"},{"a":null,"b":"é"}]'
    """
    if orient != "records" or default_handler is not None or indent or storage_options:
        from zambezi._ecosystem import _pandas

        return _pandas(df, "to_json").to_json(path_or_buf, **_given(locals(), _WRITE_DEFAULTS))
    if index:
        raise InvalidValueError("to_json: 'index=True' is only valid when 'orient' is 'split', "
                                "'table', 'index', or 'columns'")
    if date_format not in (None, "epoch", "iso"):
        raise InvalidValueError(f"to_json: date_format must be 'epoch' or 'iso', not "
                                f"{date_format!r}")
    if date_unit not in _UNITS:
        raise InvalidValueError(f"to_json: date_unit must be one of s, ms, us, ns, not "
                                f"{date_unit!r}")
    if not 0 <= int(double_precision) <= 15:
        raise InvalidValueError("to_json: double_precision must be 0..15")
    if mode not in ("w", "a"):
        raise InvalidValueError(f"to_json: mode={mode!r} is not supported; only 'w' and 'a'")
    if mode == "a" and not lines:
        raise InvalidValueError("to_json: mode='a' (append) is only supported when "
                                "lines is True and orient is 'records'")
    from zambezi import _labels

    names = [str(v) for v in _labels.label_list(df)]   # the labels' text: ('a', 'x'), 1
    if len(set(names)) != len(names):
        raise InvalidValueError("DataFrame columns must be unique for orient='records'.")
    table = _core.table_from_columns(
        [df._table.column(i) for i in range(df._table.num_columns)], names)
    kw = dict(lines=bool(lines), double_precision=int(double_precision),
              force_ascii=bool(force_ascii), iso_dates=date_format == "iso",
              date_unit=_UNITS[date_unit])
    if path_or_buf is None:
        return _core.write_json(table, None, **kw)
    if isinstance(path_or_buf, (str, os.PathLike)):
        path = os.fspath(path_or_buf)
        method = _compression_of(path, compression, sniff=False)
        if method is None and mode == "w":
            _core.write_json(table, path, **kw)
            return None
        with _open_compressed(path, method, mode, compression) as f:
            _core.write_json(table, f.write, **kw)
        return None
    if hasattr(path_or_buf, "write"):
        _write_file_object(
            path_or_buf, _compression_of(None, compression, sniff=False), compression, "to_json",
            lambda sink, text: _core.write_json(table, _recoding(sink, None) if text else sink,
                                                **kw))
        return None
    raise InvalidValueError(f"to_json: expected a path or a file object, not "
                            f"{type(path_or_buf).__name__}")


def _defaults(fn):
    return {p.name: p.default for p in inspect.signature(fn).parameters.values()
            if p.default is not inspect.Parameter.empty and p.name != "path_or_buf"}


def _given(args, defaults):
    """The arguments of a call (its locals) that differ from the defaults."""
    return {k: args[k] for k in defaults
            if args[k] is not defaults[k] and not _same_default(args[k], defaults[k])}


def _same_default(v, d):
    try:
        return type(v) is type(d) and bool(v == d)
    except (TypeError, ValueError):
        return False


def _pandas_read(src, given):
    """pandas' read_json of src with the caller's arguments (the orients and
    options zambezi's reader does not have): zambezi objects back."""
    from zambezi.io.via_pandas import _read

    if isinstance(src, (bytes, bytearray, memoryview)):
        src = io.BytesIO(bytes(src))
    return _read("read_json", (src,), given)


_READ_DEFAULTS = _defaults(read_json)
_WRITE_DEFAULTS = _defaults(to_json)
