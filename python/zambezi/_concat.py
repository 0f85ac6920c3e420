"""``zambezi.concat``: the rows of several DataFrames or Series, one after
another.

One engine call (``_core.concat``) per column; categoricals with different
categories are unified by the engine.  As everywhere in zambezi (see the
notes of zambezi._compute), the result is numbered from 0.
"""

from zambezi import _base, _core
from zambezi._compute import _engine_error
from zambezi.errors import DTypeError, InvalidValueError, ZambeziError


def concat(objs, ignore_index=True):
    """Rows of several DataFrames (same column names in the same order, types
    that concatenate: equal, or categoricals whose categories are unified)
    or of several Series, one after another.  Renumbered from 0 (pandas
    keeps each input's index unless ignore_index=True).

    Examples
    --------
    >>> a = zb.DataFrame({"k": [1, 2], "v": ["x", "y"]})
    >>> b = zb.DataFrame({"k": [3], "v": [None]})
    >>> zb.concat([a, b])
           k       v
       int64  string
    0      1       x
    1      2       y
    2      3    <NA>
    <BLANKLINE>
    [3 rows x 2 columns]
    >>> zb.concat([zb.Series([1, 2]), zb.Series([3])]).to_list()
    [1, 2, 3]
    """
    objs = list(objs)
    if not objs:
        raise InvalidValueError("concat: no objects to concatenate")
    if all(_base.is_series(o) for o in objs):
        name = objs[0].name if all(o.name == objs[0].name for o in objs) else None
        try:
            col = _core.concat([o._col for o in objs])
        except ZambeziError as e:
            raise _engine_error(
                e, "concat of Series with dtypes " + ", ".join(o.dtype for o in objs)) from None
        return objs[0]._constructor._from_engine(col, name)
    if not all(_base.is_frame(o) for o in objs):
        kinds = sorted({type(o).__name__ for o in objs})
        raise DTypeError(f"concat takes only DataFrames or only Series, got {kinds}")
    names = objs[0]._table.names
    for k, o in enumerate(objs[1:], 1):
        if o._table.names != names:
            raise InvalidValueError(
                f"concat: frame {k} has columns {o._table.names!r}, frame 0 has {names!r}; "
                "all frames must have the same columns in the same order")
    cols = []
    for j, nm in enumerate(names):
        parts = [o._table.column(j) for o in objs]
        try:
            cols.append(_core.concat(parts))
        except ZambeziError as e:
            raise _engine_error(
                e, f"concat of column {nm!r} (dtypes " + ", ".join(p.dtype for p in parts)
                + ")") from None
    cls = objs[0]._constructor
    if not names:
        return cls()
    return cls._from_engine(_core.table_from_columns(cols, names))
