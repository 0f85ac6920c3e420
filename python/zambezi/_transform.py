"""``Series.transform`` / ``DataFrame.transform``, as pandas: a function
that keeps the shape -- a method name ("cumsum", "abs", "rank" ...), a
callable (numpy's ufuncs run on the whole column; on a Series another
function runs as ``apply`` runs it, then with the Series if that raises;
on a frame it is called with each column, as pandas), a list of them
(one column per function; a frame's columns become (column, function)
pairs), or a dict {label: function or list}.  A result of another length
or with its rows moved raises ValueError ("Function did not transform"),
as pandas; a 1-D array of the right length is taken.
"""

import numpy as np

from zambezi import _align, _labels
from zambezi._agg import _hashable, _name, _NUMPY, column_spec
from zambezi.errors import InvalidValueError, UnsupportedError


def _one(s, f, args, kwargs, whole=False):
    """Series s transformed by f (a name or a callable).  A callable is
    applied as Series.apply applies it, then, if that raises, called with
    the whole Series (pandas' order); whole=True (a frame's column, as
    DataFrame.apply passes it) calls it with the Series straight away."""
    if _hashable(f) and f in _NUMPY:
        raise InvalidValueError(f"Function did not transform ({_NUMPY[f]} reduces)")
    if isinstance(f, str):
        method = getattr(s, f, None)
        if method is not None and callable(method):
            out = method(*args, **kwargs)
        elif isinstance(getattr(np, f, None), np.ufunc):   # "sqrt": numpy's, as pandas
            out = s.apply(getattr(np, f), args, **kwargs)
        else:
            raise InvalidValueError(f"transform: {f!r} is not a function of a Series")
    elif callable(f) and whole:
        out = f(s, *args, **kwargs)
    elif callable(f):
        try:
            out = s.apply(f, args, **kwargs)
        except Exception:   # pandas then calls f with the Series
            out = f(s, *args, **kwargs)
    else:
        raise InvalidValueError(f"transform: expected a function, a name, a list or a "
                                f"dict, not {type(f).__name__}")
    if isinstance(out, np.ndarray) and out.ndim == 1 and len(out) == len(s):
        out = s._constructor(out, index=s._index, name=s.name)   # pandas takes an array
    if whole and getattr(out, "_ndim", 0) == 1 and len(out) == len(s) and \
            not _align.same_labels(out._index, s._index) and _same_set(out._index, s._index):
        out = out.reindex(s._index)   # a frame's columns align by label (pandas' apply)
    if getattr(out, "_ndim", 0) != 1 or len(out) != len(s) or \
            not _align.same_labels(out._index, s._index):
        # another length, or the rows moved (sort_values): pandas refuses
        raise InvalidValueError("Function did not transform")
    return out


def _same_set(a, b):
    """Whether the labels a and b are the same unique labels in some order."""
    return a.is_unique and b.is_unique and bool(a.isin(b).all())


def _check_axis(obj, axis):
    if axis not in (0, "index"):
        kind = "Series" if obj._ndim == 1 else "DataFrame"
        raise UnsupportedError(f"{kind}.transform: axis={axis!r} is not supported")


def _unique_names(funcs):
    names = [_name(f) for f in funcs]
    if len(set(map(repr, names))) != len(names):
        raise InvalidValueError("Function names must be unique if there is no new column "
                                "names assigned")


def _check_some(func):
    if isinstance(func, (list, tuple, dict)) and not func:
        raise InvalidValueError("No transform functions were provided")


class SeriesTransform:
    """Series.transform (a mixin of zambezi.Series)."""

    __slots__ = ()

    def transform(self, func, axis=0, *args, **kwargs):
        """func of the Series, keeping its length and labels (see
        zambezi._transform): a name, a callable, a list (a frame with a
        column per function) or a dict {column label: function}.

        Examples
        --------
        >>> s = zb.Series([1.0, 4.0, 9.0], name="x")
        >>> s.transform(np.sqrt).to_list(), s.transform("cumsum").to_list()
        ([1.0, 2.0, 3.0], [1.0, 5.0, 14.0])
        >>> s.transform(["sqrt", "abs"]).columns.to_list()
        ['sqrt', 'abs']
        """
        _check_axis(self, axis)
        _check_some(func)
        if isinstance(func, (list, tuple, dict)):
            items = list(func.items()) if isinstance(func, dict) else \
                [(_name(f), f) for f in func]
            # a dict's list gives (label, function) columns, as pandas
            nested = any(isinstance(f, (list, tuple)) for _, f in items)
            labels, cols = [], []
            for label, f in items:
                funcs = list(f) if isinstance(f, (list, tuple)) else [f]
                _unique_names(funcs)
                for g in funcs:
                    labels.append((label, _name(g)) if nested else label)
                    cols.append(_one(self, g, args, kwargs)._col)
            if not isinstance(func, dict):
                _unique_names(func)
            return _labels.frame_from(self._constructor_expanddim, cols, labels, self._index)
        return _one(self, func, args, kwargs)


class FrameTransform:
    """DataFrame.transform (a mixin of zambezi.DataFrame)."""

    __slots__ = ()

    def transform(self, func, axis=0, *args, **kwargs):
        """func of each column, keeping the frame's shape (see
        zambezi._transform): a name or a callable for every column, a list
        ((column, function) columns), or a dict {column: function or list}
        (the named columns only).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1.0, 4.0], "b": [9.0, 16.0]})
        >>> df.transform(np.sqrt).to_dict("list")
        {'a': [1.0, 2.0], 'b': [3.0, 4.0]}
        >>> df.transform({"b": "cumsum"}).to_dict("list")
        {'b': [9.0, 25.0]}
        """
        _check_axis(self, axis)
        _check_some(func)
        spec = column_spec(self, _labels.label_list(self), func)
        nested = any(isinstance(f, (list, tuple)) for _, f in spec)
        out_labels, cols = [], []
        for lb, f in spec:
            funcs = list(f) if isinstance(f, (list, tuple)) else [f]
            _unique_names(funcs)
            for g in funcs:
                cols.append(_one(self[lb], g, args, kwargs, whole=True)._col)
                out_labels.append((lb, _name(g)) if nested else lb)
        # one function for all columns keeps the columns' name (pandas)
        names = None if isinstance(func, (list, tuple, dict)) else [self.columns.name]
        return _labels.frame_from(self._constructor, cols, out_labels, self._index, names)
