"""Row labels: RangeIndex, Index and MultiIndex, as pandas has them.

The C engine knows no index.  An index is one or more ordinary engine
columns (the levels) plus their names, held here; every operation that
moves rows moves the levels with them:

- ``RangeIndex`` (the default: every constructor, read_csv, merge,
  group-by without keys as index) is start/stop/step and costs no memory.
  A contiguous slice of it is again a RangeIndex.
- ``Index`` is one level over an engine column of any dtype; ``MultiIndex``
  several levels.
- A row selection (``_take``) does not gather labels at once: the result
  remembers its base index and the selection (a slice, positions or a
  mask) and gathers the labels with one engine call the first time they
  are looked at.  Filtering, sorting or taking rows therefore costs nothing
  more for the labels unless they are used; the selection is applied at
  most once.

Label lookups (``get_loc``, ``loc``) sort the labels once per index with
the engine's radix sort and keep the order; each lookup is then a binary
search (numpy's searchsorted), so 10^4 lookups on 10^7 labels cost one
sort.  An index whose labels already increase needs no sort.  They live in
zambezi._index_lookup.

Equality of two indexes is checked first by identity, then by cheap
properties (length, RangeIndex parameters), and only then value by value,
so combining two objects that share an index takes the positional path.
"""

import sys

import numpy as np

from zambezi import _convert, _core, _dtypes, _index_sets
from zambezi._cat_accessor import CategoricalIndexMethods
from zambezi._index_methods import IndexMethods
from zambezi.errors import (
    DTypeError,
    InvalidValueError,
    UnsupportedError,
    ZambeziIndexError,
)


class IndexKeyError(ZambeziIndexError, KeyError):
    """A label that is not in the index (a KeyError, as pandas raises).

    Examples
    --------
    >>> try:
    ...     zb.Series([1, 2], index=["a", "b"]).loc["z"]
    ... except KeyError as e:
    ...     print(e)
    'z' is not in the index
    """

    def __str__(self):  # KeyError quotes its message; show it plainly
        return str(self.args[0]) if self.args else ""


def _int64_column(arr):
    return _core.column_from_buffer(np.ascontiguousarray(arr, dtype=np.int64))


# --------------------------------------------------------------------------
# the base class: one or more levels over engine columns
# --------------------------------------------------------------------------

class Index(CategoricalIndexMethods, IndexMethods):
    """Immutable row (or column) labels: one engine column of any zambezi
    dtype, with a name.

    ``data`` is a list, a numpy array, a zambezi or pandas Series / Index,
    or an Arrow array; ``dtype`` converts on the way in (as ``zb.Series``).

    Examples
    --------
    >>> idx = zb.Index(["b", "a", "c"], name="key")
    >>> idx
    Index(['b', 'a', 'c'], dtype='string', name='key')
    >>> idx.get_loc("a"), len(idx), idx[0]
    (1, 3, 'b')
    >>> idx.is_unique, idx.is_monotonic_increasing
    (True, False)
    """

    # _keys: None, or (levels, sort) for the index of a group-by result:
    # those levels hold group keys, which pandas shows with levels of their
    # own (see MultiIndex.to_pandas)
    # _freq: None or unset, or the regular spacing of a DatetimeIndex made
    # by resample or taken from a pandas DatetimeIndex (a pandas rule, "D",
    # "15min", "ME"), which to_pandas() hands to pandas as its freq
    __slots__ = ("_cols", "_names", "_src", "_cache", "_keys", "_freq", "__weakref__")

    def __new__(cls, data=None, name=None, dtype=None, copy=False):
        if isinstance(data, Index) and dtype is None:
            out = data._rename_all([name] if name is not None else data._names)
            return out
        if _is_pandas_index(data):  # any pandas Index (DatetimeIndex ... too)
            out = from_pandas_index(data)
            return out if name is None else out.rename(name)
        if name is None:
            name = getattr(data, "name", None)
        col = _convert.to_column([] if data is None else data, name=None, dtype=dtype)
        return Index._from_columns([col], [name])

    def __reduce__(self):
        # the levels (engine columns pickle their buffers, out of band from
        # protocol 5) and names; a pending selection is gathered first, the
        # lookup cache is not kept
        return (_rebuild, (type(self).__name__, self._levels(), self._names))

    # -- construction ------------------------------------------------------
    @classmethod
    def _from_columns(cls, cols, names):
        """An index over engine columns (one: Index, several: MultiIndex)."""
        if len(cols) == 1 and cls is not MultiIndex:
            idx = object.__new__(Index)
        else:
            idx = object.__new__(MultiIndex)
        idx._cols = list(cols)
        idx._names = list(names)
        idx._src = None
        idx._cache = None
        idx._keys = None
        return idx

    @classmethod
    def _of_group_keys(cls, cols, names, n_keys, sort):
        """The index of a group-by result whose first n_keys levels are its
        keys (sort: the group-by's sort), the rest (if any) other labels.
        pandas builds such an index from the group-by's own levels: each
        key's distinct values over the input's rows, sorted (sort=True) or
        in order of appearance, a missing key (dropna=False) a level value
        like any other -- where an index made from arrays has no level for
        it (code -1).  The caller vouches that every distinct key of the
        input is in the result's rows (dropna=False, or no row left out, or
        one key), so that those levels can be found from the result."""
        idx = cls._from_columns(cols, names)
        if idx.nlevels > 1:
            idx._keys = (tuple(range(n_keys)), bool(sort))
        return idx

    @classmethod
    def _lazy(cls, base, rows):
        """base's labels at rows (a selection from zambezi._indexing),
        gathered on first use."""
        idx = object.__new__(MultiIndex if base.nlevels > 1 else Index)
        idx._cols = None
        idx._names = list(base._names)
        idx._src = (base, rows)
        idx._cache = None
        idx._keys = None
        return idx

    def _levels(self):
        """The engine columns of the levels (gathered now if pending)."""
        if self._cols is None:
            base, rows = self._src
            cols = base._levels()
            t = _core.table_from_columns(cols, [f"level_{i}" for i in range(len(cols))])
            t = rows.apply(t)
            self._cols = [t.column(i) for i in range(t.num_columns)]
            self._src = None
        return self._cols

    def _take(self, rows):
        """The labels of the rows a selection names (zambezi._indexing)."""
        if rows.kind == "slice" and rows.start == 0 and rows.length == len(self):
            return self
        if self._cols is not None and rows.kind == "slice":
            out = self._from_columns([c.slice(rows.start, rows.length) for c in self._cols],
                                     self._names)
        else:
            out = self._lazy(self, rows)
        freq = getattr(self, "_freq", None)
        if freq is not None:
            out._freq = _selected_freq(freq, rows)
        return out

    def _to_device(self, device):
        return self._from_columns([c.to_device(device) for c in self._levels()], self._names)

    def _rename_all(self, names):
        if self._cols is None:
            out = self._lazy(self._src[0], self._src[1])
        else:
            out = self._from_columns(self._cols, self._names)
        out._names = list(names)
        out._cache = self._cache
        out._keys = getattr(self, "_keys", None)
        out._freq = getattr(self, "_freq", None)
        return out

    # -- properties --------------------------------------------------------
    @property
    def nlevels(self):
        """The number of levels (1, or more for a MultiIndex).

        Examples
        --------
        >>> zb.Index([1, 2]).nlevels
        1
        """
        return len(self._names)

    @property
    def name(self):
        """The name of the (single) level; it can be assigned.

        Examples
        --------
        >>> idx = zb.Index([1, 2], name="id")
        >>> idx.name
        'id'
        """
        return self._names[0] if len(self._names) == 1 else None

    @name.setter
    def name(self, value):
        if self.nlevels != 1:
            raise InvalidValueError("a MultiIndex has names (one per level), not a name")
        self._names = [value]

    @property
    def names(self):
        """The names of the levels, a list; it can be assigned.

        Examples
        --------
        >>> zb.MultiIndex.from_arrays([[1], ["a"]], names=["n", "s"]).names
        ['n', 's']
        """
        return list(self._names)

    @names.setter
    def names(self, values):
        values = list(values)
        if len(values) != self.nlevels:
            raise InvalidValueError(
                f"names: {len(values)} names for an index of {self.nlevels} levels")
        self._names = values

    def rename(self, name):
        """The same labels under another name (a list of names for a
        MultiIndex).

        Examples
        --------
        >>> zb.Index([1, 2]).rename("id").name
        'id'
        """
        names = list(name) if self.nlevels > 1 else [name]
        return self._rename_all(names)

    def set_names(self, names, level=None, inplace=False):
        """The same labels with new level names (all, or those of level);
        with inplace=True this index takes the names (every object sharing
        it sees them, as in pandas) and None is returned.

        Examples
        --------
        >>> zb.MultiIndex.from_arrays([[1], ["a"]]).set_names("s", level=1).names
        [None, 's']
        >>> ix = zb.Index([1, 2])
        >>> ix.set_names("k", inplace=True)
        >>> ix.name
        'k'
        """
        out = self._set_names(names, level)
        if not inplace:
            return out
        for cls in type(out).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot != "__weakref__" and hasattr(out, slot):
                    setattr(self, slot, getattr(out, slot))
        if hasattr(out, "__dict__"):
            self.__dict__.update(out.__dict__)
        return None

    def _set_names(self, names, level):
        single = not isinstance(self, MultiIndex)
        if level is not None and single:
            raise InvalidValueError("Level must be None for non-MultiIndex")
        if single and isinstance(names, (list, tuple)) and len(names) != 1:
            raise InvalidValueError(f"Length of new names must be 1, got {len(names)}")
        if level is not None:
            new = list(self._names)
            levels = [level] if not isinstance(level, (list, tuple)) else list(level)
            values = [names] if not isinstance(names, (list, tuple)) else list(names)
            for lv, v in zip(levels, values):
                new[self._level_number(lv)] = v
            return self._rename_all(new)
        if self.nlevels == 1 and not isinstance(names, (list, tuple)):
            names = [names]
        return self._rename_all(list(names))

    def _level_number(self, level):
        if isinstance(level, (int, np.integer)) and level not in self._names:
            n = int(level)
            if not -self.nlevels <= n < self.nlevels:
                raise ZambeziIndexError(
                    f"level {n} is out of range for an index of {self.nlevels} levels")
            return n % self.nlevels
        if level not in self._names:
            raise IndexKeyError(f"level {level!r} not found; the levels are {self._names!r}")
        return self._names.index(level)

    @property
    def dtype(self):
        """The dtype name of the labels (a MultiIndex: 'object').

        Examples
        --------
        >>> zb.Index(["a"]).dtype, zb.RangeIndex(2).dtype
        ('string', 'int64')
        """
        from zambezi._dtypes import column_dtype, dtype_object  # a str with numpy's kind ...
        return column_dtype(self._levels()[0]) if self.nlevels == 1 else dtype_object("object")

    @property
    def dtypes(self):
        """The dtype name of each level, a list.

        Examples
        --------
        >>> zb.MultiIndex.from_arrays([[1], ["a"]]).dtypes
        ['int64', 'string']
        """
        return [c.dtype for c in self._levels()]

    @property
    def ndim(self):
        """1: an Index is one-dimensional (Dask and numpy read this).

        Examples
        --------
        >>> zb.Index([1, 2]).ndim
        1
        """
        return 1

    @property
    def shape(self):
        """(number of labels,).

        Examples
        --------
        >>> zb.Index([1, 2, 3]).shape
        (3,)
        """
        return (len(self),)

    @property
    def size(self):
        """The number of labels.

        Examples
        --------
        >>> zb.Index([1, 2, 3]).size
        3
        """
        return len(self)

    @property
    def empty(self):
        """Whether there are no labels.

        Examples
        --------
        >>> zb.Index([]).empty
        True
        """
        return len(self) == 0

    @property
    def nbytes(self):
        """Bytes of memory the labels occupy (a RangeIndex: 0).

        Examples
        --------
        >>> zb.Index([1, 2]).nbytes, zb.RangeIndex(10**9).nbytes
        (16, 0)
        """
        return sum(c.nbytes for c in self._levels())

    def __len__(self):
        if self._cols is None:
            rows = self._src[1]
            if rows.kind == "slice":
                return rows.length
            if rows.kind == "take":
                return rows.column.length
        return self._levels()[0].length

    # -- values ------------------------------------------------------------
    def to_numpy(self, dtype=None):
        """The labels as a numpy array (object array of tuples for a
        MultiIndex).

        Examples
        --------
        >>> zb.Index([1, 2]).to_numpy()
        array([1, 2])
        """
        col = self._levels()[0]
        if dtype is None and col.dtype.startswith("timestamp") and col.timezone is not None:
            return _convert.to_numpy_as_pandas(col)   # pandas: Timestamps in their zone
        arr = _convert.to_numpy(col)
        return arr if dtype is None else arr.astype(dtype)

    @property
    def values(self):
        """The labels as a numpy array (see to_numpy).

        Examples
        --------
        >>> zb.Index([0.5]).values
        array([0.5])
        """
        col = self._levels()[0] if self.nlevels == 1 else None
        if col is not None and col.dtype.startswith("timestamp") and col.timezone is not None:
            return _convert.to_numpy(col)   # pandas: numpy's datetime64, in UTC
        return self.to_numpy()

    def __array__(self, dtype=None, copy=None):
        return self.to_numpy(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs on the labels (np.sin(idx), np.add(idx, 1)): numpy
        runs on the values and a 1-D result of the same length comes back
        as an Index with this name, as pandas gives one (several outputs:
        a tuple of them).  Labels of times raise UnsupportedError: numpy
        would drop a time zone and take numbers as times, where pandas
        applies its own operators (or refuses)."""
        for x in inputs:
            if isinstance(x, Index) and x.nlevels == 1 and \
                    _dtypes.time_unit(x._levels()[0].dtype) is not None:
                raise UnsupportedError(f"numpy's {ufunc.__name__} on an Index of "
                                       f"{x._levels()[0].dtype} is not supported")
        conv = [np.asarray(x) if isinstance(x, Index) else x for x in inputs]
        result = getattr(ufunc, method)(*conv, **kwargs)
        if method != "__call__" or kwargs.get("out") is not None or self.nlevels != 1:
            return result

        def wrap(r):
            if isinstance(r, np.ndarray) and r.ndim == 1 and len(r) == len(self) and \
                    r.dtype.kind in "biuf":
                return Index(r, name=self.name)
            return r
        return tuple(wrap(r) for r in result) if isinstance(result, tuple) else wrap(result)

    def to_list(self):
        """The labels as a list of Python objects (tuples for a MultiIndex).

        Examples
        --------
        >>> zb.Index(["x", None]).to_list()
        ['x', None]
        """
        return _convert.to_python_list(self._levels()[0])

    tolist = to_list

    def __iter__(self):
        return iter(self.to_list())

    def to_series(self, index=None, name=None):
        """A Series of the labels, indexed by themselves (or by ``index``,
        an Index of as many labels).

        Examples
        --------
        >>> zb.Index(["a", "b"], name="k").to_series().to_list()
        ['a', 'b']
        """
        from zambezi import _base

        s = _base.series_class()._from_column(self._levels()[0],
                                                self.name if name is None else name)
        if index is None:
            s._index = self
        else:
            index = index if isinstance(index, Index) else Index(index)
            if len(index) != len(self):
                raise InvalidValueError(f"to_series: index has {len(index)} labels, the "
                                        f"Index {len(self)}")
            s._index = index
        return s

    def to_frame(self, index=True, name=None):
        """A DataFrame with a column per level, named name (a list for a
        MultiIndex), else the level's name, else its position (0, 1 ...:
        as str, as Series.to_frame names it; pandas uses the int), labelled
        by the index itself (index=False: 0..n-1).

        Examples
        --------
        >>> zb.Index(["a", "b"], name="k").to_frame().to_dict("list")
        {'k': ['a', 'b']}
        >>> zb.MultiIndex.from_frame(zb.DataFrame({"s": ["a"], "n": [1]})).to_frame(index=False)
                s      n
           string  int64
        0       a      1
        <BLANKLINE>
        [1 rows x 2 columns]
        """
        from zambezi import _base, _core

        levels = self._levels()
        if name is None:
            names = self.names
        elif self.nlevels == 1:
            names = [name]
        else:
            names = list(name)
            if len(names) != self.nlevels:
                raise InvalidValueError(f"to_frame: {len(names)} names for {self.nlevels} "
                                        "levels")
        names = [str(i if nm is None else nm) for i, nm in enumerate(names)]
        table = _core.table_from_columns(list(levels), names)
        return _base.frame_class()._wrap(table, self if index else None)

    def to_pandas(self):
        """A pandas Index (copied).

        Examples
        --------
        >>> zb.Index([3, 1], name="id").to_pandas()
        Index([3, 1], dtype='int64', name='id')
        """
        import pandas as pd

        col = self._levels()[0]
        out = pd.Index(_convert.column_to_pandas(col), name=self.name)
        freq = getattr(self, "_freq", None)
        if freq is not None and isinstance(out, pd.DatetimeIndex):
            try:  # pandas checks that the labels follow the rule
                out = pd.DatetimeIndex(out, freq=freq)
            except (ValueError, TypeError):
                pass
        return out

    @property
    def freq(self):
        """The rule a resample result's times follow ("D", "15min" ...),
        pandas' freq as a string; None for other indexes.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-03"])
        >>> zb.Series([1, 2], index=t).resample("D").sum().index.freq
        'D'
        """
        return getattr(self, "_freq", None)

    def _label_at(self, i):
        return _convert.to_python_list(self._levels()[0].slice(i, 1))[0]

    def __getitem__(self, key):
        from zambezi import _indexing

        n = len(self)
        if _indexing._is_int(key):
            return self._label_at(_indexing.row_position(key, n, "Index[...]"))
        if isinstance(key, np.ndarray) and key.dtype == np.bool_ and len(key) == 0 and n:
            raise InvalidValueError("The length of the boolean indexer cannot be 0 when the "
                                    "Index has length greater than 0.")
        if isinstance(key, np.ndarray) and key.dtype.kind not in "iub":
            # numpy's rule, which pandas keeps (an empty float array too)
            raise ZambeziIndexError("arrays used as indices must be of integer (or boolean) "
                                    f"type, not {key.dtype}")
        return self._take(_indexing.positional_rows(key, n, "Index[...]"))

    def __contains__(self, label):
        try:
            return len(self._lookup().positions(label)) > 0
        except (DTypeError, InvalidValueError, TypeError):
            return False

    # -- comparisons -------------------------------------------------------
    def equals(self, other):
        """Whether other holds the same labels in the same order (names and
        index types are not compared, as in pandas).

        Examples
        --------
        >>> zb.RangeIndex(3).equals(zb.Index([0, 1, 2]))
        True
        """
        if self is other:
            return True
        if not isinstance(other, Index):
            return False
        if len(self) != len(other) or self.nlevels != other.nlevels:
            return False
        if isinstance(self, RangeIndex) and isinstance(other, RangeIndex):
            return len(self) == 0 or (self.start == other.start and (
                len(self) == 1 or self.step == other.step))
        for a, b in zip(self._levels(), other._levels()):
            if not _columns_equal(a, b):
                return False
        return True

    def _compare(self, other, op):
        if self.nlevels != 1:
            raise UnsupportedError("comparing a MultiIndex element-wise is not supported")
        from zambezi import _base

        s = _base.series_class()._from_column(self._levels()[0])
        if isinstance(other, Index):
            other = _base.series_class()._from_column(other._levels()[0])
        res = getattr(s, op)(other)
        return _convert.to_numpy(_core.fill_null(res._col, op == "__ne__")).astype(bool)

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    def __ne__(self, other):
        return self._compare(other, "__ne__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    __hash__ = None

    # -- properties of the labels -----------------------------------------
    @property
    def is_unique(self):
        """Whether no label appears twice (a missing label counts once).

        Examples
        --------
        >>> zb.Index([1, 2, 1]).is_unique
        False
        """
        lk = self._lookup()
        return lk.unique

    @property
    def has_duplicates(self):
        """Whether some label appears twice.

        Examples
        --------
        >>> zb.Index([1, 1]).has_duplicates
        True
        """
        return not self.is_unique

    @property
    def is_monotonic_increasing(self):
        """Whether each label is >= the one before (no missing labels).

        Examples
        --------
        >>> zb.Index([1, 2, 2, 5]).is_monotonic_increasing
        True
        """
        if self.nlevels == 1 and self._levels()[0].dtype == "category":
            return monotonic(self._levels()[0], True)  # the categories' order
        return self._lookup().increasing

    @property
    def is_monotonic_decreasing(self):
        """Whether each label is <= the one before (no missing labels).

        Examples
        --------
        >>> zb.Index([3, 2, 2]).is_monotonic_decreasing
        True
        """
        if self.nlevels != 1:
            raise UnsupportedError("is_monotonic_decreasing of a MultiIndex is not supported")
        return monotonic(self._levels()[0], False)

    def unique(self):
        """The distinct labels in order of first appearance.

        Examples
        --------
        >>> zb.Index(["b", "a", "b"]).unique().to_list()
        ['b', 'a']
        """
        col = self._levels()[0]
        return Index._from_columns([_core.unique(col)], self._names)

    def drop_duplicates(self, keep="first"):
        """The labels without repeats, first appearances kept (keep="first"
        only), as pandas.

        Examples
        --------
        >>> zb.Index([3, 1, 3, 2]).drop_duplicates().to_list()
        [3, 1, 2]
        """
        if keep != "first":
            raise UnsupportedError(f"Index.drop_duplicates: keep={keep!r} is not supported "
                                   "(only 'first')")
        return self.unique()

    def nunique(self, dropna=True):
        """The number of distinct labels (missing ones too unless dropna).

        Examples
        --------
        >>> zb.Index(["a", "b", "a", None]).nunique()
        2
        """
        return _core.nunique(self._levels()[0], bool(dropna))

    def _reduce_labels(self, how, skipna, axis=None):
        if axis not in (None, 0, "index"):
            raise InvalidValueError(f"Index.{how}: axis must be None or 0 (got {axis!r})")
        if self.nlevels != 1:
            raise UnsupportedError(f"Index.{how}: not supported on a MultiIndex yet")
        from zambezi import _base

        s = _base.series_class()._from_column(self._levels()[0], None)
        return getattr(s, how)(skipna=skipna)

    def min(self, axis=None, skipna=True):
        """The smallest label (missing labels skipped unless skipna is
        False), as pandas' ``Index.min`` (Dask takes the divisions of a
        partition from it).

        Examples
        --------
        >>> zb.Index([3.5, 1.0, None, 2.0]).min()
        1.0
        """
        return self._reduce_labels("min", skipna, axis)

    def max(self, axis=None, skipna=True):
        """The largest label (missing labels skipped unless skipna is
        False), as pandas' ``Index.max``.

        Examples
        --------
        >>> zb.Index(["b", "c", "a"]).max()
        'c'
        """
        return self._reduce_labels("max", skipna, axis)

    def isna(self):
        """A numpy bool array: whether each label is missing.

        Examples
        --------
        >>> zb.Index([1.0, None]).isna()
        array([False,  True])
        """
        return _convert.to_numpy(_core.isnull(self._levels()[0])).astype(bool)

    # -- lookups -----------------------------------------------------------
    def _lookup(self):
        if self._cache is None:
            self._cache = _Lookup(self)
        return self._cache

    def get_loc(self, key):
        """The position of a label: an int when it appears once, else a
        slice (consecutive positions) or a boolean mask, as pandas.  Raises
        KeyError when the label is missing.

        Examples
        --------
        >>> idx = zb.Index(["a", "b", "a"])
        >>> idx.get_loc("b")
        1
        >>> idx.get_loc("a")
        array([ True, False,  True])
        """
        pos = self._lookup().positions(key)
        if len(pos) == 0:
            raise IndexKeyError(f"{key!r} is not in the index")
        if len(pos) == 1:
            return int(pos[0])
        if pos[-1] - pos[0] + 1 == len(pos):
            return slice(int(pos[0]), int(pos[-1]) + 1)
        mask = np.zeros(len(self), dtype=bool)
        mask[pos] = True
        return mask

    def union(self, other, sort=None):
        """The labels of both indexes, each once, sorted when they can be
        (sort=None, pandas' default; sort=False keeps first appearance).

        Examples
        --------
        >>> zb.Index([3, 1]).union([2, 3]).to_list()
        [1, 2, 3]
        """
        return _index_sets.union(self, other, sort)

    def intersection(self, other, sort=False):
        """The labels that are in both indexes, each once, in this index's
        order (sort=None or True: sorted).

        Examples
        --------
        >>> zb.Index(["b", "a", "c"]).intersection(["c", "b"]).to_list()
        ['b', 'c']
        """
        return _index_sets.intersection(self, other, sort)

    def difference(self, other, sort=None):
        """The labels of this index that are not in other, each once,
        sorted when they can be (sort=None, pandas' default).

        Examples
        --------
        >>> zb.Index(["b", "a", "c"]).difference(["c"]).to_list()
        ['a', 'b']
        """
        return _index_sets.difference(self, other, sort)

    def symmetric_difference(self, other, result_name=None, sort=None):
        """The labels in exactly one of the two indexes, each once (this
        index's, then other's), sorted when they can be (sort=None).

        Examples
        --------
        >>> zb.Index([1, 2, 3, 4]).symmetric_difference([3, 4, 5]).to_list()
        [1, 2, 5]
        """
        return _index_sets.symmetric_difference(self, other, result_name, sort)

    def get_slice_bound(self, label, side):
        """The position where a slice starting (side="left") or ending
        (side="right") at label cuts the index, as pandas: on an increasing
        index by binary search (label need not be present), else at the
        label's position.  Dask cuts partitions at their divisions with it.

        Examples
        --------
        >>> idx = zb.Index([10, 20, 20, 30])
        >>> idx.get_slice_bound(20, "left"), idx.get_slice_bound(20, "right")
        (1, 3)
        >>> idx.get_slice_bound(25, "left")
        3
        """
        if side not in ("left", "right"):
            raise InvalidValueError(f"get_slice_bound: side must be 'left' or 'right', "
                                    f"not {side!r}")
        if side == "left":
            return int(label_bounds(self, label, None)[0])
        return int(label_bounds(self, None, label)[1])

    def get_indexer(self, target, method=None, limit=None, tolerance=None):
        """For each label of target, its position here, or -1 (the index
        must be unique, as in pandas): vectorized binary searches.  With
        method "bfill" / "backfill" (the first label at or after it),
        "ffill" / "pad" (the last label at or before it) or "nearest" (the
        closer of the two; a tie goes to the later label) on an increasing
        index, a label that is missing gets its neighbour's position, as
        pandas.  ``limit`` caps how many consecutive targets fill from one
        label (increasing targets only, as pandas); ``tolerance`` (a
        number, a timedelta for times, or one per target) leaves -1 where
        the label found is farther than that.

        Examples
        --------
        >>> zb.Index(["a", "b", "c"]).get_indexer(["c", "z", "a"])
        array([ 2, -1,  0])
        >>> zb.Index([10, 20, 30]).get_indexer([5, 20, 25, 35], method="bfill")
        array([ 0,  1,  2, -1])
        >>> zb.Index([1, 5, 10]).get_indexer([0, 3, 7, 12], method="nearest", tolerance=2)
        array([0, 1, 1, 2])
        """
        if not self.is_unique:
            raise InvalidValueError("get_indexer: the index has duplicate labels")
        if method is not None:
            from zambezi import _index_lookup

            return _index_lookup.nearby_indexer(self, target, method, limit, tolerance)
        if limit is not None or tolerance is not None:
            what = "limit" if limit is not None else "tolerance"
            raise InvalidValueError(f"get_indexer: the {what} argument is only valid with "
                                    "method 'pad', 'backfill' or 'nearest'")
        lk = self._lookup()
        return lk.first_positions(list(target) if not isinstance(target, np.ndarray)
                                  else target)

    # -- display -----------------------------------------------------------
    def __repr__(self):
        vals = self.to_list()
        shown = vals if len(vals) <= 10 else vals[:5] + ["..."] + vals[-5:]
        body = ", ".join("..." if (v == "..." and i == 5 and len(vals) > 10) else repr(v)
                         for i, v in enumerate(shown))
        extra = f", name={self.name!r}" if self.name is not None else ""
        return f"Index([{body}], dtype='{self.dtype}'{extra})"

    # -- pandas-named helpers ---------------------------------------------
    def copy(self, name=None, deep=False):
        """The same labels (immutable, so shared) in a new Index, renamed
        when name is given: its names can then change (``copy.name = ...``,
        ``set_names(inplace=True)``) without changing this index's.

        Examples
        --------
        >>> zb.Index([1]).copy(name="x").name
        'x'
        """
        return self._rename_all(list(self._names)) if name is None else self.rename(name)

    def astype(self, dtype):
        """The labels cast to dtype (as Series.astype).

        Examples
        --------
        >>> zb.Index([1, 2]).astype("float64").dtype
        'float64'
        """
        from zambezi import _base

        s = _base.series_class()._from_column(self._levels()[0]).astype(dtype)
        return Index._from_columns([s._col], self._names)

    def _cells(self):
        """Display strings, one list per level (for reprs)."""
        from zambezi import _format

        return [_format._cells(c) for c in self._levels()]


def monotonic(col, increasing):
    """Whether col's values never decrease (increasing) or never increase
    from row to row, with no missing value (pandas' is_monotonic_*): one
    engine comparison of the column with itself a row later.  A
    categorical compares its codes (the categories' order)."""
    n = col.length
    if col.null_count:
        return False
    if col.dtype == "category":
        from zambezi._cat_accessor import _category_codes

        col = _core.column_from_buffer(np.ascontiguousarray(_category_codes(col),
                                                            dtype=np.int64))
    if n <= 1:  # one NaN is missing
        v = col.to_pylist()
        return not v or v[0] == v[0]
    cmp = _core.binary("ge" if increasing else "le", col.slice(1, n - 1), col.slice(0, n - 1))
    return cmp.null_count == 0 and bool(_core.stat(cmp, "all"))


def _is_identity(order):
    arr = _convert.values_numpy(order)
    return bool(np.array_equal(arr, np.arange(len(arr), dtype=arr.dtype)))


def _columns_equal(a, b):
    if a.dtype != b.dtype:
        # int64 labels equal a RangeIndex's; other dtype pairs compare as values
        if not (a.dtype.startswith(("int", "uint")) and b.dtype.startswith(("int", "uint"))):
            return a.to_pylist() == b.to_pylist() if a.length < 64 else False
    if a.null_count != b.null_count:
        return False
    eq = _core.binary("eq", a, b)
    both_null = _core.binary("and", _core.isnull(a), _core.isnull(b))
    eq = _core.binary("or", _core.fill_null(eq, False), both_null)
    return eq.reduce("sum") == eq.length


# --------------------------------------------------------------------------
# RangeIndex
# --------------------------------------------------------------------------

def _even_steps(pos, nulls):
    """(first, step) when positions pos (numpy ints) step evenly -- none,
    one (step 1), or a constant non-zero difference -- else None.  Three
    positions decide most takes before any pass over the rest."""
    n = len(pos)
    if nulls:
        return None
    if n <= 1:
        return (int(pos[0]) if n else 0), 1
    d = int(pos[1]) - int(pos[0])
    if d == 0 or (n > 2 and int(pos[2]) - int(pos[1]) != d):
        return None
    if n > 2 and bool((np.diff(pos) != d).any()):
        return None
    return int(pos[0]), d


class RangeIndex(Index):
    """The default row labels: start, start + step, ... below stop.  It
    costs no memory; a contiguous slice of it is again a RangeIndex.

    Examples
    --------
    >>> zb.RangeIndex(5)
    RangeIndex(start=0, stop=5, step=1)
    >>> zb.RangeIndex(2, 10, 3).to_list()
    [2, 5, 8]
    """

    __slots__ = ("_range",)

    def __new__(cls, start=None, stop=None, step=None, name=None):
        if stop is None:
            start, stop = 0, (0 if start is None else start)
        r = range(int(start), int(stop), 1 if step is None else int(step))
        return cls._of(r, name)

    def __reduce__(self):
        r = self._range
        return (_rebuild, ("RangeIndex", (r.start, r.stop, r.step), self._names))

    @classmethod
    def _of(cls, r, name=None):
        idx = object.__new__(RangeIndex)
        idx._range = r
        idx._cols = None
        idx._names = [name]
        idx._src = None
        idx._cache = None
        idx._keys = None
        return idx

    @property
    def start(self):
        """The first label (start, stop and step as Python's range).

        Examples
        --------
        >>> r = zb.RangeIndex(2, 10, 3)
        >>> r.start, r.stop, r.step
        (2, 10, 3)
        """
        return self._range.start

    @property
    def stop(self):
        """The end of the range (not a label); see start.

        Examples
        --------
        >>> zb.RangeIndex(4).stop
        4
        """
        return self._range.stop

    @property
    def step(self):
        """The step between labels; see start.

        Examples
        --------
        >>> zb.RangeIndex(0, 10, 5).step
        5
        """
        return self._range.step

    def __len__(self):
        return len(self._range)

    def _levels(self):
        r = self._range
        return [_int64_column(np.arange(r.start, r.stop, r.step, dtype=np.int64))]

    def _take(self, rows):
        r = self._range
        if rows.kind == "slice":
            return self._of(r[rows.start: rows.start + rows.length], self.name)
        if rows.kind == "take":
            on_host = rows.column.device == "cpu"
            pos = _convert.values_numpy(rows.column) if on_host else None
            stepped = _even_steps(pos, rows.column.null_count) if on_host else None
            if stepped is not None:   # pandas 3: evenly stepped labels stay a RangeIndex
                first, step = stepped
                start = r.start + r.step * first
                return self._of(range(start, start + r.step * step * len(pos),
                                      r.step * step), self.name)
            if r.start == 0 and r.step == 1 and rows.column.dtype == "int64" and \
                    rows.column.null_count == 0:
                # the labels are the positions: share the positions column
                return Index._from_columns([rows.column], self._names)
            if pos is None:
                pos = _convert.values_numpy(rows.column)
            labels = r.start + r.step * pos.astype(np.int64)
            return Index._from_columns([_int64_column(labels)], self._names)
        return self._lazy(self, rows)

    def _to_device(self, device):
        return self

    def _rename_all(self, names):
        return self._of(self._range, names[0])

    def _label_at(self, i):
        return self._range[i]

    def to_pandas(self):
        import pandas as pd

        r = self._range
        return pd.RangeIndex(r.start, r.stop, r.step, name=self.name)

    def to_list(self):
        return list(self._range)

    tolist = to_list

    @property
    def dtype(self):
        from zambezi._dtypes import dtype_object
        return dtype_object("int64")

    @property
    def nbytes(self):
        return 0

    @property
    def is_unique(self):
        return True

    @property
    def is_monotonic_increasing(self):
        return self.step > 0 or len(self) <= 1

    @property
    def is_monotonic_decreasing(self):
        return self.step < 0 or len(self) <= 1

    def unique(self):
        return self

    def get_loc(self, key):
        pos = self._lookup().positions(key)
        if len(pos) == 0:
            raise IndexKeyError(f"{key!r} is not in the index")
        return int(pos[0])

    def _lookup(self):
        if self._cache is None:
            self._cache = _RangeLookup(self._range)
        return self._cache

    def __repr__(self):
        extra = f", name={self.name!r}" if self.name is not None else ""
        return f"RangeIndex(start={self.start}, stop={self.stop}, step={self.step}{extra})"


def _rebuild(kind, data, names):
    """Unpickle an index (see Index.__reduce__)."""
    if kind == "RangeIndex":
        return RangeIndex._of(range(*data), names[0])
    if kind == "MultiIndex":
        return MultiIndex._from_columns(data, names)
    return Index._from_columns(data, names)


def default_index(n):
    """RangeIndex(n): the labels of a result with rows of its own."""
    return RangeIndex._of(range(n))


# --------------------------------------------------------------------------
# MultiIndex
# --------------------------------------------------------------------------

class MultiIndex(Index):
    """Several levels of labels; a label is a tuple with one value per
    level.

    Examples
    --------
    >>> mi = zb.MultiIndex.from_arrays([["a", "a", "b"], [1, 2, 1]], names=["k", "n"])
    >>> mi.nlevels, mi.names, mi[1]
    (2, ['k', 'n'], ('a', 2))
    >>> mi.get_loc(("b", 1))
    2
    """

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        raise UnsupportedError("build a MultiIndex with MultiIndex.from_arrays, from_tuples "
                               "or from_frame")

    @classmethod
    def from_arrays(cls, arrays, names=None):
        """A MultiIndex with one level per array (lists, arrays, Series).

        Examples
        --------
        >>> zb.MultiIndex.from_arrays([["a", "b"], [1, 2]]).to_list()
        [('a', 1), ('b', 2)]
        """
        arrays = list(arrays)
        if names is None:
            names = [getattr(a, "name", None) for a in arrays]
        cols = [_convert.to_column(a) for a in arrays]
        if len({c.length for c in cols}) > 1:
            raise InvalidValueError("MultiIndex.from_arrays: the arrays differ in length")
        return cls._from_columns(cols, list(names))

    @classmethod
    def from_tuples(cls, tuples, names=None):
        """A MultiIndex from a list of tuples (one value per level).

        Examples
        --------
        >>> zb.MultiIndex.from_tuples([("a", 1), ("b", 2)], names=["s", "n"]).names
        ['s', 'n']
        """
        tuples = list(tuples)
        if not tuples:
            raise InvalidValueError("MultiIndex.from_tuples: no tuples")
        return cls.from_arrays([list(level) for level in zip(*tuples)], names)

    @classmethod
    def from_product(cls, iterables, sortorder=None, names=None):
        """A MultiIndex of every combination of the iterables' values, the
        first varying slowest (``itertools.product``'s order), as pandas;
        names default (None) to the iterables' own names (a Series' or an
        Index's).  Each level is taken from its values by one engine take.

        Examples
        --------
        >>> zb.MultiIndex.from_product([["a", "b"], [1, 2]], names=["s", "n"]).to_list()
        [('a', 1), ('a', 2), ('b', 1), ('b', 2)]
        """
        levels = [it if hasattr(it, "__len__") and not isinstance(it, (str, bytes)) else
                  list(it) for it in iterables]
        if names is None:
            names = [getattr(a, "name", None) for a in levels]
        cols = [_convert.to_column(a.to_list() if isinstance(a, Index) else a) for a in levels]
        sizes = [c.length for c in cols]
        total = int(np.prod(sizes, dtype=np.int64)) if sizes else 0
        out, inner = [], total
        for c, size in zip(cols, sizes):  # the first level repeats each value most
            inner = inner // size if size else 0
            pos = np.tile(np.repeat(np.arange(size, dtype=np.int64), inner),
                          total // (size * inner) if size and inner else 0)
            out.append(_core.take(c, _core.column_from_buffer(pos)))
        return cls._from_columns(out, list(names))

    @classmethod
    def from_frame(cls, df, names=None):
        """A MultiIndex whose levels are a frame's columns (shared).

        Examples
        --------
        >>> df = zb.DataFrame({"s": ["a", "b"], "n": [1, 2]})
        >>> zb.MultiIndex.from_frame(df).names
        ['s', 'n']
        """
        t = df._table
        cols = [t.column(i) for i in range(t.num_columns)]
        return cls._from_columns(cols, list(names) if names is not None else t.names)

    def _label_at(self, i):
        return tuple(_convert.to_python_list(c.slice(i, 1))[0] for c in self._levels())

    def to_list(self):
        return list(zip(*[_convert.to_python_list(c) for c in self._levels()]))

    tolist = to_list

    def to_numpy(self, dtype=None):
        out = np.empty(len(self), dtype=object)
        out[:] = self.to_list()
        return out

    def to_pandas(self):
        import pandas as pd

        arrays = [_convert.column_to_pandas(c) for c in self._levels()]
        mi = pd.MultiIndex.from_arrays(arrays, names=self._names)
        keys = getattr(self, "_keys", None)
        if keys is None:
            return mi
        # a group-by result: its key levels as pandas' group-by makes them
        # (sorted with a missing key last, or in order of appearance; a
        # missing key a level value, not code -1); categorical keys keep
        # their categories as from_arrays gives them
        key_levels, sort = keys
        levels, codes = list(mi.levels), list(mi.codes)
        for i in key_levels:
            if not isinstance(arrays[i].dtype, pd.CategoricalDtype):
                c, u = pd.factorize(arrays[i], sort=sort, use_na_sentinel=False)
                levels[i], codes[i] = pd.Index(u, name=self._names[i]), c
        return pd.MultiIndex(levels=levels, codes=codes, names=self._names,
                             verify_integrity=False)

    def get_level_values(self, level):
        """The labels of one level (a name or a number), an Index.

        Examples
        --------
        >>> mi = zb.MultiIndex.from_arrays([["a", "b"], [1, 2]], names=["s", "n"])
        >>> mi.get_level_values("n").to_list()
        [1, 2]
        """
        i = self._level_number(level)
        return Index._from_columns([self._levels()[i]], [self._names[i]])

    @property
    def levels(self):
        """The distinct labels of each level, a list of Index.

        Examples
        --------
        >>> mi = zb.MultiIndex.from_arrays([["a", "a"], [1, 2]])
        >>> [lv.to_list() for lv in mi.levels]
        [['a'], [1, 2]]
        """
        return [Index._from_columns([_core.unique(c)], [n])
                for c, n in zip(self._levels(), self._names)]

    def droplevel(self, level=0):
        """The index without some levels (one left: an Index).

        Examples
        --------
        >>> mi = zb.MultiIndex.from_arrays([["a", "b"], [1, 2]], names=["s", "n"])
        >>> mi.droplevel("s").to_list()
        [1, 2]
        """
        levels = level if isinstance(level, (list, tuple)) else [level]
        drop = {self._level_number(lv) for lv in levels}
        keep = [i for i in range(self.nlevels) if i not in drop]
        if not keep:
            raise InvalidValueError("droplevel: cannot drop every level")
        cols = self._levels()
        return Index._from_columns([cols[i] for i in keep], [self._names[i] for i in keep])

    def unique(self):
        t = _core.table_from_columns(self._levels(), [f"l{i}" for i in range(self.nlevels)])
        dup = _core.duplicated(t, list(range(self.nlevels)), "first")
        keep = _core.unary("invert", dup)
        t = _core.filter(t, keep)
        return MultiIndex._from_columns([t.column(i) for i in range(t.num_columns)],
                                        self._names)

    def __repr__(self):
        vals = self.to_list()
        shown = vals if len(vals) <= 10 else vals[:5] + vals[-5:]
        body = ",\n            ".join(repr(v) for v in shown)
        if len(vals) > 10:
            body = body.replace(repr(vals[4]) + ",", repr(vals[4]) + ",\n            ...,", 1)
        return f"MultiIndex([{body}],\n           names={self._names!r})"


def _is_pandas_index(obj):
    """Whether obj is a pandas Index of any kind (without importing pandas)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.Index)


def _selected_freq(freq, rows):
    """The freq of some rows of an index with regular spacing freq (a
    pandas rule), as pandas keeps it: the same for consecutive rows (a
    slice, or a mask selecting one run), freq * k for rows k apart
    (iloc[::k]), None for any other selection."""
    if rows.kind == "slice":
        return freq
    if rows.column.null_count:
        return None
    if rows.kind == "filter":
        pos = np.flatnonzero(_convert.values_numpy(rows.column))
        return freq if len(pos) and pos[-1] - pos[0] == len(pos) - 1 else None
    pos = _convert.values_numpy(rows.column)
    if len(pos) < 2:
        return None
    steps = np.diff(pos)
    k = int(steps[0])
    if k < 1 or not (steps == k).all():
        return None
    if k == 1:
        return freq
    from pandas.tseries.frequencies import to_offset

    try:
        return (to_offset(freq) * k).freqstr
    except (ValueError, TypeError):
        return None


def from_pandas_index(pidx):
    """A zambezi index with a pandas index's labels and names: a
    RangeIndex stays one (no memory)."""
    import pandas as pd

    if isinstance(pidx, pd.RangeIndex):
        return RangeIndex._of(range(pidx.start, pidx.stop, pidx.step), pidx.name)
    if isinstance(pidx, pd.MultiIndex):
        cols = [_convert.column_from_pandas(pd.Series(pidx.get_level_values(i)))
                for i in range(pidx.nlevels)]
        return MultiIndex._from_columns(cols, list(pidx.names))
    out = Index._from_columns([_convert.column_from_pandas(pd.Series(pidx))], [pidx.name])
    if isinstance(pidx, pd.DatetimeIndex) and pidx.freq is not None:
        out._freq = pidx.freqstr  # kept as a resample result's (to_pandas gives it back)
    return out


def ensure_index(obj, n=None, what="index"):
    """obj (an Index, pandas Index, list, array or Series) as an Index of
    length n."""
    from zambezi import _base

    if isinstance(obj, Index):
        idx = obj
    elif _is_pandas_index(obj):
        idx = from_pandas_index(obj)
    elif _base.is_series(obj):
        idx = Index._from_columns([obj._col], [obj.name])
    elif isinstance(obj, range):
        idx = RangeIndex._of(obj)
    else:
        idx = Index(obj)
    if n is not None and len(idx) != n:
        raise InvalidValueError(f"{what}: {len(idx)} labels for {n} rows")
    return idx


# label lookups live in zambezi._index_lookup (imported here, once the
# classes they use exist)
from zambezi._index_lookup import (  # noqa: E402
    _Lookup,
    _RangeLookup,
    all_positions,
    label_bounds,
    partial_date_span,
    unsorted_time_slice,
)


def _inherit_docs():
    """Overrides in RangeIndex and MultiIndex document themselves with the
    docstring of the Index member they override."""
    for cls in (RangeIndex, MultiIndex):
        for name, member in list(vars(cls).items()):
            if name.startswith("_"):
                continue
            base = getattr(Index, name, None)
            if base is None or getattr(member, "__doc__", None):
                continue
            if isinstance(member, property):
                setattr(cls, name, property(member.fget, member.fset, member.fdel, base.__doc__))
            elif callable(member) and not isinstance(member, (classmethod, staticmethod)):
                member.__doc__ = base.__doc__


_inherit_docs()
