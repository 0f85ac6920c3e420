"""Pickling and copying: ``pickle``, ``copy``, ``multiprocessing``, and
``DataFrame.to_pickle`` / ``Series.to_pickle`` / ``zb.read_pickle``.

A DataFrame or Series pickles as its slots (the engine table or column, the
name, and whatever else the class keeps: every slot of the class hierarchy
is stored, see zambezi._base).  An engine column pickles as its dtype
(timestamps with unit and timezone, categoricals with their categories),
length, null count and the Arrow buffers of its own rows: the validity
bitmap, the values (bools as a bitmap), and for strings the int64 offsets
and the UTF-8 bytes.  A slice writes only its rows.

- Protocol 5 (``pickle.HIGHEST_PROTOCOL``): each buffer is a
  ``pickle.PickleBuffer`` over the engine's memory.  With a
  ``buffer_callback`` (Dask, Ray, ``multiprocessing.shared_memory``
  transports) the data leaves out of band without a copy and the pickle
  itself holds only the metadata; ``pickle.loads(data, buffers=...)``
  builds columns that share the buffers it is given (a buffer at an
  address that is not a multiple of its value width is copied).  A writable
  buffer passed to ``loads`` (a ``bytearray``) is shared too: do not change
  it afterwards, as zambezi data is immutable.  Without a callback the
  buffers are copied into the pickle once.
- Protocols 0 to 4: the buffers are written as bytes (a copy).
- A frame on a GPU is pickled from a host copy and unpickles **on the
  CPU** (the machine that loads it may have no GPU); call ``.to("cuda")``
  after loading to move it back.
- Unpickling checks every buffer against the dtype and length (sizes,
  string offsets, categorical codes, the null count): a corrupt payload
  raises ``InvalidValueError`` instead of reading outside its memory.  As
  with any pickle, load only data you trust: unpickling can run code.

``copy.copy`` and ``copy.deepcopy`` give a new DataFrame or Series object
whose engine data is shared, not copied: zambezi data is immutable, so a
deep copy cannot be told apart from one that owns its buffers (assigning a
column to either changes only that object).  pandas copies the data.

``to_pickle`` / ``read_pickle`` take pandas' arguments; the file is
compressed by its extension (.gz, .bz2, .xz, .zst) unless ``compression``
says otherwise.  A pickle of a zambezi object unpickles into a zambezi
object, with ``pd.read_pickle`` as well: pickles are not a way to convert
to pandas (use ``to_pandas``).
"""

import io as _io
import os
import pickle as _pickle

from zambezi.errors import InvalidValueError, UnsupportedError
from zambezi.io.csv import _compression_of, _decompress, _open_compressed


def _no_storage_options(storage_options, where):
    if storage_options is not None:
        raise UnsupportedError(f"{where}: storage_options is not supported (local files and "
                               "file objects only)")


def to_pickle(obj, path, compression="infer", protocol=_pickle.HIGHEST_PROTOCOL,
              storage_options=None):
    """Write obj (a DataFrame or Series) to path, a file path (compressed
    by its extension unless ``compression`` says otherwise: "gzip", "bz2",
    "xz", "zstd" or None) or a binary file object, with pickle
    ``protocol`` (5, the highest, by default).

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> zb.io.to_pickle(zb.Series([1, None], name="n"), buf)
    >>> _ = buf.seek(0)
    >>> zb.read_pickle(buf).to_list()
    [1, None]
    """
    _no_storage_options(storage_options, "to_pickle")
    if isinstance(path, (str, os.PathLike)):
        method = _compression_of(os.fspath(path), compression, sniff=False)
        with _open_compressed(os.fspath(path), method, "w", compression) as f:
            _pickle.dump(obj, f, protocol=protocol)
        return None
    if not hasattr(path, "write"):
        raise InvalidValueError("to_pickle: path must be a path or a binary file object, not "
                                f"{type(path).__name__}")
    if isinstance(path, _io.TextIOBase):
        raise InvalidValueError("to_pickle: the file object must be opened in binary mode")
    method = _compression_of(None, compression, sniff=False)
    if method is None:
        _pickle.dump(obj, path, protocol=protocol)
        return None
    with _open_compressed(path, method, "w", compression) as f:
        _pickle.dump(obj, f, protocol=protocol)
    return None


def read_pickle(filepath_or_buffer, compression="infer", storage_options=None):
    """Load an object pickled with ``to_pickle`` (or ``pickle.dump``) from a
    file path (decompressed by its extension or, for gzip and zstd, by its
    first bytes) or a binary file object.  Load only files you trust:
    unpickling can run arbitrary code.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "frame.pkl.gz")
    >>> zb.DataFrame({"a": [1, 2], "b": ["x", None]}).to_pickle(path)
    >>> zb.read_pickle(path).to_dict("list")
    {'a': [1, 2], 'b': ['x', None]}
    """
    _no_storage_options(storage_options, "read_pickle")
    if isinstance(filepath_or_buffer, (str, os.PathLike)):
        path = os.fspath(filepath_or_buffer)
        method = _compression_of(path, compression)
        with open(path, "rb") as f:
            if method is None:
                return _pickle.load(f)
            data = f.read()
        return _pickle.loads(_decompress(data, method))
    if not hasattr(filepath_or_buffer, "read"):
        raise InvalidValueError("read_pickle: expected a path or a binary file object, not "
                                f"{type(filepath_or_buffer).__name__}")
    if compression not in (None, "infer"):
        data = filepath_or_buffer.read()
        return _pickle.loads(_decompress(data, _compression_of(None, compression)))
    return _pickle.load(filepath_or_buffer)
