"""zambezi.Series: one named, immutable engine column.

A Series wraps a ``_core.Column`` and a name.  Reductions run in C with the
GIL released; ``to_numpy`` shares memory with the engine where it can.
"""

from zambezi import _base, _convert, _device, _format, _indexing, _interchange
from zambezi import _dtypes, _numpy_protocol
from zambezi import index as _ix
from zambezi._index_ops import IndexOps, relabel_index
from zambezi._axis_ops import AxisOps
from zambezi._pairs import SeriesPairs
from zambezi._combine import SeriesCombine
from zambezi._agg import SeriesAgg
from zambezi._conveniences import SeriesConveniences
from zambezi._transform import SeriesTransform
from zambezi._numeric import SeriesFactorize
from zambezi._compute import SeriesOps
from zambezi._missing import SeriesMissing
from zambezi._window import SeriesWindow
from zambezi._rank import SeriesRank
from zambezi._ewm import SeriesEWM
from zambezi._resample import SeriesResample
from zambezi._rolling import SeriesRolling
from zambezi.accessors import SeriesExtras
from zambezi._groupby import SeriesGroupByMixin
from zambezi._reshape import SeriesReshape
from zambezi._apply import SeriesApply
from zambezi._ecosystem import SeriesEcosystem
from zambezi.io.via_pandas import SeriesViaPandas
from zambezi import _stats
from zambezi._moments import SeriesMoments
from zambezi._stats import SeriesStats
from zambezi.io import pickle as _pickle
from zambezi.errors import InvalidValueError, UnsupportedError
from zambezi.index import IndexKeyError

_SAME = object()  # _like(): keep the name


@_base.register
class Series(IndexOps, AxisOps, SeriesPairs, SeriesCombine, SeriesAgg, SeriesTransform,
             SeriesConveniences, SeriesFactorize,
             SeriesMissing, SeriesWindow, SeriesRolling, SeriesEWM, SeriesResample, SeriesOps, SeriesStats,
             SeriesMoments, SeriesExtras, SeriesRank, SeriesGroupByMixin, SeriesReshape,
             SeriesApply, SeriesEcosystem, SeriesViaPandas,
             _base.NDFrame):
    """A named column of one dtype on one device (the CPU or a GPU).

    ``data`` is a list (the dtype is inferred; ``None`` and float NaN are
    nulls), a numpy array (fixed-width arrays are copied once into the
    engine), a pandas Series, an Arrow array or another Series.  ``dtype``
    converts on the way in (a name such as "int8", "float32", "string",
    "category", "date32", or a numpy / pandas dtype).

    Every dtype can hold nulls: an integer Series with a missing value stays
    integer (pandas' ``Int64``).  ``index`` gives the row labels (a list,
    array, Index ...; a dict's keys are its labels); the default is a
    RangeIndex 0..n-1.  A pandas Series keeps its index.

    Examples
    --------
    >>> s = zb.Series([3, 1, None], name="n")
    >>> s
    0       3
    1       1
    2    <NA>
    Name: n, dtype: int64
    >>> zb.Series([1, 2], dtype="int8").dtype
    'int8'
    >>> zb.Series(np.array([0.5, 1.5])).sum()
    2.0

    Operators work element by element and keep nulls (see the notes of
    zambezi._compute for where they differ from pandas); a bool Series
    selects rows:

    >>> s = zb.Series([1, 2, None, 4], name="n")
    >>> (s * 2 + 1).to_list()
    [3, 5, None, 9]
    >>> ((s > 1) & (s < 4)).to_list()
    [False, True, None, False]
    >>> (s // 0).to_list()          # integer division by zero is null
    [None, None, None, None]
    >>> s[1], s[1:3].to_list(), s[s > 1].to_list()
    (2, [2, None], [2, 4])
    """

    __slots__ = ("_col", "_name", "_index")
    _ndim = 1

    def __init__(self, data=None, index=None, dtype=None, name=None, copy=None):
        if data is None:
            data = []
        labels = None
        if isinstance(data, Series):
            if name is None:
                name = data.name
            labels = data._index
        elif _convert._is_pandas(data, "Series"):
            if name is None and data.name is not None:
                name = data.name
            labels = _ix.from_pandas_index(data.index)
        elif _convert._is_pandas(data, "Index") or isinstance(data, _ix.Index):
            if name is None:
                name = data.name
        elif isinstance(data, dict):
            labels = _ix.Index(list(data.keys())) if data else None
            data = list(data.values())
        if isinstance(data, _ix.Index):
            if data.nlevels != 1:
                raise _ix.UnsupportedError("a Series of a MultiIndex's tuples is not supported")
            self._col = data._levels()[0]
            if dtype is not None:
                self._col = _convert.to_column(Series._from_column(self._col), dtype=dtype)
        else:
            self._col = _convert.to_column(data, name=name, dtype=dtype)
        self._name = name
        if index is not None:
            labels = _ix.ensure_index(index, self._col.length, "Series(index=...)")
        self._index = labels if labels is not None else _ix.default_index(self._col.length)

    # -- building results (see zambezi._base) ------------------------------
    @classmethod
    def _from_column(cls, col, name=None, index=None):
        """A Series over an engine Column, rows labelled by index (default
        0..n-1)."""
        s = object.__new__(cls)
        s._col = col
        s._name = name
        s._index = _ix.default_index(col.length) if index is None else index
        return s

    _from_engine = _from_column

    @property
    def _engine(self):
        return self._col

    def _like(self, col, name=_SAME):
        """A Series with the same rows (and labels) as self: self's name
        unless one is given."""
        return self._constructor._from_column(col, self._name if name is _SAME else name,
                                              self._index)

    def _value_at(self, i):
        """The value at row position i (in range); a timestamp as pandas'
        Timestamp (nanoseconds and zone kept)."""
        return _convert.to_python_list(self._col.slice(i, 1))[0]

    def _describe(self):
        return f"Series {self._name!r} ({self._col.dtype})"

    # -- properties --------------------------------------------------------
    @property
    def name(self):
        """The name (a str, or None); a frame's column has its column name.

        Examples
        --------
        >>> zb.DataFrame({"fare": [1.5]})["fare"].name
        'fare'
        >>> zb.Series([1]).name is None
        True
        """
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def dtype(self):
        """The dtype name: 'int64', 'string', 'timestamp[us, tz=UTC]' ...
        (a str; pandas gives a dtype object); a categorical's, with pandas
        installed, is a ``pandas.CategoricalDtype`` of its categories and
        order (equal to 'category'), as pandas gives it.

        Examples
        --------
        >>> zb.Series([1, 2]).dtype, zb.Series(["a"]).dtype, zb.Series([0.5]).dtype
        ('int64', 'string', 'float64')
        >>> zb.Series(pd.Series(["2024-05-01"], dtype="datetime64[ms, UTC]")).dtype
        'timestamp[ms, tz=UTC]'
        """
        from zambezi._dtypes import column_dtype  # a str with numpy's kind, itemsize ...
        return column_dtype(self._col)

    @property
    def device(self):
        """Where the values live: 'cpu' or 'cuda:N'.

        Examples
        --------
        >>> zb.Series([1, 2]).device
        'cpu'
        """
        return self._col.device

    @property
    def null_count(self):
        """Number of nulls (a NaN in float input is stored as a null).

        Examples
        --------
        >>> zb.Series([1.5, None, float("nan"), 2.0]).null_count
        2
        """
        return self._col.null_count

    @property
    def shape(self):
        """(length,), as pandas.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).shape
        (3,)
        """
        return (self._col.length,)

    def __len__(self):
        return self._col.length

    def to_frame(self, name=None):
        """A one-column DataFrame with the same labels (the column is named
        name, else the Series' name, else 0 as in pandas).

        Examples
        --------
        >>> zb.Series([1, 2], name="n", index=["a", "b"]).to_frame()
               n
           int64
        a      1
        b      2
        <BLANKLINE>
        [2 rows x 1 columns]
        """
        from zambezi import _labels

        label = name if name is not None else (self._name if self._name is not None else 0)
        out = _labels.frame_from(self._constructor_expanddim, [self._col], [label], self._index)
        if name is None and self._name is None:  # pandas: a RangeIndex of the one column
            _labels.attach(out, _ix.RangeIndex(1))
        return out

    def rename(self, index=None, *, axis=None, copy=None, inplace=False, level=None,
               errors="ignore"):
        """The same values under another name (a label: no data copied), or
        with the index relabelled, as pandas: a dict (or Series) maps old
        labels to new ones (others stay), a function is called on each label.

        Examples
        --------
        >>> zb.Series([1, 2], name="a").rename("b").name
        'b'
        >>> zb.Series([1, 2]).rename(index={0: 10}).index.to_list()
        [10, 1]
        """
        if level is not None:
            raise UnsupportedError("Series.rename: level= is not supported")
        if axis not in (None, 0, "index", "rows"):
            raise InvalidValueError(f"No axis named {axis} for object type Series")
        if errors not in ("ignore", "raise"):
            raise InvalidValueError(f"rename: errors must be 'ignore' or 'raise', not {errors!r}")
        out = self._like(self._col)
        if callable(index) or isinstance(index, dict) or _base.is_series(index) or \
                _convert._is_pandas(index, "Series"):
            if errors == "raise" and not callable(index):
                keys = list(index.keys()) if isinstance(index, dict) else index.index.to_list()
                missing = [k for k in keys if k not in self._index]   # the mapping's keys
                if missing:
                    raise IndexKeyError(f"{missing} not found in axis")
            out._index = relabel_index(self._index, index)
        else:
            out._name = index
        if inplace:
            self._name, self._index = out._name, out._index
            return None
        return out

    # -- reductions (in C, GIL released) -----------------------------------
    def sum(self, skipna=True, min_count=0, *, axis=None, numeric_only=False):
        """Sum of the non-missing values (0 when there are none; NaN with
        fewer than min_count values, or a missing one with skipna=False);
        integers sum as int64 or uint64, bools count the True values,
        floats as float64, strings concatenate (as in pandas).  Floats add
        in numpy's pairwise order, as pandas adds them (float32 in
        float32), so the result is pandas' to the last bit; mean, var and
        std likewise.

        Examples
        --------
        >>> zb.Series([3, 1, None, 2]).sum()
        6
        >>> zb.Series([True, False, True]).sum()
        2
        >>> zb.Series([], dtype="float64").sum()
        0.0
        >>> zb.Series([1.5, None]).sum(skipna=False)
        nan
        """
        _stats.check_axis(axis, "sum")
        return _stats.reduce_column(self._col, "sum", skipna, min_count=min_count,
                                    what=self._describe())

    def min(self, skipna=True, *, axis=None, numeric_only=False):
        """Smallest value (numbers, strings byte-wise, dates; timestamps as
        pandas' Timestamp, nanoseconds and zone kept); missing values
        skipped unless skipna=False; NaN when there is no value (None for
        timestamps, where pandas gives NaT; see zambezi._stats).

        Examples
        --------
        >>> zb.Series([3, 1, None, 2]).min()
        1
        >>> zb.Series(["b", "a", None]).min()
        'a'
        >>> zb.Series(pd.to_datetime(["2024-03-09 14:05", "2024-01-02 00:00"])).min()
        Timestamp('2024-01-02 00:00:00')
        """
        _stats.check_axis(axis, "min")
        return _stats.reduce_column(self._col, "min", skipna, what=self._describe())

    def max(self, skipna=True, *, axis=None, numeric_only=False):
        """Largest value (see min).

        Examples
        --------
        >>> zb.Series([3, 1, None, 2]).max()
        3
        >>> import datetime
        >>> zb.Series([datetime.date(2024, 1, 2), datetime.date(2023, 5, 6)]).max()
        datetime.date(2024, 1, 2)
        """
        _stats.check_axis(axis, "max")
        return _stats.reduce_column(self._col, "max", skipna, what=self._describe())

    def mean(self, skipna=True, *, axis=None, numeric_only=False):
        """Mean of the non-missing values, a float; NaN when there are none
        (None for an integer column with nulls only, as pandas' ``Int64``
        gives NA).

        Examples
        --------
        >>> zb.Series([3, 1, None, 2]).mean()
        2.0
        >>> zb.Series([], dtype="float64").mean()
        nan
        """
        _stats.check_axis(axis, "mean")
        return _stats.reduce_column(self._col, "mean", skipna, what=self._describe())

    def count(self):
        """Number of non-missing values (nulls, and NaN in a float column,
        not counted); every dtype.

        Examples
        --------
        >>> zb.Series([3, 1, None, 2]).count()
        3
        >>> zb.Series(["a", None, "b"]).count()
        2
        """
        return _stats.valid_count(self._col)

    # -- selection ---------------------------------------------------------
    def head(self, n=5):
        """The first n values (all but the last -n when n < 0); no data
        copied.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).head(2).to_list()
        [1, 2]
        >>> zb.Series([1, 2, 3]).head(-1).to_list()
        [1, 2]
        """
        return self[: max(n, 0)] if n >= 0 else self[: max(len(self) + n, 0)]

    def tail(self, n=5):
        """The last n values (all but the first -n when n < 0), numbered
        from 0; no data copied.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).tail(2)
        1    2
        2    3
        dtype: int64
        """
        length = len(self)
        if n >= 0:
            return self[max(length - n, 0):]
        return self[min(-n, length):]

    def __getitem__(self, key):
        # an int, a slice (any step), a boolean mask or positions: the same
        # parser as iloc (zambezi._indexing)
        return _indexing.series_getitem(self, key)

    def __setitem__(self, key, value):
        """``s[key] = value`` in place, with the rules ``s[key]`` reads by
        (pandas 3): a slice of ints sets by position (``s.iloc[key] =``); a
        boolean mask sets the rows where it is true; a scalar, a list or
        another slice are labels (``s.loc[key] =``).

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0, 3.0])
        >>> s[s > 1.5] = 0.0
        >>> s.to_list()
        [1.0, 0.0, 0.0]
        """
        if isinstance(key, slice) and _indexing._int_slice(key):
            self.iloc[key] = value
        else:
            self.loc[key] = value

    # -- devices -----------------------------------------------------------
    def to(self, device):
        """The same values on another device: 'cpu', 'cuda' or 'cuda:N'
        (copied there; DeviceError when the device is not available), or
        'auto' (a GPU when there is one and the values are at least
        ``zb.get_auto_threshold()`` bytes, else the CPU).

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0, 3.5])
        >>> if zb.cuda_available():
        ...     s = s.to("cuda")
        >>> s.sum()
        6.5
        >>> s.to("cpu").device
        'cpu'
        """
        dev = _device.resolve(device, self.nbytes)
        out = self._like(self._col.to_device(dev))
        out._index = self._index._to_device(dev)
        return out

    @property
    def nbytes(self):
        """Bytes of memory the values occupy (values, validity bitmap,
        string bytes, categories).

        Examples
        --------
        >>> zb.Series([1, 2, 3]).nbytes
        24
        >>> zb.Series(["ab", "c"]).nbytes    # 3 offsets of 8 bytes + 3 bytes
        27
        """
        return self._col.nbytes

    # -- conversion --------------------------------------------------------
    def to_pickle(self, path, *, compression="infer", protocol=5, storage_options=None):
        """Pickle the Series to path (a file path, compressed by its
        extension, or a binary file object); ``zb.read_pickle`` loads it.
        ``pickle``, ``copy.copy`` and ``copy.deepcopy`` work as well; a
        Series on a GPU unpickles on the CPU (see zambezi.io.pickle).

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "n.pkl.xz")
        >>> zb.Series([3, None], name="n", dtype="int8").to_pickle(path)
        >>> s = zb.read_pickle(path)
        >>> s.name, s.dtype, s.to_list()
        ('n', 'int8', [3, None])
        """
        _pickle.to_pickle(self, path, compression=compression, protocol=protocol,
                          storage_options=storage_options)

    def to_csv(self, path_or_buf=None, **kwargs):
        """Write the Series as CSV, as pandas: the frame of its one column
        (``to_frame()``, headed by the name, ``0`` when it has none) with
        DataFrame.to_csv's arguments; returns the text when path_or_buf is
        None.

        Examples
        --------
        >>> print(zb.Series([1.5, None], name="x").to_csv(), end="")
        ,x
        0,1.5
        1,
        >>> print(zb.Series([1, 2]).to_csv(header=False, index=False), end="")
        1
        2
        """
        return self.to_frame().to_csv(path_or_buf, **kwargs)

    def to_numpy(self, dtype=None, copy=False, na_value=_base.NO_DEFAULT):
        """numpy array: a zero-copy read-only view for fixed-width data without
        nulls; float64 with NaN for numbers with nulls; datetime64 for
        timestamps (NaT for nulls) and for dates without nulls; object
        arrays for strings, categories and lists (NaN for nulls, as pandas
        3), bools with nulls and dates with nulls (None for nulls), and
        for timestamps with a time zone (pd.Timestamp, as pandas).
        ``na_value`` replaces missing values (nulls, NaN; an object array
        when the dtype cannot hold it), ``dtype`` converts the result (an
        integer or bool dtype needs na_value when values are missing), and
        ``copy=True`` gives an array of its own.

        Examples
        --------
        >>> a = zb.Series([1, 2, 3]).to_numpy()
        >>> a.tolist(), a.dtype, a.flags.writeable
        ([1, 2, 3], dtype('int64'), False)
        >>> zb.Series([1, None]).to_numpy()
        array([ 1., nan])
        >>> zb.Series(["a", None]).to_numpy()
        array(['a', nan], dtype=object)
        >>> zb.Series([1, None]).to_numpy(dtype="int64", na_value=0)
        array([1, 0])
        """
        col = self._col if self._col.device == "cpu" else self._col.to_device("cpu")
        if dtype is None and na_value is _base.NO_DEFAULT:
            out = _convert.to_numpy_as_pandas(col)
            return out.copy() if copy else out
        from zambezi import _frame_convert

        out, miss = _frame_convert._column_array(col, na_value)
        if dtype is not None:
            wanted = _frame_convert._numpy_dtype(dtype)
            if wanted.kind in "iub" and miss is not None:
                raise InvalidValueError(f"to_numpy: {self._describe()} has missing values, "
                                        f"which {wanted} cannot hold; give na_value")
            out = out.astype(wanted, copy=False)
        return out.copy() if copy and not out.flags.writeable else out

    @property
    def cat(self):
        """The codes and categories of a categorical Series (see
        zambezi._cat_accessor); AccessorError (an AttributeError) for other
        dtypes.

        Examples
        --------
        >>> zb.Series(["b", "a", "b"]).astype("category").cat.codes.to_list()
        [1, 0, 1]
        """
        from zambezi._cat_accessor import CategoricalMethods

        return CategoricalMethods(self)

    @property
    def values(self):
        """The values as a numpy array (``to_numpy()``; pandas gives an
        ExtensionArray for its nullable and string dtypes); a categorical's
        as a ``pandas.Categorical``, as pandas gives them (with pandas
        installed).

        Examples
        --------
        >>> zb.Series([1, 2]).values
        array([1, 2])
        >>> zb.Series([1, None]).values
        array([ 1., nan])
        >>> zb.Series(["b", "a", None]).astype("category").values
        ['b', 'a', NaN]
        Categories (2, str): ['a', 'b']
        """
        d = self.dtype
        if _dtypes.pandas_categorical(d):  # only with pandas installed
            import pandas as pd

            from zambezi._frame_extra import _category_codes

            return pd.Categorical.from_codes(
                _category_codes(self._col),
                dtype=pd.CategoricalDtype(d.categories, ordered=d.ordered))
        if self._col.dtype.startswith("timestamp") and self._col.timezone is not None:
            return _convert.to_numpy(self._col)   # pandas: numpy's datetime64, in UTC
        return self.to_numpy()

    def __array__(self, dtype=None, copy=None):
        arr = self.to_numpy()
        if dtype is not None:
            arr = arr.astype(dtype)
        elif copy:
            arr = arr.copy()
        return arr

    def to_list(self):
        """The values as a list of Python objects, as pandas gives them:
        None for nulls, dates as datetime.date, timestamps as pd.Timestamp
        (in the column's zone when it has one, nanoseconds kept) and
        durations as pd.Timedelta, with NaT where missing (datetime.datetime
        / datetime.timedelta and None when pandas is not installed).

        Examples
        --------
        >>> zb.Series([1, None, 3]).to_list()
        [1, None, 3]
        >>> zb.Series(["x", None]).tolist()
        ['x', None]
        >>> zb.Series(pd.to_datetime(["2024-03-31 01:30", None])).dt.tz_localize(
        ...     "Europe/Berlin").to_list()
        [Timestamp('2024-03-31 01:30:00+0100', tz='Europe/Berlin'), NaT]
        """
        return _convert.to_python_list(self._col)

    tolist = to_list

    def to_dict(self, *, into=dict):
        """{label: value}, the labels of the index (tuples for a
        MultiIndex) and the values as ``to_list`` gives them (None for
        missing values).  ``into`` is the mapping class, or an initialised
        defaultdict.

        Examples
        --------
        >>> zb.Series([7.0, None], index=["Maun", "Tete"]).to_dict()
        {'Maun': 7.0, 'Tete': None}
        >>> zb.Series([1, 2]).to_dict()
        {0: 1, 1: 2}
        """
        from zambezi import _frame_convert

        make = _frame_convert._mapping_factory(into)
        return make(zip(self._index.to_list(), _convert.to_python_list(self._col)))

    def items(self):
        """Iterate over (label, value) pairs (values as ``to_list`` gives
        them).

        Examples
        --------
        >>> list(zb.Series(["x", None], index=[10, 20]).items())
        [(10, 'x'), (20, None)]
        """
        return zip(self._index.to_list(), _convert.to_python_list(self._col))

    def keys(self):
        """The row labels (``index``), as pandas' ``keys``.

        Examples
        --------
        >>> zb.Series([1, 2], index=["a", "b"]).keys()
        Index(['a', 'b'], dtype='string')
        """
        return self._index

    def to_pandas(self):
        """A pandas Series (copied; RangeIndex).  Integers and bools with
        nulls become ``Int64`` / ``boolean``, strings pandas' default string
        dtype, categoricals ``category``.

        Examples
        --------
        >>> zb.Series([1, None], name="a").to_pandas()
        0       1
        1    <NA>
        Name: a, dtype: Int64
        """
        out = _convert.column_to_pandas(self._col, self._name)
        if not isinstance(self._index, _ix.RangeIndex) or self._index.start != 0 or \
                self._index.step != 1 or self._index.name is not None:
            out.index = self._index.to_pandas()
        return out

    def to_arrow(self):
        """A pyarrow Array, through the Arrow C data interface without
        copying.  Needs pyarrow.

        Examples
        --------
        >>> a = zb.Series([1, None]).to_arrow()
        >>> a.type, a.to_pylist()
        (DataType(int64), [1, None])
        """
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Series.to_arrow() needs pyarrow: pip install pyarrow") from e
        return pa.array(self)

    def __arrow_c_schema__(self):
        return self._col.__arrow_c_schema__(name=self._name)

    def __arrow_c_array__(self, requested_schema=None):
        return self._col.__arrow_c_array__(requested_schema, name=self._name)

    # -- zero-copy interchange with array libraries (see _interchange) -----
    def __arrow_c_device_array__(self, requested_schema=None, **kwargs):
        return _interchange.arrow_c_device_array(self._col, self._name, requested_schema,
                                                 kwargs)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return _interchange.dlpack(self._col, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return _interchange.dlpack_device(self._col)

    @property
    def __cuda_array_interface__(self):
        return _interchange.cuda_array_interface(self._col)

    def __repr__(self):
        return _format.series_repr(self._col, self._name, self._index)

    def __iter__(self):
        return iter(self.to_list())

    def __contains__(self, label):
        # as in pandas (and a dict): whether label is one of the row labels
        return label in self._index

    @property
    def is_monotonic_increasing(self):
        """Whether each value is >= the one before, with no missing value
        (pandas' rule), from one engine comparison.

        Examples
        --------
        >>> zb.Series([1, 2, 2, 5]).is_monotonic_increasing
        True
        """
        from zambezi.index import monotonic

        return monotonic(self._col, True)

    @property
    def is_monotonic_decreasing(self):
        """Whether each value is <= the one before, with no missing value.

        Examples
        --------
        >>> zb.Series([3, 2, None]).is_monotonic_decreasing
        False
        """
        from zambezi.index import monotonic

        return monotonic(self._col, False)

    # -- list columns (zambezi._lists) ---------------------------------------
    @property
    def list(self):
        """Methods of a list Series (len, [i], flatten), as pandas' ``.list``
        accessor of ArrowDtype lists; AccessorError for other dtypes.

        Examples
        --------
        >>> zb.Series([[1, 2], None]).list.len().to_list()
        [2, None]
        """
        from zambezi._lists import ListMethods

        return ListMethods(self)

    def explode(self, ignore_index=False):
        """Each list's elements on rows of their own, the row's label
        repeated (labels 0..n-1 with ignore_index); an empty or null list
        gives one missing row.  A Series that does not hold lists is
        returned as it is.  The elements keep their type (pandas gives
        object values).

        Examples
        --------
        >>> s = zb.Series([[1, 2], [], None], index=["a", "b", "c"]).explode()
        >>> s.to_list(), s.index.to_list()
        ([1, 2, None, None], ['a', 'a', 'b', 'c'])
        """
        from zambezi._lists import series_explode

        return series_explode(self, ignore_index)


_numpy_protocol.accept_numpy_arguments(Series)
