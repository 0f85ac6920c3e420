"""Series.cat: the codes and categories of a categorical Series, as
pandas' ``Series.cat`` shows them (what Dask's shuffles read).

A zambezi categorical is int32 codes plus a dictionary of any flat dtype
with an ``ordered`` flag (DESIGN.md §2); ``codes`` narrows them to the
smallest integer type that holds the number of categories (int8 below
127, int16, then int32), as pandas does, with -1 for nulls.
``set_categories`` and its relatives (``add_categories``,
``remove_categories``, ``rename_categories``, ``reorder_categories``,
``remove_unused_categories``) make a new dictionary and remap the codes
through a lookup table of one entry per old category, as pandas' methods
of the same names do (Dask's unknown-categories meta is built by
``set_categories``).  Numpy on the codes only: nothing loops over rows.
"""

import numpy as np

from zambezi import _base, _core
from zambezi._frame_extra import _category_codes, _host, _codes_dtype
from zambezi.accessors import AccessorError
from zambezi.errors import InvalidValueError


def _category_list(values, what, like=None, strict=True):
    """values (a list-like of categories) as a dictionary column (unique,
    no missing values; of like's dtype when given and they fit it)."""
    from zambezi import _categorical

    return _categorical.categories_column(values, like, what, strict)


def _as_list(values):
    """A scalar category or a list-like of them, as a list."""
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        return [values]
    if hasattr(values, "to_list"):
        return values.to_list()
    return list(values)


class CategoricalMethods:
    """The codes and categories of a categorical Series (``Series.cat``).

    Examples
    --------
    >>> s = zb.Series(["b", "a", None, "b"]).astype("category")
    >>> s.cat.categories.to_list()
    ['a', 'b']
    >>> s.cat.codes.to_list()
    [1, 0, -1, 1]
    """

    __slots__ = ("_s",)

    def __init__(self, series):
        if series.dtype != "category":
            raise AccessorError(
                f"Can only use .cat accessor with a 'category' dtype, not {series.dtype} "
                f"(column {series.name!r})")
        self._s = series

    @property
    def categories(self):
        """The categories, an Index of strings.

        Examples
        --------
        >>> zb.Series(["x", "y", "x"]).astype("category").cat.categories
        Index(['x', 'y'], dtype='string')
        """
        from zambezi.index import Index

        return Index._from_columns([_host(self._s._col).dictionary], [None])

    @property
    def codes(self):
        """Each row's position in ``categories`` (-1 for null), in the
        smallest signed integer type that holds them, with the Series'
        labels (unnamed, as pandas gives them).

        Examples
        --------
        >>> zb.Series(["x", None, "y"]).astype("category").cat.codes
        0     0
        1    -1
        2     1
        dtype: int8
        """
        dtype = _codes_dtype(_host(self._s._col).dictionary.length)
        codes = _category_codes(self._s._col).astype(dtype)
        return type(self._s)._from_column(_core.column_from_buffer(codes), None,
                                          self._s._index)

    @property
    def ordered(self):
        """Whether the categories are ordered (comparisons, min / max and
        sorting follow their order), as pandas' ``Series.cat.ordered``.

        Examples
        --------
        >>> zb.Series(["x"]).astype("category").cat.ordered
        False
        """
        return self._s._col.ordered

    def _dictionary(self):
        return _host(self._s._col).dictionary

    def _recode(self, dictionary, rename=False, ordered=None):
        """A Series over categories `dictionary` (a column): each row keeps
        its value when the value is one of them (else null), or, with
        rename, keeps its code.  ordered None keeps the flag."""
        from zambezi import _categorical

        return self._s._like(_categorical.recode(self._s._col, dictionary, ordered=ordered,
                                                 rename=rename))

    def _values(self, dictionary):
        return dictionary.to_pylist()

    def set_categories(self, new_categories, ordered=None, rename=False):
        """The Series with categories new_categories: values that are not
        among them become null, as pandas' ``Series.cat.set_categories``;
        with ``rename=True`` the categories are renamed in order instead.

        Examples
        --------
        >>> s = zb.Series(["a", "b", "c"]).astype("category")
        >>> s.cat.set_categories(["c", "a"]).to_list()
        ['a', None, 'c']
        >>> s.cat.set_categories(["c", "a"]).cat.codes.to_list()
        [1, -1, 0]
        """
        old = self._dictionary()
        new = _category_list(new_categories, "cat.set_categories", None if rename else old,
                             strict=False)
        if rename and len(new) != len(old):
            raise InvalidValueError(
                f"cat.set_categories(rename=True): {len(new)} new categories for "
                f"{len(old)} old ones")
        return self._recode(new, rename=rename, ordered=ordered)

    def add_categories(self, new_categories):
        """The Series with new_categories (one category or a list of them)
        appended to its categories; values unchanged.

        Examples
        --------
        >>> s = zb.Series(["a"]).astype("category").cat.add_categories(["z"])
        >>> s.cat.categories.to_list()
        ['a', 'z']
        """
        old = self._dictionary()
        add = _category_list(_as_list(new_categories), "cat.add_categories", old)
        have = set(self._values(old))
        dup = [c for c in self._values(add) if c in have]  # once per category
        if dup:
            raise InvalidValueError(f"cat.add_categories: new categories must not include "
                                    f"old categories: {dup!r}")
        both = _core.concat([old, add]) if len(old) else add
        return self._recode(both)

    def remove_categories(self, removals):
        """The Series without the categories in removals (one category or a
        list of them); their values become null.  The categories left keep
        their order when ordered, else they are sorted (as pandas, whose
        ``Index.difference`` sorts them).

        Examples
        --------
        >>> s = zb.Series(["a", "b"]).astype("category")
        >>> s.cat.remove_categories("b").to_list()
        ['a', None]
        """
        old = self._dictionary()
        drop = self._values(_category_list(_as_list(removals), "cat.remove_categories", old))
        values = self._values(old)
        have = set(values)
        missing = [c for c in drop if c not in have]
        if missing:
            raise InvalidValueError(f"cat.remove_categories: removals must all be in old "
                                    f"categories: {missing!r}")
        gone = set(drop)
        keep = np.array([c not in gone for c in values], dtype=bool)  # per category
        new = _core.filter(old, _core.column_from_buffer(keep))
        return self._recode(new if _host(self._s._col).ordered else
                            _core.sort_values(new, True, False))

    def rename_categories(self, new_categories):
        """The Series with its categories renamed: new_categories is a list
        (one name per category, in order), a dict (old name -> new name) or
        a function of a category.

        Examples
        --------
        >>> s = zb.Series(["a", "b"]).astype("category")
        >>> s.cat.rename_categories({"a": "x"}).to_list()
        ['x', 'b']
        """
        old = self._values(self._dictionary())
        if isinstance(new_categories, dict):
            new = [new_categories.get(c, c) for c in old]
        elif callable(new_categories):
            new = [new_categories(c) for c in old]  # once per category
        else:
            new = new_categories
        new = _category_list(new, "cat.rename_categories")
        if len(new) != len(old):
            raise InvalidValueError(f"cat.rename_categories: {len(new)} new categories for "
                                    f"{len(old)} old ones")
        return self._recode(new, rename=True)

    def reorder_categories(self, new_categories, ordered=None):
        """The Series with the same categories in a new order (values
        unchanged, codes renumbered).

        Examples
        --------
        >>> s = zb.Series(["a", "b"]).astype("category")
        >>> s.cat.reorder_categories(["b", "a"]).cat.codes.to_list()
        [1, 0]
        """
        old = self._dictionary()
        new = _category_list(new_categories, "cat.reorder_categories", old)
        if len(new) != len(old) or set(self._values(new)) != set(self._values(old)):
            raise InvalidValueError("cat.reorder_categories: items in new_categories are "
                                    "not the same as in old categories")
        return self._recode(new, ordered=ordered)

    def remove_unused_categories(self):
        """The Series without the categories no row uses.

        Examples
        --------
        >>> s = zb.Series(["a"]).astype("category").cat.add_categories(["z"])
        >>> s.cat.remove_unused_categories().cat.categories.to_list()
        ['a']
        """
        old = self._dictionary()
        codes = _category_codes(self._s._col)
        used = np.bincount(codes[codes >= 0], minlength=len(old)) > 0
        return self._recode(_core.filter(old, _core.column_from_buffer(used)))

    def as_unordered(self):
        """The Series with unordered categories.

        Examples
        --------
        >>> zb.Series(["a"]).astype("category").cat.as_unordered().cat.ordered
        False
        """
        from zambezi import _categorical

        return self._s._like(_categorical.set_ordered(self._s._col, False))

    def as_ordered(self):
        """The Series with ordered categories (in their present order).

        Examples
        --------
        >>> zb.Series(["b", "a"]).astype("category").cat.as_ordered().cat.ordered
        True
        """
        from zambezi import _categorical

        return self._s._like(_categorical.set_ordered(self._s._col, True))


class CategoricalIndexMethods:
    """What pandas' CategoricalIndex has, on an Index of the category
    dtype (a mixin of Index): ``categories``, ``codes``, ``ordered`` and
    the ``Series.cat`` methods, each giving an Index.  On other indexes
    they raise AttributeError (so ``hasattr(idx, "categories")`` tells a
    categorical index, as Dask asks).

    Examples
    --------
    >>> hasattr(zb.Index(["a"], dtype="category"), "categories"), hasattr(zb.Index([1]), "codes")
    (True, False)
    """

    __slots__ = ()

    def _cat(self, what):
        if self.nlevels != 1 or self.dtype != "category":
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {what!r} "
                                 f"(only an Index of the category dtype has it, not "
                                 f"{self.dtype})")
        return _base.series_class()._from_column(self._levels()[0]).cat

    @property
    def cat(self):
        """The index itself, for an Index of the category dtype: its
        ``categories``, ``codes`` and ``.cat`` methods are its own (pandas'
        CategoricalIndex has them directly; code written for a Series and
        an Index alike, as Dask's, asks ``.cat``).  AttributeError on other
        indexes.

        Examples
        --------
        >>> zb.Index(["b", "a"], dtype="category").cat.categories.to_list()
        ['a', 'b']
        """
        self._cat("cat")
        return self

    def _cat_index(self, series):
        from zambezi.index import Index

        return Index._from_columns([series._col], list(self.names))

    @property
    def categories(self):
        """The categories of a categorical Index (see Series.cat).

        Examples
        --------
        >>> zb.Index(["a", "b", "a"], dtype="category").categories.to_list()
        ['a', 'b']
        """
        return self._cat("categories").categories

    @property
    def codes(self):
        """Each label's position in ``categories`` (-1 for missing), a
        numpy array as pandas' CategoricalIndex gives.

        Examples
        --------
        >>> zb.Index(["a", "b", "a"], dtype="category").codes
        array([0, 1, 0], dtype=int8)
        """
        return self._cat("codes").codes.to_numpy()

    @property
    def ordered(self):
        """Whether the categories are ordered.

        Examples
        --------
        >>> zb.Index(["a"], dtype="category").ordered
        False
        """
        return self._cat("ordered").ordered

    def set_categories(self, new_categories, ordered=None, rename=False):
        """The Index with categories new_categories (see
        Series.cat.set_categories).

        Examples
        --------
        >>> zb.Index(["a", "b"], dtype="category").set_categories(["b"]).to_list()
        [None, 'b']
        """
        return self._cat_index(self._cat("set_categories").set_categories(
            new_categories, ordered=ordered, rename=rename))

    def add_categories(self, new_categories):
        """The Index with categories appended (see Series.cat.add_categories).

        Examples
        --------
        >>> zb.Index(["a"], dtype="category").add_categories("z").categories.to_list()
        ['a', 'z']
        """
        return self._cat_index(self._cat("add_categories").add_categories(new_categories))

    def remove_categories(self, removals):
        """The Index without some categories (see
        Series.cat.remove_categories).

        Examples
        --------
        >>> zb.Index(["a", "b"], dtype="category").remove_categories("a").to_list()
        [None, 'b']
        """
        return self._cat_index(self._cat("remove_categories").remove_categories(removals))

    def rename_categories(self, new_categories):
        """The Index with its categories renamed (see
        Series.cat.rename_categories).

        Examples
        --------
        >>> zb.Index(["a", "b"], dtype="category").rename_categories(str.upper).to_list()
        ['A', 'B']
        """
        return self._cat_index(self._cat("rename_categories").rename_categories(
            new_categories))

    def reorder_categories(self, new_categories, ordered=None):
        """The Index with its categories in a new order (see
        Series.cat.reorder_categories).

        Examples
        --------
        >>> zb.Index(["a", "b"], dtype="category").reorder_categories(["b", "a"]).codes
        array([1, 0], dtype=int8)
        """
        return self._cat_index(self._cat("reorder_categories").reorder_categories(
            new_categories, ordered=ordered))

    def remove_unused_categories(self):
        """The Index without the categories no label uses.

        Examples
        --------
        >>> idx = zb.Index(["a"], dtype="category").add_categories("z")
        >>> idx.remove_unused_categories().categories.to_list()
        ['a']
        """
        return self._cat_index(self._cat("remove_unused_categories")
                               .remove_unused_categories())

    def as_unordered(self):
        """The Index with unordered categories.

        Examples
        --------
        >>> zb.Index(["a"], dtype="category").as_unordered().ordered
        False
        """
        return self._cat_index(self._cat("as_unordered").as_unordered())

    def as_ordered(self):
        """The Index with ordered categories.

        Examples
        --------
        >>> zb.Index(["a"], dtype="category").as_ordered().ordered
        True
        """
        return self._cat_index(self._cat("as_ordered").as_ordered())
