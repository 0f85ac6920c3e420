"""Which columns a group-by aggregation takes, as pandas 3 decides
(helpers of zambezi._groupby): a column it cannot take
raises pandas' TypeError (``refuse``), any / all read each value's truth
(``truth``), a Series key that is the frame's own column leaves that
column out of the values (``is_own_column``), min_count / skipna mask
the groups short of values (``mask_short_groups``), and first / last with
skipna=False take each group's edge row (``edge_rows``).
"""

import numpy as np

from zambezi import _base, _core
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, UnsupportedError


def spec(op, col, ddof=1, q=0.5, count_na=False):
    """One aggregation of GroupBy._run: (op, work column name or None,
    second column or None, ddof, q, count_na)."""
    return (op, None if op == "size" else col, None, ddof, q, count_na)


def refuse(op, dtype, label):
    """Raise for aggregation op of a column of dtype, as pandas 3 does."""
    if op == "sem" and dtype.startswith(("timestamp", "duration")):
        raise UnsupportedError(f"groupby {op} of column {label!r} ({dtype}) is not supported "
                               "(pandas computes it); numeric_only=True leaves it out")
    if dtype == "string":
        raise DTypeError(f"dtype 'str' does not support operation '{op}'")
    if dtype == "bool":
        raise DTypeError(f"Cannot use {op} with bool dtype")
    if dtype == "category":
        if op in ("min", "max"):
            raise DTypeError(f"Cannot perform {op} with non-ordered Categorical")
        if op in ("sum", "prod", "skew", "kurt"):
            raise DTypeError(f"category type does not support {op} operations")
        raise DTypeError(f"category dtype does not support aggregation '{op}'")
    if dtype.startswith("timestamp"):
        if op in ("any", "all"):
            raise DTypeError(f"'{op}' with datetime64 dtypes is not supported. Use (obj != "
                             f"pd.Timestamp(0)).{op}() instead.")
        raise DTypeError(f"datetime64 type does not support operation '{op}'")
    if dtype.startswith("duration"):
        raise DTypeError(f"timedelta64 type does not support {op} operations")
    raise DTypeError(f"dtype '{dtype}' of column {label!r} does not support operation '{op}'")


def truth(col, missing_true=False):
    """Each value's truth as Python's bool() gives it: a non-empty string, a
    non-zero number or duration (NaN is true), any time or date; a
    categorical's by its category.  A missing value stays missing, or is
    True with missing_true (any / all with skipna=False, as pandas; not for
    a bool column with missing values, where pandas' masked booleans
    follow Kleene's logic)."""
    dt = col.dtype
    if dt == "category":
        col, dt = _core.cast(col, col.dictionary.dtype), col.dictionary.dtype
    if dt == "string":
        out = _core.binary_scalar("ne", col, "", False)
    elif dt.startswith("duration"):
        out = _core.binary_scalar("ne", _core.cast(col, "int64"), 0, False)
    elif dt == "bool" and missing_true and col.null_count:
        raise UnsupportedError("GroupBy.any / all(skipna=False) of a bool column with missing "
                               "values is not supported")
    elif dt in _NUMERIC:
        out = col if not missing_true or dt == "bool" else _core.binary_scalar("ne", col, 0, False)
    else:
        out = _core.binary("eq", col, col)   # times and dates: True (null where missing)
    return _core.fill_null(out, True) if missing_true else out


def is_own_column(df, key, col):
    """Whether Series key is the frame's column of its name (df["A"]):
    pandas then leaves that column out of the values, as for a key given
    by name.  As pandas, the same memory: a Series of equal values made
    apart from the frame is a key like any other."""
    if not _base.is_series(key) or not isinstance(key.name, str):
        return False
    names = df._table.names
    if key.name not in names:
        return False
    return df._table.column(names.index(key.name)).same_data(col)


def mask_short_groups(table, nk, nv, min_count, skipna):
    """table (nk keys, nv results, then nv counts, then one size column when
    not skipna) with a result made missing where its group has fewer than
    min_count values, or (skipna=False) any missing value; the counts and
    size left out."""
    out = [table.column(i) for i in range(nk + nv)]
    size = table.column(nk + 2 * nv) if not skipna else None
    for i in range(nv):
        count = table.column(nk + nv + i)
        keep = None
        if min_count > 0:
            keep = _core.binary_scalar("ge", count, min_count, False)
        if size is not None:
            full = _core.binary("eq", count, size)
            keep = full if keep is None else _core.binary("and", keep, full)
        out[nk + i] = _core.column_where(out[nk + i], _core.fill_null(keep, False), None)
    return _core.table_from_columns(out, table.names[:nk + nv])


def edge_rows(gb, op, cols, specs, min_count):
    """first / last with skipna=False, as pandas: each group's first (last)
    row's value of each column in cols, missing or not, from the engine's
    first / last result of specs (its keys, the groups in gb's order); the
    rows are found from the grouping (gb._rows_by_group: numpy over the
    group ids, no loop over rows).  pandas' min_count counts the group's
    rows, missing ones too (its kernel), but a string column's values (its
    Arrow path)."""
    work = gb._k.work
    counts = [("count", c) if work.column(work.names.index(c)).dtype == "string" else
              ("size", None) for c in cols] if min_count > 0 else []
    table = gb._run(list(specs) + [spec(how, c) for how, c in counts])
    _, order, starts = gb._rows_by_group()
    if table.num_rows != len(starts) - 1:   # observed=False: groups with no rows
        raise UnsupportedError(f"GroupBy.{op}(skipna=False) with observed=False is not "
                               "supported")
    ends = starts[1:] if op == "last" else starts[:-1] + 1
    pos = _core.column_from_buffer(np.asarray(order[ends - 1], dtype=np.int64))
    nk = len(gb._k.keys)
    out = [table.column(i) for i in range(table.num_columns)]
    for j, c in enumerate(cols):
        out[nk + j] = _core.take(work.column(work.names.index(c)), pos)
    table = _core.table_from_columns(out, list(table.names))
    return mask_short_groups(table, nk, len(cols), min_count, True) if counts else table
