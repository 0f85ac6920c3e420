"""pandas' small conveniences of Series and DataFrame, each a few engine
calls: ``Series.equals``, ``item``, ``hasnans``, ``is_unique``, ``T`` /
``transpose``, ``dtypes``, ``axes``, ``repeat``, ``pop``, ``divmod`` /
``rdivmod``, ``case_when``; ``reindex_like``, ``convert_dtypes`` and
``infer_objects`` of both; ``DataFrame.isetitem``.
"""

import numpy as np

from zambezi import _align, _base, _core, _indexing
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError, ZambeziIndexError


def _plain_reindex(method, limit, tolerance):
    if method is not None or limit is not None or tolerance is not None:
        raise UnsupportedError("reindex_like: method, limit and tolerance are not supported")


def _converted(s, convert_integer):
    """convert_dtypes of one Series: a float column whose values are all
    whole numbers (NaN counting as missing) becomes int64 with
    convert_integer, as pandas makes it Int64; every other column is kept
    (zambezi's dtypes already hold missing values: pandas' nullable ones)."""
    if not convert_integer or s.dtype not in ("float64", "float32"):
        return s
    s = s.mask(s.isna())  # NaN is missing, as in pandas' Float64 / Int64
    valid = s.dropna()
    if len(valid) and not (bool((valid.round() == valid).all()) and
                           float(valid.abs().max()) < 2.0 ** 63):
        return s
    return s.astype("int64")


def _convert_args(infer_objects, convert_string, convert_boolean, dtype_backend):
    if dtype_backend not in ("numpy_nullable", "pyarrow"):
        raise InvalidValueError(f"convert_dtypes: dtype_backend must be 'numpy_nullable' or "
                                f"'pyarrow', not {dtype_backend!r}")


_CONVERT_DOC = """{what} with pandas' ``convert_dtypes`` rules where they change
        a zambezi column: a float column whose values are all whole numbers
        becomes int64 (pandas: Int64; with convert_integer, the
        default), NaN becoming missing.  Other
        columns are kept: zambezi's dtypes already hold missing values
        (pandas' nullable Int64, boolean, string and Float64), so the flags
        and dtype_backend change nothing else.

        Examples
        --------
        {example}"""


class SeriesConveniences:
    """Small Series methods (a mixin of zambezi.Series)."""

    __slots__ = ()

    def convert_dtypes(self, infer_objects=True, convert_string=True, convert_integer=True,
                       convert_boolean=True, convert_floating=True,
                       dtype_backend="numpy_nullable"):
        _convert_args(infer_objects, convert_string, convert_boolean, dtype_backend)
        return _converted(self, convert_integer)

    convert_dtypes.__doc__ = _CONVERT_DOC.format(
        what="The Series", example=""">>> zb.Series([1.0, None, 3.0]).convert_dtypes().to_list()
        [1, None, 3]""")

    def infer_objects(self, copy=None):
        """The Series as it is: zambezi has no object dtype whose values
        would need a better one (pandas' ``infer_objects`` turns object
        columns of numbers or dates into those dtypes).

        Examples
        --------
        >>> zb.Series([1, 2]).infer_objects().dtype
        'int64'
        """
        return self.copy()

    def equals(self, other):
        """Whether other is a Series with the same dtype, labels and values,
        missing values in the same places (the names may differ, as pandas).

        Examples
        --------
        >>> s = zb.Series([1.0, None])
        >>> s.equals(zb.Series([1.0, None])), s.equals(zb.Series([1.0, 2.0]))
        (True, False)
        """
        from zambezi._frame_arith import same_values

        if not _base.is_series(other) or len(self) != len(other):
            return False
        if self._col.dtype != other._col.dtype:
            return False
        return _align.same_labels(self._index, other._index) and \
            same_values(self._col, other._col)

    def item(self):
        """The one value of a one-row Series (a missing value is nan), as
        pandas; any other length raises ValueError.

        Examples
        --------
        >>> zb.Series([7]).item()
        7
        """
        if len(self) != 1:
            raise InvalidValueError("can only convert an array of size 1 to a Python scalar")
        v = self.to_list()[0]
        return float("nan") if v is None else v

    @property
    def hasnans(self):
        """Whether some value is missing.

        Examples
        --------
        >>> zb.Series([1.0, None]).hasnans
        True
        """
        return bool(self.isna().any())

    @property
    def is_unique(self):
        """Whether no value repeats (missing values count as one value).

        Examples
        --------
        >>> zb.Series([1, 2, 2]).is_unique
        False
        """
        return int(self.nunique(dropna=False)) == len(self)

    @property
    def T(self):
        """The Series itself (a Series has one axis), as pandas.

        Examples
        --------
        >>> zb.Series([1, 2]).T.to_list()
        [1, 2]
        """
        return self

    def transpose(self, *args, **kwargs):
        """The Series itself (see ``T``).

        Examples
        --------
        >>> zb.Series([1, 2]).transpose().to_list()
        [1, 2]
        """
        return self

    @property
    def dtypes(self):
        """The dtype (as ``dtype``; pandas has both).

        Examples
        --------
        >>> zb.Series([1.5]).dtypes
        'float64'
        """
        return self.dtype

    @property
    def axes(self):
        """[the index], as pandas.

        Examples
        --------
        >>> zb.Series([1, 2]).axes[0].to_list()
        [0, 1]
        """
        return [self.index]

    def repeat(self, repeats, axis=None):
        """Each value (and its label) repeated ``repeats`` times in a row:
        one count for all, or one per value.

        Examples
        --------
        >>> zb.Series(["a", "b"]).repeat([1, 2]).to_list()
        ['a', 'b', 'b']
        """
        if axis is not None:   # as pandas (numpy's repeat passes axis)
            raise InvalidValueError("the 'axis' parameter is not supported in the pandas "
                                    "implementation of repeat()")
        counts = np.asarray(repeats, dtype=np.int64)
        if counts.ndim and len(counts) != len(self):
            raise InvalidValueError(f"repeat: {len(counts)} counts for {len(self)} values")
        if (counts < 0).any():
            raise InvalidValueError("repeat: counts must not be negative")
        pos = np.repeat(np.arange(len(self), dtype=np.int64), counts)
        return self._select_rows(_indexing.take_rows(_core.column_from_buffer(pos)))

    def pop(self, item):
        """The value at label ``item``, removed from the Series (in place).

        Examples
        --------
        >>> s = zb.Series([1, 2, 3], index=["a", "b", "c"])
        >>> s.pop("b"), s.to_list()
        (2, [1, 3])
        """
        rest = self.drop(item)
        if len(rest) != len(self) - 1:
            raise ZambeziIndexError(f"pop: the label {item!r} is not unique")
        value = self[item]
        self._col, self._index = rest._col, rest._index
        return float("nan") if value is None else value

    def divmod(self, other, level=None, fill_value=None, axis=0):
        """(self // other, self % other), as pandas' ``divmod`` (also
        Python's ``divmod(s, other)``); level, fill_value and axis as for
        ``floordiv``.

        Examples
        --------
        >>> q, r = zb.Series([7, 8]).divmod(3)
        >>> q.to_list(), r.to_list()
        ([2, 2], [1, 2])
        """
        return (self.floordiv(other, level, fill_value, axis),
                self.mod(other, level, fill_value, axis))

    def rdivmod(self, other, level=None, fill_value=None, axis=0):
        """(other // self, other % self).

        Examples
        --------
        >>> q, r = zb.Series([3, 5]).rdivmod(17)
        >>> q.to_list(), r.to_list()
        ([5, 3], [2, 2])
        """
        return (self.rfloordiv(other, level, fill_value, axis),
                self.rmod(other, level, fill_value, axis))

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def reindex_like(self, other, method=None, copy=None, limit=None, tolerance=None):
        """This Series on other's row labels (``reindex(other.index)``).

        Examples
        --------
        >>> a = zb.Series([1, 2], index=["x", "y"])
        >>> a.reindex_like(zb.Series([0, 0], index=["y", "z"])).to_list()
        [2, None]
        """
        _plain_reindex(method, limit, tolerance)
        return self.reindex(other.index)

    def case_when(self, caselist):
        """Values replaced where conditions hold, the first matching
        condition winning: ``caselist`` is a list of (condition, replacement)
        pairs; a condition is a bool Series or array, or a function of this
        Series giving one; a replacement a scalar, a Series or array, or a
        function.  Rows no condition matches keep their value, as pandas'
        ``case_when`` (applied as masks from the last pair to the first).

        Examples
        --------
        >>> s = zb.Series([1, 5, 12])
        >>> s.case_when([(s > 10, 100), (lambda x: x > 3, 50)]).to_list()
        [1, 50, 100]
        """
        if not isinstance(caselist, list):
            raise DTypeError(f"The caselist argument should be a list; instead got "
                             f"{type(caselist)}")
        if not caselist:
            raise InvalidValueError("provide at least one boolean condition, with a "
                                    "corresponding replacement.")
        for num, entry in enumerate(caselist):
            if not isinstance(entry, tuple):
                raise DTypeError(f"Argument {num} must be a tuple; instead got {type(entry)}.")
            if len(entry) != 2:
                raise InvalidValueError(f"Argument {num} must have length 2; a condition "
                                        f"and replacement; instead got length {len(entry)}.")
        pairs = [(c(self) if callable(c) else c, r(self) if callable(r) else r)
                 for c, r in caselist]
        out = self
        for position in range(len(pairs) - 1, -1, -1):
            cond, repl = pairs[position]
            try:
                out = out.mask(cond, repl)
            except Exception as error:
                raise InvalidValueError(f"Failed to apply condition{position} and "
                                        f"replacement{position}.") from error
        return out


class FrameConveniences:
    """Small DataFrame methods (a mixin of zambezi.DataFrame)."""

    __slots__ = ()

    def convert_dtypes(self, infer_objects=True, convert_string=True, convert_integer=True,
                       convert_boolean=True, convert_floating=True,
                       dtype_backend="numpy_nullable"):
        _convert_args(infer_objects, convert_string, convert_boolean, dtype_backend)
        out = self.copy()
        for i, name in enumerate(self._table.names):
            col = self._table.column(i)
            if col.dtype in ("float64", "float32"):
                out.isetitem(i, _converted(self.iloc[:, i], convert_integer))
        return out

    convert_dtypes.__doc__ = _CONVERT_DOC.format(
        what="The frame's columns", example=""">>> df = zb.DataFrame({"n": [1.0, None], "x": [0.5, 2.0],
        ...                    "s": ["a", None]})
        >>> df.convert_dtypes().dtypes.to_dict()
        {'n': 'int64', 'x': 'float64', 's': 'string'}""")

    def infer_objects(self, copy=None):
        """The frame as it is: zambezi has no object dtype whose values
        would need a better one (pandas' ``infer_objects`` turns object
        columns of numbers or dates into those dtypes).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2]}).infer_objects().dtypes.to_dict()
        {'a': 'int64'}
        """
        return self.copy()

    @property
    def axes(self):
        """[the index, the columns], as pandas.

        Examples
        --------
        >>> zb.DataFrame({"a": [1]}).axes[1].to_list()
        ['a']
        """
        return [self.index, self.columns]

    def reindex_like(self, other, method=None, copy=None, limit=None, tolerance=None):
        """This frame on other's row and column labels.

        Examples
        --------
        >>> a = zb.DataFrame({"x": [1, 2], "y": [3, 4]})
        >>> a.reindex_like(zb.DataFrame({"y": [0]}, index=[1])).to_dict("list")
        {'y': [4]}
        """
        _plain_reindex(method, limit, tolerance)
        return self.reindex(index=other.index, columns=other.columns)

    def isetitem(self, loc, value):
        """Set the column at position ``loc`` (or the columns at a list of
        positions) to value, as pandas: a DataFrame or a 2-D array gives one
        column per position, in order; any other value (Series, array, list,
        scalar) goes into each position as ``df[name] = value`` would.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [3, 4]})
        >>> df.isetitem(1, ["x", "y"])
        >>> df["b"].to_list()
        ['x', 'y']
        """
        names = list(self._table.names)
        locs = [loc] if isinstance(loc, (int, np.integer)) else list(loc)
        for p in locs:
            if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
                raise InvalidValueError(f"isetitem: positions must be integers, not {p!r}")
            if not -len(names) <= p < len(names):
                raise ZambeziIndexError(f"isetitem: position {p} is out of bounds for "
                                        f"{len(names)} columns")
        if _base.is_frame(value):
            if len(locs) != value.shape[1]:
                raise InvalidValueError(f"Got {len(locs)} positions but value has "
                                        f"{value.shape[1]} columns.")
            parts = [value.iloc[:, i] for i in range(len(locs))]
        elif isinstance(value, np.ndarray) and value.ndim == 2:   # a column per position
            if value.shape[1] != len(locs):
                raise InvalidValueError(f"Got {len(locs)} positions but value has "
                                        f"{value.shape[1]} columns.")
            parts = [value[:, i] for i in range(len(locs))]
        else:
            parts = [value] * len(locs)
        for p, part in zip(locs, parts):
            self[names[p]] = part
