"""``dd.read_csv`` and ``dd.read_parquet`` with the zambezi backend: one
task per CSV block or Parquet file, each read by zambezi's own C reader.

- CSV: a file larger than ``blocksize`` (64 MB by default; None: one
  partition per file) is cut into blocks that end at a newline (fsspec's
  ``read_block``, as Dask's pandas reader does); blocks after the first get
  the file's header line put in front.  A quoted field holding a newline
  across a block boundary breaks the cut, as with Dask-on-pandas: pass
  ``blocksize=None`` for such files.  The first block gives the meta; a
  column whose type changes further on (integers, then a float) is caught
  when the partitions meet.  ``include_path_column`` is not supported yet.
- Parquet: one partition per file, read with the columns the query uses
  (Dask pushes column selections into the read).  Row labels are those the
  file stores (pandas' metadata), as ``zb.read_parquet`` gives them.
  ``filters``, ``index``, ``calculate_divisions`` and the other options of
  Dask's pandas reader are not supported yet.

On a worker whose plugin chose a GPU (zambezi.dask._workers), each
partition read is moved there.

Local files, and anything fsspec opens (paths only: ``storage_options``
passes to fsspec).
"""

import io

from dask.dataframe.dask_expr import from_map

import zambezi as zb
from zambezi.dask._workers import place
from zambezi.errors import UnsupportedError

_DEFAULT_BLOCKSIZE = 64 * 2**20


def _expand(urlpath, storage_options, mode="rb"):
    from fsspec.core import get_fs_token_paths
    fs, _, paths = get_fs_token_paths(urlpath, mode=mode, storage_options=storage_options)
    if not paths:
        raise FileNotFoundError(f"no files match {urlpath!r}")
    return fs, sorted(paths)


class _CSVBlock:
    """Reads one block (path, offset, length, first) of a CSV file with
    zb.read_csv; ``columns`` is Dask's column projection."""

    def __init__(self, fs, kwargs):
        self.fs = fs
        self.kwargs = kwargs

    def __call__(self, part, columns=None):
        from fsspec.utils import read_block
        path, offset, length, first = part
        kwargs = dict(self.kwargs)
        with self.fs.open(path, "rb") as f:
            if length is None:
                data = f.read()
            else:
                data = read_block(f, offset, length, delimiter=b"\n")
            if not first and kwargs.get("header", "infer") is not None:
                f.seek(0)
                data = f.readline() + data
        df = zb.read_csv(io.BytesIO(data), **kwargs)
        if columns is not None:
            df = df[list(columns)]
        return place(df)


def read_csv(urlpath, blocksize="default", storage_options=None, include_path_column=False,
             **kwargs):
    """Dask DataFrame of the CSV files at urlpath (a path, glob or list) read
    by zb.read_csv (kwargs go to it)."""
    if include_path_column:
        raise UnsupportedError("read_csv: include_path_column is not supported by the "
                               "zambezi backend yet")
    for bad in ("chunksize", "iterator"):
        if kwargs.get(bad):
            raise UnsupportedError(f"read_csv: {bad} is not supported with Dask")
    if blocksize == "default":
        blocksize = _DEFAULT_BLOCKSIZE
    fs, paths = _expand(urlpath, storage_options)
    compressed = kwargs.get("compression", "infer") not in (None, "infer") or \
        any(p.endswith((".gz", ".bz2", ".xz", ".zst")) for p in paths)
    parts = []
    for path in paths:
        size = fs.size(path)
        if blocksize is None or compressed or size <= blocksize:
            parts.append((path, 0, None, True))
            continue
        for off in range(0, size, int(blocksize)):
            parts.append((path, off, int(blocksize), off == 0))
    reader = _CSVBlock(fs, kwargs)
    head = reader(parts[0])
    return from_map(reader, parts, meta=head.head(0), enforce_metadata=False,
                    label="read-csv")


class _ParquetFile:
    """Reads one Parquet file with zb.read_parquet; ``columns`` is Dask's
    column projection."""

    def __init__(self, fs):
        self.fs = fs

    def __call__(self, path, columns=None):
        from fsspec.implementations.local import LocalFileSystem
        cols = None if columns is None else list(columns)
        if isinstance(self.fs, LocalFileSystem):
            return place(zb.read_parquet(path, columns=cols))
        with self.fs.open(path, "rb") as f:
            return place(zb.read_parquet(io.BytesIO(f.read()), columns=cols))


def read_parquet(path, columns=None, storage_options=None, **kwargs):
    """Dask DataFrame of the Parquet files at path (a file, a directory of
    files, a glob or a list), one partition per file."""
    unsupported = sorted(k for k, v in kwargs.items() if v not in (None, False, "auto")
                         and k not in ("engine", "dtype_backend"))
    if unsupported:
        raise UnsupportedError("read_parquet: options not supported by the zambezi backend "
                               "yet: " + ", ".join(unsupported))
    fs, paths = _expand(path, storage_options)
    if len(paths) == 1 and fs.isdir(paths[0]):
        paths = sorted(p for p in fs.find(paths[0]) if not p.rsplit("/", 1)[-1].startswith(("_", ".")))
    reader = _ParquetFile(fs)
    columns = None if columns is None else list(columns)
    meta = reader(paths[0], columns=columns).head(0)
    return from_map(reader, paths, meta=meta, enforce_metadata=False, label="read-parquet",
                    columns=columns)
