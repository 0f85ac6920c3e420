"""``interpolate`` of zambezi.Series and DataFrame, as pandas 3 does it.

A missing value (null, NaN) of a number column becomes the linear
interpolation of the valid values around it (numpy's ``interp``, which
pandas calls too, so the digits are pandas'), over the row positions
(``method="linear"``), the numeric labels (``"index"`` / ``"values"``) or
the times of a datetime index (``"time"``).  pandas' rules for which
missing values stay missing:

- ``limit_direction="forward"`` (the default): the missing values before
  the first valid one; "backward": those after the last; "both": none.
- ``limit`` (> 0): within a run of missing values, only the first
  ``limit`` counted from the valid value on the filling side (forward:
  the one before, backward: the one after; "both": either) are filled.
- ``limit_area="inside"``: only missing values between valid ones are
  filled; ``"outside"``: only those before the first or after the last.

Each column is one pass of numpy over its values (no loop over rows).
Integer columns without missing values come back as they are; with
missing values (zambezi's nulls, where pandas has float64) as float64.
Other methods (polynomial, spline, pad ...) raise UnsupportedError.
"""

import numpy as np

from zambezi import _convert, _core
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_METHODS = ("linear", "index", "values", "time")
_NUMBERS = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                      "uint64", "float32", "float64"])


def check_args(method, limit, limit_direction, limit_area, kwargs):
    """The checked (limit, limit_direction) of an interpolate call."""
    from zambezi._missing import _check_limit

    if method not in _METHODS:
        raise UnsupportedError(f"interpolate(method={method!r}) is not supported; methods: "
                               f"{', '.join(_METHODS)}")
    if kwargs:
        raise UnsupportedError(f"interpolate: arguments {sorted(kwargs)} are not supported")
    limit = _check_limit(limit)
    direction = "forward" if limit_direction is None else str(limit_direction).lower()
    if direction not in ("forward", "backward", "both"):
        raise InvalidValueError("Invalid limit_direction: expecting one of ['forward', "
                                f"'backward', 'both'], got '{limit_direction}'.")
    if limit_area is not None and limit_area not in ("inside", "outside"):
        raise InvalidValueError("Invalid limit_area: expecting one of ['inside', 'outside'], "
                                f"got {limit_area}.")
    return limit, direction


def positions(obj, method):
    """The x of each row for method: row numbers, or the index's values
    as float64 (its times' counts for "time")."""
    n = len(obj)
    if method == "linear":
        return np.arange(n, dtype=np.float64)
    index = obj._index
    if index.nlevels != 1:
        raise InvalidValueError(f"interpolate(method={method!r}) needs a one-level index")
    col = index._levels()[0]
    is_time = col.dtype.startswith("timestamp")
    if method == "time" and not is_time:
        raise InvalidValueError("time-weighted interpolation only works on Series or "
                                "DataFrames with a DatetimeIndex")
    if is_time:
        col = _core.cast(col, "int64")
    elif col.dtype not in _NUMBERS:
        raise InvalidValueError(f"interpolate(method={method!r}) needs numeric labels, not "
                                f"{col.dtype}")
    if col.null_count:
        raise InvalidValueError(f"interpolate(method={method!r}) needs labels without "
                                "missing values")
    return np.asarray(_convert.values_numpy(col), dtype=np.float64)


def _gap_to_valid(valid, backward):
    """Per row, how many rows back (forward: to the valid row before it)
    or ahead (backward) the nearest valid row is; -1 where there is none."""
    n = len(valid)
    rows = np.arange(n)
    if not backward:
        last = np.maximum.accumulate(np.where(valid, rows, -1))
        return np.where(last < 0, -1, rows - last)
    nxt = np.minimum.accumulate(np.where(valid, rows, n)[::-1])[::-1]
    return np.where(nxt >= n, -1, nxt - rows)


def _kept_missing(valid, limit, direction, limit_area):
    """The missing rows pandas leaves missing (see the module docstring)."""
    missing = ~valid
    before = _gap_to_valid(valid, False)   # -1: no valid row before (the leading run)
    after = _gap_to_valid(valid, True)     # -1: no valid row after (the trailing run)
    leading, trailing = missing & (before < 0), missing & (after < 0)
    if limit is None:
        keep = leading if direction == "forward" else trailing if direction == "backward" \
            else np.zeros_like(valid)
    else:
        far_before = missing & ((before < 0) | (before > limit))
        far_after = missing & ((after < 0) | (after > limit))
        keep = (leading | far_before) if direction == "forward" else \
            (trailing | far_after) if direction == "backward" else (far_before & far_after)
    if limit_area == "inside":
        keep = keep | leading | trailing
    elif limit_area == "outside":
        keep = keep | (missing & ~leading & ~trailing)
    return keep


def interpolate_column(col, x, limit, direction, limit_area, what):
    """Column col with its missing values interpolated over the rows' x."""
    if col.dtype not in _NUMBERS:
        raise DTypeError(f"Cannot interpolate with {col.dtype} dtype ({what})")
    missing = _convert.null_mask(col)
    if col.dtype.startswith("float"):
        values = np.array(_convert.values_numpy(col), dtype=np.float64)
        nan = np.isnan(values)
        missing = nan if missing is None else (missing | nan)
    elif missing is None:
        return col   # integers without missing values: as they are
    else:
        values = np.array(_convert.values_numpy(_core.cast(col, "float64")), dtype=np.float64)
    if missing is None or not missing.any() or missing.all():
        return col
    valid = ~missing
    xv, yv = x[valid], values[valid]
    if len(xv) > 1 and (np.diff(xv) < 0).any():   # numpy's interp needs its x sorted
        order = np.argsort(xv, kind="stable")
        xv, yv = xv[order], yv[order]
    out = values.copy()
    out[missing] = np.interp(x[missing], xv, yv)
    out[_kept_missing(valid, limit, direction, limit_area)] = np.nan
    if col.dtype == "float32":
        out = out.astype(np.float32)
    return _core.column_from_buffer(out)
