"""Series.cat: the codes and categories of a categorical Series, as
pandas' ``Series.cat`` shows them (what Dask's shuffles read).

A zambezi categorical is int32 codes plus a string dictionary (DESIGN.md
§2); ``codes`` narrows them to the smallest integer type that holds the
number of categories (int8 below 127, int16, then int32), as pandas does,
with -1 for nulls.  zambezi categoricals are unordered: ``ordered`` is
False.  Numpy on the codes only: nothing loops over rows.
"""

import numpy as np

from zambezi import _core
from zambezi._frame_extra import _category_codes, _host
from zambezi.accessors import AccessorError


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
        n = _host(self._s._col).dictionary.length
        dtype = np.int8 if n < 127 else np.int16 if n < 32767 else np.int32
        codes = _category_codes(self._s._col).astype(dtype)
        return type(self._s)._from_column(_core.column_from_buffer(codes), None,
                                          self._s._index)

    @property
    def ordered(self):
        """False: zambezi categoricals are unordered.

        Examples
        --------
        >>> zb.Series(["x"]).astype("category").cat.ordered
        False
        """
        return False
