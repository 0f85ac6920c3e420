"""zambezi.DataFrame: named columns of one length on one device.

A DataFrame wraps an immutable ``_core.Table``.  Column selection, row
slicing, head/tail, rename and copy share the engine's buffers (no data is
copied); conversions to and from pandas, numpy and Arrow work one column at a
time in C.  Arrow consumers (pyarrow, polars, duckdb) read a DataFrame
through ``__arrow_c_stream__`` without copies.
"""

from zambezi import _base, _convert, _core, _device, _format, _indexing
from zambezi import index as _ix
from zambezi._frame_extra import FrameExtra
from zambezi._index_ops import IndexOps
from zambezi._frame_ops import FrameOps
from zambezi._missing import FrameMissing
from zambezi._window import FrameWindow
from zambezi._groupby import FrameGroupBy
from zambezi._stats import FrameStats
from zambezi._merge import FrameMerge
from zambezi.errors import (
    ColumnNotFoundError,
    DTypeError,
    InvalidValueError,
    UnsupportedError,
)
from zambezi.io import csv as _csv
from zambezi.io import pickle as _pickle


def _dict_index(data):
    """The labels the Series among a dict's values share (None: only
    arrays or default labels)."""
    found = None
    for value in data.values():
        if _base.is_series(value):
            idx = value._index
        elif _convert._is_pandas(value, "Series"):
            idx = _ix.from_pandas_index(value.index)
        else:
            continue
        if found is None:
            found = idx
        elif not found.equals(idx):
            raise UnsupportedError(
                "DataFrame(dict): the Series have different indexes; aligning them is not "
                "supported yet (reindex them to one index first)")
    return found


def _table_from_dict(data):
    names, cols = [], []
    for key, value in data.items():
        if not isinstance(key, str):
            raise DTypeError(f"column names must be str, not {type(key).__name__} ({key!r})")
        names.append(key)
        cols.append(_convert.to_column(value, name=key))
    if cols:
        first = cols[0].length
        for name, col in zip(names, cols):
            if col.length != first:
                raise InvalidValueError(
                    f"column {name!r} has {col.length} values but column {names[0]!r} has "
                    f"{first}; all columns of a DataFrame must have the same length")
    return _core.table_from_columns(cols, names)


@_base.register
class DataFrame(IndexOps, FrameMissing, FrameWindow, FrameOps, FrameExtra, FrameStats,
                FrameMerge, FrameGroupBy, _base.NDFrame):
    """A table of named, typed columns on the CPU or a GPU.

    ``data`` is a dict of columns (lists, numpy arrays, Series, pandas or
    Arrow arrays; all of one length), a pandas DataFrame (copied, with its
    index), an Arrow table-like object (pyarrow, polars, duckdb ...), or
    another DataFrame (shared).  Every dtype can hold nulls; ``None`` and
    float NaN are read as nulls.

    Rows have labels, as in pandas: ``index=`` (default: a RangeIndex
    0..n-1, or the index the dict's Series share).  Filtering, sorting and
    ``head`` keep the labels; merge and read_csv number rows afresh.

    Examples
    --------
    >>> df = zb.DataFrame({"city": ["Lusaka", "Maun", None], "fare": [12.5, 7.0, 3.25]})
    >>> df
         city     fare
       string  float64
    0  Lusaka     12.5
    1    Maun        7
    2    <NA>     3.25
    <BLANKLINE>
    [3 rows x 2 columns]
    >>> df.shape
    (3, 2)
    >>> zb.DataFrame(pd.DataFrame({"a": [1, 2]})).to_dict()
    {'a': [1, 2]}

    ``df[name]`` is a column (a Series; ``df.name`` too, for a name that
    is not a method or property), ``df[[names]]`` a frame of those
    columns, ``df[a:b]`` a range of rows (``df[a:b:step]`` every step-th,
    as ``df.iloc``), ``df[mask]`` the rows where a bool Series is true;
    ``df[name] = values`` adds or replaces a column, ``del df[name]``
    removes one.  Columns and contiguous row ranges are selected without
    copying.

    >>> df["fare"].max()
    12.5
    >>> df.fare.min()
    3.25
    >>> df[df["fare"] > 5]
         city     fare
       string  float64
    0  Lusaka     12.5
    1    Maun        7
    <BLANKLINE>
    [2 rows x 2 columns]
    >>> df["usd"] = df["fare"] * 0.5
    >>> df[["city", "usd"]][1:].to_dict()
    {'city': ['Maun', None], 'usd': [3.5, 1.625]}
    >>> df[::-2]["city"].to_list()
    [None, 'Lusaka']
    """

    __slots__ = ("_table", "_index")
    _ndim = 2

    def __init__(self, data=None, index=None, columns=None, dtype=None, copy=None):
        if data is None:
            data = {}
        labels = None
        if isinstance(data, DataFrame):
            self._table = data._table
            labels = data._index
        elif isinstance(data, _core.Table):
            self._table = data
        elif isinstance(data, dict):
            labels = _dict_index(data)
            self._table = _table_from_dict(data)
        elif _convert._is_pandas(data, "DataFrame"):
            pdf = from_pandas(data)
            self._table, labels = pdf._table, pdf._index
        elif hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__"):
            self._table = from_arrow(data)._table
        else:
            raise DTypeError(
                "DataFrame() takes a dict of columns, a pandas DataFrame or an Arrow table, "
                f"not {type(data).__name__}")
        n = self._table.num_rows
        if index is not None:
            if self._table.num_columns == 0 and n == 0:
                n = len(_ix.ensure_index(index))
                self._table = _core.table_from_columns([], [])
            labels = _ix.ensure_index(index, n, "DataFrame(index=...)")
        self._index = labels if labels is not None else _ix.default_index(n)
        if columns is not None:
            self._table = self._select_columns(list(columns))._table
        if dtype is not None:
            self._table = self.astype(dtype)._table

    # -- building results (see zambezi._base) ------------------------------
    @classmethod
    def _wrap(cls, table, index=None):
        """A DataFrame over an engine Table, rows labelled by index
        (default 0..n-1)."""
        df = object.__new__(cls)
        df._table = table
        df._index = _ix.default_index(table.num_rows) if index is None else index
        return df

    _from_engine = _wrap

    @property
    def _engine(self):
        return self._table

    def _like(self, table):
        """A frame with the same rows (and labels) as self."""
        return self._constructor._wrap(table, self._index)

    def _sliced(self, col, name):
        """A Series with the same rows as self (one of its columns, or one
        value per row)."""
        return self._constructor_sliced._from_column(col, name, self._index)

    def _value_at(self, i):
        """Row position i (in range): a Series indexed by the column names,
        named by the row's label, when the columns share a dtype (numbers
        promote to a common one, as in pandas); else a dict column -> value
        (pandas gives an object Series, which zambezi has no dtype for)."""
        row = self._table.slice(i, 1)
        return _row_series(self, row, self._index._label_at(i))

    def _describe(self):
        return "DataFrame"

    # -- shape and schema --------------------------------------------------
    def __len__(self):
        return self._table.num_rows

    @property
    def shape(self):
        """(rows, columns).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}).shape
        (3, 2)
        """
        return (self._table.num_rows, self._table.num_columns)

    @property
    def columns(self):
        """The column labels, an Index of str.  Assigning a list renames
        every column.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1], "b": ["x"]})
        >>> df.columns
        Index(['a', 'b'], dtype='string')
        >>> df.columns = ["x", "y"]
        >>> list(df.columns)
        ['x', 'y']
        """
        return _ix.Index._from_columns(
            [_convert.to_column(self._table.names, dtype="string")], [None])

    @columns.setter
    def columns(self, labels):
        labels = list(labels)
        t = self._table
        if len(labels) != t.num_columns:
            raise InvalidValueError(
                f"columns: {len(labels)} labels for {t.num_columns} columns")
        self._table = _core.table_from_columns(
            [t.column(i) for i in range(t.num_columns)], [str(c) for c in labels])

    @property
    def dtypes(self):
        """dict: column name -> dtype name (pandas gives a Series).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, None], "b": ["x", "y"], "c": [0.5, 1.5]}).dtypes
        {'a': 'int64', 'b': 'string', 'c': 'float64'}
        """
        t = self._table
        return {name: t.column(i).dtype for i, name in enumerate(t.names)}

    @property
    def device(self):
        """Where the frame's data lives: 'cpu' or 'cuda:N'.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2]}).device
        'cpu'
        """
        return self._table.device

    def __contains__(self, name):
        return name in self._table.names

    def __iter__(self):
        return iter(self._table.names)

    # -- selection (zero-copy) ---------------------------------------------
    def _missing(self, name):
        return ColumnNotFoundError(
            f"no column named {name!r}; the columns are {self._table.names!r}")

    def __getitem__(self, key):
        # a name, a list of names, a row slice (any step) or a boolean mask:
        # parsed by zambezi._indexing, as iloc's keys are
        return _indexing.frame_getitem(self, key)

    def _column(self, name):
        names = self._table.names
        if name not in names:
            raise self._missing(name)
        return self._sliced(self._table.column(names.index(name)), name)

    def _select_columns(self, names):
        have = self._table.names
        for k in names:
            if k not in have:
                raise self._missing(k)
        return self._like(self._table.select([have.index(k) for k in names]))

    def column(self, name):
        """The column ``name`` as a Series (the same as ``df[name]``; no data
        copied).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2], "b": ["x", "y"]}).column("b")
        0    x
        1    y
        Name: b, dtype: string
        """
        return self[name]

    def head(self, n=5):
        """The first n rows (all but the last -n when n < 0); no data copied.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3, 4]})
        >>> df.head(2)
               a
           int64
        0      1
        1      2
        <BLANKLINE>
        [2 rows x 1 columns]
        >>> len(df.head(-1))
        3
        """
        rows = self._table.num_rows
        k = min(max(n, 0), rows) if n >= 0 else max(rows + n, 0)
        return self._select_rows(_indexing.slice_rows(0, k))

    def tail(self, n=5):
        """The last n rows (all but the first -n when n < 0), numbered from
        0; no data copied.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3, 4]})
        >>> df.tail(2)
               a
           int64
        2      3
        3      4
        <BLANKLINE>
        [2 rows x 1 columns]
        """
        rows = self._table.num_rows
        k = min(max(n, 0), rows) if n >= 0 else max(rows + n, 0)
        return self._select_rows(_indexing.slice_rows(rows - k, k))

    def rename(self, columns):
        """A frame with some columns renamed (a dict old -> new); no data copied.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1], "b": [2]})
        >>> df.rename({"a": "x"}).columns
        Index(['x', 'b'], dtype='string')
        """
        t = self._table
        names = t.names
        for old in columns:
            if old not in names:
                raise self._missing(old)
        new_names = [columns.get(n, n) for n in names]
        return self._like(
            _core.table_from_columns([t.column(i) for i in range(len(names))], new_names))

    def copy(self, deep=True):
        """A new frame.  zambezi data is immutable, so the copy shares buffers
        (deep is accepted and ignored); assigning a column to the copy does
        not change the original.  ``copy.copy`` and ``copy.deepcopy`` do the
        same (see zambezi.io.pickle).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2]})
        >>> c = df.copy()
        >>> c["b"] = [3, 4]
        >>> df.columns, c.columns
        (Index(['a'], dtype='string'), Index(['a', 'b'], dtype='string'))
        """
        return self._like(self._table)

    # -- devices -----------------------------------------------------------
    def to(self, device):
        """The same frame on another device: 'cpu', 'cuda' or 'cuda:N' (the
        data is copied there; a frame already there is returned as is).
        Operations on the result run on that device.  Raises DeviceError
        when the device is not available.  'auto' picks a GPU when there is
        one and the frame is at least ``zb.get_auto_threshold()`` bytes
        (see ``nbytes``), else the CPU.

        Examples
        --------
        >>> df = zb.DataFrame({"fare": [12.5, 7.0, 3.25]})
        >>> device = "cuda" if zb.cuda_available() else "cpu"
        >>> g = df.to(device)
        >>> g["fare"].sum()
        22.75
        >>> g.to("cpu").device
        'cpu'
        """
        dev = _device.resolve(device, self.nbytes)
        out = self._like(self._table.to_device(dev))
        out._index = self._index._to_device(dev)
        return out

    @property
    def nbytes(self):
        """Bytes of memory the frame's columns occupy (values, validity
        bitmaps, string bytes, categories).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 2.0]}).nbytes   # 24 + 24 + 1
        49
        """
        return self._table.nbytes

    # -- conversion --------------------------------------------------------
    def to_pickle(self, path, *, compression="infer", protocol=5, storage_options=None):
        """Pickle the frame to path (a file path, compressed by its
        extension, or a binary file object); ``zb.read_pickle`` loads it.
        The pickle holds the columns' Arrow buffers; a frame on a GPU
        unpickles on the CPU (see zambezi.io.pickle for pickling, copying
        and out-of-band buffers).

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "trips.pkl")
        >>> zb.DataFrame({"city": ["Maun", None], "fare": [7.0, 3.25]}).to_pickle(path)
        >>> zb.read_pickle(path).to_dict()
        {'city': ['Maun', None], 'fare': [7.0, 3.25]}

        The standard pickle module works as well, out-of-band buffers
        included (protocol 5):

        >>> import pickle
        >>> df = zb.DataFrame({"n": np.arange(1000)})
        >>> buffers = []
        >>> payload = pickle.dumps(df, protocol=5, buffer_callback=buffers.append)
        >>> len(payload) < 500, sum(b.raw().nbytes for b in buffers)
        (True, 8000)
        >>> pickle.loads(payload, buffers=buffers)["n"].sum()
        499500
        """
        _pickle.to_pickle(self, path, compression=compression, protocol=protocol,
                          storage_options=storage_options)

    def to_csv(self, path_or_buf=None, **kwargs):
        """Write the frame as CSV (pandas' arguments, see zambezi.io.to_csv);
        returns the text when path_or_buf is None.  The row labels come
        first unless index=False.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None], "b": ["x", "y, z"]})
        >>> print(df.to_csv(), end="")
        ,a,b
        0,1,x
        1,,"y, z"
        >>> print(df.to_csv(sep=";", na_rep="NA", header=False), end="")
        0;1;x
        1;NA;y, z
        """
        return _csv.to_csv(self, path_or_buf, **kwargs)

    def to_pandas(self):
        """A pandas DataFrame (copied, with a RangeIndex).  Nulls become
        pandas' missing values: integer and bool columns with nulls become
        the nullable ``Int64`` / ``boolean`` dtypes, floats NaN, strings
        ``pd.NA``.

        Examples
        --------
        >>> pdf = zb.DataFrame({"a": [1, 2, None], "b": ["x", "y", "z"]}).to_pandas()
        >>> pdf
              a  b
        0     1  x
        1     2  y
        2  <NA>  z
        >>> pdf["a"].dtype
        Int64Dtype()
        """
        import pandas as pd

        t = self._table
        if t.device != "cpu":
            t = t.to_device("cpu")
        names = t.names
        data = {name: _convert.column_to_pandas(t.column(i), name)
                for i, name in enumerate(names)}
        index = self._index.to_pandas()
        if not data:
            return pd.DataFrame(index=index)
        out = pd.DataFrame(data, columns=names)
        out.index = index
        return out

    def to_arrow(self):
        """A pyarrow Table, through the Arrow C stream interface without
        copying (strings are ``large_string``).  Needs pyarrow.

        Examples
        --------
        >>> t = zb.DataFrame({"a": [1, None], "b": ["x", "y"]}).to_arrow()
        >>> t.schema
        a: int64
        b: large_string
        >>> t.column("a").to_pylist()
        [1, None]
        """
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("DataFrame.to_arrow() needs pyarrow: pip install pyarrow") from e
        return pa.table(self)

    def to_dict(self):
        """dict: column name -> list of values (None for nulls).  Unlike
        pandas' default orient, the lists are not keyed by index.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, None], "b": ["x", "y"]}).to_dict()
        {'a': [1, None], 'b': ['x', 'y']}
        """
        t = self._table
        return {name: t.column(i).to_pylist() for i, name in enumerate(t.names)}

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self._table.__arrow_c_schema__()

    # -- display -----------------------------------------------------------
    def __repr__(self):
        return _format.frame_repr(self._table, self._index)

    def _repr_html_(self):
        return _format.frame_html(self._table, self._index)


def from_pandas(pdf):
    """A DataFrame copied from a pandas DataFrame, one column at a time, with
    its index (a RangeIndex stays one; other indexes become engine
    columns).  Nullable, categorical, datetime (with timezone) and
    object columns keep their meaning; see zambezi._convert.

    Examples
    --------
    >>> pdf = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"),
    ...                     "b": pd.Categorical(["x", "y"])}, index=[10, 20])
    >>> df = zb.from_pandas(pdf)
    >>> df
            a         b
        int64  category
    10      1         x
    20   <NA>         y
    <BLANKLINE>
    [2 rows x 2 columns]
    """
    names = [str(c) for c in pdf.columns]
    if len(set(names)) != len(names):
        raise InvalidValueError(f"column names must be unique: {names!r}")
    cols = [_convert.column_from_pandas(pdf.iloc[:, i], name=names[i])
            for i in range(len(names))]
    return DataFrame._wrap(_core.table_from_columns(cols, names),
                           _ix.from_pandas_index(pdf.index))


def _row_series(df, row, label):
    """One row (a one-row Table) as a Series indexed by column names when a
    common dtype exists, else a dict (see DataFrame._value_at)."""
    names = row.names
    cols = [row.column(j) for j in range(len(names))]
    dtypes = {c.dtype for c in cols}
    numeric = all(d.startswith(("int", "uint", "float")) or d == "bool" for d in dtypes)
    if len(dtypes) == 1 or (numeric and dtypes):
        target = cols[0].dtype if len(dtypes) == 1 else _common_number(dtypes)
        cols = [c if c.dtype == target else _core.cast(c, target) for c in cols]
        col = _core.concat(cols) if len(cols) > 1 else cols[0]
        labels = _ix.Index._from_columns([_convert.to_column(names, dtype="string")], [None])
        return df._constructor_sliced._from_column(col, label, labels)
    return {nm: c.to_pylist()[0] for nm, c in zip(names, cols)}


def _common_number(dtypes):
    if any(d.startswith("float") for d in dtypes):
        return "float64"
    if all(d == "bool" for d in dtypes):
        return "bool"
    if any(d.startswith("uint") for d in dtypes) and not any(
            d.startswith("int") for d in dtypes):
        return "uint64"
    return "int64"


def _via_pyarrow(obj, error):
    """Retry an import through pyarrow, casting Arrow types zambezi reads
    only in another layout (string_view -> large_string ...).  Raises the
    original error when that is not possible."""
    try:
        import pyarrow as pa

        table = pa.table(obj)
    except Exception:
        raise error from None
    views = {pa.string_view(): pa.large_string(), pa.string(): pa.large_string()}
    fields = []
    for f in table.schema:
        t = f.type
        if pa.types.is_dictionary(t) and t.value_type in views:
            t = pa.dictionary(t.index_type, pa.large_string())
        fields.append(f.with_type(views.get(t, t)))
    try:
        table = table.cast(pa.schema(fields))
    except Exception:
        raise error from None
    return _core.import_arrow_stream(table.__arrow_c_stream__())


def from_arrow(obj):
    """A DataFrame from any Arrow table-like object: pyarrow Table or
    RecordBatch, polars DataFrame, duckdb relation, or anything with
    ``__arrow_c_stream__`` / ``__arrow_c_array__`` yielding record batches.
    Arrow buffers are imported without copying where the layout allows.

    Examples
    --------
    >>> import pyarrow as pa
    >>> zb.from_arrow(pa.table({"a": [1, 2], "b": ["x", None]}))
           a       b
       int64  string
    0      1       x
    1      2    <NA>
    <BLANKLINE>
    [2 rows x 2 columns]
    """
    if isinstance(obj, DataFrame):
        return obj
    if hasattr(obj, "__arrow_c_stream__"):
        try:
            result = _core.import_arrow_stream(obj.__arrow_c_stream__())
        except UnsupportedError as e:
            result = _via_pyarrow(obj, e)
    elif hasattr(obj, "__arrow_c_array__"):
        schema, array = obj.__arrow_c_array__()
        result = _core.import_arrow_array(schema, array)
    else:
        raise DTypeError(
            "from_arrow() takes an object with __arrow_c_stream__ or __arrow_c_array__ "
            f"(pyarrow, polars, duckdb...), not {type(obj).__name__}")
    if isinstance(result, _core.Column):
        raise InvalidValueError(
            f"from_arrow() got a single {result.dtype} array, not a table; use "
            "zb.DataFrame({'name': zb.Series(array)}) for one column")
    return DataFrame._wrap(result)
