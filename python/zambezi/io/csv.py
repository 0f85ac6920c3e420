"""Reading and writing CSV: ``zb.read_csv`` and ``DataFrame.to_csv``.

Both run in the C engine (src/io/csv_read.c, src/io/csv_write.c) with the
GIL released; this module only shapes pandas' arguments into the engine's
options and moves bytes.

Sources for ``read_csv``:
  - a path (str or os.PathLike): the engine memory-maps the file and parses
    it in place, in parallel.  Compressed files are recognised by their
    extension (.gz, .bz2, .xz, .zst, and as archives of one file .zip,
    .tar, .tar.gz, .tar.bz2, .tar.xz) or, for gzip and zstd, by their
    magic number, and decompressed into memory first (``compression=``
    overrides the inference): zstd in the engine (libzstd, loaded at run
    time: no Python package needed), the others with Python's modules.
  - bytes, bytearray, memoryview, mmap: parsed in place (gzip or zstd data
    is recognised by its magic number and decompressed).
  - a file object: read to the end (text-mode files are encoded to UTF-8).
Encodings: UTF-8 (a byte order mark is skipped) is read natively; latin-1
and cp1252 are transcoded to UTF-8 in C; any other codec Python knows is
decoded in Python (one copy of the data).

Differences from pandas (see include/zambezi/io.h for the engine's): every
dtype is nullable, so integer columns with missing values stay int64; dates
(YYYY-MM-DD) and timestamps are recognised without parse_dates; a file with
no columns raises ``EmptyDataError`` as pandas does.  ``dtype=`` takes every
spelling zambezi._dtypes knows (``object`` and ``str`` are strings), and
also timestamps, which pandas refuses there: ``"datetime64[ms]"`` reads the
column as ``timestamp[ms]`` (the engine parses microseconds, then casts as
``astype`` does).  Options zambezi does
not implement (regular-expression separators, callables for usecols or
skiprows, multi-row headers...) raise ``UnsupportedError`` rather than
being ignored.

``chunksize`` / ``iterator`` return a ``CsvReader``: the input (memory-
mapped for a path) is cut at record boundaries found by a quote-aware scan
in C (``csv_find_rows``), and each piece of about ``chunksize`` rows is
parsed on its own, so only one piece's frame exists at a time.  As in
pandas, types are inferred per piece, so a column may get different dtypes
in different pieces unless ``dtype=`` fixes them.
"""

import codecs
import csv as _csv
import io as _io
import os
import sys
import time
import warnings

import numpy as np

from zambezi import _base, _convert, _core, _dtypes
from zambezi import index as _ix
from zambezi.errors import (
    EmptyDataError,
    InvalidValueError,
    ParseError,
    ParserWarning,
    UnsupportedError,
    ZambeziError,
)

__all__ = ["read_csv", "CsvReader", "to_csv"]

_AUTO_PROGRESS_BYTES = 100 << 20
# by extension, as pandas infers them (a tar archive first: ".tar.gz" is one)
_COMPRESSIONS = {".tar": "tar", ".tar.gz": "tar", ".tar.bz2": "tar", ".tar.xz": "tar",
                 ".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}
_METHODS = ("gzip", "bz2", "xz", "zstd", "zip", "tar")


_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\x28\xb5\x2f\xfd", "zstd"))


def _head(path, n=4):
    """The first n bytes of a regular file (b"" for a pipe or device, whose
    bytes must not be consumed here, or if it cannot be read: the engine
    then names the problem when it opens the file)."""
    try:
        if not os.path.isfile(path):
            return b""
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return b""


def _sniff(head):
    """The compression whose magic number starts head (bytes), or None."""
    for magic, method in _MAGIC:
        if bytes(head[:len(magic)]) == magic:
            return method
    return None


def _compression_of(path, compression, head=None, sniff=True):
    """The compression method: by extension, else (sniff, for reading) by
    the magic number at the start of the data (head: its first bytes, read
    from path when not given)."""
    if compression is None:
        return None
    if compression == "infer":
        if path is not None:
            low = str(path).lower()
            method = next((m for ext, m in _COMPRESSIONS.items() if low.endswith(ext)), None)
            if method is not None or not sniff:
                return method
            head = _head(path)
        return _sniff(head) if head is not None else None
    if isinstance(compression, dict):
        compression = compression.get("method")
    if compression in _METHODS:
        return compression
    raise UnsupportedError(
        f"compression {compression!r} is not supported (gzip, bz2, xz, zstd, zip, tar or "
        "None)")


def _zstd():
    try:
        import zstandard
    except ImportError:
        raise ImportError(
            "writing .zst files needs the zstandard package: pip install zstandard "
            "(reading them does not)") from None
    return zstandard


def _decompress(data, method):
    if method == "gzip":
        import gzip

        return gzip.decompress(data)
    if method == "bz2":
        import bz2

        return bz2.decompress(data)
    if method == "xz":
        import lzma

        return lzma.decompress(data)
    if method == "zstd":
        return memoryview(_core.zstd_decompress(data))
    if method in ("zip", "tar"):
        return _archive_member(data, method)
    return data


def _archive_member(data, method):
    """The bytes of the one file in a zip or tar archive (a tar compressed
    or not); pandas reads archives of one file only."""
    src = _io.BytesIO(data)
    if method == "zip":
        import zipfile

        with zipfile.ZipFile(src) as z:
            names = [i.filename for i in z.infolist() if not i.is_dir()]
            _one_member(names, "ZIP file")
            return z.read(names[0])
    import tarfile

    with tarfile.open(fileobj=src, mode="r:*") as t:
        files = [m for m in t.getmembers() if m.isfile()]
        _one_member([m.name for m in files], "TAR archive")
        return t.extractfile(files[0]).read()


def _one_member(names, what):
    if not names:
        raise InvalidValueError(f"no file found in the {what}")
    if len(names) > 1:
        raise InvalidValueError(f"{len(names)} files found in the {what}, which must hold "
                                f"one: {names}")


def _normalize_encoding(encoding):
    if encoding is None:
        return "utf-8"
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise InvalidValueError(f"unknown encoding {encoding!r}") from None
    return {"iso8859-1": "latin-1"}.get(name, name)


def _to_utf8(data, encoding):
    """data (a buffer) re-encoded as UTF-8 bytes, or data itself."""
    if encoding in ("utf-8", "utf-8-sig"):
        return data
    if encoding == "ascii":  # checked: a byte above 127 is a UnicodeDecodeError, as in pandas
        raw = bytes(data)
        if not raw.isascii():
            raw.decode("ascii")
        return data
    if encoding in ("latin-1", "cp1252"):
        return _core.transcode_to_utf8(data, encoding)
    return bytes(data).decode(encoding).encode("utf-8")


class _ProgressBar:
    """One line on stderr: percent, MB read, MB/s; cleared at the end."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.last = 0.0
        self.width = 0

    def __call__(self, done, total):
        now = time.monotonic()
        if now - self.last < 0.1 and done < total:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        frac = done / total if total > 0 else 1.0
        bar = "#" * int(frac * 30)
        line = (f"\rzambezi read_csv [{bar:<30}] {frac * 100:5.1f}% "
                f"{done / 1e6:,.0f}/{total / 1e6:,.0f} MB {done / 1e6 / elapsed:,.0f} MB/s")
        self.width = max(self.width, len(line))
        self.stream.write(line)
        self.stream.flush()

    def close(self):
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def _interactive():
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):
        pass
    return "ipykernel" in sys.modules


def _make_progress(progress, size):
    """(callable for the engine or None, bar to close or None)."""
    if progress is None:
        if size is not None and size > _AUTO_PROGRESS_BYTES and _interactive():
            bar = _ProgressBar()
            return bar, bar
        return None, None
    if progress is True:
        bar = _ProgressBar()
        return bar, bar
    if progress is False:
        return None, None
    if callable(progress):
        return progress, None
    raise InvalidValueError(f"progress must be None, True, False or a callable, not {progress!r}")


def _na_texts(na_values):
    """The texts that read as NA for na_values, the set pandas uses: each
    value's str(); for a value that is a number, also that number as a
    float's and (when integral) an int's text, so that -999, "-999" and
    -999.0 each give "-999" and "-999.0"; and int(value) where int()
    takes it (pandas: -999.5 gives "-999" too)."""
    out = []
    for x in na_values:
        out.append(str(x))
        try:
            v = float(x)
            if v == int(v):  # int() raises for NaN and the infinities
                v = int(v)
                out += [f"{v}.0", str(v)]
            out.append(str(v))
        except (TypeError, ValueError, OverflowError):
            pass
        try:
            out.append(str(int(x)))
        except (TypeError, ValueError, OverflowError):
            pass
    return list(dict.fromkeys(out))


def _na_floats(texts):
    """The numbers of the NA texts (NaN left out): a float column's value
    equal to one is NA too, as in pandas ("-999.00" and "-9.99e2" with
    na_values=[-999])."""
    out = set()
    for t in texts:
        try:
            v = float(t)
        except (TypeError, ValueError, OverflowError):
            continue
        if v == v:
            out.add(v)
    return sorted(out)


def _numeric_na(table, na_values):
    """The table with each float column's values equal to a number of
    na_values made null (pandas matches na_values numerically in the
    columns it parses as floats; integer columns only by their text)."""
    floats = _na_floats(na_values or [])
    if not floats:
        return table
    names = table.names
    cols = [table.column(i) for i in range(len(names))]
    changed = False
    for i, col in enumerate(cols):
        if col.dtype not in ("float32", "float64") or col.length == 0:
            continue
        vals = _convert.values_numpy(col)
        hit = np.isin(vals, np.array(floats, dtype=vals.dtype))
        if hit.any():
            cols[i] = _core.column_where(col, _core.column_from_buffer(~hit), None)
            changed = True
    return _core.table_from_columns(cols, names) if changed else table


def _engine_options(sep, delimiter, header, names, usecols, dtype, parse_dates, na_values,
                    keep_default_na, skiprows, nrows, quotechar, quoting, doublequote,
                    escapechar, comment, thousands, decimal, on_bad_lines):
    """pandas.read_csv arguments -> (engine options, dtype-for-all or None)."""
    if delimiter is not None:
        if sep not in (",", None, delimiter):
            raise InvalidValueError(
                "read_csv: specified a sep and a delimiter; you can only specify one")
        sep = delimiter
    if sep is None:
        raise UnsupportedError("read_csv: sep=None (sniffing the separator) is not supported")
    if isinstance(sep, str) and sep == "\\s+":
        raise UnsupportedError("read_csv: regular-expression separators are not supported")
    o = {"sep": sep, "decimal": decimal, "doublequote": bool(doublequote)}
    if quoting == _csv.QUOTE_NONE:
        o["quotechar"] = None
    elif quoting in (None, _csv.QUOTE_MINIMAL, _csv.QUOTE_ALL, _csv.QUOTE_NONNUMERIC):
        o["quotechar"] = quotechar
    else:
        raise UnsupportedError(f"read_csv: quoting={quoting!r} is not supported")
    for key, value in (("escapechar", escapechar), ("comment", comment),
                       ("thousands", thousands)):
        if value is not None:
            o[key] = value
    if names is not None:
        if isinstance(names, str) or not hasattr(names, "__iter__"):
            raise InvalidValueError("read_csv: names must be a list of column names")
        names = [str(n) for n in names]
        if len(set(names)) != len(names):
            raise InvalidValueError("read_csv: duplicate names are not allowed")
        o["names"] = names
    if isinstance(header, str) and header == "infer":
        header = 0 if names is None else None
    if header is None:
        o["header"] = -1
    elif isinstance(header, bool) or not isinstance(header, int):
        raise UnsupportedError(
            f"read_csv: header must be 'infer', None or one row number, not {header!r}")
    elif header < 0:
        raise InvalidValueError(f"read_csv: header must be >= 0, not {header}")
    else:
        o["header"] = header
    if usecols is not None:
        if callable(usecols):
            raise UnsupportedError("read_csv: usecols as a callable is not supported")
        if isinstance(usecols, str):
            usecols = [usecols]
        usecols = list(usecols)
        if usecols and not (all(isinstance(u, str) for u in usecols)
                            or all(isinstance(u, int) and not isinstance(u, bool)
                                   for u in usecols)):
            raise InvalidValueError(
                "read_csv: usecols must be all column names or all positions")
        o["usecols"] = list(dict.fromkeys(usecols))
    all_dtype = None
    if dtype is not None:
        if isinstance(dtype, dict):
            o["dtype"] = {str(k): _dtypes.canonical(v) for k, v in dtype.items()}
        else:
            all_dtype = _dtypes.canonical(dtype)
    if parse_dates is not None and parse_dates is not False:
        if parse_dates is True or isinstance(parse_dates, dict):
            raise UnsupportedError(
                "read_csv: parse_dates must be a list of columns (zambezi has no index)")
        if isinstance(parse_dates, (str, int)):
            parse_dates = [parse_dates]
        o["parse_dates"] = list(parse_dates)
    if na_values is not None:
        if isinstance(na_values, dict):
            raise UnsupportedError("read_csv: per-column na_values are not supported")
        if isinstance(na_values, (str, bytes)) or not hasattr(na_values, "__iter__"):
            na_values = [na_values]
        o["na_values"] = _na_texts(na_values)
    o["keep_default_na"] = bool(keep_default_na)
    if skiprows is not None:
        if isinstance(skiprows, bool) or not isinstance(skiprows, int):
            raise UnsupportedError(
                "read_csv: skiprows must be a number of lines at the start "
                "(lists and callables are not supported)")
        if skiprows < 0:
            raise InvalidValueError("read_csv: skiprows must be >= 0")
        o["skiprows"] = skiprows
    if nrows is not None:
        if isinstance(nrows, bool) or not isinstance(nrows, int) or nrows < 0:
            raise InvalidValueError(f"read_csv: nrows must be an int >= 0, not {nrows!r}")
        o["nrows"] = nrows
    if callable(on_bad_lines):
        raise UnsupportedError("read_csv: on_bad_lines as a callable is not supported")
    o["on_bad_lines"] = on_bad_lines
    return o, all_dtype


_CHAR_KEYS = ("sep", "quotechar", "doublequote", "escapechar", "comment")


def _emit_warnings(warns, total):
    for _line, message in warns:
        warnings.warn(message, ParserWarning, stacklevel=_base.user_stacklevel())
    if total > len(warns):
        warnings.warn(f"{total - len(warns)} more bad lines were skipped", ParserWarning,
                      stacklevel=_base.user_stacklevel())


def _timestamps_as_asked(table, dtypes):
    """The table with each timestamp column cast to the unit (and zone) its
    dtype= asked for: the engine parses timestamps as timestamp[us]."""
    names = table.names
    cols = [table.column(i) for i in range(len(names))]
    changed = False
    for i, name in enumerate(names):
        want = (dtypes or {}).get(name)
        if want is None or not want.startswith("timestamp") or cols[i].dtype == want:
            continue
        try:
            cols[i] = _core.cast(cols[i], want)
        except ZambeziError as e:
            raise type(e)(f"read_csv: column {name!r} as {want}: {e}") from None
        changed = True
    return _core.table_from_columns(cols, names) if changed else table


def _frame(table, opts):
    """The DataFrame of a parsed table, with the dtypes opts asked for."""
    table = _numeric_na(table, opts.get("na_values"))
    return _base.frame_class()._wrap(_timestamps_as_asked(table, opts.get("dtype")))


def _read_table(source, opts, **extra):
    """_core.read_csv's (table, warnings, total), and the parse_dates
    columns read as text: when the engine's ISO parser refuses one of them,
    they are read as text, for _finish to convert as to_datetime does
    (other layouts, UTC offsets, nanoseconds)."""
    try:
        return _core.read_csv(source, **opts, **extra), ()
    except ParseError:
        dates = opts.get("parse_dates")
        if not dates:
            raise
    o = dict(opts)
    del o["parse_dates"]
    o["dtype"] = {**(o.get("dtype") or {}), **{c: "string" for c in dates}}
    # a fault elsewhere in the input raises here as it did above
    return _core.read_csv(source, **o, **extra), tuple(dates)


def _date_positions(opts, header_names):
    """parse_dates given as column positions, as names of the file's columns
    (header_names() gives them)."""
    dates = opts.get("parse_dates")
    if dates and any(isinstance(c, int) and not isinstance(c, bool) for c in dates):
        names = header_names()
        try:
            opts["parse_dates"] = [names[c] if isinstance(c, int) else c for c in dates]
        except IndexError:
            raise InvalidValueError(f"read_csv: parse_dates {dates!r}: the file has "
                                    f"{len(names)} columns") from None


def _labels_for(names, header):
    """How the columns are labelled when the table names (text) are not
    the labels pandas gives: "positions" for a file without a header (0,
    1, ... by position in the file), a dict table name -> label for names=
    that are not all text, None otherwise."""
    if names is not None:
        return None if all(isinstance(n, str) for n in names) else {str(n): n for n in names}
    return "positions" if header is None else None


def _finish(table, warns, total, names_given, device, opts, text_dates=(), labels=None):
    if table.num_columns == 0 and not names_given:
        raise EmptyDataError("No columns to parse from file")
    _emit_warnings(warns, total)
    df = _frame(table, opts)
    if text_dates:
        from zambezi._times import to_datetime

        for name in text_dates:
            try:
                df[name] = to_datetime(df[name])
            except (InvalidValueError, UnsupportedError):
                pass  # pandas leaves a column it cannot read as dates as text
    if labels is not None and table.num_columns:
        from zambezi import _labels

        names = table.names
        _labels.attach(df, _labels.from_list(
            [int(n) for n in names] if labels == "positions" else [labels[n] for n in names]))
    if device is not None and device != "cpu":
        df = df.to(device)
    return df


def _read_source(src, compression, encoding, native=True):
    """(path or None, buffer or None, size or None, things to close).  With
    native, a path the engine can read itself (plain or zstd UTF-8) comes
    back as a path; otherwise as the decompressed, UTF-8 bytes."""
    if isinstance(src, (str, os.PathLike)):
        path = os.fspath(src)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        method = _compression_of(path, compression)
        if native and encoding in ("utf-8", "utf-8-sig") and (
                method is None or (method == "zstd" and _sniff(_head(path)) == "zstd")):
            # The engine maps the file (and decompresses zstd itself).
            try:
                size = os.path.getsize(path)
            except OSError:
                size = None
            return path, None, size, []
        with open(path, "rb") as f:
            data = f.read()
        data = _to_utf8(_decompress(data, method), encoding)
        return None, data, len(data), []
    if isinstance(src, (bytes, bytearray, memoryview)) or type(src).__name__ == "mmap":
        with memoryview(src) as view:
            method = _compression_of(None, compression, view[:4])
        data = _to_utf8(_decompress(src, method), encoding)
        return None, data, len(data), []
    if hasattr(src, "read"):
        data = src.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        else:
            data = _to_utf8(_decompress(data, _compression_of(None, compression, data[:4])),
                            encoding)
        return None, data, len(data), []
    raise InvalidValueError(
        "read_csv takes a path, a file object or bytes, not " + type(src).__name__)


def read_csv(filepath_or_buffer, sep=",", delimiter=None, header="infer", names=None,
             usecols=None, dtype=None, parse_dates=None, na_values=None, keep_default_na=True,
             skiprows=None, nrows=None, quotechar='"', escapechar=None, comment=None,
             thousands=None, decimal=".", encoding="utf-8", on_bad_lines="error",
             chunksize=None, iterator=False, progress=None, device="cpu",
             compression="infer", quoting=_csv.QUOTE_MINIMAL, doublequote=True,
             infer_dates=True):
    r"""Read a CSV file into a DataFrame (pandas.read_csv's arguments and
    meanings; the notes of the module zambezi.io.csv say what differs).

    progress: None (default) shows a progress bar on stderr for inputs over
    100 MB when stderr is a terminal or in Jupyter; True forces it, False
    turns it off; a callable is called as progress(bytes_done, bytes_total)
    on the reading thread (an exception it raises stops the read and
    propagates).  Ctrl-C interrupts a read promptly (KeyboardInterrupt).
    device: "cpu", or "cuda"/"cuda:N" to move the frame to a GPU after the
    parse, or "auto" (a GPU when there is one and the frame is at least
    ``zb.get_auto_threshold()`` bytes).  chunksize / iterator=True return
    a CsvReader.  na_values (a list or one value) as in pandas: a number
    also names its other texts (-999, "-999" and -999.0 each make both
    "-999" and "-999.0" NA), and in a float column every value equal to
    one of them is NA ("-999.00", "-9.99e2"); an integer column matches
    the texts only.  infer_dates (zambezi's): columns of dates and
    timestamps are read as date32 / timestamp without parse_dates; False
    keeps their text as pandas does (the pandas accelerator passes False).
    parse_dates (names or positions): the engine parses ISO dates and
    timestamps; a column in another layout (UTC offsets, "Z", nanoseconds,
    "2020/01/02", "01/02/2020", "20200102") is read as text and converted
    as ``zb.to_datetime`` converts, and one that is not dates stays text,
    as in pandas.

    A malformed row raises ParseError naming its line (on_bad_lines="warn"
    or "skip" skip it instead); a value that does not fit the dtype asked
    for raises ParseError naming the line and column.

    Examples
    --------
    >>> data = b"city,fare,day\nMaun,7.5,2024-03-09\nTete,,2024-03-10\nLusaka,12,2024-03-11\n"
    >>> df = zb.read_csv(data)         # or a path, or a file object
    >>> df
         city     fare         day
       string  float64      date32
    0    Maun      7.5  2024-03-09
    1    Tete      NaN  2024-03-10
    2  Lusaka       12  2024-03-11
    <BLANKLINE>
    [3 rows x 3 columns]
    >>> zb.read_csv(data, usecols=["city", "fare"], dtype={"fare": "float32"}).dtypes.to_dict()
    {'city': 'string', 'fare': 'float32'}
    >>> import io
    >>> zb.read_csv(io.StringIO("a;b\n1;x\n"), sep=";").to_dict("list")
    {'a': [1], 'b': ['x']}
    >>> zb.read_csv(b"a,b\n1,2\n3,4,5\n")
    Traceback (most recent call last):
        ...
    zambezi.errors.ParseError: CSV line 3: expected 2 fields, saw 3
    """
    opts, all_dtype = _engine_options(
        sep, delimiter, header, names, usecols, dtype, parse_dates, na_values, keep_default_na,
        skiprows, nrows, quotechar, quoting, doublequote, escapechar, comment, thousands,
        decimal, on_bad_lines)
    opts["infer_dates"] = bool(infer_dates)
    encoding = _normalize_encoding(encoding)
    if chunksize is not None:
        if isinstance(chunksize, bool) or not isinstance(chunksize, int) or chunksize < 1:
            raise InvalidValueError(f"chunksize must be an int >= 1, not {chunksize!r}")
    if chunksize is not None or iterator:
        return CsvReader(filepath_or_buffer, opts, all_dtype, chunksize, device, compression,
                         encoding, names is not None, _labels_for(names, header))
    path, data, size, _ = _read_source(filepath_or_buffer, compression, encoding)
    source = path if path is not None else data
    if all_dtype is not None:
        opts["dtype"] = _dtype_for_all(source, opts, all_dtype)
    _date_positions(opts, lambda: _header_names(source, opts))
    hook, bar = _make_progress(progress, size)
    if hook is not None:
        opts["progress"] = hook
    try:
        (table, warns, total), text_dates = _read_table(source, opts)
    finally:
        if bar is not None:
            bar.close()
    return _finish(table, warns, total, names is not None, device, opts, text_dates,
                   _labels_for(names, header))


def _header_names(source, opts):
    """Every column name of the file (before usecols)."""
    meta = {k: v for k, v in opts.items()
            if k in _CHAR_KEYS + ("header", "names", "skiprows")}
    table, _, _ = _core.read_csv(source, nrows=0, **meta)
    return table.names


def _dtype_for_all(source, opts, dtype_name):
    names = _header_names(source, opts)
    use = opts.get("usecols")
    if use:
        names = [n for i, n in enumerate(names) if n in use or i in use]
    return {n: dtype_name for n in names}


class CsvReader:
    r"""An iterator of DataFrames over a CSV input, about ``chunksize`` rows
    each (``get_chunk(n)`` reads the next n).  Use it as a context manager or
    call ``close()`` to release the memory map of a file.  Made by
    ``read_csv(..., chunksize=n)`` or ``read_csv(..., iterator=True)``.

    Examples
    --------
    >>> data = b"k,v\n1,a\n2,b\n3,c\n"
    >>> with zb.read_csv(data, chunksize=2) as reader:
    ...     for chunk in reader:
    ...         print(chunk.to_dict("list"))
    {'k': [1, 2], 'v': ['a', 'b']}
    {'k': [3], 'v': ['c']}
    """

    def __init__(self, src, opts, all_dtype, chunksize, device, compression, encoding,
                 names_given, labels=None):
        self._labels = labels
        self._mmap = None
        self._file = None
        if isinstance(src, (str, os.PathLike)) and _compression_of(
                os.fspath(src), compression) is None and encoding in ("utf-8", "utf-8-sig"):
            import mmap

            self._file = open(os.fspath(src), "rb")
            size = os.fstat(self._file.fileno()).st_size
            if size > 0:
                self._mmap = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
                self._data = self._mmap
            else:
                self._data = b""
        else:
            _, self._data, _, _ = _read_source(src, compression, encoding, native=False)
        lf = _core.csv_cr_lines(self._data, **{k: v for k, v in opts.items() if k in _CHAR_KEYS})
        if lf is not None:  # lines ending in a lone CR: converted once, not per piece
            self._data = lf
        self._chunksize = chunksize
        self._device = device
        self._names_given = names_given
        self._remaining = opts.pop("nrows", None)
        self._scan = {k: v for k, v in opts.items() if k in _CHAR_KEYS}
        self._all_names = _header_names(self._data, opts)
        _date_positions(opts, lambda: self._all_names)
        if all_dtype is not None:
            opts["dtype"] = _dtype_for_all(self._data, opts, all_dtype)
        if not self._all_names and not names_given:
            self.close()
            raise EmptyDataError("No columns to parse from file")
        start_opts = {k: v for k, v in opts.items() if k in _CHAR_KEYS + ("header", "skiprows")}
        self._pos, lines = _core.csv_data_start(self._data, **start_opts)
        self._line = lines + 1
        piece = dict(opts)
        piece.pop("skiprows", None)
        piece["header"] = -1
        piece["names"] = self._all_names
        self._opts = piece
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        return self.get_chunk()

    def get_chunk(self, size=None):
        r"""The next DataFrame of up to ``size`` (default chunksize) rows;
        StopIteration at the end.

        Examples
        --------
        >>> reader = zb.read_csv(b"k\n1\n2\n3\n", iterator=True)
        >>> reader.get_chunk(2).to_dict("list"), reader.get_chunk(2).to_dict("list")
        ({'k': [1, 2]}, {'k': [3]})
        >>> reader.close()
        """
        if size is None:
            size = self._chunksize if self._chunksize is not None else -1
        if self._remaining is not None:
            size = self._remaining if size < 0 else min(size, self._remaining)
        if size < 0:
            size = 1 << 62
        if self._done or size == 0 or self._pos >= len(self._data):
            self._done = True
            raise StopIteration
        end, rows, lines = _core.csv_find_rows(self._data, self._pos, size, **self._scan)
        if rows == 0:
            self._done = True
            raise StopIteration
        with memoryview(self._data)[self._pos:end] as piece:
            (table, warns, total), text_dates = _read_table(piece, self._opts,
                                                            first_line=self._line)
        self._pos = end
        self._line += lines
        if self._remaining is not None:
            self._remaining -= rows
        return _finish(table, warns, total, True, self._device, self._opts, text_dates,
                       self._labels)

    def read(self, nrows=None):
        r"""The rest of the input (or the next nrows rows) as one DataFrame
        (an empty frame at the end).

        Examples
        --------
        >>> reader = zb.read_csv(b"k\n1\n2\n3\n", iterator=True)
        >>> reader.read(1).to_dict("list"), reader.read().to_dict("list"), len(reader.read())
        ({'k': [1]}, {'k': [2, 3]}, 0)
        >>> reader.close()
        """
        try:
            return self.get_chunk(nrows if nrows is not None else -1)
        except StopIteration:
            empty = _core.read_csv(
                b"", **{k: v for k, v in self._opts.items() if k != "first_line"})[0]
            return _frame(empty, self._opts)

    def close(self):
        r"""Release the input (the memory map of a file); the ``with``
        statement calls it.  Calling it again does nothing.

        Examples
        --------
        >>> reader = zb.read_csv(b"k\n1\n", chunksize=10)
        >>> reader.close()
        >>> reader.close()
        """
        if self._mmap is not None:
            self._data = b""
            self._mmap.close()
            self._mmap = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def _open_compressed(target, method, mode, compression=None):
    """A binary file to write into, compressed by method, at target (a
    path, or a binary file object that stays open); a compression= dict's
    other keys are the compressor's options, as pandas passes them (gzip
    and bz2 compresslevel, xz preset, zstd level, zip archive_name and
    compresslevel, tar mode and archive_name)."""
    opts = {k: v for k, v in compression.items() if k != "method"} \
        if isinstance(compression, dict) else {}
    path = isinstance(target, str)
    if method == "gzip":
        import gzip

        return gzip.GzipFile(target if path else None, mode + "b", fileobj=None if path else target,
                             **opts)
    if method == "bz2":
        import bz2

        return bz2.BZ2File(target, mode + "b", **opts)
    if method == "xz":
        import lzma

        return lzma.LZMAFile(target, mode + "b", **opts)
    if method == "zstd":
        zstd = _zstd()
        return zstd.ZstdCompressor(**opts).stream_writer(
            open(target, mode + "b") if path else target, closefd=path)
    if method in ("zip", "tar"):
        return _ArchiveWriter(target, method, mode, opts)
    return open(target, mode + "b")


def _write_file_object(f, method, compression, who, write):
    """write(sink) into the file object f: compressed by method when f is
    binary; a text file takes the text as is and, as in pandas, a
    compression given for it warns that it has no effect."""
    text = isinstance(f, _io.TextIOBase) or not isinstance(f, (_io.RawIOBase,
                                                                _io.BufferedIOBase))
    if method is not None and text:
        warnings.warn(f"{who}: compression has no effect when passing a non-binary object as "
                      "input.", RuntimeWarning, stacklevel=_base.user_stacklevel())
    if method is None or text:
        write(f.write, text)
        return
    with _open_compressed(f, method, "w", compression) as cf:
        write(cf.write, False)


def _recoding(write, encoding):
    """A sink for the engine's UTF-8 pieces that hands write them as text
    (encoding None) or encoded in encoding, as one stream: one byte order
    mark for UTF-16 (not one per piece), a character cut between two
    pieces kept whole."""
    decode = codecs.getincrementaldecoder("utf-8")().decode
    if encoding is None:
        return lambda b: write(decode(b))
    encode = codecs.getincrementalencoder(encoding)().encode
    return lambda b: write(encode(decode(b)))


class _ArchiveWriter:
    """A file to write into: on close, a zip or tar archive at path (or in
    a binary file object) holding what was written as one file, named
    archive_name, else after the archive without its extension
    (data.csv.zip holds data.csv; "zip" / "tar" in a file object), as pandas
    writes them; a tar is compressed as its mode ("w:gz") or else its
    extension says (.tar.gz ...).  opts: those and zipfile's / tarfile's
    other options."""

    def __init__(self, path, method, mode, opts):
        if mode == "a":
            raise UnsupportedError(f"appending to a {method} archive is not supported")
        self._path, self._method, self._mode, self._buf = path, method, mode, _io.BytesIO()
        self._opts = dict(opts)
        self.write = self._buf.write

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            return False
        base = os.path.basename(self._path) if isinstance(self._path, str) else ""
        low = base.lower()
        ext = next((e for e in _COMPRESSIONS if low.endswith(e)), "")
        opts = self._opts
        name = opts.pop("archive_name", None) or base[:len(base) - len(ext)] or self._method
        data = self._buf.getvalue()
        if self._method == "zip":
            import zipfile

            opts.setdefault("compression", zipfile.ZIP_DEFLATED)
            with zipfile.ZipFile(self._path, self._mode, **opts) as z:
                z.writestr(name, data)
        else:
            import tarfile

            kind = {".gz": "gz", ".bz2": "bz2", ".xz": "xz"}.get(os.path.splitext(low)[1], "")
            tar_mode = opts.pop("mode", f"{self._mode}:{kind}")
            where = {"name": self._path} if isinstance(self._path, str) else \
                {"fileobj": self._path}
            with tarfile.open(mode=tar_mode, **where, **opts) as t:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mtime = int(time.time())
                t.addfile(info, _io.BytesIO(data))
        return False


def _utc_offsets(cols):
    """For the writer: per column, None or (a time-zone-aware timestamp
    column in a zone other than UTC) each row's UTC offset in seconds, so
    that it writes the zone's wall clock and offset as pandas does; None
    when no column needs one."""
    from zambezi import _tz

    out, any_zone = [], False
    for c in cols:
        zone = getattr(c, "timezone", None) if c.dtype.startswith("timestamp") else None
        if zone is None or _tz.fixed_offset_ns(zone) == 0:
            out.append(None)
            continue
        out.append(_core.column_from_buffer(_tz.utc_offsets_s(c).astype(np.int32)))
        any_zone = True
    return out if any_zone else None


def _header_cell(label, float_format):
    """A column label as pandas' csv writer puts it in the header: numbers
    as numbers (unquoted under QUOTE_NONNUMERIC), anything else as its
    str, None as an empty cell."""
    if isinstance(label, (bool, np.bool_)):
        return str(label)
    if isinstance(label, (int, np.integer)):
        return int(label)
    if isinstance(label, (float, np.floating)) and float_format is None and np.isfinite(label):
        return float(label)
    return "" if label is None else str(label)


def _multi_columns(df):
    """df's columns when they are a MultiIndex (pandas'), else None."""
    cols = df.columns
    return cols if getattr(cols, "nlevels", 1) > 1 else None


def _multi_header(cols, labels):
    """The header rows pandas writes for MultiIndex columns cols: per level
    its name (after the index labels' places), then the level's values; then
    the index labels' row when one of them is named (labels: None when the
    index is not written)."""
    rows = []
    for i in range(cols.nlevels):
        lead = [] if labels is None else (
            ["" if cols.names[i] is None else str(cols.names[i])] + [""] * (len(labels) - 1))
        rows.append(lead + [str(v) for v in cols.get_level_values(i)])
    if labels is not None and any(v not in (None, "") for v in labels):
        rows.append(["" if v is None else str(v) for v in labels] + [""] * len(cols))
    return rows


def read_table(filepath_or_buffer, sep="\t", delimiter=None, **kwargs):
    """Read delimited text whose fields a tab separates (pandas'
    ``read_table``): ``read_csv`` with ``sep="\\t"`` by default, its
    arguments and its parallel reader.

    Examples
    --------
    >>> import io
    >>> zb.read_table(io.StringIO("city\\tn\\nMaun\\t3\\n")).to_dict("list")
    {'city': ['Maun'], 'n': [3]}
    """
    return read_csv(filepath_or_buffer, sep=sep, delimiter=delimiter, **kwargs)


def to_csv(df, path_or_buf=None, sep=",", na_rep="", float_format=None, columns=None,
           header=True, index=True, mode="w", encoding=None, compression="infer",
           quoting=None, quotechar='"', lineterminator=None, doublequote=True,
           escapechar=None, date_format=None, index_label=None):
    """DataFrame.to_csv: write df as CSV (pandas' arguments).  Returns the
    text as a str when path_or_buf is None.  As in pandas, the row labels
    are written first (index=True, the default; headed by the index's
    names, or index_label); index=False leaves them out.  ``header``:
    True, False or None (no header line, as in pandas), or a list of
    names to write instead of the column names.

    path_or_buf may be a path (compressed by its extension: .gz, .bz2, .xz,
    .zst; .zip and .tar, .tar.gz ... write an archive holding one file, as
    pandas), or a file object.  float_format is a printf-style str ("%.2f");
    date_format is not supported.  A list column is written as pandas
    writes its object column of lists: Python's text of each list
    (``[1, 2]``, ``['a', None]``, ``[[1], []]``); lists of other than
    numbers, bools and strings raise UnsupportedError.

    Examples
    --------
    >>> df = zb.DataFrame({"a": [1.5, None], "b": ["x", "y"]})
    >>> print(zb.io.to_csv(df, float_format="%.2f", na_rep="NA"), end="")
    ,a,b
    0,1.50,x
    1,NA,y
    >>> import csv
    >>> print(df.to_csv(quoting=csv.QUOTE_ALL, header=["A", "B"], index=False), end="")
    "A","B"
    "1.5","x"
    "","y"
    >>> print(zb.DataFrame({"l": [[1, 2], None]}).to_csv(index=False), end="")
    l
    "[1, 2]"
    ""
    """
    if date_format is not None:
        raise UnsupportedError("to_csv: date_format is not supported")
    if float_format is not None and not isinstance(float_format, str):
        raise UnsupportedError("to_csv: float_format must be a printf-style str such as '%.2f'")
    if quoting is None:
        quoting = _csv.QUOTE_MINIMAL
    if quoting not in (0, 1, 2, 3):
        raise UnsupportedError(f"to_csv: quoting={quoting!r} is not supported (QUOTE_MINIMAL, "
                               "QUOTE_ALL, QUOTE_NONNUMERIC or QUOTE_NONE)")
    if mode not in ("w", "a", "x"):
        raise InvalidValueError(f"to_csv: mode must be 'w', 'a' or 'x', not {mode!r}")
    multi = _multi_columns(df)
    if columns is not None:
        if multi is not None:   # as pandas
            raise TypeError("cannot specify cols with a MultiIndex on the columns")
        df = df[list(columns)]
    write_header = True
    names = list(df._table.names)
    label_row = None
    if header is None or isinstance(header, (bool, int, np.integer)):
        write_header = bool(header)   # pandas: None and 0 write no header
        if write_header and multi is None:
            col_labels = list(df.columns)
            if col_labels != names:   # labels other than str (written as values), repeated
                label_row = col_labels
    else:
        aliases = [str(h) for h in header]
        if len(aliases) != len(names):
            raise InvalidValueError(
                f"to_csv: writing {len(names)} columns but got {len(aliases)} aliases")
        names = aliases
    if index:
        levels = df.index._levels()
        labels = df.index.names if index_label is None else (
            [index_label] if isinstance(index_label, str) else list(index_label))
        if len(labels) != len(levels):
            raise InvalidValueError(
                f"to_csv: {len(labels)} index labels for {len(levels)} index levels")
        if index_label is None and isinstance(df.index, _ix.MultiIndex):
            labels = [v or "" for v in labels]   # pandas: a name 0 is no name here
        names = ["" if v is None else str(v) for v in labels] + names
        cols = levels + [df._table.column(i) for i in range(df._table.num_columns)]
    else:
        cols = [df._table.column(i) for i in range(df._table.num_columns)]
    head = None
    if multi is not None and write_header and header is True:
        head = _multi_header(multi, labels if index else None)
        names = [f"__c{i}" for i in range(len(names))]   # the header is head's rows
    elif label_row is not None or write_header and len(set(names)) != len(names):
        # a header row of its own: labels as values (numbers unquoted, as
        # pandas), names repeated
        lead = names[:len(names) - len(df._table.names)]
        head = [lead + (names[len(lead):] if label_row is None else
                        [_header_cell(v, float_format) for v in label_row])]
        names = [f"__c{i}" for i in range(len(names))]
    if len(set(names)) != len(names):   # no header: any distinct names
        names = [f"__c{i}" for i in range(len(names))]
    # lists: Python's text of each list ("[1, 2]", "['a', 'b']"), as pandas
    # writes its object columns of lists (zb_list_repr, in C)
    cols = [_core.list_repr(c) if c.dtype.startswith("list<") else c for c in cols]
    table = _core.table_from_columns(cols, names)
    kw = dict(sep=sep, quotechar=quotechar, escapechar=escapechar,
              utc_offsets=_utc_offsets(cols),
              doublequote=bool(doublequote), header=write_header, na_rep=str(na_rep),
              float_format=float_format, quoting=int(quoting),
              lineterminator="\n" if lineterminator is None else lineterminator)
    if head is not None:   # MultiIndex columns: their rows first, then the data
        head = _core.table_from_columns(
            [_convert.to_column(list(c)) for c in zip(*head)], names)
        kw["header"] = False

    def emit(sink):   # None: the text
        first = "" if head is None else _core.write_csv(head, sink, **dict(kw, utc_offsets=None))
        rest = _core.write_csv(table, sink, **kw)
        return first + rest if sink is None else None

    enc = _normalize_encoding(encoding)
    if path_or_buf is None:
        return emit(None)
    if isinstance(path_or_buf, (str, os.PathLike)):
        path = os.fspath(path_or_buf)
        method = _compression_of(path, compression, sniff=False)
        if method is None and enc == "utf-8" and mode == "w" and head is None:
            _core.write_csv(table, path, **kw)
            return None
        with _open_compressed(path, method, mode, compression) as f:
            emit(f.write if enc == "utf-8" else _recoding(f.write, enc))
        return None
    f = path_or_buf
    if not hasattr(f, "write"):
        raise InvalidValueError("to_csv: path_or_buf must be None, a path or a file object")

    def write(sink, text):
        emit(_recoding(sink, None) if text else sink if enc == "utf-8" else _recoding(sink, enc))

    _write_file_object(f, _compression_of(None, compression, sniff=False), compression,
                       "to_csv", write)
    return None
