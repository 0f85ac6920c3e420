"""The everyday methods of pandas' Index that work on the labels as values:
membership and missing labels (isin, isna / notna, hasnans, dropna,
fillna), repeats (duplicated, value_counts, factorize), building new
indexes (append, insert, delete, drop, take, repeat, where / putmask),
ordering (sort_values, argsort, argmin / argmax, searchsorted) and
element-wise ones (map, round, diff).

Each is one engine operation on the labels: the Series of the labels
(default row labels) runs it, or a row selection (zambezi._indexing) picks
labels without copying them.  The class is a mixin of zambezi.index.Index;
a MultiIndex takes the positional ones (take, delete, repeat, dropna,
append, duplicated, drop of whole tuples is not supported) and refuses the
rest with UnsupportedError.
"""

import numpy as np

from zambezi import _convert, _core, _indexing
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def _is_list_like(x):
    return isinstance(x, (list, tuple, set, frozenset, np.ndarray)) or hasattr(x, "to_numpy")


def _floats_for_missing(col):
    """col, as float64 when it holds integers: pandas' integer labels become
    float64 when a missing label joins them."""
    return _core.cast(col, "float64") if col.dtype.startswith(("int", "uint")) else col


def _check_axis(axis):
    if axis not in (None, 0):
        raise ValueError(f"`axis` must be fewer than the number of dimensions (1), not {axis!r}")


class IndexMethods:
    """Index methods on the labels as values (a mixin of zambezi.Index).

    Examples
    --------
    >>> zb.Index([3, 1, 3]).duplicated().tolist()
    [False, False, True]
    """

    __slots__ = ()

    # -- helpers -------------------------------------------------------------
    def _one_level(self, what):
        if self.nlevels != 1:
            raise UnsupportedError(f"Index.{what}: not supported on a MultiIndex yet")
        return self._levels()[0]

    def _labels(self, what, col=None):
        """The Series of the labels (or of col, in their place), numbered
        0..n-1 (a single level)."""
        from zambezi import _base

        return _base.series_class()._from_column(self._one_level(what) if col is None else col,
                                                 None)

    def _through_series(self, what, fn, col=None):
        """An Index, with this one's name, of what fn makes of the Series of
        the labels (see _labels)."""
        return self._of_column(fn(self._labels(what, col))._col)

    def _of_column(self, col):
        """An Index of col's labels with this index's name."""
        from zambezi.index import Index

        return Index._from_columns([col], self._names)

    def _at_positions(self, positions, what):
        return self._take(_indexing.take_rows(_indexing.positions_column(positions, len(self),
                                                                         what)))

    def _where_mask(self, mask, what):
        return self._take(_indexing.filter_rows(_indexing.mask_column(mask, len(self), what)))

    # -- missing labels and membership ---------------------------------------
    def isin(self, values, level=None):
        """A numpy bool array: whether each label is among values (a
        MultiIndex: of the level named by ``level``).

        Examples
        --------
        >>> zb.Index(["a", "b", "c"]).isin(["c", "a"])
        array([ True, False,  True])
        """
        if level is not None:
            return self.get_level_values(level).isin(values)
        from zambezi.index import Index

        if isinstance(values, Index):  # its column, missing labels matched as pandas
            values = values._labels("isin")
        return self._labels("isin").isin(values).to_numpy().astype(bool)

    def isnull(self):
        """Alias of isna.

        Examples
        --------
        >>> zb.Index([1.0, None]).isnull()
        array([False,  True])
        """
        return self.isna()

    def notna(self):
        """A numpy bool array: whether each label is present.

        Examples
        --------
        >>> zb.Index([1.0, None]).notna()
        array([ True, False])
        """
        return ~self.isna()

    notnull = notna

    @property
    def hasnans(self):
        """Whether any label is missing.

        Examples
        --------
        >>> zb.Index([1.0, None]).hasnans
        True
        """
        return bool(self.isna().any())

    def dropna(self, how="any"):
        """The labels without missing ones (a MultiIndex: the tuples with
        any / all levels missing, as ``how`` says).

        Examples
        --------
        >>> zb.Index(["a", None, "b"]).dropna().to_list()
        ['a', 'b']
        """
        if how not in ("any", "all"):
            raise InvalidValueError(f"dropna: how must be 'any' or 'all', not {how!r}")
        if self.nlevels == 1:
            missing = self.isna()
        else:
            each = [np.asarray(_convert.to_numpy(_core.isnull(c)), dtype=bool)
                    for c in self._levels()]
            missing = np.logical_or.reduce(each) if how == "any" else np.logical_and.reduce(each)
        if not missing.any():
            return self
        return self._where_mask(~missing, "Index.dropna")

    def fillna(self, value):
        """The labels with missing ones replaced by value.

        Examples
        --------
        >>> zb.Index([1.0, None, 3.0]).fillna(0).to_list()
        [1.0, 0.0, 3.0]
        """
        if _is_list_like(value):
            raise InvalidValueError("Index.fillna: value must be a scalar")
        return self._through_series("fillna", lambda s: s.fillna(value))

    # -- repeats ------------------------------------------------------------------
    def duplicated(self, keep="first"):
        """A numpy bool array: whether each label repeats an earlier one
        (keep="last": a later one; False: every repeated label).

        Examples
        --------
        >>> zb.Index([1, 2, 1, 1]).duplicated()
        array([False, False,  True,  True])
        """
        if self.nlevels == 1:
            return self._labels("duplicated").duplicated(keep=keep).to_numpy().astype(bool)
        return self.to_frame(index=False).duplicated(keep=keep).to_numpy().astype(bool)

    def value_counts(self, normalize=False, sort=True, ascending=False, bins=None, dropna=True):
        """How often each label occurs: a Series named "count" (or
        "proportion") indexed by the distinct labels, as Series.value_counts.

        Examples
        --------
        >>> zb.Index(["a", "b", "a"]).value_counts().to_dict()
        {'a': 2, 'b': 1}
        """
        self._one_level("value_counts")
        if bins is not None:
            raise UnsupportedError("Index.value_counts: bins is not supported")
        return self.to_series().value_counts(normalize=normalize, sort=sort,
                                             ascending=ascending, dropna=dropna)

    def factorize(self, sort=False, use_na_sentinel=True):
        """(codes, uniques): an int64 numpy array of each label's position
        among the distinct labels (missing ones -1), and those labels as an
        Index, in order of first appearance (sorted when ``sort``).

        Examples
        --------
        >>> codes, uniques = zb.Index(["b", "a", "b"]).factorize()
        >>> codes.tolist(), uniques.to_list()
        ([0, 1, 0], ['b', 'a'])
        """
        if not use_na_sentinel:
            raise UnsupportedError("Index.factorize: use_na_sentinel=False is not supported")
        uniques = self.unique().dropna()
        if sort:
            uniques = uniques.sort_values()
        codes = np.asarray(uniques.get_indexer(self), dtype=np.int64)
        from zambezi.index import RangeIndex

        if isinstance(self, RangeIndex):  # pandas keeps a RangeIndex's name
            return codes, uniques
        return codes, uniques.rename(None)  # pandas' uniques carry no name

    # -- new indexes from this one ----------------------------------------------
    def append(self, other):
        """The labels followed by those of other (an Index or a list of
        them); numbers of different dtypes meet in a common one, as concat.
        The name is kept when every index has it.

        Examples
        --------
        >>> zb.Index([1, 2]).append(zb.Index([3])).to_list()
        [1, 2, 3]
        """
        from zambezi import _concat
        from zambezi.index import Index, ensure_index

        others = list(other) if isinstance(other, (list, tuple)) else [other]
        if not all(isinstance(o, Index) or type(o).__name__.endswith("Index")
                   for o in others):  # a list of labels is not an Index to append
            raise DTypeError("all inputs must be Index")
        idxs = [self] + [ensure_index(o) for o in others]
        if any(i.nlevels != self.nlevels for i in idxs):
            raise UnsupportedError("Index.append: indexes of different numbers of levels")
        cols = [_concat._concat_columns([i._levels()[lv] for i in idxs],
                                        f"Index.append (level {lv})")
                for lv in range(self.nlevels)]
        same = all(list(i._names) == list(self._names) for i in idxs)
        return Index._from_columns(cols, self._names if same else [None] * self.nlevels)

    def insert(self, loc, item):
        """The labels with item inserted at position loc (negative counts
        from the end), as pandas.

        Examples
        --------
        >>> zb.Index(["a", "c"]).insert(1, "b").to_list()
        ['a', 'b', 'c']
        """
        from zambezi import _concat
        from zambezi.index import Index

        col = self._one_level("insert")
        n = len(self)
        if not isinstance(loc, (int, np.integer)) or not -n <= loc <= n:
            raise IndexError(f"Index.insert: loc {loc!r} is out of bounds for {n} labels")
        loc = n + int(loc) if loc < 0 else int(loc)  # numpy.insert's rule
        if item is None or (isinstance(item, float) and np.isnan(item)):
            col = _floats_for_missing(col)
            one = _convert.nulls_like(col, 1)  # a missing label of the labels' own dtype
        else:
            one = Index([item])._levels()[0]
        parts = [col.slice(0, loc), one, col.slice(loc, n - loc)]
        return self._of_column(_concat._concat_columns(parts, "Index.insert"))

    def delete(self, loc):
        """The labels without those at position(s) loc.

        Examples
        --------
        >>> zb.Index([10, 20, 30]).delete([0, 2]).to_list()
        [20]
        """
        n = len(self)
        drop = np.asarray([loc] if np.ndim(loc) == 0 else loc)
        if drop.size and drop.dtype.kind not in "iu":
            raise InvalidValueError("Index.delete: loc must be integer positions")
        keep = np.ones(n, dtype=bool)
        try:
            keep[drop.astype(np.int64)] = False
        except IndexError:
            raise IndexError(f"Index.delete: a position in {loc!r} is out of bounds for {n} "
                             "labels") from None
        return self._where_mask(keep, "Index.delete")

    def drop(self, labels, errors="raise"):
        """The labels without those in labels; a label not found raises
        KeyError unless errors="ignore".

        Examples
        --------
        >>> zb.Index(["a", "b", "c"]).drop(["a"]).to_list()
        ['b', 'c']
        """
        from zambezi.index import Index, IndexKeyError

        if errors not in ("raise", "ignore"):
            raise InvalidValueError(f"drop: errors must be 'raise' or 'ignore', not {errors!r}")
        self._one_level("drop")
        wanted = list(labels) if _is_list_like(labels) else [labels]
        hit = self.isin(wanted)
        if errors == "raise" and wanted:
            found = Index(wanted).isin(self._labels("drop"))
            if not found.all():
                missing = [w for w, f in zip(wanted, found) if not f]
                raise IndexKeyError(f"{missing!r} not found in axis")
        return self._where_mask(~hit, "Index.drop") if hit.any() else self

    def take(self, indices, axis=0, allow_fill=True, fill_value=None):
        """The labels at positions indices (negative count from the end).

        Examples
        --------
        >>> zb.Index(["a", "b", "c"]).take([2, 0]).to_list()
        ['c', 'a']
        """
        if fill_value is not None:
            raise UnsupportedError("Index.take: fill_value is not supported")
        return self._at_positions(indices, "Index.take")

    def repeat(self, repeats, axis=None):
        """Each label repeated repeats times (an int or one count per label).

        Examples
        --------
        >>> zb.Index(["a", "b"]).repeat(2).to_list()
        ['a', 'a', 'b', 'b']
        """
        if axis is not None:  # numpy.repeat(index, n, axis=...) lands here
            raise ValueError("the 'axis' parameter is not supported")
        pos = np.repeat(np.arange(len(self), dtype=np.int64), repeats)
        return self._at_positions(pos, "Index.repeat")

    def where(self, cond, other=None):
        """The labels where cond is true, other (missing by default) elsewhere.

        Examples
        --------
        >>> zb.Index([1, 2, 3]).where([True, False, True], 0).to_list()
        [1, 0, 3]
        """
        cond = np.asarray(cond.to_numpy() if hasattr(cond, "to_numpy") else cond, dtype=bool)
        col = self._one_level("where")
        if other is None and not cond.all():
            col = _floats_for_missing(col)
        return self._through_series("where", lambda s: s.where(cond, other), col)

    def putmask(self, mask, value):
        """The labels with value where mask is true.

        Examples
        --------
        >>> zb.Index([1, 2, 3]).putmask([False, True, False], 9).to_list()
        [1, 9, 3]
        """
        mask = np.asarray(mask.to_numpy() if hasattr(mask, "to_numpy") else mask, dtype=bool)
        return self.where(~mask, value)

    # -- order --------------------------------------------------------------------
    def _order(self, ascending, na_position, what):
        """The positions of the labels in sorted order (a stable sort)."""
        s = self._labels(what).sort_values(ascending=ascending, na_position=na_position)
        return np.asarray(s.index.to_numpy(), dtype=np.int64)

    def sort_values(self, return_indexer=False, ascending=True, na_position="last", key=None):
        """The labels sorted (stable; missing ones first or last), and the
        positions they came from when return_indexer.

        Examples
        --------
        >>> zb.Index([3, 1, 2]).sort_values().to_list()
        [1, 2, 3]
        """
        if key is not None:
            keyed = key(self)
            from zambezi.index import ensure_index

            order = ensure_index(keyed)._order(ascending, na_position, "sort_values")
        else:
            order = self._order(ascending, na_position, "sort_values")
        out = self._at_positions(order, "Index.sort_values")
        return (out, order) if return_indexer else out

    def argsort(self, *args, **kwargs):
        """The positions that sort the labels (missing ones last).

        Examples
        --------
        >>> zb.Index([3, 1, 2]).argsort().tolist()
        [1, 2, 0]
        """
        return self._order(True, "last", "argsort")

    def argmin(self, axis=None, skipna=True):
        """The position of the smallest label.

        Examples
        --------
        >>> zb.Index([3, 1, 2]).argmin()
        np.int64(1)
        """
        _check_axis(axis)
        return self._labels("argmin").argmin(skipna=skipna)

    def argmax(self, axis=None, skipna=True):
        """The position of the largest label.

        Examples
        --------
        >>> zb.Index([3, 1, 2]).argmax()
        np.int64(0)
        """
        _check_axis(axis)
        return self._labels("argmax").argmax(skipna=skipna)

    def searchsorted(self, value, side="left", sorter=None):
        """Where value would go to keep the (sorted) labels sorted, as
        Series.searchsorted.

        Examples
        --------
        >>> zb.Index([1, 3, 5]).searchsorted(4)
        2
        """
        return self._labels("searchsorted").searchsorted(value, side=side, sorter=sorter)

    # -- element-wise ------------------------------------------------------------
    def map(self, mapper, na_action=None):
        """Each label mapped by a function, dict or Series, as Series.map.

        Examples
        --------
        >>> zb.Index([1, 2]).map({1: "one", 2: "two"}).to_list()
        ['one', 'two']
        """
        return self._through_series("map", lambda s: s.map(mapper, na_action=na_action))

    def round(self, decimals=0):
        """The labels rounded to decimals places.

        Examples
        --------
        >>> zb.Index([1.26, 2.5]).round(1).to_list()
        [1.3, 2.5]
        """
        return self._through_series("round", lambda s: s.round(decimals))

    def diff(self, periods=1):
        """Each label minus the one periods before it (float64 for numbers).

        Examples
        --------
        >>> zb.Index([1, 4, 9]).diff().to_list()
        [None, 3.0, 5.0]
        """
        return self._through_series("diff", lambda s: s.diff(periods))

    def any(self, *args, **kwargs):
        """Whether any label is true (non-zero).

        Examples
        --------
        >>> zb.Index([0, 2]).any()
        True
        """
        return bool(self._labels("any").any())

    def all(self, *args, **kwargs):
        """Whether every label is true (non-zero).

        Examples
        --------
        >>> zb.Index([0, 2]).all()
        False
        """
        return bool(self._labels("all").all())

    # -- small -----------------------------------------------------------------
    def item(self):
        """The one label of a one-label index (ValueError otherwise).

        Examples
        --------
        >>> zb.Index([7]).item()
        7
        """
        if len(self) != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.to_list()[0]

    def identical(self, other):
        """equals, and the same names, dtype and kind of index.

        Examples
        --------
        >>> zb.Index([1], name="a").identical(zb.Index([1], name="b"))
        False
        """
        return (self.equals(other) and list(self.names) == list(other.names)
                and str(self.dtype) == str(other.dtype)
                and type(self).__name__ == type(other).__name__)

    def get_level_values(self, level):
        """The labels of one level: the index itself for a single level.

        Examples
        --------
        >>> zb.Index([1, 2], name="k").get_level_values("k").to_list()
        [1, 2]
        """
        self._level_number(level)
        return self

    @property
    def T(self):
        """The index itself (an index has one dimension).

        Examples
        --------
        >>> zb.Index([1, 2]).T.to_list()
        [1, 2]
        """
        return self

    def transpose(self, *args, **kwargs):
        """The index itself (an index has one dimension).

        Examples
        --------
        >>> zb.Index([1, 2]).transpose().to_list()
        [1, 2]
        """
        return self

    def ravel(self, order="C"):
        """The index itself (pandas 3: a view of the labels, not an array).

        Examples
        --------
        >>> zb.Index([1, 2]).ravel().to_list()
        [1, 2]
        """
        return self

    def memory_usage(self, deep=False):
        """The bytes the labels take (as nbytes).

        Examples
        --------
        >>> zb.Index([1, 2]).memory_usage()
        16
        """
        return self.nbytes

    def to_flat_index(self):
        """The index itself (a single level).

        Examples
        --------
        >>> zb.Index(["a"]).to_flat_index().to_list()
        ['a']
        """
        self._one_level("to_flat_index")
        return self
