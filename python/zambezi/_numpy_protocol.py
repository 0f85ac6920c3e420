"""What numpy's functions ask of a Series or DataFrame, as pandas answers it.

numpy's reductions called on a Series or DataFrame (``np.mean(s)``,
``np.sum(df, axis=1)``, ``np.std(s, ddof=1)``, ``np.argmax(s)``...) call
the method of the same name with ``axis``, ``dtype``, ``out`` (and
``keepdims``) keywords; ``np.cumsum``, ``np.round`` and ``np.clip`` call
``cumsum``, ``round`` and ``clip`` with ``out`` (and ``dtype``).
``accept_numpy_arguments`` / ``accept_frame_numpy_arguments`` let those
methods take them:

- ``axis``: a Series has one axis (0 / None).  On a DataFrame, 0 and 1 are
  the frame's own, and ``axis=None`` reduces over every value to a scalar,
  as pandas 3 does (``np.mean(df)`` is the mean of all values; ``np.std``
  passes ddof=0 as numpy does).
- ``dtype``: converts the result (zambezi extension: pandas refuses a
  dtype).
- ``out`` and ``keepdims=True``: refused with UnsupportedError (pandas
  refuses them with ValueError).

The reduction still runs in the engine.

A ufunc zambezi has no kernel for (``np.log``, ``np.sqrt``, ``np.exp``...)
runs in numpy on the values (nulls as NaN) and comes back as a Series with
the same labels and name, as pandas returns a Series; on a DataFrame each
column goes through the Series path and the result is a DataFrame with the
same labels and column names.
"""

import functools
import inspect

import numpy as np

from zambezi.errors import InvalidValueError, UnsupportedError

_REDUCTIONS = ("sum", "prod", "min", "max", "mean", "median", "var", "std", "any", "all",
               "argmin", "argmax")
_FRAME_REDUCTIONS = ("sum", "prod", "min", "max", "mean", "median", "var", "std", "any",
                     "all")
_ELEMENTWISE = ("cumsum", "cumprod", "cummin", "cummax", "round", "clip")


def _refuse(name, out, keepdims):
    if out is not None:
        raise UnsupportedError(f"{name}: out= is not supported (pandas refuses it too)")
    if keepdims:
        raise UnsupportedError(f"{name}: keepdims=True is not supported (pandas refuses it too)")


def _as_dtype(res, dtype):
    if dtype is None or res is None:
        return res
    if hasattr(res, "astype") and not isinstance(res, np.generic):
        return res.astype(dtype)
    return np.dtype(dtype).type(res)


def _numpy_arguments(method):
    @functools.wraps(method)
    def reduction(self, *args, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if axis not in (None, 0, "index", "rows"):
            raise InvalidValueError(f"{method.__name__}: a Series has one axis (0), not {axis!r}")
        _refuse(method.__name__, out, keepdims)
        return _as_dtype(method(self, *args, **kwargs), dtype)

    return reduction


def _all_values(frame, name, skipna, ddof):
    """A frame reduced over every value (axis=None), as pandas 3 does: on
    the values as one 2-D array of their common dtype (nulls as NaN)."""
    values = np.asarray(frame)
    if values.dtype.kind not in "biuf":  # strings, dates: column results, then one more
        per_column = getattr(frame, name)(axis=0, skipna=skipna)
        return getattr(per_column, name)(skipna=skipna)
    nan = values.dtype.kind == "f" and skipna
    if name in ("any", "all"):
        if values.dtype.kind == "f":
            values = np.where(np.isnan(values), name == "all", values != 0)
        return getattr(np, name)(values)
    if values.size == 0 and name in ("min", "max", "mean", "median", "var", "std"):
        return np.float64("nan")
    fn = getattr(np, ("nan" if nan else "") + name)  # np.nansum, np.sum ...
    if name in ("var", "std"):
        return fn(values, ddof=ddof)
    return fn(values)


def _frame_numpy_arguments(method):
    name = method.__name__
    signature = inspect.signature(method)

    @functools.wraps(method)
    def reduction(self, *args, dtype=None, out=None, keepdims=False, **kwargs):
        _refuse(name, out, keepdims)
        axis, args = (args[0], args[1:]) if args else (kwargs.pop("axis", 0), ())
        if axis is None:
            bound = signature.bind(self, None, *args, **kwargs)  # the method's own checks
            given = bound.arguments
            if given.get("numeric_only"):
                self = self.select_dtypes("number")
            values = _all_values(self, name, given.get("skipna", True), given.get("ddof", 1))
            return _as_dtype(values, dtype)
        return _as_dtype(method(self, *args, axis=axis, **kwargs), dtype)

    return reduction


def _elementwise_arguments(method):
    @functools.wraps(method)
    def elementwise(self, *args, out=None, dtype=None, **kwargs):
        if out is not None:
            raise UnsupportedError(f"{method.__name__}: out= is not supported (pandas refuses "
                                   "it too)")
        if method.__name__.startswith("cum") and kwargs.get("axis", 0) is None:
            kwargs["axis"] = 0  # np.cumsum(s) passes axis=None: a Series has one axis
        res = method(self, *args, **kwargs)
        return res if dtype is None else res.astype(dtype)

    return elementwise


def accept_numpy_arguments(cls):
    """Wrap cls's Series reductions so numpy's functions can call them."""
    for name in _REDUCTIONS:
        setattr(cls, name, _numpy_arguments(getattr(cls, name)))
    for name in _ELEMENTWISE:
        setattr(cls, name, _elementwise_arguments(getattr(cls, name)))


def accept_frame_numpy_arguments(cls):
    """Wrap cls's DataFrame reductions so numpy's functions can call them."""
    for name in _FRAME_REDUCTIONS:
        setattr(cls, name, _frame_numpy_arguments(getattr(cls, name)))
    for name in _ELEMENTWISE:
        setattr(cls, name, _elementwise_arguments(getattr(cls, name)))


def ufunc_result(s, result):
    """A numpy ufunc's result on Series s's values as a Series with s's
    labels and name (a tuple of them for ufuncs with several outputs); a
    scalar (a reduction) stays a scalar."""
    if isinstance(result, tuple):
        return tuple(ufunc_result(s, r) for r in result)
    if isinstance(result, np.ndarray) and result.ndim == 1 and len(result) == len(s):
        return s._constructor(result, index=s._index, name=s._name)
    return result


def frame_ufunc(frame, ufunc, method, inputs, kwargs):
    """``ufunc(*inputs)`` where a DataFrame is among the inputs: a
    DataFrame with frame's labels and column names.  Elementwise calls
    whose other inputs are scalars run column by column through the
    Series path (the engine where it has the operation); anything else
    runs in numpy on the 2-D values."""
    from zambezi import _base, _core

    frames = [x for x in inputs if _base.is_frame(x)]
    scalar_rest = all(x is frame or np.ndim(x) == 0 for x in inputs)
    if method == "__call__" and not kwargs and len(frames) == 1 and scalar_rest:
        names = list(frame._zb_columns)
        outs = None
        for name in names:
            col = frame[name]
            res = ufunc(*[col if x is frame else x for x in inputs])
            res = res if isinstance(res, tuple) else (res,)
            if outs is None:
                outs = [[] for _ in res]
            for acc, r in zip(outs, res):
                acc.append(r._col)
        if outs is None:  # no columns
            return frame.copy()
        results = tuple(frame._like(_core.table_from_columns(cols, names)) for cols in outs)
        return results if len(results) > 1 else results[0]
    conv = [np.asarray(x) if _base.is_frame(x) or _base.is_series(x) else x for x in inputs]
    result = getattr(ufunc, method)(*conv, **kwargs)
    if (method == "__call__" and kwargs.get("out") is None and isinstance(result, np.ndarray)
            and result.shape == frame.shape):
        from zambezi import DataFrame

        return DataFrame(dict(zip(frame._zb_columns, result.T)), index=frame._index)
    return result
