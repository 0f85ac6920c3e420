"""``Series.agg`` / ``DataFrame.agg`` (``aggregate``), as pandas: a
function name, a callable, a list of them, or a dict per column.

Each function is the reduction of that name (one engine reduction per
column), or the user's callable called once per column (per Series).
numpy's and Python's own reductions (``np.sum``, ``max`` ...) map to the
engine's reduction of the same name, as pandas maps them.  A list gives a
row per function (each column keeps the dtype its results share: integers
stay integers unless a float joins them); a dict gives a Series when each
column has one function, else a frame with missing values where a column
lacks a function.
"""

import builtins

import numpy as np

from zambezi import _labels
from zambezi.errors import InvalidValueError, UnsupportedError

_NUMPY = {np.sum: "sum", np.mean: "mean", np.min: "min", np.max: "max", np.std: "std",
          np.var: "var", np.median: "median", np.prod: "prod", np.nansum: "sum",
          np.nanmean: "mean", np.nanmin: "min", np.nanmax: "max", builtins.sum: "sum",
          builtins.min: "min", builtins.max: "max"}


def _name(f):
    if isinstance(f, str):
        return f
    named = _NUMPY.get(f) if _hashable(f) else None
    return named or getattr(f, "__name__", repr(f))


def _hashable(f):
    try:
        hash(f)
        return True
    except TypeError:
        return False


def _apply(s, f, args, kwargs):
    """Function f (a name or a callable) of Series s."""
    if _hashable(f) and f in _NUMPY:
        f = _NUMPY[f]
    if isinstance(f, str):
        method = getattr(s, f, None)
        if method is None or not callable(method):
            raise InvalidValueError(f"agg: {f!r} is not a function of a Series")
        return method(*args, **kwargs)
    if callable(f):
        return f(s, *args, **kwargs)
    raise InvalidValueError(f"agg: expected a function, a function name, a list or a dict, "
                            f"not {type(f).__name__}")


def column_spec(frame, labels, func):
    """[(column label, function or list)] of a frame's agg / transform: a
    dict names its columns (a label the frame lacks raises KeyError), any
    other func applies to every column."""
    if not isinstance(func, dict):
        return [(lb, func) for lb in labels]
    spec = []
    for lb, f in func.items():
        if lb not in labels:
            raise frame._missing(lb)
        spec.append((lb, f))
    return spec


def _scalar(v):
    return v.item() if isinstance(v, np.generic) else v


class SeriesAgg:
    """Series.agg / aggregate (a mixin of zambezi.Series)."""

    __slots__ = ()

    def aggregate(self, func=None, axis=0, *args, **kwargs):
        """One or more reductions of the Series: a name ("sum"), a callable
        (called with the Series), a list of them (a Series indexed by
        their names) or a dict {label: function}.

        Examples
        --------
        >>> s = zb.Series([1, 2, 3], name="n")
        >>> s.agg("sum"), s.agg(lambda x: x.max() - x.min())
        (6, 2)
        >>> s.agg(["sum", "mean"]).to_dict()
        {'sum': 6.0, 'mean': 2.0}
        """
        if axis not in (0, "index"):
            raise InvalidValueError(f"Series.agg: no axis {axis!r}")
        if func is None:
            raise UnsupportedError("Series.agg: named aggregations are not supported")
        if isinstance(func, dict):
            labels, funcs = list(func.keys()), list(func.values())
        elif isinstance(func, (list, tuple)):
            labels, funcs = [_name(f) for f in func], list(func)
        else:
            return _apply(self, func, args, kwargs)
        values = [_scalar(_apply(self, f, args, kwargs)) for f in funcs]
        return type(self)(values, index=labels, name=self._name)

    agg = aggregate


class FrameAgg:
    """DataFrame.agg / aggregate (a mixin of zambezi.DataFrame)."""

    __slots__ = ()

    def aggregate(self, func=None, axis=0, *args, **kwargs):
        """Reductions of every column: a name ("sum") or a callable (a
        Series over the columns), a list of them (a frame with a row per
        function), or a dict {column: function or list} (a Series, or a
        frame when a column has a list).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [1.5, None, 2.5]})
        >>> df.agg(["min", "max"]).to_dict("list")
        {'a': [1, 3], 'b': [1.5, 2.5]}
        >>> df.agg({"a": "sum", "b": "mean"}).to_dict()
        {'a': 6.0, 'b': 2.0}
        """
        if axis not in (0, "index"):
            raise UnsupportedError("DataFrame.agg(axis=1) is not supported")
        if func is None:
            raise UnsupportedError("DataFrame.agg: named aggregations are not supported")
        labels = _labels.label_list(self)
        if isinstance(func, str) and not args and not kwargs:
            method = getattr(self, func, None)
            if method is None or not callable(method):
                raise InvalidValueError(f"agg: {func!r} is not a function of a DataFrame")
            return method()
        spec = column_spec(self, labels, func)
        if not any(isinstance(f, (list, tuple)) for _, f in spec):
            values = [_scalar(_apply(self[lb], f, args, kwargs)) for lb, f in spec]
            return self._constructor_sliced(values, index=[lb for lb, _ in spec])
        rows, table = [], {}
        for lb, f in spec:
            funcs = list(f) if isinstance(f, (list, tuple)) else [f]
            table[lb] = {}
            for g in funcs:
                nm = _name(g)
                if nm not in rows:
                    rows.append(nm)
                table[lb][nm] = _scalar(_apply(self[lb], g, args, kwargs))
        cols = {}
        for lb, got in table.items():
            cols[lb] = [got.get(nm) for nm in rows]
            if len(got) < len(rows) and all(isinstance(v, (int, float)) and
                                            not isinstance(v, bool) for v in got.values()):
                # a number column missing a function: float64 with NaN, as pandas
                cols[lb] = np.asarray([np.nan if v is None else v for v in cols[lb]],
                                      dtype=np.float64)
        out = self._constructor({f"c{i}": v for i, v in enumerate(cols.values())})
        out.columns = list(cols.keys())
        out.index = rows
        return out

    agg = aggregate
