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
- ``zambezi.io.via_pandas``: the formats handed to pandas (Excel, SQL,
  HTML, XML, fixed-width text, Stata, SAS, SPSS, HDF5, ORC, the
  clipboard) and pandas' text renderings (``to_string``, ``to_markdown``,
  ``to_latex``, ``to_html``).

Each module but via_pandas shapes pandas' arguments into the engine's options; the
parsing and writing run in C (src/io/) with the GIL released.  Every
public name is importable from here (``zambezi.io.read_csv``) and the
readers from ``zambezi`` itself (``zambezi.read_csv``).
"""

from zambezi.io.csv import CsvReader, read_csv, read_table, to_csv
from zambezi.io.json import read_json, to_json
from zambezi.io.ipc import read_feather, read_ipc, to_feather, write_ipc
from zambezi.io.parquet import read_parquet, to_parquet
from zambezi.io.pickle import read_pickle, to_pickle
from zambezi.io.via_pandas import (json_normalize, read_clipboard, read_excel, read_fwf,
                                   read_hdf, read_html, read_orc, read_sas, read_spss, read_sql,
                                   read_sql_query, read_sql_table, read_stata, read_xml)

__all__ = ["read_csv", "CsvReader", "to_csv", "read_parquet", "to_parquet", "read_pickle",
           "to_pickle", "read_json", "to_json", "read_feather", "read_ipc", "to_feather",
           "write_ipc", "read_table", "read_clipboard", "read_excel", "read_fwf", "read_hdf",
           "read_html", "read_orc", "read_sas", "read_spss", "read_sql", "read_sql_query",
           "read_sql_table", "read_stata", "read_xml", "json_normalize"]
