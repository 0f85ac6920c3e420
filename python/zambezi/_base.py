"""The base class of Series and DataFrame: how a result object is made.

The mixins that give Series and DataFrame their methods (zambezi._compute,
_frame_ops, _stats, _groupby, _merge, accessors ...) never import
zambezi.series or zambezi.frame.  A method asks its object for the class
of its result, with pandas' names:

- ``_constructor``: a result of the same kind as self (``type(self)``);
- ``_constructor_sliced``: one column of a frame (Series);
- ``_constructor_expanddim``: a frame made from Series (DataFrame);

and a result is built in one of three ways, each written once, so that the
index (which comes next) is attached in these places and nowhere else:

- ``cls._from_engine(data)`` (``Series._from_column``, ``DataFrame._wrap``):
  a new object over an engine Column or Table, rows numbered 0..n-1 -- a
  result with rows of its own (concat, merge, group-by, value_counts,
  read_csv);
- ``self._like(data)``: a result with the same rows as self (elementwise
  operations, casts, columns added, dropped or renamed): self's row
  labels carry over; ``DataFrame._sliced(col, name)`` is the same for a
  Series made from a frame (a column, or one value per row);
- ``self._select_rows(rows)``: some of self's rows (a selection from
  zambezi._indexing: a slice, positions or a mask), with the labels of
  the rows selected (zambezi.index gathers them when first used).

Every object has ``_index`` (a zambezi.index.Index): ``_from_engine``
gives a RangeIndex, ``_like`` keeps self's, ``_select_rows`` selects from
it.  Code that makes a result with other labels (group-by keys,
``set_index``) sets ``_index`` on the new object.

Functions with no object at hand use ``series_class()`` / ``frame_class()``
for the classes and ``is_series`` / ``is_frame`` to recognise them.

Pickling and copying (see zambezi.io.pickle) store every slot of the class
hierarchy, found by walking the MRO (``_slot_names``), so a slot added to
Series, DataFrame or this class travels without editing the pickling code.
"""

import os
import sys


class _NoDefault:
    """pandas' ``no_default``: an argument left out where None means
    something; shown in signatures as pandas shows its own."""

    __slots__ = ()

    def __repr__(self):
        return "<no_default>"


NO_DEFAULT = _NoDefault()

_PKG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def user_stacklevel():
    """The stacklevel that points a warning, from the function calling
    this, at the first caller outside zambezi (the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PKG_DIR):
        frame, level = frame.f_back, level + 1
    return level

_CLASSES = {}  # ndim -> class: 1 -> Series, 2 -> DataFrame (see register)


def register(cls):
    """Class decorator: cls is the Series (``_ndim`` 1) or DataFrame
    (``_ndim`` 2) that results are built with."""
    _CLASSES[cls._ndim] = cls
    return cls


def series_class():
    return _CLASSES[1]


def frame_class():
    return _CLASSES[2]


_SLOTS = {}  # class -> the names of its slots (see _slot_names)


def _slot_names(cls):
    """The attribute names of every slot of cls and its bases, base classes
    first (private ``__x`` names as Python mangles them; ``__dict__`` and
    ``__weakref__`` are not state)."""
    names = _SLOTS.get(cls)
    if names is None:
        names = []
        for klass in reversed(cls.__mro__):
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name in ("__dict__", "__weakref__"):
                    continue
                if name.startswith("__") and not name.endswith("__"):
                    name = f"_{klass.__name__.lstrip('_')}{name}"
                if name not in names:
                    names.append(name)
        names = _SLOTS[cls] = tuple(names)
    return names


def become(obj, out):
    """obj takes out's data, labels and name (every slot of its class):
    what ``inplace=True`` does to the object the user holds."""
    for name in _slot_names(type(obj)):
        value = getattr(out, name, _UNSET)
        if value is not _UNSET:
            object.__setattr__(obj, name, value)


_UNSET = object()


def takes_inplace(deprecated):
    """A method decorator for pandas' ``inplace=`` keyword (keyword only):
    with inplace=True the object takes the result (``become``) and is
    returned (pandas 3.1's fillna, where, clip, replace ...), or, for the
    methods pandas 3.1 deprecates it on (deprecated=True: dropna,
    sort_values, drop ...), a DeprecationWarning in pandas' words is issued
    and None returned, as pandas does."""
    import functools

    def wrap(fn):
        @functools.wraps(fn)
        def method(self, *args, inplace=False, **kwargs):
            inplace = check_inplace(inplace)
            out = fn(self, *args, **kwargs)
            if not inplace:
                return out
            become(self, out)
            if not deprecated:
                return self
            warn_inplace(self, fn.__name__, stacklevel=3)
            return None
        return method
    return wrap


def check_ascending(value, series=False):
    """sort_values / sort_index's ascending, as pandas' validate_ascending:
    a bool (an int too) or a list / tuple of them, one for a Series; its
    ValueError for anything else (None, text).  Returns them as bools (a
    list for a list or tuple; for a Series its one flag)."""
    import numpy as np

    from zambezi.errors import InvalidValueError

    flags = value if isinstance(value, (list, tuple)) else [value]
    if series and isinstance(value, (list, tuple)) and len(value) != 1:
        raise InvalidValueError(f"Length of ascending ({len(value)}) must be 1 for Series")
    for v in flags:
        if not isinstance(v, (bool, int, np.bool_, np.integer)):
            raise InvalidValueError(f'For argument "ascending" expected type bool, received '
                                    f"type {type(v).__name__}.")
    if series:
        return bool(flags[0])
    return [bool(v) for v in value] if isinstance(value, (list, tuple)) else bool(value)


def check_bool(value, name, none_allowed=True):
    """value, the bool argument `name`, as given; pandas' ValueError for
    anything else (None too unless none_allowed), as pandas'
    validate_bool_kwarg."""
    import numpy as np

    from zambezi.errors import InvalidValueError

    if not (isinstance(value, (bool, np.bool_)) or (none_allowed and value is None)):
        raise InvalidValueError(
            f'For argument "{name}" expected type bool, received type {type(value).__name__}.')
    return value


def check_inplace(inplace):
    """inplace as a bool; pandas' ValueError for anything else."""
    return bool(check_bool(inplace, "inplace", none_allowed=False))


def warn_inplace(obj, method, stacklevel=4):
    """pandas 3.1's deprecation of inplace= on method, in its words (its
    Pandas4Warning is a DeprecationWarning)."""
    import warnings

    kind = "DataFrame" if obj._ndim == 2 else "Series"
    warnings.warn(f"The inplace keyword in {kind}.{method} is deprecated and will be removed "
                  "in a future version (PDEP-8).", DeprecationWarning, stacklevel=stacklevel)


def is_series(obj):
    return isinstance(obj, NDFrame) and obj._ndim == 1


def is_frame(obj):
    return isinstance(obj, NDFrame) and obj._ndim == 2


class NDFrame:
    """What Series and DataFrame share: the constructor hooks and the three
    ways of building a result (see the module docstring)."""

    __slots__ = ()
    _ndim = 0

    @property
    def ndim(self):
        """1 for a Series, 2 for a DataFrame.

        Examples
        --------
        >>> zb.Series([1, 2]).ndim, zb.DataFrame({"a": [1]}).ndim
        (1, 2)
        """
        return self._ndim

    @property
    def size(self):
        """The number of values: rows, times columns for a DataFrame.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).size, zb.DataFrame({"a": [1, 2], "b": [3, 4]}).size
        (3, 4)
        """
        return len(self) * (len(self._table.names) if self._ndim == 2 else 1)

    @property
    def empty(self):
        """Whether there is nothing in it: no rows (or, for a DataFrame, no
        columns), as pandas.

        Examples
        --------
        >>> zb.Series([], dtype="int64").empty, zb.DataFrame({"a": [1]}).empty
        (True, False)
        """
        return len(self) == 0 or (self._ndim == 2 and len(self._table.names) == 0)

    def __finalize__(self, other, method=None, **kwargs):
        """self, as pandas' hook that copies metadata (``attrs``, ``flags``)
        from other onto a result: zambezi objects carry none.  pandas'
        own functions (``pd.pivot_table`` on a zambezi frame, as Dask
        calls it) end with it.

        Examples
        --------
        >>> s = zb.Series([1, 2])
        >>> s.__finalize__(zb.Series([3])) is s
        True
        """
        return self

    def squeeze(self, axis=None):
        """Axes of length one squeezed out, as pandas: a DataFrame of one
        column as that Series, of one row as that row, of one value (or a
        Series of one row) as the scalar; axis (0 or 1) squeezes only
        that axis; anything else unchanged.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2]}).squeeze().to_list()
        [1, 2]
        >>> zb.DataFrame({"a": [7]}).squeeze()
        7
        """
        if axis not in (None, 0, 1, "index", "columns"):
            from zambezi.errors import InvalidValueError
            raise InvalidValueError(f"squeeze: axis must be None, 0 or 1, not {axis!r}")
        axis = {"index": 0, "columns": 1}.get(axis, axis)
        if self._ndim == 1:
            return self.iloc[0] if len(self) == 1 and axis in (None, 0) else self
        ncols, nrows = len(self._table.names), len(self)
        if axis is None and ncols == 1 and nrows == 1:
            return self.iloc[0, 0]
        if axis in (None, 1) and ncols == 1:
            return self.iloc[:, 0]
        if axis in (None, 0) and nrows == 1:
            return self.iloc[0]
        return self

    @property
    def _constructor(self):
        return type(self)

    @property
    def _constructor_sliced(self):
        return _CLASSES[1]

    @property
    def _constructor_expanddim(self):
        return _CLASSES[2]

    @property
    def _engine(self):
        """The engine object holding the data: a Column or a Table."""
        raise NotImplementedError

    @classmethod
    def _from_engine(cls, data, *args):
        """A new object over engine data, rows numbered 0..n-1."""
        raise NotImplementedError

    def _like(self, data, *args):
        """A result with the same rows as self over engine data."""
        raise NotImplementedError

    def _select_rows(self, rows, data=None):
        """Some of self's rows: rows is a selection from zambezi._indexing
        (slice_rows, take_rows, filter_rows), with their labels.  data:
        the selected rows when the engine already made them (a sort that
        returns its values with the permutation), else they are gathered."""
        out = self._like(rows.apply(self._engine) if data is None else data)
        e = out._engine
        if rows.kind == "filter" and hasattr(self._index, "_range"):
            # a mask keeping every row or none: a RangeIndex stays one (pandas 3),
            # a new object (its name can be set apart)
            kept = e.num_rows if hasattr(e, "num_rows") else e.length
            if kept in (0, len(self._index)):
                rows = type(rows)("slice", 0, kept)
        out._index = self._index._take(rows)
        return out

    def _with_index(self, index):
        """self (a new object sharing the data) with other row labels."""
        out = self._like(self._engine)
        out._index = index
        return out

    @property
    def loc(self):
        """Rows (and, for a frame, columns) by label: ``loc[label]``,
        ``loc[[labels]]``, ``loc[a:b]`` (both ends included; date strings
        on a timestamp index name periods), ``loc[mask]``,
        ``loc[rows, cols]``; assigning through it sets values, and
        assigning to one label the index lacks appends a row so labelled
        (columns not given are missing there; an integer or bool column
        keeps its dtype with a null, where pandas turns it into float64).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Lusaka"], "fare": [7.0, 3.5, 9.0]})
        >>> df = df.set_index("city")
        >>> df.loc["Tete", "fare"]
        3.5
        >>> df.loc[["Lusaka", "Maun"], "fare"].to_list()
        [9.0, 7.0]
        >>> df.loc[df["fare"] > 5, "fare"] = 0.0
        >>> df["fare"].to_list()
        [0.0, 3.5, 0.0]
        >>> df.loc["Kasane"] = 4.5
        >>> df.index.to_list()
        ['Maun', 'Tete', 'Lusaka', 'Kasane']
        """
        from zambezi import _indexing

        return _indexing._LocIndexer(self)

    @property
    def at(self):
        """One value by label: ``s.at[label]``, ``df.at[label, column]``.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2]}, index=["x", "y"]).at["y", "a"]
        2
        """
        from zambezi import _indexing

        return _indexing._AtIndexer(self)

    @property
    def iat(self):
        """One value by position: ``s.iat[i]``, ``df.iat[i, j]``.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2], "b": [3, 4]}).iat[1, 0]
        2
        """
        from zambezi import _indexing

        return _indexing._IAtIndexer(self)

    @property
    def index(self):
        """The row labels: a RangeIndex (0..n-1, no memory) unless set
        otherwise (``set_index``, ``index=``, selections keep theirs).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [5, 6, 7]})
        >>> df.index
        RangeIndex(start=0, stop=3, step=1)
        >>> df[df["a"] > 5].index.to_list()
        [1, 2]
        """
        return self._index

    @index.setter
    def index(self, value):
        from zambezi import index as _ix

        self._index = _ix.ensure_index(value, len(self), "index")

    # -- pickling and copying (zambezi.io.pickle) ---------------------------
    def __getstate__(self):
        """(instance dict or None, {slot: value}) -- every slot that is set,
        of every class in the hierarchy; the engine objects among the values
        pickle their buffers themselves (out of band from protocol 5)."""
        slots = {}
        for name in _slot_names(type(self)):
            try:
                slots[name] = object.__getattribute__(self, name)
            except AttributeError:  # a slot that was never set
                pass
        return (getattr(self, "__dict__", None) or None, slots)

    def _take_over(self, other):
        """Become other (same class): every slot of self is set from other's,
        for operations that change an object in place (loc enlargement)."""
        self.__setstate__(other.__getstate__())

    def __setstate__(self, state):
        inst, slots = state
        if inst:
            self.__dict__.update(inst)
        for name, value in slots.items():
            object.__setattr__(self, name, value)
