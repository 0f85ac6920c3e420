"""DataFrame conversions to numpy and Python objects (the ``FrameConvert``
mixin): ``to_numpy`` / ``values`` / ``__array__``, ``to_dict`` in pandas'
seven orients, ``to_records``, ``itertuples``, ``iterrows``, ``items``,
``keys`` and ``T`` / ``transpose``.

Each converts the columns once, column by column (the engine's
``to_pylist``, or numpy arrays), and then arranges them: the per-row
objects of ``to_dict(orient="records")``, ``itertuples`` and
``iterrows`` are pandas' contract, built by zipping the converted columns,
with no engine call per row (``iterrows`` and ``T`` interleave the columns
with one engine ``take`` and cut rows out of it without copying).

Values are what ``Series.to_list`` / ``Series.to_numpy`` give, so they
differ from pandas where those do: missing values are None in Python
objects (pandas: NaN or pd.NA by dtype), except in timestamp and duration
columns, whose values are pd.Timestamp / pd.Timedelta and NaT as pandas',
and in ``to_numpy``'s arrays, where missing text, categories and lists
are NaN as in pandas 3 (bools and dates: None).

The common dtype of ``to_numpy`` follows pandas: one dtype stays itself;
integers and floats promote as numpy does (int8 + uint8 -> int16, int64 +
uint64 -> float64); bools with anything else, strings, categories and
dates with missing values make an object array; timestamps of several
units give the finest.  An integer column with nulls counts as float64
with NaN (as its ``Series.to_numpy``; pandas 3 does the same for one
``Int64`` column but gives object when it meets other columns), and
``na_value`` fills every missing value (pandas leaves a float column's
NaN when a frame mixes nullable and numpy dtypes).
"""

import collections
import collections.abc
import functools

import numpy as np

from zambezi import _base, _convert, _core, _labels
from zambezi import index as _ix
from zambezi.errors import DTypeError, InvalidValueError


_ORIENTS = ("dict", "list", "series", "split", "tight", "records", "index")


def _host(col):
    return col if col.device == "cpu" else col.to_device("cpu")


def _missing(col, arr):
    """bool mask of the missing rows of col (nulls, and NaN in floats), or
    None when there are none; arr is col's numpy conversion."""
    mask = _convert.null_mask(col)
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        mask = nan if mask is None else (mask | nan)
    return mask if mask is not None and mask.any() else None


def _holds(dtype, value):
    """Whether a numpy array of dtype can hold value as a missing-value
    replacement (pandas' np_can_hold_element, roughly)."""
    if dtype.kind == "O":
        return True
    if dtype.kind == "f":
        return isinstance(value, (int, float, np.integer, np.floating)) and \
            not isinstance(value, (bool, np.bool_))
    if dtype.kind == "M":
        return isinstance(value, np.datetime64)
    return False


def _column_array(col, na_value):
    """(numpy array, missing mask or None) of one host column, converted
    as pandas converts its dtype: Series.to_numpy's conversion (integers
    with nulls float64 with NaN, bools with nulls objects), float32 kept;
    missing values replaced by na_value when one is given (an object array
    when the dtype cannot hold it)."""
    if col.dtype == "float32" and col.null_count:
        arr = np.array(_convert.values_numpy(col), dtype=np.float32)
        arr[_convert.null_mask(col)] = np.nan
    else:
        arr = _convert.to_numpy_as_pandas(col)
    miss = _missing(col, arr)
    if na_value is _base.NO_DEFAULT or miss is None:
        return arr, miss
    if not _holds(arr.dtype, na_value):
        arr = _object_values(col)
    elif not arr.flags.writeable:
        arr = arr.copy()
    arr[miss] = na_value
    return arr, None


def _object_values(col):
    """The column as an object array of to_list's values (ints stay ints,
    datetimes stay datetimes, None where missing)."""
    return _convert._object_array(_convert.to_python_list(col))


def common_dtype(dtypes):
    """The numpy dtype of a 2-D array holding arrays of these dtypes, as
    pandas picks it (see the module docstring)."""
    dtypes = list(dtypes)
    if not dtypes:
        return np.dtype(np.float64)
    first = dtypes[0]
    if all(d == first for d in dtypes):
        return first
    kinds = {d.kind for d in dtypes}
    if "O" in kinds or "b" in kinds or ("M" in kinds and kinds != {"M"}):
        return np.dtype(object)
    return np.result_type(*dtypes)


def _numpy_dtype(dtype):
    try:
        return np.dtype(dtype)
    except TypeError:
        raise DTypeError(f"to_numpy: {dtype!r} is not a numpy dtype") from None


def frame_to_numpy(df, dtype=None, na_value=_base.NO_DEFAULT):
    """The 2-D numpy array of a frame (rows x columns); see
    FrameConvert.to_numpy."""
    t = df._table
    if t.device != "cpu":
        t = t.to_device("cpu")
    n, k = t.num_rows, t.num_columns
    cols = [t.column(j) for j in range(k)]
    parts = [_column_array(c, na_value) for c in cols]
    target = common_dtype([a.dtype for a, _ in parts])
    if dtype is not None:
        wanted = _numpy_dtype(dtype)
        if wanted.kind in "iub":
            for c, (_, miss) in zip(cols, parts):
                if miss is not None:
                    raise InvalidValueError(
                        f"to_numpy: column {t.names[cols.index(c)]!r} has missing values, "
                        f"which {wanted} cannot hold; give na_value")
        target = wanted
    out = np.empty((n, k), dtype=target, order="F")
    for j, (c, (arr, miss)) in enumerate(zip(cols, parts)):
        if target == object and (arr.dtype.kind == "M" or (
                miss is not None and c.dtype.startswith(("int", "uint")))):
            # datetimes rather than integers; integers rather than floats
            arr = _object_values(c)
        try:
            out[:, j] = arr
        except (TypeError, ValueError) as e:
            raise DTypeError(
                f"to_numpy: column {t.names[j]!r} ({c.dtype}) cannot be converted to "
                f"{target}: {e}") from None
    return out


# --------------------------------------------------------------------------
# one dtype for a row
# --------------------------------------------------------------------------

def _common_number(dtypes):
    if any(d.startswith("float") for d in dtypes):
        return "float64"
    if all(d == "bool" for d in dtypes):
        return "bool"
    if any(d.startswith("uint") for d in dtypes) and not any(
            d.startswith("int") for d in dtypes):
        return "uint64"
    return "int64"


def row_dtype(dtypes):
    """The engine dtype that holds a row's values (columns of one dtype:
    that dtype; numbers and bools: the common number), or None."""
    dtypes = set(dtypes)
    if len(dtypes) == 1:
        return next(iter(dtypes))
    if dtypes and all(d.startswith(("int", "uint", "float")) or d == "bool" for d in dtypes):
        return _common_number(dtypes)
    return None


def _string_index(names):
    return _ix.Index._from_columns([_core.column_from_sequence(list(names), dtype="string")],
                                   [None])


def row_series(df, row, label):
    """One row (a one-row Table) as a Series indexed by the column names
    when a common dtype exists, else a dict column -> value (pandas gives
    an object Series, which zambezi has no dtype for)."""
    names = row.names
    cols = [row.column(j) for j in range(len(names))]
    target = row_dtype(c.dtype for c in cols)
    if target is None:
        return {nm: _convert.to_python_list(c)[0] for nm, c in zip(names, cols)}
    cols = [c if c.dtype == target else _core.cast(c, target) for c in cols]
    col = _core.concat(cols) if len(cols) > 1 else cols[0]
    return df._constructor_sliced._from_column(col, label, _labels.index_for(df, names))


def _row_major(t, target, what):
    """One engine column holding t's values row after row (each cast to
    target): row i is the slice [i * k, (i + 1) * k)."""
    n, k = t.num_rows, t.num_columns
    cols = []
    for j in range(k):
        c = t.column(j)
        if c.dtype != target:
            try:
                c = _core.cast(c, target)
            except Exception as e:
                raise DTypeError(f"{what}: column {t.names[j]!r} ({c.dtype}) cannot be "
                                 f"held as {target}: {e}") from None
        elif target == "category":
            c = _core.cast(c, "string")  # dictionaries differ between columns
        cols.append(c)
    whole = _core.concat(cols) if k > 1 else cols[0]
    positions = (np.arange(k, dtype=np.int64)[None, :] * n
                 + np.arange(n, dtype=np.int64)[:, None]).ravel()
    whole = _core.take(whole, _core.column_from_buffer(positions))
    if target == "category":
        whole = _core.cast(whole, "category")
    return whole


def _mapping_factory(into):
    """pandas' standardize_mapping: the constructor of the mappings
    to_dict builds."""
    if isinstance(into, type):
        if not issubclass(into, collections.abc.Mapping):
            raise DTypeError(f"to_dict: into must be a Mapping class or instance, not {into}")
        if into is collections.defaultdict:
            raise DTypeError("to_dict() only accepts initialized defaultdicts")
        return into
    if isinstance(into, collections.defaultdict):
        return functools.partial(collections.defaultdict, into.default_factory)
    if isinstance(into, collections.abc.Mapping):
        return type(into)
    raise DTypeError(f"to_dict: into must be a Mapping class or instance, not "
                     f"{type(into).__name__}")


class FrameConvert:
    """Conversions of zambezi.DataFrame to numpy and Python objects (a
    mixin; see the module docstring)."""

    __slots__ = ()

    def _lists(self):
        """(column labels, one list of values per column)."""
        from zambezi import _labels

        t = self._table
        if t.device != "cpu":
            t = t.to_device("cpu")
        return _labels.label_list(self), [_convert.to_python_list(t.column(i))
                                          for i in range(t.num_columns)]

    # -- numpy -------------------------------------------------------------
    def to_numpy(self, dtype=None, copy=False, na_value=_base.NO_DEFAULT):
        """A 2-D numpy array (rows x columns) in the common dtype pandas
        picks: one dtype stays itself, numbers promote as numpy does, and
        bools mixed with other columns, strings, categories and dates with
        missing values give an object array (see zambezi._frame_convert).
        Each column converts as pandas converts its dtype: an integer
        column with nulls is float64 with NaN, float32 stays float32,
        missing strings are NaN (in an object array, integers with nulls
        stay integers).  ``na_value`` replaces missing values (nulls, NaN;
        an object column when the dtype cannot hold it); ``dtype``
        converts the result (an integer or bool dtype needs na_value when
        values are missing).  The array is always new (copy is accepted).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [0.5, None]})
        >>> df.to_numpy()
        array([[1. , 0.5],
               [2. , nan]])
        >>> df.to_numpy(na_value=0.0, dtype="float32")
        array([[1. , 0.5],
               [2. , 0. ]], dtype=float32)
        >>> zb.DataFrame({"a": [1, 2], "s": ["x", None]}).to_numpy()
        array([[1, 'x'],
               [2, nan]], dtype=object)
        """
        return frame_to_numpy(self, dtype, na_value)

    @property
    def values(self):
        """The 2-D numpy array of the values (``to_numpy()``).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2], "b": [3, 4]}).values
        array([[1, 3],
               [2, 4]])
        """
        return frame_to_numpy(self)

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError(
                "Unable to avoid copy while creating an array as requested: a DataFrame's "
                "2-D array is always new")
        return frame_to_numpy(self, dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs on a DataFrame give a DataFrame with the same labels
        and column names, as pandas does: column by column through the
        Series' ufuncs (the engine's kernels where it has them), or in
        numpy on the 2-D values (zambezi._numpy_protocol)."""
        from zambezi import _numpy_protocol

        return _numpy_protocol.frame_ufunc(self, ufunc, method, inputs, kwargs)

    # -- Python objects ----------------------------------------------------
    def to_dict(self, orient="dict", *, into=dict, index=True):
        """The frame as Python objects, in pandas' shapes:

        - "dict" (default): {column: {label: value}}
        - "list": {column: [values]}
        - "series": {column: Series}
        - "split": {"index": [labels], "columns": [names], "data": [[row values]]}
        - "tight": "split" plus "index_names" and "column_names"
        - "records": [{column: value}, ...], one per row
        - "index": {label: {column: value}} (the labels must be unique)

        Values are what ``Series.to_list`` gives (None for missing values,
        datetime for timestamps; pandas gives NaN / NaT / NA and
        Timestamps).  ``into`` is the mapping class (or an initialised
        defaultdict); index=False leaves the labels out of "split" and
        "tight".

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None], "b": ["x", "y"]}, index=["p", "q"])
        >>> df.to_dict()
        {'a': {'p': 1, 'q': None}, 'b': {'p': 'x', 'q': 'y'}}
        >>> df.to_dict("list")
        {'a': [1, None], 'b': ['x', 'y']}
        >>> df.to_dict("records")
        [{'a': 1, 'b': 'x'}, {'a': None, 'b': 'y'}]
        >>> df.to_dict("split", index=False)
        {'columns': ['a', 'b'], 'data': [[1, 'x'], [None, 'y']]}
        >>> df.to_dict("index")
        {'p': {'a': 1, 'b': 'x'}, 'q': {'a': None, 'b': 'y'}}
        """
        if orient not in _ORIENTS:
            raise InvalidValueError(
                f"to_dict: orient must be one of {', '.join(map(repr, _ORIENTS))}, not "
                f"{orient!r}")
        if not index and orient not in ("split", "tight"):
            raise InvalidValueError(
                "to_dict: 'index=False' is only valid when 'orient' is 'split' or 'tight'")
        make = _mapping_factory(into)
        names, lists = self._lists()
        if orient == "list":
            return make((nm, vals) for nm, vals in zip(names, lists))
        if orient == "series":
            return make((nm, self._column(tn)) for nm, tn in zip(names, self._table.names))
        labels = self._index.to_list()
        if orient == "dict":
            return make((nm, make(zip(labels, vals))) for nm, vals in zip(names, lists))
        rows = zip(*lists) if lists else ((),) * len(labels)
        if orient == "records":
            return [make(zip(names, row)) for row in rows]
        if orient == "index":
            if not self._index.is_unique:
                raise InvalidValueError(
                    "to_dict: the index must be unique for orient='index'")
            return make((label, make(zip(names, row))) for label, row in zip(labels, rows))
        parts = [("index", labels)] if index else []
        parts += [("columns", list(names)), ("data", [list(row) for row in rows])]
        if orient == "tight":
            if index:
                parts.append(("index_names", list(self._index.names)))
            parts.append(("column_names", [None]))
        return make(parts)

    def to_records(self, index=True, column_dtypes=None, index_dtypes=None):
        """A numpy record array, one record per row: the index levels first
        (named by their names, or "index" / "level_i" as pandas names
        them) when index=True, then the columns, each converted as
        ``Series.to_numpy`` does (strings are objects).  column_dtypes and
        index_dtypes convert fields: one dtype for all, or a dict by name.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "s": ["x", None]}, index=zb.Index([10, 20], name="id"))
        >>> r = df.to_records()
        >>> r
        rec.array([(10, 1, 'x'), (20, 2, None)],
                  dtype=[('id', '<i8'), ('a', '<i8'), ('s', 'O')])
        >>> r.a.tolist(), r[1].id
        ([1, 2], np.int64(20))
        """
        arrays, names = [], []

        def add(name, col, dtypes):
            arr = _convert.to_numpy(col)
            want = dtypes.get(name) if isinstance(dtypes, dict) else dtypes
            if want is not None:
                arr = arr.astype(_numpy_dtype(want))
            arrays.append(arr)
            names.append(name)

        if index:
            idx = self._index
            levels = idx._levels()
            for i, (lname, level) in enumerate(zip(idx.names, levels)):
                default = "index" if len(levels) == 1 else f"level_{i}"
                add(default if lname is None else str(lname), level, index_dtypes)
        t = self._table
        for i, name in enumerate(t.names):
            add(name, t.column(i), column_dtypes)
        return np.rec.fromarrays(arrays, names=names) if arrays else np.rec.array(
            np.empty(len(self), dtype=[]))

    def items(self):
        """Iterate over (column name, Series) pairs, in column order.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": ["x", "y"]})
        >>> [(name, s.to_list()) for name, s in df.items()]
        [('a', [1, 2]), ('b', ['x', 'y'])]
        """
        for name in self._table.names:
            yield name, self._column(name)

    def keys(self):
        """The column labels (``columns``), as pandas' ``keys``.

        Examples
        --------
        >>> zb.DataFrame({"a": [1], "b": [2]}).keys().to_list()
        ['a', 'b']
        """
        return self.columns

    def itertuples(self, index=True, name="Pandas"):
        """Iterate over the rows as namedtuples (class ``name``; plain
        tuples with name=None): the row's label first as ``Index`` when
        index=True, then one field per column (names that are not Python
        identifiers become ``_1``, ``_2`` ..., as pandas renames them).
        Slow by nature: pandas' contract is Python objects per row; the
        columns are converted once and zipped.  Values as
        ``Series.to_list`` gives them.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None], "b": ["x", "y"]}, index=["p", "q"])
        >>> list(df.itertuples())
        [Pandas(Index='p', a=1, b='x'), Pandas(Index='q', a=None, b='y')]
        >>> list(df.itertuples(index=False, name=None))
        [(1, 'x'), (None, 'y')]
        """
        names, lists = self._lists()
        fields = list(names)
        if index:
            lists = [self._index.to_list()] + lists
            fields.insert(0, "Index")
        rows = zip(*lists) if lists else iter([()] * len(self))
        if name is None:
            return rows
        row_type = collections.namedtuple(name, fields, rename=True)
        return map(row_type._make, rows)

    def iterrows(self):
        """Iterate over (label, row) pairs.  A row is a Series indexed by
        the column names, named by the label, when the columns share a
        dtype (numbers and bools promote to a common number); else a dict
        column -> value (pandas gives an object Series, which zambezi has
        no dtype for) -- the same as ``df.iloc[i]``.  Slow by nature
        (pandas' contract is an object per row); the columns are
        interleaved once by the engine and each row is a slice of that,
        with no copy.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [0.5, None]}, index=["p", "q"])
        >>> [(label, row.to_list()) for label, row in df.iterrows()]
        [('p', [1.0, 0.5]), ('q', [2.0, None])]
        >>> next(zb.DataFrame({"a": [1], "s": ["x"]}).iterrows())
        (0, {'a': 1, 's': 'x'})
        """
        t = self._table
        if t.device != "cpu":
            t = t.to_device("cpu")
        labels = self._index.to_list()
        k = t.num_columns
        target = row_dtype(t.column(j).dtype for j in range(k))
        if target is None:
            names, lists = self._lists()
            for label, row in zip(labels, zip(*lists)):
                yield label, dict(zip(names, row))
            return
        whole = _row_major(t, target, "iterrows")
        col_labels = _labels.index_for(self)
        make = self._constructor_sliced._from_column
        for i, label in enumerate(labels):
            yield label, make(whole.slice(i * k, k), label, col_labels)

    def transpose(self, *args, copy=False):
        """The frame with rows and columns swapped: one column per row,
        labelled by the row's label, indexed by the column labels.  The columns must share a
        dtype (numbers promote to a common number); otherwise, bools beside
        numbers included, DTypeError, since zambezi has no object dtype
        (pandas gives object columns).  Meant for small frames: every row
        becomes a column.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [0.5, 1.5]}, index=["p", "q"])
        >>> df.T
                 p        q
           float64  float64
        a        1        2
        b      0.5      1.5
        <BLANKLINE>
        [2 rows x 2 columns]
        """
        t = self._table
        n, k = t.num_rows, t.num_columns
        col_labels = _labels.index_for(self)
        if k == 0:
            return self._constructor(index=col_labels)
        kinds = sorted({t.column(j).dtype for j in range(k)})
        target = row_dtype(kinds)
        if target is None or "bool" in kinds and target != "bool":
            # (bools beside numbers: pandas keeps True, an object column)
            raise DTypeError(
                f"transpose: the columns' dtypes ({', '.join(kinds)}) cannot be held in one "
                "dtype (zambezi has no object dtype); select columns of one kind first")
        whole = _row_major(t, target, "transpose")
        cols = [whole.slice(i * k, k) for i in range(n)]
        names = _labels.internal_names(self._index.to_list())
        out = self._constructor._wrap(_core.table_from_columns(cols, names), col_labels)
        return _labels.attach(out, self._index)

    @property
    def T(self):
        """The transposed frame (``transpose()``).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2], "b": [3, 4]}).T.to_dict("list")
        {0: [1, 3], 1: [2, 4]}
        """
        return self.transpose()
