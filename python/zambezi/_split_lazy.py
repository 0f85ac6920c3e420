"""The list Series of ``str.split(expand=False)``, built only when needed.

The commonest use of split is one piece of it: ``s.str.split(pat).str[i]``
(or ``.str.get(i)``), or the number of pieces, ``.str.len()``.  Building
every row's list and then indexing it costs the whole list column; the
engine can take piece i of each row, or count the pieces, directly
(zambezi/regex.h, SPLIT / RSPLIT with part_only or count_only).  So split
and rsplit return a ``Series`` whose column slot holds the pending split
(``_PendingSplit``):

- ``.str[i]`` / ``.str.get(i)`` with an int run the one-piece kernel on the
  source column, ``.str.len()`` the counting one, and neither builds the
  lists;
- anything else reads ``_col`` (every Series method does), which builds
  the list column once, stores it in the slot and turns the object into a
  plain ``Series`` (``__class__`` is reassigned: the layouts are the same,
  this class adds no slot), so dtype, repr, len, iteration, pickling,
  ``to_pandas``, the other ``.str`` methods and assignment into a frame see
  exactly the list Series split always gave.

The class is named ``Series`` as its base is: before the lists are built,
``type(s)`` is this subclass, ``isinstance(s, zambezi.Series)`` holds, and
pickling / copying build the lists first and record a plain Series.
"""
import numpy as np

from zambezi import _core


class _PendingSplit:
    """The arguments of a split not yet run: the source string column and
    those of ``_core.regex_op(src, op, ...)`` (op "split" or "rsplit")."""

    __slots__ = ("src", "op", "pat", "flags", "n")

    def __init__(self, src, op, pat, flags, n):
        self.src, self.op, self.pat, self.flags, self.n = src, op, pat, flags, n

    def _run(self, **kw):
        return _core.regex_op(self.src, self.op, pat=self.pat, flags=self.flags, n=self.n, **kw)

    def lists(self):
        return self._run(as_list=True)

    def part(self, i):
        return self._run(part=i)

    def lengths(self):
        """int64 column: each row's number of pieces (null for a null row)."""
        return self._run(pieces=True)


_CLASS = None


def _make_class(series_cls):
    from zambezi._lists import ListStringMethods

    slot = series_cls.__dict__["_col"]  # the member descriptor of the slot

    class SplitStringMethods(ListStringMethods):
        """``.str`` of a pending split: get / [i] take the piece directly,
        len counts the pieces."""

        __slots__ = ()

        def len(self):
            pending = slot.__get__(self._s)
            if type(pending) is _PendingSplit:
                from zambezi._lists import as_pandas_len

                return self._s._like(as_pandas_len(pending.lengths()))
            return super().len()

        def get(self, i):
            pending = slot.__get__(self._s)
            if type(pending) is _PendingSplit and isinstance(i, (int, np.integer)) and \
                    not isinstance(i, (bool, np.bool_)):
                return self._s._like(pending.part(int(i)))
            return super().get(i)

    class LazySplitSeries(series_cls):
        __slots__ = ()

        @property
        def _col(self):
            v = slot.__get__(self)
            if type(v) is _PendingSplit:
                v = v.lists()
                slot.__set__(self, v)
                self.__class__ = series_cls  # a plain Series from here on
            return v

        @_col.setter
        def _col(self, v):
            slot.__set__(self, v)

        @property
        def _constructor(self):
            return series_cls

        @property
        def str(self):
            if type(slot.__get__(self)) is _PendingSplit:
                return SplitStringMethods(self)
            return series_cls.str.__get__(self)

        def __reduce_ex__(self, protocol):
            self._col  # builds the lists: self is a plain Series now
            return self.__reduce_ex__(protocol)

    LazySplitSeries.__name__ = series_cls.__name__
    LazySplitSeries.__qualname__ = series_cls.__qualname__
    LazySplitSeries.__module__ = series_cls.__module__
    LazySplitSeries.__doc__ = series_cls.__doc__
    return LazySplitSeries


def make(s, pat, flags, n, op="split"):
    """The result of ``s.str.split(pat, n=n)`` (or rsplit with op "rsplit";
    expand=False) for a Series s of strings: lazy when s is a plain zambezi
    Series, built at once for a subclass (whose constructor this module
    cannot know)."""
    global _CLASS
    series_cls = s._constructor_sliced  # zambezi's Series (see zambezi._base)
    pending = _PendingSplit(s._col, op, pat, flags, n)
    if type(s) is not series_cls:
        return s._like(pending.lists())
    if _CLASS is None:
        _CLASS = _make_class(series_cls)
    out = object.__new__(_CLASS)
    out._col = pending
    out._name = s._name
    out._index = s._index
    return out
