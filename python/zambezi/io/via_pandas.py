"""Formats zambezi reads and writes through pandas: Excel, SQL databases,
HTML and XML tables, fixed-width text, Stata, SAS, SPSS, HDF5, ORC and the
clipboard, and pandas' text renderings (``to_string``, ``to_markdown``,
``to_latex``, ``to_html``).

zambezi's own readers and writers (CSV, Parquet, JSON lines, Arrow IPC,
pickle) are in C and parallel.  These formats are not where a data
pipeline spends its time, and each needs a library of its own (openpyxl,
SQLAlchemy or sqlite3, lxml, tabulate, jinja2, PyTables...) that pandas
already drives, so zambezi hands them to pandas, as it does ``plot`` and
``style`` (zambezi._ecosystem):

- a reader (and ``json_normalize``) calls pandas' function with the same
  arguments and gives the result as zambezi objects (``from_pandas``): a
  DataFrame, or a dict or list of them (``read_excel(sheet_name=None)``, ``read_html``), or, with
  ``chunksize=`` / ``iterator=True``, a generator of DataFrames;
- a writer or rendering calls pandas' method of the same name on a pandas
  copy of the data (``to_pandas()``) with the same arguments: the file or
  text is pandas', byte for byte.

JSON is zambezi's own for ``orient="records"`` (zambezi.io.json) and
pandas' for the other orients, through the same hand-off.

pandas (and the library the format needs) must be installed; a missing
pandas raises UnsupportedError naming it, a missing format library pandas'
own ImportError.  None of these is a dependency of zambezi.
"""

import textwrap

from zambezi import _base
from zambezi._ecosystem import _need, _pandas


def _adopt(out, what):
    """pandas' result as zambezi objects (see the module docstring)."""
    pd = _need("pandas", what)
    if isinstance(out, pd.DataFrame):
        return _base.frame_class()(out)
    if isinstance(out, pd.Series):
        return _base.series_class()(out)
    if isinstance(out, dict):
        return {k: _adopt(v, what) for k, v in out.items()}
    if isinstance(out, list):
        return [_adopt(v, what) for v in out]
    if hasattr(out, "__next__") or hasattr(out, "__iter__"):
        return (_adopt(chunk, what) for chunk in out)
    return out


def _read(name, args, kwargs):
    pd = _need("pandas", name)
    return _adopt(getattr(pd, name)(*args, **kwargs), name)


def read_excel(*args, **kwargs):
    """Read an Excel sheet (or several) with pandas' ``read_excel`` (its
    arguments; openpyxl for .xlsx) into a zambezi DataFrame, or a dict of
    them for ``sheet_name=None`` or a list.  See zambezi.io.via_pandas.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.xlsx")
    >>> zb.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_excel(path, index=False)
    >>> zb.read_excel(path).to_dict("list")
    {'a': [1, 2], 'b': ['x', 'y']}
    """
    return _read("read_excel", args, kwargs)


def read_sql(*args, **kwargs):
    """A SQL query's or table's rows with pandas' ``read_sql`` (its
    arguments: a sqlite3 connection, or an SQLAlchemy connectable) as a
    zambezi DataFrame, or a generator of them with ``chunksize=``.  See
    zambezi.io.via_pandas.

    Examples
    --------
    >>> import sqlite3
    >>> con = sqlite3.connect(":memory:")
    >>> zb.DataFrame({"city": ["Maun", "Tete"], "n": [3, 4]}).to_sql("t", con, index=False)
    2
    >>> zb.read_sql("SELECT city, n * 2 AS twice FROM t", con).to_dict("list")
    {'city': ['Maun', 'Tete'], 'twice': [6, 8]}
    """
    return _read("read_sql", args, kwargs)


def read_sql_query(*args, **kwargs):
    """A SQL query's rows with pandas' ``read_sql_query`` (its arguments)
    as a zambezi DataFrame (see read_sql).

    Examples
    --------
    >>> import sqlite3
    >>> con = sqlite3.connect(":memory:")
    >>> _ = con.execute("CREATE TABLE t (a INTEGER, b TEXT)")
    >>> _ = con.executemany("INSERT INTO t VALUES (?, ?)", [(1, "x"), (2, None)])
    >>> zb.read_sql_query("SELECT * FROM t WHERE a > 0", con).to_dict("list")
    {'a': [1, 2], 'b': ['x', None]}
    """
    return _read("read_sql_query", args, kwargs)


def read_sql_table(*args, **kwargs):
    """A whole SQL table with pandas' ``read_sql_table`` (its arguments;
    it needs an SQLAlchemy connectable) as a zambezi DataFrame.

    Examples
    --------
    >>> import sqlalchemy                                    # doctest: +SKIP
    >>> engine = sqlalchemy.create_engine("sqlite://")       # doctest: +SKIP
    >>> zb.DataFrame({"a": [1]}).to_sql("t", engine)         # doctest: +SKIP
    >>> zb.read_sql_table("t", engine).columns.to_list()     # doctest: +SKIP
    ['index', 'a']
    """
    return _read("read_sql_table", args, kwargs)


def read_html(*args, **kwargs):
    """The tables of an HTML page with pandas' ``read_html`` (its
    arguments; lxml, or BeautifulSoup with html5lib): a list of zambezi
    DataFrames.  A literal string of HTML goes in a ``io.StringIO``.

    Examples
    --------
    >>> import io
    >>> html = zb.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_html(index=False)
    >>> [t.to_dict("list") for t in zb.read_html(io.StringIO(html))]
    [{'a': [1, 2], 'b': ['x', 'y']}]
    """
    return _read("read_html", args, kwargs)


def read_xml(*args, **kwargs):
    """The rows of an XML document with pandas' ``read_xml`` (its
    arguments; lxml, or ``parser="etree"`` from the standard library) as a
    zambezi DataFrame.

    Examples
    --------
    >>> import io
    >>> xml = "<rows><r><a>1</a><b>x</b></r><r><a>2</a><b>y</b></r></rows>"
    >>> zb.read_xml(io.StringIO(xml), parser="etree").to_dict("list")
    {'a': [1, 2], 'b': ['x', 'y']}
    """
    return _read("read_xml", args, kwargs)


def read_fwf(*args, **kwargs):
    """Fixed-width text columns with pandas' ``read_fwf`` (its arguments:
    ``colspecs``, ``widths``...) as a zambezi DataFrame, or a generator
    of them with ``chunksize=``.

    Examples
    --------
    >>> import io
    >>> text = "city  n\\nMaun  3\\nTete 14\\n"
    >>> zb.read_fwf(io.StringIO(text), widths=[5, 3]).to_dict("list")
    {'city': ['Maun', 'Tete'], 'n': [3, 14]}
    """
    return _read("read_fwf", args, kwargs)


def read_stata(*args, **kwargs):
    """A Stata .dta file with pandas' ``read_stata`` (its arguments) as a
    zambezi DataFrame.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.dta")
    >>> zb.DataFrame({"a": [1.5, 2.5]}).to_stata(path, write_index=False)
    >>> zb.read_stata(path).to_dict("list")
    {'a': [1.5, 2.5]}
    """
    return _read("read_stata", args, kwargs)


def read_sas(*args, **kwargs):
    """A SAS file (XPORT or SAS7BDAT) with pandas' ``read_sas`` (its
    arguments) as a zambezi DataFrame.

    Examples
    --------
    >>> zb.read_sas("survey.sas7bdat").shape                 # doctest: +SKIP
    (1200, 14)
    """
    return _read("read_sas", args, kwargs)


def read_spss(*args, **kwargs):
    """An SPSS .sav file with pandas' ``read_spss`` (its arguments; it
    needs pyreadstat) as a zambezi DataFrame.

    Examples
    --------
    >>> zb.read_spss("survey.sav").shape                     # doctest: +SKIP
    (1200, 14)
    """
    return _read("read_spss", args, kwargs)


def read_hdf(*args, **kwargs):
    """An object of an HDF5 store with pandas' ``read_hdf`` (its
    arguments; it needs PyTables) as a zambezi DataFrame or Series.

    Examples
    --------
    >>> zb.DataFrame({"a": [1, 2]}).to_hdf("t.h5", key="t")  # doctest: +SKIP
    >>> zb.read_hdf("t.h5", "t").to_dict("list")             # doctest: +SKIP
    {'a': [1, 2]}
    """
    return _read("read_hdf", args, kwargs)


def read_orc(*args, **kwargs):
    """An ORC file with pandas' ``read_orc`` (its arguments; pyarrow reads
    it) as a zambezi DataFrame.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.orc")
    >>> zb.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_orc(path)
    >>> zb.read_orc(path).to_dict("list")
    {'a': [1, 2], 'b': ['x', 'y']}
    """
    return _read("read_orc", args, kwargs)


def read_clipboard(*args, **kwargs):
    """The clipboard's text table with pandas' ``read_clipboard`` (its
    arguments) as a zambezi DataFrame.

    Examples
    --------
    >>> zb.read_clipboard().shape                            # doctest: +SKIP
    (3, 2)
    """
    return _read("read_clipboard", args, kwargs)


def json_normalize(*args, **kwargs):
    """Nested JSON records (dicts and lists of them) flattened into a table
    with pandas' ``json_normalize`` (its arguments: ``record_path``,
    ``meta``, ``sep``, ``max_level`` ...), as a zambezi DataFrame.

    Examples
    --------
    >>> rows = [{"id": 1, "city": {"name": "Maun", "pop": 60}},
    ...         {"id": 2, "city": {"name": "Tete"}}]
    >>> zb.json_normalize(rows).to_dict("list")
    {'id': [1, 2], 'city.name': ['Maun', 'Tete'], 'city.pop': [60.0, None]}
    """
    return _read("json_normalize", args, kwargs)


def _writer(name, summary, example):
    """A method that runs pandas' method ``name`` on a pandas copy of the
    data with the caller's arguments."""
    def method(self, *args, **kwargs):
        return getattr(_pandas(self, name), name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    text = textwrap.fill(f"{summary}: pandas' ``{name}`` (its arguments) on a pandas copy "
                         "of the data, so the output is pandas', byte for byte.  See "
                         "zambezi.io.via_pandas.", 76, subsequent_indent=" " * 8)
    method.__doc__ = f"{text}\n\n        Examples\n        --------\n{example}"
    return method


_SHARED = {
    "to_string": ("The data as text, as pandas prints it",
                  """        >>> print(zb.DataFrame({"a": [1, 22], "b": ["x", None]}).to_string())
            a    b
        0   1    x
        1  22  NaN
        """),
    "to_markdown": ("A Markdown table (it needs tabulate)",
                    """        >>> s = zb.Series([1, 2], name="n")
        >>> print(s.to_markdown())                     # doctest: +SKIP
        |    |   n |
        |---:|----:|
        |  0 |   1 |
        |  1 |   2 |
        """),
    "to_latex": ("A LaTeX tabular (it needs jinja2)",
                 """        >>> "\\\\begin{tabular}" in zb.DataFrame({"a": [1]}).to_latex()
        True
        """),
    "to_excel": ("Write an Excel sheet (openpyxl for .xlsx)",
                 """        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.xlsx")
        >>> zb.Series([1.5, 2.5], name="v").to_excel(path)
        >>> zb.read_excel(path, index_col=0)["v"].to_list()
        [1.5, 2.5]
        """),
    "to_sql": ("Write the rows to a SQL table (a sqlite3 connection or an SQLAlchemy "
               "connectable); the rows written, as pandas",
               """        >>> import sqlite3
        >>> con = sqlite3.connect(":memory:")
        >>> zb.DataFrame({"a": [1, 2, 3]}).to_sql("t", con, index=False)
        3
        >>> con.execute("SELECT SUM(a) FROM t").fetchone()
        (6,)
        """),
    "to_clipboard": ("Copy the data to the clipboard",
                     """        >>> zb.DataFrame({"a": [1]}).to_clipboard()   # doctest: +SKIP
        """),
    "to_hdf": ("Write to an HDF5 store (it needs PyTables)",
               """        >>> zb.DataFrame({"a": [1]}).to_hdf("t.h5", key="t")  # doctest: +SKIP
        """),
}

_FRAME_ONLY = {
    "to_html": ("An HTML table",
                """        >>> html = zb.DataFrame({"a": [1, 2]}).to_html(index=False)
        >>> html.count("<td>")
        2
        """),
    "to_xml": ('An XML document of the rows (lxml, or ``parser="etree"``)',
               """        >>> print(zb.DataFrame({"a": [1]}).to_xml(parser="etree", index=False))
        <?xml version="1.0" encoding="utf-8"?>
        <data>
          <row>
            <a>1</a>
          </row>
        </data>
        """),
    "to_stata": ("Write a Stata .dta file",
                 """        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.dta")
        >>> zb.DataFrame({"a": [1.5]}).to_stata(path, write_index=False)
        >>> zb.read_stata(path)["a"].to_list()
        [1.5]
        """),
    "to_orc": ("Write an ORC file (pyarrow writes it)",
               """        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.orc")
        >>> zb.DataFrame({"a": [1, 2]}).to_orc(path)
        >>> zb.read_orc(path)["a"].to_list()
        [1, 2]
        """),
}


_SERIES_ONLY = {
    "to_json": ("The values as JSON (pandas' default orient for a Series: \"index\")",
                """        >>> zb.Series([1, 2], index=["a", "b"]).to_json()
        '{"a":1,"b":2}'
        """),
}


class SeriesViaPandas:
    """Writers and renderings of zambezi.Series through pandas."""

    __slots__ = ()


class FrameViaPandas:
    """Writers and renderings of zambezi.DataFrame through pandas."""

    __slots__ = ()


for _name, (_summary, _example) in _SHARED.items():
    setattr(SeriesViaPandas, _name, _writer(_name, _summary, _example))
    setattr(FrameViaPandas, _name, _writer(_name, _summary, _example))
for _name, (_summary, _example) in _SERIES_ONLY.items():
    setattr(SeriesViaPandas, _name, _writer(_name, _summary, _example))
for _name, (_summary, _example) in _FRAME_ONLY.items():
    setattr(FrameViaPandas, _name, _writer(_name, _summary, _example))
del _name, _summary, _example
