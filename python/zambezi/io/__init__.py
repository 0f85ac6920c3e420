"""Readers and writers, one module per format.

- ``zambezi.io.csv``: ``read_csv`` (and its chunked ``CsvReader``) and
  ``to_csv`` (``DataFrame.to_csv``).
- ``zambezi.io.json``: ``read_json`` and ``to_json``
  (``DataFrame.to_json``): JSON lines and arrays of records.
- ``zambezi.io.parquet``: ``read_parquet`` and ``to_parquet``
  (``DataFrame.to_parquet``): the engine's own Parquet reader and
  writer; pyarrow is not needed.
- ``zambezi.io.ipc``: ``read_feather``, ``read_ipc``, ``to_feather`` and
  ``write_ipc`` (``DataFrame.to_feather``, ``DataFrame.to_ipc``): the
  engine's own Arrow IPC (Feather v2) reader and writer.
- ``zambezi.io.pickle``: ``read_pickle`` and ``to_pickle``
  (``DataFrame.to_pickle``, ``Series.to_pickle``); how pickling and
  copying work.

Each module shapes pandas' arguments into the engine's options; the
parsing and writing run in C (src/io/) with the GIL released.  Every
public name is importable from here (``zambezi.io.read_csv``) and the
readers from ``zambezi`` itself (``zambezi.read_csv``).
"""

from zambezi.io.csv import CsvReader, read_csv, to_csv
from zambezi.io.json import read_json, to_json
from zambezi.io.ipc import read_feather, read_ipc, to_feather, write_ipc
from zambezi.io.parquet import read_parquet, to_parquet
from zambezi.io.pickle import read_pickle, to_pickle

__all__ = ["read_csv", "CsvReader", "to_csv", "read_parquet", "to_parquet", "read_pickle",
           "to_pickle", "read_json", "to_json", "read_feather", "read_ipc", "to_feather",
           "write_ipc"]
