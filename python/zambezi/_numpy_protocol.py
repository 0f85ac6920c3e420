"""What numpy's functions ask of a Series, as pandas answers it.

numpy's reductions called on a Series (``np.mean(s)``, ``np.sum(s)``,
``np.std(s, ddof=1)``, ``np.argmax(s)``...) call the method of the same
name with ``axis``, ``dtype``, ``out`` (and ``keepdims``) keywords.
``accept_numpy_arguments`` lets the Series reductions take them: axis 0 /
None is the only axis a Series has, dtype converts the result, and ``out``
and ``keepdims=True`` are refused (pandas refuses ``out`` too).  The
reduction still runs in the engine.

A ufunc zambezi has no kernel for (``np.log``, ``np.sqrt``, ``np.exp``...)
runs in numpy on the values (nulls as NaN) and comes back as a Series with
the same labels and name, as pandas returns a Series.
"""

import functools

import numpy as np

from zambezi.errors import InvalidValueError, UnsupportedError

_REDUCTIONS = ("sum", "prod", "min", "max", "mean", "median", "var", "std", "any", "all",
               "argmin", "argmax")


def _numpy_arguments(method):
    @functools.wraps(method)
    def reduction(self, *args, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if axis not in (None, 0, "index", "rows"):
            raise InvalidValueError(f"{method.__name__}: a Series has one axis (0), not {axis!r}")
        if out is not None:
            raise UnsupportedError(f"{method.__name__}: out= is not supported (pandas too)")
        if keepdims:
            raise UnsupportedError(f"{method.__name__}: keepdims=True is not supported")
        res = method(self, *args, **kwargs)
        if dtype is not None and res is not None:
            res = np.dtype(dtype).type(res)
        return res

    return reduction


def accept_numpy_arguments(cls):
    """Wrap cls's Series reductions so numpy's functions can call them."""
    for name in _REDUCTIONS:
        setattr(cls, name, _numpy_arguments(getattr(cls, name)))


def ufunc_result(s, result):
    """A numpy ufunc's result on Series s's values as a Series with s's
    labels and name (a tuple of them for ufuncs with several outputs); a
    scalar (a reduction) stays a scalar."""
    if isinstance(result, tuple):
        return tuple(ufunc_result(s, r) for r in result)
    if isinstance(result, np.ndarray) and result.ndim == 1 and len(result) == len(s):
        return s._constructor(result, index=s._index, name=s._name)
    return result
