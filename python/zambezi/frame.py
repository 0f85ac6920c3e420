"""zambezi.DataFrame: named columns of one length on one device.

A DataFrame wraps an immutable ``_core.Table``.  Column selection, row
slicing, head/tail, rename and copy share the engine's buffers (no data is
copied); conversions to and from pandas, numpy and Arrow work one column at a
time in C.  Arrow consumers (pyarrow, polars, duckdb) read a DataFrame
through ``__arrow_c_stream__`` without copies, the index included as
pyarrow's ``Table.from_pandas`` writes it (zambezi._arrow_index).
"""

import numpy as np

from zambezi import (_arrow_index, _base, _convert, _core, _device, _format,
                     _frame_convert, _indexing, _labels, _numpy_protocol)
from zambezi import index as _ix
from zambezi import _index_ops
from zambezi._frame_arith import FrameArith
from zambezi._frame_convert import FrameConvert
from zambezi._frame_extra import FrameExtra
from zambezi._ecosystem import FrameEcosystem
from zambezi.io.via_pandas import FrameViaPandas
from zambezi._frame_reduce import FrameReduce
from zambezi._moments import FrameMoments
from zambezi._frame_summary import FrameSummary
from zambezi._index_ops import IndexOps
from zambezi._axis_ops import AxisOps
from zambezi._pairs import FramePairs
from zambezi._combine import FrameCombine
from zambezi._agg import FrameAgg
from zambezi._conveniences import FrameConveniences
from zambezi import _frame_build
from zambezi._frame_build import FrameBuild
from zambezi._transform import FrameTransform
from zambezi._frame_ops import FrameOps
from zambezi._missing import FrameMissing
from zambezi._window import FrameWindow
from zambezi._rank import FrameRank
from zambezi._ewm import FrameEWM
from zambezi._resample import FrameResample
from zambezi._rolling import FrameRolling
from zambezi._groupby import FrameGroupBy
from zambezi._reshape import FrameReshape
from zambezi._pivot import FramePivot
from zambezi._apply import FrameApply
from zambezi._stats import FrameStats
from zambezi._merge import FrameMerge
from zambezi.errors import (
    ColumnNotFoundError,
    DTypeError,
    InvalidValueError,
    UnsupportedError,
)
from zambezi.io import csv as _csv
from zambezi.io import json as _json
from zambezi.io import ipc as _ipc
from zambezi.io import parquet as _parquet
from zambezi.io import pickle as _pickle


_PANDAS = []


def _pandas_installed():
    """Whether pandas can be imported (looked up once)."""
    if not _PANDAS:
        try:
            import pandas  # noqa: F401
            _PANDAS.append(True)
        except ImportError:
            _PANDAS.append(False)
    return _PANDAS[0]


class _DtypeDict(dict):
    """dtypes without pandas: a dict that also has ``to_dict()``, so code
    written for the pandas Series runs unchanged."""

    __slots__ = ()

    def to_dict(self):
        return dict(self)


def _has_labels(data):
    """Whether DataFrame(data) takes its row labels from data."""
    return isinstance(data, DataFrame) or _base.is_series(data) or \
        _convert._is_pandas(data, "DataFrame")


def _on_labels(value, index):
    """A dict value for DataFrame(dict, index=index): a Series reindexed
    (left as it is when its labels are those already, repeated ones too)."""
    if _convert._is_pandas(value, "Series"):
        import pandas as pd

        target = index.to_pandas() if isinstance(index, _ix.Index) else pd.Index(index)
        return value if value.index.equals(target) else value.reindex(target)
    return _reindexed(value, index) if _base.is_series(value) else value


def _reindexed(obj, index):
    """obj (a frame or Series) on the labels index, as pandas' reindex; obj
    itself when it has those labels (a repeated label needs no reindex)."""
    from zambezi import _align

    target = _ix.ensure_index(index)
    if len(target) == len(obj) and _align.same_labels(obj._index, target):
        return obj
    return obj.reindex(target)


def _dict_index(data):
    """(labels, data): the labels the Series among a dict's values share,
    or, when they differ, their union (sorted where it can be, as pandas'
    union of the indexes) with each Series reindexed to it; labels None:
    only arrays or default labels."""
    found, differ = None, False
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
            found, differ = found.union(idx), True
    if differ:
        data = {k: _on_labels(v, found) for k, v in data.items()}
    return found, data


def _with_missing_columns(data, columns, index, dtype):
    """data with a column of nulls for each label of ``columns`` it lacks,
    as pandas fills them (with NaN in an object column there; here in
    ``dtype``, else string, the dtype zambezi reads pandas' object columns
    as)."""
    missing = [c for c in columns if c not in data]
    if not missing:
        return data
    first = next(iter(data.values()), None)
    n = len(first) if first is not None else len(index) if index is not None else 0
    nulls = _convert.nulls_like(_convert.to_column([], dtype="string" if dtype is None
                                                   else dtype), n)
    return {**data, **{c: nulls for c in missing}}


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
class DataFrame(IndexOps, AxisOps, FramePairs, FrameCombine, FrameAgg, FrameTransform,
                FrameConveniences, FrameBuild, FrameArith,
                FrameMissing, FrameWindow, FrameRolling, FrameEWM, FrameResample, FrameOps, FrameExtra,
                FrameReduce, FrameMoments, FrameRank, FrameStats, FrameSummary, FrameConvert,
                FrameMerge, FrameGroupBy, FrameReshape, FramePivot, FrameApply, FrameEcosystem,
                FrameViaPandas, _base.NDFrame):
    """A table of named, typed columns on the CPU or a GPU.

    ``data`` is a dict of columns (lists, numpy arrays, Series, pandas or
    Arrow arrays; all of one length), a pandas DataFrame (copied, with its
    index), an Arrow table-like object (pyarrow, polars, duckdb ...), or
    another DataFrame (shared).  Every dtype can hold nulls; ``None`` and
    float NaN are read as nulls.

    Rows have labels, as in pandas: ``index=`` (default: a RangeIndex
    0..n-1, or the index the dict's Series share).  Filtering, sorting and
    ``head`` keep the labels; merge and read_csv number rows afresh.
    ``columns=`` picks and orders the dict's columns; a label the dict
    lacks becomes a column of nulls (in ``dtype``, else string: pandas
    fills it with NaN in an object column), so ``DataFrame(columns=[...])``
    is an empty frame with those columns.

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
    >>> zb.DataFrame(pd.DataFrame({"a": [1, 2]})).to_dict("list")
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
    >>> df[["city", "usd"]][1:].to_dict("list")
    {'city': ['Maun', None], 'usd': [3.5, 1.625]}
    >>> df[::-2]["city"].to_list()
    [None, 'Lusaka']
    """

    # _pd_columns: the pandas Index ``columns`` last gave, kept so that
    # ``df.columns.name = x`` names df's labels as in pandas (zambezi._labels)
    __slots__ = ("_table", "_index", "_columns", "_pd_columns")
    _ndim = 2

    def __init__(self, data=None, index=None, columns=None, dtype=None, copy=None):
        if data is None:
            data = {}
        if _convert._is_pandas(data, "Series"):
            data = data.to_frame()   # one column, named by the Series (0 unnamed)
        if index is not None and isinstance(data, dict):
            # a dict's Series are reindexed to ``index`` (pandas), its lists
            # and arrays taken as they come
            data = {k: _on_labels(v, index) for k, v in data.items()}
        elif index is not None and _has_labels(data):
            # so is a frame or a Series: reindexed, not relabelled
            self._columns = None
            self._take_over(_reindexed(DataFrame(data, columns=columns, dtype=dtype), index))
            return
        labels = None
        self._columns = None  # labels other than the table names (zambezi._labels)
        if not isinstance(data, (DataFrame, dict)) and _frame_build.is_rows(data):
            data, columns, index = _frame_build.to_columns(data, columns, index)
        if isinstance(data, DataFrame):
            self._table = data._table
            labels = data._index
            self._columns = data._columns
        elif isinstance(data, _core.Table):
            self._table = data
        elif isinstance(data, dict):
            if columns is not None:
                data = _with_missing_columns(data, columns, index, dtype)
            labels, data = _dict_index(data)
            keys = list(data)
            if not keys and columns is None:  # no columns at all: labelled as pandas does
                self._table = _table_from_dict(data)
                _labels.attach(self, _ix.RangeIndex(0))
            elif all(isinstance(k, str) for k in keys):
                self._table = _table_from_dict(data)
            else:  # tuples (a MultiIndex), numbers ...: labels as pandas keeps them
                names = _labels.internal_names(keys)
                self._table = _table_from_dict(dict(zip(names, data.values())))
                _labels.attach(self, _labels.from_list(keys))
        elif _convert._is_pandas(data, "DataFrame"):
            pdf = from_pandas(data)
            self._table, labels, self._columns = pdf._table, pdf._index, pdf._columns
        elif hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__"):
            adf = from_arrow(data)
            self._table, labels = adf._table, adf._index
        else:
            raise DTypeError(
                "DataFrame() takes a dict of columns, rows (a list of dicts, lists or "
                "tuples), a numpy array, a Series, a pandas DataFrame or an Arrow table, "
                f"not {type(data).__name__}")
        n = self._table.num_rows
        if index is not None:
            if self._table.num_columns == 0 and n == 0:
                n = len(_ix.ensure_index(index))
                # no columns, n rows: none selected of a column of n rows
                self._table = _core.table_from_columns(
                    [_core.column_from_buffer(np.zeros(n, dtype=bool))], ["_"]).select([])
            labels = _ix.ensure_index(index, n, "DataFrame(index=...)")
        self._index = labels if labels is not None else _ix.default_index(n)
        if columns is not None:  # by label: a dict's int or tuple keys too
            picked = self[list(columns)]
            self._table, self._columns = picked._table, picked._columns
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
        df._columns = None
        return df

    _from_engine = _wrap

    @property
    def _engine(self):
        return self._table

    def _like(self, table):
        """A frame with the same rows (and labels) as self; column labels
        carry over by column name (zambezi._labels)."""
        out = self._constructor._wrap(table, self._index)
        out._columns = getattr(self, "_columns", None)
        return out

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
        return _frame_convert.row_series(self, row, self._index._label_at(i))

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
    def size(self):
        """The number of cells: rows times columns, as pandas' ``size``
        (Dask's ``ddf.shape[0]`` sums it over partitions).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}).size
        6
        """
        return self._table.num_rows * self._table.num_columns

    @property
    def columns(self):
        """The column labels: a pandas Index when pandas is installed (as
        cuDF gives one: Dask and pandas-minded code compare and reshape them
        with pandas' methods), else zambezi's own Index; of the column names, or the labels
        a result carries as pandas gives them (a MultiIndex of tuples after
        ``groupby().agg(["sum", "max"])``, integers after ``concat(axis=1)``
        of unnamed Series, the values of an unstacked level ...).  Assigning
        a list (or an Index) relabels every column.  ``df[label]`` selects
        by these labels (on a MultiIndex, a first-level label gives the
        frame of its columns); methods that take column names (sort_values,
        groupby, merge ...) take the names zambezi gives such columns --
        the parts of a tuple joined by "_" ("fare_sum" for ("fare",
        "sum")), str(label) for other labels -- where pandas takes the
        labels themselves.  Labels of mixed types (0 and "a") are shown as
        str: a column of labels holds one type.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1], "b": ["x"]})
        >>> df.columns.to_list()
        ['a', 'b']
        >>> df.columns = ["x", "y"]
        >>> list(df.columns)
        ['x', 'y']
        >>> df.columns = [("k", "a"), ("k", "b")]
        >>> df.columns.nlevels, df["k"].columns.to_list()
        (2, ['a', 'b'])
        """
        idx = self._zb_columns
        if not _pandas_installed():
            return idx
        names, slot = tuple(self._table.names), self._columns
        cache = getattr(self, "_pd_columns", None)
        if cache is not None and cache[0] == names and cache[1] is slot:
            return cache[2]
        out = idx.to_pandas()
        self._pd_columns = (names, slot, out, list(out.names))
        return out

    @property
    def _zb_columns(self):
        # The column labels as zambezi's own Index, whether or not pandas
        # is installed: what zambezi's internals use.
        idx = _labels.labels(self)
        if idx is not None:
            return idx
        return _ix.Index._from_columns(
            [_convert.to_column(self._table.names, dtype="string")], [None])

    @columns.setter
    def columns(self, labels):
        if _convert._is_pandas(labels, "Index") or _convert._is_pandas(labels, "MultiIndex"):
            labels = _ix.from_pandas_index(labels)
        t = self._table
        if isinstance(labels, _ix.Index):
            index, values = labels, labels.to_list()
        else:
            values = list(labels)
            index = None
        if len(values) != t.num_columns:
            raise InvalidValueError(
                f"columns: {len(values)} labels for {t.num_columns} columns")
        cols = [t.column(i) for i in range(t.num_columns)]
        if index is None and all(isinstance(c, str) for c in values) and \
                len(set(values)) == len(values):
            self._table = _core.table_from_columns(cols, values)
            self._columns = None
            return
        if index is None:
            index = _labels.from_list(values)
        self._table = _core.table_from_columns(cols, _labels.internal_names(values))
        _labels.attach(self, index)

    @property
    def dtypes(self):
        """The dtype of each column: a pandas Series (of object dtype) whose
        index is ``columns`` and whose values are zambezi's dtype names (a
        categorical's: a pandas CategoricalDtype, see Series.dtype), when
        pandas is installed (as cuDF gives one); else a dict: column label
        -> dtype name.  ``df.dtypes.to_dict()`` is that dict either way.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, None], "b": ["x", "y"], "c": [0.5, 1.5]}).dtypes.to_dict()
        {'a': 'int64', 'b': 'string', 'c': 'float64'}
        """
        d = self._zb_dtypes
        if not _pandas_installed():
            return _DtypeDict(d)
        import pandas as pd
        out = pd.Series(list(d.values()), dtype=object)
        out.index = self.columns
        return out

    @property
    def _zb_dtypes(self):
        # dict: column label -> dtype name, what zambezi's internals use.
        from zambezi._dtypes import column_dtype  # a str with numpy's kind, itemsize ...
        t = self._table
        return {name: column_dtype(t.column(i))
                for i, name in enumerate(_labels.label_list(self))}

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
        idx = _labels.labels(self)
        if idx is not None:
            values = idx.to_list()
            return name in values or (idx.nlevels > 1 and any(v[0] == name for v in values))
        return name in self._table.names

    def __iter__(self):
        return iter(_labels.label_list(self))

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

    def rename(self, mapper=None, *, index=None, columns=None, axis=None, copy=None,
               inplace=False, level=None, errors="ignore"):
        """A frame with some labels renamed, as pandas: ``columns=`` (or
        ``mapper`` with ``axis=1``) renames columns, ``index=`` (or
        ``mapper``, whose axis is the rows by default) renames row labels;
        each a dict old -> new (others stay) or a function of the label.
        No data copied.  Keys that are no label are ignored, or raise
        KeyError with errors="raise".

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1], "b": [2]})
        >>> df.rename(columns={"a": "x"}).columns.to_list()
        ['x', 'b']
        >>> df.rename(columns=lambda c: c + "-count").columns.to_list()
        ['a-count', 'b-count']
        >>> df.rename(str.upper, axis=1).columns.to_list()
        ['A', 'B']
        >>> df.rename({0: 10}).index.to_list()
        [10]
        """
        if errors not in ("ignore", "raise"):
            raise InvalidValueError(f"rename: errors must be 'ignore' or 'raise', not "
                                    f"{errors!r}")
        if level is not None:
            raise UnsupportedError("DataFrame.rename: level= is not supported")
        if mapper is not None:
            if index is not None or columns is not None:
                raise TypeError("Cannot specify both 'mapper' and any of 'index' or 'columns'")
            if axis in (1, "columns"):
                columns = mapper
            elif axis in (None, 0, "index", "rows"):
                index = mapper
            else:
                raise InvalidValueError(f"rename: No axis named {axis!r} for object type "
                                        "DataFrame")
        out = self if columns is None else self._rename_columns(columns, errors)
        if index is not None:
            out = out._with_index(_index_ops.relabel_index(out._index, index, errors))
        return self._inplace(out, inplace, "rename")

    def _rename_columns(self, columns, errors):
        t = self._table
        names = t.names
        lab = _labels.labels(self)
        if lab is not None and lab.nlevels > 1:   # pandas maps each level's values
            f = columns if callable(columns) else (lambda x, m=dict(columns): m.get(x, x))
            have = _labels.label_list(self)
            if errors == "raise" and not callable(columns):
                seen = {x for lb in have for x in lb}
                for old in columns:
                    if old not in seen:
                        raise self._missing(old)
            new = [tuple(f(x) for x in lb) for lb in have]
            out = self._like(_core.table_from_columns(
                [t.column(i) for i in range(len(names))], _labels.internal_names(new)))
            return _labels.attach(out, _labels.from_list(new, lab.names))
        if callable(columns):
            new = [columns(c) for c in _labels.label_list(self)]
            cols = [t.column(i) for i in range(len(names))]
            if all(isinstance(c, str) for c in new):
                if len(set(new)) != len(new):
                    raise InvalidValueError(f"rename: the new column names repeat: {new!r}")
                return self._wrap(_core.table_from_columns(cols, new), self._index)
            out = self._wrap(_core.table_from_columns(cols, _labels.internal_names(new)),
                             self._index)
            return _labels.attach(out, _labels.from_list(new))
        if not isinstance(columns, dict):
            columns = dict(columns.items()) if hasattr(columns, "items") else columns
        if _labels.labels(self) is not None:  # labels other than the names (an int 0)
            have = _labels.label_list(self)
            if errors == "raise":
                for old in columns:
                    if old not in have:
                        raise self._missing(old)
            new = [columns.get(lb, lb) for lb in have]
            out = self._like(_core.table_from_columns(
                [t.column(i) for i in range(len(names))], _labels.internal_names(new)))
            return _labels.attach(out, _labels.from_list(new, self._zb_columns.names))
        if errors == "raise":
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
        >>> df.columns.to_list(), c.columns.to_list()
        (['a'], ['a', 'b'])
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
        >>> zb.read_pickle(path).to_dict("list")
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

    def to_json(self, path_or_buf=None, **kwargs):
        r"""Write the frame as JSON (pandas' arguments, see
        zambezi.io.to_json): ``orient="records"`` with ``lines=True`` (JSON
        lines) or ``lines=False`` (one array) in C, in parallel, without the
        index; the other orients, pandas' default ("columns") included, by
        pandas on a pandas copy.  Returns the text when path_or_buf is
        None.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [0.5, None]})
        >>> print(df.to_json(orient="records", lines=True), end="")
        {"a":1,"b":0.5}
        {"a":2,"b":null}
        >>> df.to_json(orient="records")
        '[{"a":1,"b":0.5},{"a":2,"b":null}]'
        """
        return _json.to_json(self, path_or_buf, **kwargs)

    def to_parquet(self, path=None, engine="auto", compression="snappy", index=None,
                   partition_cols=None, *, row_group_size=None, compression_level=None,
                   **kwargs):
        """Write the frame as a Parquet file (pandas' arguments); returns the
        file's bytes when path is None.

        zambezi writes with its own C writer, in parallel over row groups
        and columns; pyarrow is not needed.  ``compression``: "snappy" (the
        default, as pandas has it), "gzip", "zstd" or None (libsnappy, zlib
        and libzstd are loaded when first needed; "brotli" raises
        UnsupportedError); ``compression_level`` is zstd's or gzip's level;
        ``data_page_version`` (pyarrow's keyword): "1.0" (the default) or
        "2.0" for data pages v2; ``write_page_checksum=True`` stores page
        CRC-32s;
        ``row_group_size`` rows per row group (default 1048576, as pyarrow).
        ``index``: None stores a RangeIndex as metadata only and any other
        index as columns (named by the level names or ``__index_level_i__``),
        True stores a RangeIndex as a column too, False leaves it out -- as
        pandas. The footer holds pandas' metadata, so pandas, pyarrow,
        polars, duckdb and ``zb.read_parquet`` read the frame back.
        ``partition_cols`` writes a hive dataset under the directory path:
        a ``key=value`` folder level per column named, one file per
        distinct combination holding the other columns (as pyarrow's
        write_to_dataset: the value percent-encoded, "a/b" as "a%2Fb", a
        null as ``__HIVE_DEFAULT_PARTITION__``, booleans as true / false).

        Layout: data pages v1 (or v2); numbers, booleans, dates and timestamps
        PLAIN; strings dictionary-encoded (PLAIN when the dictionary passes
        1 MiB), categoricals dictionary-encoded over their categories;
        statistics (min, max, null count) in every column chunk.

        The footer also holds the ``ARROW:schema`` key, as pyarrow writes
        it, so that pyarrow restores categoricals (with their categories),
        time zones and timestamp units.  Differences from pandas: strings
        are Arrow ``string`` in that schema (pandas' str columns are
        ``large_string``); timestamps in seconds are stored in milliseconds
        (Parquet has no second unit; pandas' own files do the same, and
        pandas reads both back in milliseconds).
        Other pyarrow options raise UnsupportedError.

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "trips.parquet")
        >>> df = zb.DataFrame({"city": ["Maun", None, "Kasane"], "fare": [7.0, 3.25, None]})
        >>> df.to_parquet(path)
        >>> zb.read_parquet(path).to_dict("list")
        {'city': ['Maun', None, 'Kasane'], 'fare': [7.0, 3.25, None]}
        >>> import pandas as pd
        >>> pd.read_parquet(path)["city"].tolist()
        ['Maun', nan, 'Kasane']
        >>> df.to_parquet(path, compression="zstd", row_group_size=2)
        >>> import pyarrow.parquet as pq
        >>> pq.ParquetFile(path).metadata.num_row_groups
        2
        """
        return _parquet.to_parquet(self, path, engine, compression, index, partition_cols,
                                   row_group_size=row_group_size,
                                   compression_level=compression_level, **kwargs)

    # ---- Arrow IPC / Feather (zambezi/io/ipc.py) ----
    def to_feather(self, path, compression=None, compression_level=None, chunksize=None,
                   version=2, **kwargs):
        """Write the frame as a Feather v2 (Arrow IPC) file, as pandas'
        to_feather (with pyarrow's write_feather arguments).

        zambezi writes the file with its own C writer; pyarrow is not
        needed.  ``compression``: None (pyarrow's default: "lz4" when
        liblz4 can be loaded, else uncompressed), "lz4", "zstd" or
        "uncompressed"; ``compression_level`` is zstd's level;
        ``chunksize`` rows per record batch (default: one batch when
        uncompressed, so the file is read back without a copy; 2^20 rows
        when compressed, so batches compress in parallel).  The index is
        stored as pyarrow does (a RangeIndex as metadata, another index as
        columns) with pandas' metadata, so pandas, pyarrow, polars and
        ``zb.read_feather`` read the frame back.  Strings are written as
        large_utf8, categoricals as dictionary<int32, large_utf8>, list
        columns (lists of lists too) as large_list; ``zb.read_feather``
        reads one level of lists so far (a list of lists raises
        UnsupportedError naming the column; pyarrow, pandas and polars
        read it).
        Differences from pandas (which hands the frame to pyarrow):
        ``version=1`` raises UnsupportedError, and pyarrow's other options
        (``preserve_index`` aside, spelled ``index`` here) are not taken.

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "trips.feather")
        >>> df = zb.DataFrame({"city": ["Maun", None, "Kasane"], "fare": [7.0, 3.25, None]})
        >>> df.to_feather(path)
        >>> zb.read_feather(path).to_dict("list")
        {'city': ['Maun', None, 'Kasane'], 'fare': [7.0, 3.25, None]}
        >>> import pyarrow.feather as pf
        >>> pf.read_table(path).column("city").to_pylist()
        ['Maun', None, 'Kasane']
        """
        return _ipc.to_feather(self, path, compression, compression_level, chunksize, version,
                               **kwargs)

    def to_ipc(self, path=None, compression="uncompressed", *, compression_level=None,
               chunksize=None, index=None):
        """Write the frame as an Arrow IPC file (polars' write_ipc); returns
        the file's bytes when path is None.

        ``compression``: "uncompressed" (the default, as polars), "lz4" or
        "zstd"; ``index`` as in to_parquet (None: a RangeIndex as metadata,
        another index as columns).  The file is the same as to_feather's;
        see there for the layout.

        Examples
        --------
        >>> df = zb.DataFrame({"n": [1, 2, 3], "c": ["x", "y", "x"]})
        >>> data = df.to_ipc(compression="zstd")
        >>> import polars as pl
        >>> pl.read_ipc(data)["n"].to_list()
        [1, 2, 3]
        >>> zb.read_ipc(data).to_dict("list")
        {'n': [1, 2, 3], 'c': ['x', 'y', 'x']}
        """
        return _ipc.write_ipc(self, path, compression, compression_level=compression_level,
                              chunksize=chunksize, index=index)

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
        labels = _labels.labels(self)
        if not data:
            # pandas' columns of a frame whose (string) columns were all
            # dropped, df[[]]: an empty Index of the dtype pandas gives
            # string labels (str in pandas 3), not a RangeIndex
            cols = labels.to_pandas() if labels is not None else pd.Index(["_"])[:0]
            return pd.DataFrame(index=index, columns=cols)
        out = pd.DataFrame(data, columns=names)
        out.index = index
        if labels is not None:
            out.columns = labels.to_pandas()
        return out

    def to_arrow(self):
        """A pyarrow Table, through the Arrow C stream interface without
        copying (strings are ``large_string``), with the index as
        ``pa.Table.from_pandas`` writes it: a RangeIndex as schema
        metadata only, other indexes as columns after the data columns
        (named by the level's name, or ``__index_level_i__``), and the
        b"pandas" schema metadata, so that ``table.to_pandas()`` and
        ``zb.from_arrow(table)`` restore the index.  Needs pyarrow.

        Examples
        --------
        >>> t = zb.DataFrame({"a": [1, None], "b": ["x", "y"]}).to_arrow()
        >>> t.schema.names, t.column("a").to_pylist()
        (['a', 'b'], [1, None])
        >>> t.to_pandas().index
        RangeIndex(start=0, stop=2, step=1)
        >>> t = zb.DataFrame({"fare": [7.0, 3.5]}, index=zb.Index(["Maun", "Tete"], name="city")).to_arrow()
        >>> t.schema.names
        ['fare', 'city']
        >>> t.to_pandas()
              fare
        city
        Maun   7.0
        Tete   3.5
        >>> zb.from_arrow(t).index
        Index(['Maun', 'Tete'], dtype='string', name='city')
        """
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("DataFrame.to_arrow() needs pyarrow: pip install pyarrow") from e
        return pa.table(self)

    def __arrow_c_stream__(self, requested_schema=None):
        # the columns, then the index levels unless it is a RangeIndex, with
        # pandas' schema metadata (see zambezi._arrow_index)
        table, metadata = _arrow_index.export_table(self)
        return table.__arrow_c_stream__(requested_schema, metadata=metadata)

    def __arrow_c_schema__(self):
        table, metadata = _arrow_index.export_table(self)
        return table.__arrow_c_schema__(metadata=metadata)

    # -- list columns (zambezi._lists) ---------------------------------------
    def explode(self, column, ignore_index=False):
        """The list column ``column`` (or several, holding lists of equal
        lengths row by row) with each element on a row of its own; the
        other columns and the row labels repeated (labels 0..n-1 with
        ignore_index); an empty or null list gives one missing row.  The
        elements keep their type (pandas gives object values).

        Examples
        --------
        >>> df = zb.DataFrame({"k": [1, 2, 3], "v": [["a", "b"], [], None]})
        >>> df.explode("v").to_dict("list")
        {'k': [1, 1, 2, 3], 'v': ['a', 'b', None, None]}
        """
        from zambezi._lists import frame_explode

        return frame_explode(self, column, ignore_index)

    # -- display -----------------------------------------------------------
    def __repr__(self):
        return _format.frame_repr(self._table, self._index, _labels.labels(self))

    def _repr_html_(self):
        return _format.frame_html(self._table, self._index, _labels.labels(self))


def from_pandas(pdf):
    """A DataFrame copied from a pandas DataFrame, one column at a time, with
    its index (a RangeIndex stays one; other indexes become engine
    columns).  Nullable, categorical, datetime (with timezone) and
    object columns keep their meaning; see zambezi._convert.  A pandas
    Series gives a zambezi Series, as ``zb.Series(s)``.

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
    if not hasattr(pdf, "columns"):
        if hasattr(pdf, "index") and hasattr(pdf, "dtype"):   # a pandas Series
            return _base.series_class()(pdf)
        raise TypeError(f"from_pandas takes a pandas DataFrame or Series, not "
                        f"{type(pdf).__name__}")
    multi = pdf.columns.nlevels > 1
    plain = not multi and all(isinstance(c, str) for c in pdf.columns)
    names = [str(c) for c in pdf.columns] if plain else \
        _labels.internal_names(list(pdf.columns))
    if len(set(names)) != len(names):
        raise InvalidValueError(f"column names must be unique: {names!r}")
    cols = [_convert.column_from_pandas(pdf.iloc[:, i], name=names[i])
            for i in range(len(names))]
    out = DataFrame._wrap(_core.table_from_columns(cols, names),
                          _ix.from_pandas_index(pdf.index))
    if multi or pdf.columns.name is not None or not plain:
        # MultiIndex columns keep their tuples, labels other than text their
        # type (0, 1 ... a RangeIndex), named labels their name (zambezi._labels)
        kinds = {type(c) for c in pdf.columns}
        _labels.attach(out, _ix.from_pandas_index(pdf.columns) if len(kinds) <= 1 else
                       _labels.from_list(list(pdf.columns), list(pdf.columns.names)))
    return out


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

    The index comes back from pandas' schema metadata (b"pandas", as
    ``pa.Table.from_pandas`` and ``DataFrame.to_arrow`` write it): its
    index columns become the index, a range entry a RangeIndex.  The
    metadata is read from objects that show their schema to Python
    (pyarrow's Table and RecordBatch); other producers give a RangeIndex.

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
    >>> pdf = pd.DataFrame({"a": [1, 2]}, index=pd.Index(["x", "y"], name="k"))
    >>> zb.from_arrow(pa.Table.from_pandas(pdf)).index
    Index(['x', 'y'], dtype='string', name='k')
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
    result, index = _arrow_index.restore_index(result, _arrow_index.pandas_metadata(obj))
    if index is not None and result.num_columns == 0:
        return DataFrame(index=index)
    return DataFrame._wrap(result, index)


_numpy_protocol.accept_frame_numpy_arguments(DataFrame)
