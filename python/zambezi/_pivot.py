"""Wide and long: ``melt``, ``pivot``, ``pivot_table``, ``crosstab`` and
``get_dummies``, as pandas 3 gives them (the ``FramePivot`` mixin of
DataFrame, and the functions ``zb.melt`` ... of the package).

Nothing loops over rows.  pivot_table is one engine group-by over the
index and column keys (zambezi._groupby), then an unstack: each
aggregated row's place among the distinct row labels and among the
distinct column labels comes from the engine's group ids and sort
(zambezi._reshape._codes), and every result column is one engine
``take`` of positions computed with numpy.  melt is one engine concat of
the value columns, one of each id column k times over and an engine
``repeat`` of the value columns' names; get_dummies writes every indicator
column in one engine pass over each row's code (``one_hot``).

Differences from pandas (also in docs/api.md):

- pivot, pivot_table and crosstab follow pandas' unstack: when a cell
  is missing (and no fill_value fills it), every integer column without
  nulls becomes float64 (zambezi._reshape.gaps_upcast); bools stay bool
  with nulls (pandas: object), and a list of values mixing numbers with
  text keeps the numbers' type (pandas: object).  pivot_table with
  margins and a fill_value keeps integers (pandas: float64 with several
  value columns).
- pivot_table ``dropna=False`` makes missing keys groups of their own but
  does not expand several key levels to their full product (pandas
  reindexes to ``MultiIndex.from_product``).
- ``observed=False`` (every combination of the keys' categories and
  values, as pandas): a combination no row has gets 0 from sum, count,
  size, nunique and 1 from prod, as pandas; a Python aggfunc is not
  called for it (null; pandas calls it with no rows).
- ``margins`` needs string keys (the margin label "All" would make pandas'
  labels object).
"""

import numpy as np

from zambezi import _base, _core, _labels
from zambezi import index as _ix
from zambezi._concat import _common_dtype, _concat_columns
from zambezi._convert import null_mask, to_column, values_numpy
from zambezi._dtypes import NUMERIC
from zambezi._groupby_columns import spec
from zambezi._reshape import (_cells, _codes, _fill, _host_numpy, _int64, _positions,
                              gaps_upcast)
from zambezi.errors import (ColumnNotFoundError, DTypeError, InvalidValueError,
                            UnsupportedError)


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def _as_list(x):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _check_columns(df, names, what):
    have = df._table.names
    for nm in names:
        if not isinstance(nm, str) or nm not in have:
            raise ColumnNotFoundError(f"{what}: no column named {nm!r}; the columns are "
                                      f"{list(have)!r}")


def _first_codes(cols):
    """(codes, distinct) as _codes, the distinct combinations in order of
    first appearance (sort=False)."""
    names = [f"l{i}" for i in range(len(cols))]
    t = _core.table_from_columns(cols, names)
    ids, ng = _core.group_ids(t, list(range(len(cols))), False, False)
    ids = _host_numpy(ids)
    if ng == 0:
        return ids, _core.take(t, _int64(np.empty(0, dtype=np.int64)))
    first = np.full(ng, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids), dtype=np.int64))
    return ids, _core.take(t, _int64(first))


def _key_codes(cols, sort, nulls_first=False):
    return _codes(cols, nulls_first) if sort else _first_codes(cols)


def _label_values(table):
    """The rows of a Table of label columns as Python labels (one value, or
    a tuple for several columns) -- one per distinct label, not per row."""
    lists = [table.column(i).to_pylist() for i in range(table.num_columns)]
    if len(lists) == 1:
        return lists[0]
    return list(zip(*lists))


def _all_null(cols):
    """numpy bool: rows where every column of cols is null."""
    if not cols:
        return None
    out = None
    for c in cols:
        m = null_mask(c if c.device == "cpu" else c.to_device("cpu"))
        m = np.zeros(c.length, dtype=bool) if m is None else m
        out = m if out is None else (out & m)
    return out


# --------------------------------------------------------------------------
# melt
# --------------------------------------------------------------------------

def melt(frame, id_vars=None, value_vars=None, var_name=None, value_name="value",
         col_level=None, ignore_index=True):
    """Unpivot a frame from wide to long: one row per (row, value column),
    value column by value column; the id columns repeat, ``var_name``
    (default "variable", or the column index's name) holds the value
    column's name and ``value_name`` its value.  Value columns must share
    a dtype or all be numbers (pandas gives object).  ``ignore_index=False``
    keeps the rows' labels (repeated).

    Examples
    --------
    >>> df = zb.DataFrame({"city": ["Maun", "Tete"], "y2023": [7.0, 3.5], "y2024": [9.0, None]})
    >>> zb.melt(df, id_vars="city", var_name="year", value_name="fare")
       city    year     fare
     string  string  float64
    0  Maun   y2023        7
    1  Tete   y2023      3.5
    2  Maun   y2024        9
    3  Tete   y2024      NaN
    <BLANKLINE>
    [4 rows x 3 columns]
    """
    if not _base.is_frame(frame):
        raise DTypeError(f"melt: frame must be a DataFrame, not {type(frame).__name__}")
    if col_level is not None:
        raise UnsupportedError("melt: col_level is not supported")
    lab = _labels.labels(frame)
    if lab is not None and lab.nlevels > 1:
        return _melt_levels(frame, lab, id_vars, value_vars, var_name, value_name,
                            ignore_index)
    t = frame._table
    names = list(t.names)
    ids = _as_list(id_vars)
    _check_columns(frame, ids, "melt id_vars")
    if value_vars is None:
        vals = [c for c in names if c not in ids]
    else:
        vals = _as_list(value_vars)
        _check_columns(frame, vals, "melt value_vars")
    if var_name is None:
        var_name = frame._zb_columns.name if frame._zb_columns.name is not None else "variable"
    if value_name in names:
        raise InvalidValueError(f"melt: value_name ({value_name!r}) cannot match an element "
                                "in the DataFrame columns")
    n, k = t.num_rows, len(vals)
    tile = None  # positions n * k long, made only where a gather needs them
    if k:  # the id columns k times over (copies, no gather); each name n times
        cols = [_concat_columns([t.column(names.index(c))] * k, "the id columns")
                for c in ids]
    else:
        tile = _int64(np.empty(0, dtype=np.int64))
        cols = [_core.take(t.column(names.index(c)), tile) for c in ids]
    var = _core.repeat(to_column(vals, dtype="string"), n)
    if k:
        parts = [t.column(names.index(c)) for c in vals]
        dtypes = {p.dtype for p in parts}
        if len(dtypes) > 1 and _common_dtype(dtypes) is None:
            raise DTypeError("melt: the value columns have types " + ", ".join(sorted(dtypes))
                             + " with no common type (pandas gives object)")
        value = _concat_columns(parts, "the melted columns")
    else:
        value = to_column([], dtype="float64")
    out_names = ids + [var_name, value_name]
    index = None
    if not ignore_index:
        if tile is None:
            tile = _int64(np.tile(np.arange(n, dtype=np.int64), k))
        index = _ix.Index._from_columns([_core.take(c, tile) for c in frame._index._levels()],
                                        list(frame._index.names))
    return _labels.frame_from(frame._constructor, cols + [var, value], out_names, index)


def _melt_levels(frame, lab, id_vars, value_vars, var_name, value_name, ignore_index):
    """melt of a frame whose column labels are a MultiIndex (lab), as
    pandas: one variable column per level (variable_0, variable_1 ... or
    the levels' names; a single var_name takes the first level only)."""
    if id_vars is not None or value_vars is not None:
        raise UnsupportedError("melt of a frame with MultiIndex columns: id_vars and "
                               "value_vars are not supported")
    nlev = lab.nlevels
    if var_name is None:
        if all(nm is None for nm in lab.names):
            var_name = [f"variable_{i}" for i in range(nlev)]
        else:   # pandas: an unnamed level's column is labelled NaN
            var_name = [np.nan if nm is None else nm for nm in lab.names]
    names = list(var_name) if isinstance(var_name, (list, tuple)) else [var_name]
    if len(names) > nlev:
        raise InvalidValueError(f"melt: {len(names)} var_name for {nlev} column levels")
    flat = _labels.attach(frame._like(frame._table), None)
    out = melt(flat, var_name="variable", value_name=value_name, ignore_index=ignore_index)
    labels = _labels.label_list(frame)
    n = frame._table.num_rows
    levels = [_core.repeat(to_column([lb[i] for lb in labels]), n) for i in range(len(names))]
    value = out._table.column(out._table.names.index(value_name))
    return _labels.frame_from(frame._constructor, levels + [value], names + [value_name],
                              None if ignore_index else out._index)


# --------------------------------------------------------------------------
# pivot
# --------------------------------------------------------------------------

def _key_cols(df, keys, what):
    """Engine columns and names for keys: column names, or None for the
    frame's index levels."""
    if keys is None:
        return list(df._index._levels()), list(df._index.names)
    keys = _as_list(keys)
    _check_columns(df, keys, what)
    t = df._table
    return [t.column(t.names.index(k)) for k in keys], keys


def _wide(row_cols, row_names, col_cols, values, sort=True, fill_value=None, what="pivot",
          upcast=False):
    """The unstacked frame: rows the distinct row_cols combinations, columns
    (prefix..., column labels) for every (label, column) of values (a list of
    (prefix tuple, engine column) aligned with row_cols).  upcast: pandas'
    unstack rule for gaps (zambezi._reshape.gaps_upcast).  A missing label
    sorts first in pivot (pandas' set_index and unstack code it -1), last
    in pivot_table (a group-by's order)."""
    first = what == "pivot"
    r, rows = _key_codes(row_cols, sort, first)
    c, ccomb = _key_codes(col_cols, sort, first)
    cells = _cells(rows.num_rows, ccomb.num_rows, r, c, what)
    if upcast:
        cast = gaps_upcast([v for _, v in values], cells, fill_value)
        values = [(prefix, v) for (prefix, _), v in zip(values, cast)]
    clabels = _label_values(ccomb)
    cols, labels = [], []
    for prefix, vcol in values:
        for j, lb in enumerate(clabels):
            cols.append(_fill(_core.take(vcol, _positions(cells[:, j])), fill_value))
            tail = lb if isinstance(lb, tuple) else (lb,)
            labels.append(prefix + tail if (prefix or len(tail) > 1) else tail[0])
    index = _ix.Index._from_columns([rows.column(i) for i in range(rows.num_columns)],
                                    row_names)
    return cols, labels, index


def _frame(df_cls, cols, labels, index, names):
    labels = list(labels)
    if labels and isinstance(labels[0], tuple):
        lab = _labels.from_list(labels, names)
    else:
        lab = _labels.from_list(labels, names[-1:] if names else None)
    out = df_cls._wrap(_core.table_from_columns(cols, _labels.internal_names(labels)), index)
    return _labels.attach(out, lab)


def _one_block(cols):
    """pivot's list of value columns as pandas makes them one 2-D array
    first: numbers of different types take numpy's common type (int8 and
    float32 give float32, int with float float64).  Other mixes (pandas'
    object array) are left as they are."""
    dtypes = {c.dtype for c in cols}
    if len(dtypes) < 2 or any(d not in _NUMBERS for d in dtypes):
        return cols
    target = np.result_type(*[np.dtype(d) for d in dtypes]).name
    return [c if c.dtype == target else _core.cast(c, target) for c in cols]


_NUMBERS = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                      "uint64", "float32", "float64"])


def pivot(data, *, columns, index=None, values=None):
    """Reshape without aggregating: rows the distinct values of ``index``
    (the frame's index by default), columns the distinct values of
    ``columns`` (both sorted, a missing label last); each cell the one row
    with that pair (null where none).  ``values`` (default: every other
    column) gives a MultiIndex (value, label) when several are pivoted.
    A (row, column) pair seen twice raises ValueError, as pandas.  As in
    pandas, a list of number columns of different types takes their
    common type, and when a cell is missing every integer column without
    nulls becomes float64 (see zambezi._reshape).

    Examples
    --------
    >>> df = zb.DataFrame({"city": ["Maun", "Maun", "Tete"], "year": [2023, 2024, 2024],
    ...                    "fare": [7.0, 9.0, 3.5]})
    >>> df.pivot(index="city", columns="year", values="fare")
    year     2023     2024
          float64  float64
    city
    Maun        7        9
    Tete      NaN      3.5
    <BLANKLINE>
    [2 rows x 2 columns]
    """
    if columns is None:
        raise InvalidValueError("pivot: columns is required")
    row_cols, row_names = _key_cols(data, index, "pivot index")
    col_cols, col_names = _key_cols(data, columns, "pivot columns")
    t = data._table
    used = set(_as_list(index)) | set(_as_list(columns))
    if values is None:
        vals = [c for c in t.names if c not in used]
        multi = True
    else:
        vals = _as_list(values)
        _check_columns(data, vals, "pivot values")
        multi = isinstance(values, (list, tuple))
    vcols = [t.column(t.names.index(v)) for v in vals]
    if isinstance(values, (list, tuple)):
        vcols = _one_block(vcols)
    vspec = [((v,) if multi else (), c) for v, c in zip(vals, vcols)]
    cols, labels, rindex = _wide(row_cols, row_names, col_cols, vspec, True, None, "pivot",
                                 upcast=True)
    names = ([None] if multi else []) + col_names
    return _frame(data._constructor, cols, labels, rindex, names)


# --------------------------------------------------------------------------
# pivot_table
# --------------------------------------------------------------------------

def _func_name(func):
    from zambezi._groupby import _ALIASES, _ALL_OPS

    if isinstance(func, str):
        name = _ALIASES.get(func, func)
        if name not in _ALL_OPS:
            raise InvalidValueError(f"pivot_table: unknown aggregation {func!r}; expected one "
                                    f"of {sorted(_ALL_OPS)} or a function")
        return name
    if func is len:
        return "size"
    name = getattr(func, "__name__", None)
    if callable(func) and name is not None and getattr(func, "__module__", "") in (
            "numpy", "builtins") and _ALIASES.get(name, name) in _ALL_OPS:
        return _ALIASES.get(name, name)
    if not callable(func):
        raise DTypeError(f"pivot_table: aggfunc must be a name, a function, a list or a "
                         f"dict, not {type(func).__name__}")
    return None  # a Python function: called per group


def _func_label(func):
    return func if isinstance(func, str) else getattr(func, "__name__", str(func))


# what an aggregation gives for a group with no rows (observed=False): the
# others give null
_EMPTY_GROUP = {"sum": 0, "count": 0, "size": 0, "nunique": 0, "prod": 1}


def _all_combinations(kcols, acols, pairs):
    """observed=False: the aggregated groups (kcols, acols) widened to every
    combination of the keys' values -- a categorical key's categories, the
    distinct values of any other key (as pandas' group-by with
    observed=False) -- in key order; a combination no row has gets what
    the aggregation gives for no rows (0 for sum, count, size, nunique; 1
    for prod; else null)."""
    codes, levels = [], []
    for c in kcols:
        if c.dtype == "category":
            h = c if c.device == "cpu" else c.to_device("cpu")
            ncat = h.dictionary.length
            k = values_numpy(h).astype(np.int64)
            m = null_mask(h)
            lev = _core.categorical_from_codes(np.arange(ncat, dtype=np.int32), h.dictionary)
            if m is not None:  # a missing key kept (dropna=False): one more level, last
                k = np.where(m, ncat, k)
                lev = _core.take(lev, _positions(np.r_[np.arange(ncat), -1]))
            codes.append(k)
            levels.append(lev)
        else:
            k, distinct = _codes([c])
            codes.append(np.asarray(k, dtype=np.int64))
            levels.append(distinct.column(0))
    sizes = tuple(lev.length for lev in levels)
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 0
    if total > 10**8:
        raise InvalidValueError(f"pivot_table: observed=False makes {total} key combinations; "
                                "use observed=True")
    where = np.full(total, -1, dtype=np.int64)
    if len(kcols) and kcols[0].length:
        where[np.ravel_multi_index(codes, sizes)] = np.arange(kcols[0].length, dtype=np.int64)
    grid = np.unravel_index(np.arange(total, dtype=np.int64), sizes)
    new_keys = [_core.take(lev, _int64(g)) for lev, g in zip(levels, grid)]
    new_vals = []
    for (_, f), c in zip(pairs, acols):
        out = _core.take(c, _positions(where))
        empty = _EMPTY_GROUP.get(_func_name(f))
        new_vals.append(_fill(out, empty) if empty is not None else out)
    return new_keys, new_vals


def _aggregate(df, keys, pairs, sort, dropna):
    """The group-by of df by keys: (key columns, [engine column per (value,
    func) pair]) in group order."""
    from zambezi._apply import group_agg_python

    gb = df.groupby(keys, sort=sort, dropna=dropna)
    specs, where, py = [], [], []
    for v, f in pairs:
        op = _func_name(f)
        if op is None:
            where.append(("py", len(py)))
            py.append((v, f))
        else:
            where.append(("eng", len(specs)))
            specs.append(spec(op, v))
    if not specs:
        specs.append(spec("size", None))
    table = gb._run(specs)
    nk = len(keys)
    kcols = [table.column(i) for i in range(nk)]
    pycols = [group_agg_python(gb, v, f) for v, f in py]
    out = [table.column(nk + i) if kind == "eng" else pycols[i] for kind, i in where]
    return kcols, out


def pivot_table(data, values=None, index=None, columns=None, aggfunc="mean", fill_value=None,
                margins=False, dropna=True, margins_name="All", observed=True, sort=True,
                **kwargs):
    """A spreadsheet-style pivot table: ``values`` aggregated by ``aggfunc``
    over the groups of ``index`` (rows) and ``columns`` (column labels),
    as one engine group-by and an unstack.  aggfunc: a name ("mean",
    "sum", "count", "size", "min", "max", "median", "std", "var", "first",
    "last", "nunique", "prod"), a numpy / builtin function of such a name,
    ``len`` (a count of rows), any other function (called once per group
    with a Series: slow), a list of them (columns labelled (function,
    value, label)) or a dict value column -> function(s).  aggfunc="size"
    counts each group's rows once, whatever the value columns, as pandas:
    one column per label of ``columns`` (a Series of the sizes when only
    index or only columns is given).  ``fill_value`` fills missing cells; ``margins`` adds an "All" row and column
    aggregated over all of the data (string keys only); ``dropna`` drops
    rows with a missing key and columns with no values; ``sort`` sorts
    the labels; ``observed=False`` makes a group of every combination of
    the keys' categories (and other keys' values), as pandas: empty ones
    aggregate to 0 for sum / count / size, else to null, which ``dropna``
    then drops where a whole row is null.  Cells with no value are null;
    as in pandas, an integer aggregate with such a cell (and no
    ``fill_value``) becomes float64.

    Examples
    --------
    >>> df = zb.DataFrame({"city": ["Maun", "Maun", "Tete", "Tete"],
    ...                    "kind": ["bus", "taxi", "bus", "bus"], "fare": [2.0, 9.0, 3.0, 5.0]})
    >>> df.pivot_table(values="fare", index="city", columns="kind", aggfunc="mean")
    kind      bus     taxi
          float64  float64
    city
    Maun        2        9
    Tete        4      NaN
    <BLANKLINE>
    [2 rows x 2 columns]
    >>> t = zb.pivot_table(df, values="fare", index="city", columns="kind", aggfunc="sum",
    ...                    margins=True, fill_value=0.0)
    >>> t["All"].to_list()
    [11.0, 8.0, 19.0]
    """
    if not _base.is_frame(data):
        raise DTypeError(f"pivot_table: data must be a DataFrame, not {type(data).__name__}")
    if kwargs:
        raise UnsupportedError(f"pivot_table: extra keywords {sorted(kwargs)} are not "
                               "supported")
    if isinstance(aggfunc, list):
        cols, labels, rindex = [], [], None
        for f in aggfunc:
            piece = pivot_table(data, values, index, columns, f, fill_value, margins, dropna,
                                margins_name, observed, sort)
            lab = piece._zb_columns.to_list()
            cols += [piece._table.column(i) for i in range(piece._table.num_columns)]
            labels += [(_func_label(f),) + (lb if isinstance(lb, tuple) else (lb,))
                       for lb in lab]
            if rindex is None:
                rindex, names = piece._index, [None] + list(piece._zb_columns.names)
            elif not rindex.equals(piece._index):
                raise UnsupportedError("pivot_table: the functions of the list give "
                                       "different rows")
        return _frame(data._constructor, cols, labels, rindex, names)
    rows = _as_list(index)
    cols_k = _as_list(columns)
    _check_columns(data, rows, "pivot_table index")
    _check_columns(data, cols_k, "pivot_table columns")
    if not rows and not cols_k:
        raise InvalidValueError("pivot_table: give index, columns or both")
    keys = rows + cols_k
    if isinstance(aggfunc, str) and _func_name(aggfunc) == "size":
        if values is not None:
            _check_columns(data, _as_list(values), "pivot_table values")
        return _size_table(data, rows, cols_k, fill_value, margins, dropna, observed, sort)
    t = data._table
    if isinstance(aggfunc, dict):
        vals = list(aggfunc)
        _check_columns(data, vals, "pivot_table aggfunc")
        multi = True
    elif values is None:
        vals = [c for c in t.names if c not in keys]
        if aggfunc not in ("count", "size", "nunique", "first", "last", len) and \
                not isinstance(aggfunc, (list, dict)):
            vals = [c for c in vals if t.column(t.names.index(c)).dtype in NUMERIC or
                    aggfunc in ("min", "max")]
        multi = True
    else:
        vals = _as_list(values)
        _check_columns(data, vals, "pivot_table values")
        multi = isinstance(values, (list, tuple))
    if sort:
        vals = sorted(vals)
    pairs = []
    for v in vals:
        fs = aggfunc[v] if isinstance(aggfunc, dict) else aggfunc
        if isinstance(fs, (list, tuple)):
            raise UnsupportedError("pivot_table: a list of functions in the aggfunc dict is "
                                   "not supported")
        pairs.append((v, fs))
    if not pairs:
        raise InvalidValueError("pivot_table: no value columns to aggregate")
    kcols, acols = _aggregate(data, keys, pairs, sort, dropna)
    if not observed:
        kcols, acols = _all_combinations(kcols, acols, pairs)
    if dropna and acols:
        empty = _all_null(acols)
        if empty is not None and empty.any():
            keep = _int64(np.flatnonzero(~empty))
            kcols = [_core.take(c, keep) for c in kcols]
            acols = [_core.take(c, keep) for c in acols]
    nr = len(rows)
    if not rows:
        if margins:
            raise UnsupportedError("pivot_table: margins need index")
        return _columns_only(data, cols_k, vals, kcols, acols, fill_value)
    if not cols_k:
        index_ = _ix.Index._from_columns(kcols, rows)
        out_cols = [_fill(c, fill_value) for c in acols]
        labels = vals
        names = [None]
        if margins:
            raise UnsupportedError("pivot_table: margins need columns")
    else:
        vspec = [((v,) if multi else (), c) for v, c in zip(vals, acols)]
        out_cols, labels, index_ = _wide(kcols[:nr], rows, kcols[nr:], vspec, sort,
                                         fill_value, "pivot_table", upcast=True)
        names = ([None] if multi else []) + cols_k
        if dropna:
            empty = [c.null_count == c.length and c.length > 0 for c in out_cols]
            if any(empty):
                out_cols = [c for c, e in zip(out_cols, empty) if not e]
                labels = [lb for lb, e in zip(labels, empty) if not e]
        if margins:
            out_cols, labels, index_ = _margins(data, rows, cols_k, pairs, multi, out_cols,
                                                labels, index_, margins_name, fill_value,
                                                dropna)
    return _frame(data._constructor, out_cols, labels, index_, names)


def _size_table(data, rows, cols_k, fill_value, margins, dropna, observed, sort):
    """pivot_table(aggfunc="size"), as pandas: the size of each group,
    whatever the value columns (pandas' groupby().agg("size") gives one
    Series): one column per label of columns, or a Series of the sizes
    when only index or only columns is given."""
    if margins:
        raise UnsupportedError("pivot_table: margins with aggfunc='size' are not supported "
                               "(pandas fails on them too)")
    keys = rows + cols_k
    pairs = [(None, "size")]
    kcols, acols = _aggregate(data, keys, pairs, sort, dropna)
    if not observed:
        kcols, acols = _all_combinations(kcols, acols, pairs)
    if not rows or not cols_k:  # one set of keys: pandas' Series of sizes
        index_ = _ix.Index._from_columns(kcols, keys)
        return data._constructor_sliced._from_column(_fill(acols[0], fill_value), None, index_)
    nr = len(rows)
    out_cols, labels, index_ = _wide(kcols[:nr], rows, kcols[nr:], [((), acols[0])], sort,
                                     fill_value, "pivot_table", upcast=True)
    if dropna:
        full = [not (c.null_count == c.length and c.length > 0) for c in out_cols]
        out_cols = [c for c, keep in zip(out_cols, full) if keep]
        labels = [lb for lb, keep in zip(labels, full) if keep]
    return _frame(data._constructor, out_cols, labels, index_, cols_k)


def _columns_only(data, cols_k, vals, kcols, acols, fill_value):
    """pivot_table without index: pandas' transposed table, one row per
    value column (labelled by its name), one column per group."""
    dtypes = {c.dtype for c in acols}
    if len(dtypes) > 1 and _common_dtype(dtypes) is None:
        raise DTypeError("pivot_table: the aggregates have types " + ", ".join(sorted(dtypes))
                         + " with no common type to share a column")
    big = _concat_columns(acols, "the aggregates")  # value by value
    ng = kcols[0].length if kcols else 0
    k = len(acols)
    cols = [_fill(_core.take(big, _int64(np.arange(k, dtype=np.int64) * ng + j)), fill_value)
            for j in range(ng)]
    labels = _label_values(_core.table_from_columns(kcols, [f"k{i}" for i in
                                                            range(len(kcols))]))
    index = _ix.Index._from_columns([to_column(vals, dtype="string")], [None])
    return _frame(data._constructor, cols, labels, index, list(cols_k))


def _margins(data, rows, cols_k, pairs, multi, out_cols, labels, index_, mname, fill_value,
             dropna):
    """Add the margin column(s) (per value: aggregated by the row keys
    only) and the margin row (aggregated by the column keys only; the
    grand aggregate under the margin column)."""
    t = data._table
    for k in rows + cols_k:
        if t.column(t.names.index(k)).dtype not in ("string", "category"):
            raise UnsupportedError("pivot_table: margins need string keys (pandas' labels "
                                   f"become object; key {k!r} is "
                                   f"{t.column(t.names.index(k)).dtype})")
    src = data
    if dropna:
        used = list(dict.fromkeys(rows + cols_k + [v for v, _ in pairs]))
        sub = data[used]
        bad = _all_null_any(sub)
        if bad.any():
            from zambezi._indexing import filter_rows
            src = data._select_rows(filter_rows(to_column(~bad)))
    ncl = len(cols_k)
    nr = len(rows)
    # margin column values, aligned with index_ rows
    rk, rcols = _aggregate(src, rows, pairs, True, True)
    pos = _match(index_._levels(), rk)
    margin_cols = [_core.take(c, _positions(pos)) for c in rcols]
    # margin row: per (value, column label)
    ck, ccols = _aggregate(src, cols_k, pairs, True, True)
    clabels = _label_values(_core.table_from_columns(ck, [f"k{i}" for i in range(ncl)]))
    grand = _grand(src, pairs)
    tail_all = (mname,) + ("",) * (ncl - 1)
    # each value's block of columns, then its margin column
    result_cols, result_labels = [], []
    for i, (v, _) in enumerate(pairs):
        block = [(c, lb) for c, lb in zip(out_cols, labels)
                 if (lb[0] == v if multi else True)]
        mlabel = ((v,) + tail_all) if multi else (tail_all if ncl > 1 else mname)
        block.append((margin_cols[i], mlabel))
        ccol_vals = ccols[i]
        for c, lb in block:
            if lb == mlabel:
                bottom = grand[i]
            else:
                key = lb[1:] if multi else lb
                key = key if ncl > 1 else (key[0] if isinstance(key, tuple) else key)
                j = clabels.index(key)
                bottom = ccol_vals.slice(j, 1)
            cc = _concat_columns([c, bottom], "the margins")
            result_cols.append(_fill(cc, fill_value))
            result_labels.append(lb)
    row_label = (mname,) + ("",) * (nr - 1)
    levels = index_._levels()
    extra = [to_column([x], dtype="string") for x in row_label]
    new_levels = [_concat_columns([lv if lv.dtype == "string" else _core.cast(lv, "string"),
                                   e], "the margin row label") for lv, e in zip(levels, extra)]
    return result_cols, result_labels, _ix.Index._from_columns(new_levels, list(index_.names))


def _all_null_any(df):
    t = df._table
    bad = np.zeros(t.num_rows, dtype=bool)
    for i in range(t.num_columns):
        m = null_mask(t.column(i))
        if m is not None:
            bad |= m
        if t.column(i).dtype.startswith("float"):
            bad |= np.isnan(values_numpy(t.column(i)))
    return bad


def _match(left_levels, right_cols):
    """For each row of left_levels, the position of the equal row of
    right_cols (-1: none), by an engine join."""
    lt = _core.table_from_columns(list(left_levels), [f"k{i}" for i in range(len(left_levels))])
    rt = _core.table_from_columns(list(right_cols), [f"k{i}" for i in range(len(right_cols))])
    keys = list(range(len(left_levels)))
    li, ri = _core.join_indices(lt, rt, keys, keys, "left", False)
    li, ri = _host_numpy(li), ri
    rmask = null_mask(ri)
    rv = _host_numpy(ri).copy()
    if rmask is not None:
        rv[rmask] = -1
    out = np.full(lt.num_rows, -1, dtype=np.int64)
    out[li] = rv
    return out


def _grand(df, pairs):
    """Each (value, func) aggregated over all rows: a column of one value."""
    n = len(df)
    key = _base.series_class()(np.zeros(n, dtype=np.int8))
    key._index = df._index
    k = "__all__"
    while k in df._table.names:
        k = "_" + k
    work = df.assign(**{k: key})
    _, cols = _aggregate(work, [k], pairs, True, True)
    return cols


# --------------------------------------------------------------------------
# crosstab
# --------------------------------------------------------------------------

def _named(objs, default, names):
    out = []
    for i, o in enumerate(objs):
        s = o if _base.is_series(o) else _base.series_class()(o)
        nm = names[i] if names is not None else (s.name if s.name is not None
                                                 else f"{default}_{i}")
        out.append((nm, s))
    return out


def _common_labels(series):
    """The labels every Series has (in the first one's order), or None
    when their indexes are all the same (nothing to align)."""
    if len(series) < 2 or all(s._index.equals(series[0]._index) for s in series[1:]):
        return None
    common = series[0]._index
    for s in series[1:]:
        common = common.intersection(s._index)
    return common


def _aligned(objs, labels):
    """objs with each Series among them reindexed to labels."""
    return [o.reindex(labels) if _base.is_series(o) else o for o in objs]


def crosstab(index, columns, values=None, rownames=None, colnames=None, aggfunc=None,
             margins=False, margins_name="All", dropna=True, normalize=False):
    """Counts (or ``values`` aggregated by ``aggfunc``) of each combination
    of the ``index`` and ``columns`` factors (Series or arrays, or lists of
    them, of one length; Series with different indexes meet on the labels
    they share, as in pandas), as pivot_table: rows the distinct index values,
    columns the distinct column values, sorted; counts fill missing cells
    with 0.  ``normalize``: True / "all" (divide by the total), "index"
    (by each row's total) or "columns" (by each column's total);
    ``margins`` adds "All" totals (string factors).

    Examples
    --------
    >>> city = zb.Series(["Maun", "Maun", "Tete", "Tete"], name="city")
    >>> kind = zb.Series(["bus", "taxi", "bus", "bus"], name="kind")
    >>> zb.crosstab(city, kind)
    kind    bus   taxi
          int64  int64
    city
    Maun      1      1
    Tete      2      0
    <BLANKLINE>
    [2 rows x 2 columns]
    >>> zb.crosstab(city, kind, normalize="index")["bus"].to_list()
    [0.5, 1.0]
    """
    index = _as_list(index) if isinstance(index, list) else [index]
    columns = _as_list(columns) if isinstance(columns, list) else [columns]
    common = _common_labels([o for o in index + columns + [values] if _base.is_series(o)])
    if common is not None:  # Series meet on the labels they all have, as pandas
        index, columns, values = _aligned(index, common), _aligned(columns, common), \
            _aligned([values], common)[0]
    rows = _named(index, "row", rownames)
    cols = _named(columns, "col", colnames)
    n = len(rows[0][1])
    data = {}
    for nm, s in rows + cols:
        if len(s) != n:
            raise InvalidValueError(f"crosstab: factor {nm!r} has {len(s)} values, not {n}")
        data[nm] = s._col
    if (values is None) != (aggfunc is None):
        raise InvalidValueError("crosstab: values and aggfunc go together")
    df_cls = _base.frame_class()
    if values is not None:
        v = values if _base.is_series(values) else _base.series_class()(values)
        data["__values__"] = v._col
        df = df_cls._wrap(_core.table_from_columns(list(data.values()), list(data)))
        out = pivot_table(df, "__values__", [r for r, _ in rows], [c for c, _ in cols],
                          aggfunc, None, margins, dropna, margins_name)
    else:
        data["__dummy__"] = _core.column_from_buffer(np.zeros(n, dtype=np.int64))
        df = df_cls._wrap(_core.table_from_columns(list(data.values()), list(data)))
        out = pivot_table(df, "__dummy__", [r for r, _ in rows], [c for c, _ in cols], len,
                          0, margins, dropna, margins_name)
    if normalize is False:
        return out
    return _normalize(out, normalize, margins)


def _share(m, how):
    """m (2-d float) divided by its total, row totals or column totals."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if how == "all":
            return m / m.sum()
        if how == "index":
            return m / m.sum(axis=1, keepdims=True)
        return m / m.sum(axis=0, keepdims=True)


def _normalize(out, normalize, margins):
    """pandas' crosstab normalisation: shares of the total, of each row or
    of each column; missing shares are 0.  With margins, the core is
    normalised and the margins become shares of their own totals: 'index'
    keeps the margin row only, 'columns' the margin column only, 'all'
    both (the corner is 1)."""
    if normalize is True:
        normalize = "all"
    normalize = {0: "index", 1: "columns"}.get(normalize, normalize) \
        if not isinstance(normalize, bool) else normalize
    if normalize not in ("all", "index", "columns"):
        raise InvalidValueError(f"crosstab: normalize must be True, 'all', 'index' or "
                                f"'columns', not {normalize!r}")
    t = out._table
    nr, nc = t.num_rows, t.num_columns
    m = np.zeros((nr, nc))
    for j in range(nc):
        c = _core.cast(t.column(j), "float64")
        c = c if c.device == "cpu" else c.to_device("cpu")
        v = values_numpy(c).astype(np.float64)
        mk = null_mask(c)
        m[:, j] = np.where(mk, np.nan, v) if mk is not None else v
    rows, cols = nr, nc
    if not margins:
        res = _share(m, normalize)
    else:
        core = _share(m[:-1, :-1], normalize)
        colm, rowm = m[:-1, -1:], m[-1:, :-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            colm, rowm = colm / colm.sum(), rowm / rowm.sum()
        if normalize == "columns":
            res, rows = np.hstack([core, colm]), nr - 1
        elif normalize == "index":
            res, cols = np.vstack([core, rowm]), nc - 1
        else:
            res = np.vstack([np.hstack([core, colm]), np.hstack([rowm, [[1.0]]])])
    res = np.nan_to_num(res, nan=0.0)
    names = list(t.names)[:cols]
    data = [_core.column_from_buffer(np.ascontiguousarray(res[:, j])) for j in range(cols)]
    if rows != nr:
        from zambezi._indexing import slice_rows
        out = out._select_rows(slice_rows(0, rows))
    labels = out._zb_columns.to_list()[:cols]
    lab = _labels.from_list(labels, list(out._zb_columns.names))
    return _labels.attach(out._like(_core.table_from_columns(data, names)), lab)


# --------------------------------------------------------------------------
# get_dummies
# --------------------------------------------------------------------------

def _dummies(col, prefix, sep, dummy_na, drop_first, dtype):
    """(engine columns, labels) of the indicator columns of one column."""
    col = col if col.device == "cpu" else col.to_device("cpu")
    categorical = col.dtype == "category"
    if col.dtype == "string":  # sorted distinct values and codes, one engine pass
        col = _core.cast(col, "category")
    if col.dtype == "category":
        codes = values_numpy(col).astype(np.int64)
        m = null_mask(col)
        if m is not None:
            codes = np.where(m, -1, codes)
        cats = col.dictionary.to_pylist()
    else:
        codes, distinct = _codes([col])
        cats = distinct.column(0).to_pylist()
        if cats and cats[-1] is None:
            codes = np.where(codes == len(cats) - 1, -1, codes)
            cats = cats[:-1]
        elif col.dtype.startswith("float") and cats and cats[-1] != cats[-1]:
            codes = np.where(codes == len(cats) - 1, -1, codes)
            cats = cats[:-1]
    k = len(cats)
    labels = list(cats)
    if dummy_na:
        codes = np.where(codes < 0, k, codes)
        if col.dtype.startswith(("int", "uint")):
            # pandas inserts NaN into the levels: integer levels become float64
            labels = [float(v) for v in labels]
        labels.append(float("nan"))
        k += 1
    start = 1 if drop_first else 0
    np_dtype = np.dtype(bool if dtype is None else dtype)
    # every indicator column in one engine pass over the codes
    hot = _core.one_hot(_core.column_from_buffer(np.ascontiguousarray(codes, dtype=np.int64)),
                        k)
    cols, out_labels = [], []
    if prefix is None and categorical:
        # pandas labels them with a CategoricalIndex of the column's categories
        out_labels = _core.categorical_from_codes(
            np.array([j if j < len(cats) else -1 for j in range(start, k)], dtype=np.int32),
            col.dictionary)
    for j in range(start, k):
        ind = hot.column(j)
        cols.append(ind if np_dtype == np.bool_ else _core.cast(ind, np_dtype.name))
        lb = labels[j]
        if prefix is None:
            if isinstance(out_labels, list):
                out_labels.append(lb)
        else:
            out_labels.append(f"{prefix}{sep}{_fmt(lb)}")
    return cols, out_labels


def _fmt(v):
    if isinstance(v, float) and v != v:
        return "nan"
    return str(v)


def get_dummies(data, prefix=None, prefix_sep="_", dummy_na=False, columns=None, sparse=False,
                drop_first=False, dtype=None):
    """Indicator columns: one per distinct value (sorted; a categorical's
    categories in their order), True where the row has that value.  For a
    frame, the string and categorical columns (or ``columns=``) are encoded
    as ``{column}{prefix_sep}{value}`` after the other columns; for a
    Series the labels are the values (or ``prefix``).  ``dummy_na`` adds a
    column for missing values, ``drop_first`` leaves out the first value,
    ``dtype`` is the indicators' dtype (default bool, as pandas 3).
    Without a prefix the labels are pandas': the values, NaN for the
    missing-value column (integer values then become floats), a
    CategoricalIndex for a categorical.  Difference from pandas: boolean
    values with ``dummy_na`` are labelled by a boolean Index with a missing
    label (pandas: an object Index of False, True, NaN).

    Examples
    --------
    >>> df = zb.DataFrame({"city": ["Maun", "Tete", None], "n": [1, 2, 3]})
    >>> zb.get_dummies(df)
          n  city_Maun  city_Tete
      int64       bool       bool
    0     1       True      False
    1     2      False       True
    2     3      False      False
    <BLANKLINE>
    [3 rows x 3 columns]
    >>> zb.get_dummies(zb.Series(["a", "b", "a"]), dtype="int8").to_dict("list")
    {'a': [1, 0, 1], 'b': [0, 1, 0]}
    """
    if sparse:
        raise UnsupportedError("get_dummies: sparse=True is not supported")
    if _base.is_series(data) or not _base.is_frame(data):
        s = data if _base.is_series(data) else _base.series_class()(data)
        pre = prefix if isinstance(prefix, str) or prefix is None else None
        if isinstance(prefix, dict) or isinstance(prefix, list):
            raise InvalidValueError("get_dummies: a Series takes one str prefix")
        cols, labels = _dummies(s._col, pre, prefix_sep, dummy_na, drop_first, dtype)
        df_cls = s._constructor_expanddim
        if isinstance(labels, list):
            return _no_columns_labels(_labels.frame_from(df_cls, cols, labels, s._index))
        out = df_cls._wrap(_core.table_from_columns(cols, [f"c{j}" for j in range(len(cols))]),
                           s._index)
        return _labels.attach(out, _ix.Index._from_columns([labels], [None]))
    t = data._table
    names = list(t.names)
    if columns is None:
        enc = [nm for nm in names if t.column(names.index(nm)).dtype in ("string", "category")]
    else:
        if isinstance(columns, str) or not hasattr(columns, "__iter__"):
            raise DTypeError("Input must be a list-like for parameter `columns`")
        enc = _as_list(columns)
        _check_columns(data, enc, "get_dummies columns")
    if prefix is None:
        prefixes = {c: c for c in enc}
    elif isinstance(prefix, (str, dict, list)):
        prefixes = _per_encoded(prefix, enc, "prefix")
    else:
        raise DTypeError("get_dummies: prefix must be a str, list or dict")
    seps = _per_encoded(prefix_sep, enc, "prefix_sep")
    cols = [t.column(i) for i, nm in enumerate(names) if nm not in enc]
    labels = [_labels.label_list(data)[i] for i, nm in enumerate(names) if nm not in enc]
    for c in enc:
        dc, dl = _dummies(t.column(names.index(c)), prefixes[c], seps[c], dummy_na,
                          drop_first, dtype)
        cols += dc
        labels += dl
    return _no_columns_labels(_labels.frame_from(data._constructor, cols, labels, data._index))


def _per_encoded(value, enc, what):
    """get_dummies' prefix or prefix_sep for each column encoded: one str
    for all, or a list (in their order) or dict (by column) of one each."""
    if isinstance(value, str):
        return {c: value for c in enc}
    if len(value) != len(enc):
        raise InvalidValueError(f"Length of '{what}' ({len(value)}) did not match the length "
                                f"of the columns being encoded ({len(enc)}).")
    if isinstance(value, dict):
        return {c: value[c] for c in enc}
    return dict(zip(enc, value))


def _no_columns_labels(df):
    """A get_dummies result without columns is labelled as pandas' empty
    DataFrame(index=...): by an empty RangeIndex."""
    return _labels.attach(df, _ix.RangeIndex(0)) if not len(df.columns) else df


def str_get_dummies(s, sep="|", dtype=None):
    """Series.str.get_dummies: each string split at sep, one indicator
    column per token (sorted).  The strings are split once per distinct
    value, not per row; rows take their distinct value's indicators."""
    if not isinstance(sep, str) or not sep:
        raise InvalidValueError("str.get_dummies: sep must be a non-empty str")
    col = s._col if s._col.device == "cpu" else s._col.to_device("cpu")
    # pandas' str dtype keeps empty tokens (a "" column: "  e".split(" ")
    # holds two); its object strings, as categoricals give them, drop them
    keep_empty = col.dtype == "string"
    if col.dtype == "category":
        col = _core.cast(col, "string")
    codes, distinct = _codes([col])
    values = distinct.column(0).to_pylist()  # one per distinct string
    token_sets = [set() if v is None else set(t for t in v.split(sep) if keep_empty or t != "")
                  for v in values]
    tokens = sorted(set().union(*token_sets)) if token_sets else []
    where = {t: j for j, t in enumerate(tokens)}
    table = np.zeros((len(values), len(tokens)), dtype=np.dtype(dtype or np.int64))
    for i, ts in enumerate(token_sets):
        for t in ts:
            table[i, where[t]] = 1
    per_row = table[codes] if len(values) else np.zeros((len(codes), 0), table.dtype)
    cols = [_core.column_from_buffer(np.ascontiguousarray(per_row[:, j]))
            for j in range(len(tokens))]
    return _labels.frame_from(s._constructor_expanddim, cols, tokens, s._index)


class FramePivot:
    """DataFrame.melt / pivot / pivot_table (a mixin)."""

    __slots__ = ()

    def melt(self, id_vars=None, value_vars=None, var_name=None, value_name="value",
             col_level=None, ignore_index=True):
        """Unpivot from wide to long (see ``zb.melt``).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["x", "y"], "a": [1, 2], "b": [3, 4]})
        >>> df.melt(id_vars="k").to_dict("list")
        {'k': ['x', 'y', 'x', 'y'], 'variable': ['a', 'a', 'b', 'b'], 'value': [1, 2, 3, 4]}
        """
        return melt(self, id_vars, value_vars, var_name, value_name, col_level, ignore_index)

    def pivot(self, *, columns, index=None, values=None):
        """Reshape by labels without aggregating (see ``zb.pivot``).  A
        missing cell (y, b) makes the integer columns float64, as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["x", "x", "y"], "c": ["a", "b", "a"], "v": [1, 2, 3]})
        >>> df.pivot(index="k", columns="c", values="v")["a"].to_list()
        [1.0, 3.0]
        """
        return pivot(self, columns=columns, index=index, values=values)

    def pivot_table(self, values=None, index=None, columns=None, aggfunc="mean",
                    fill_value=None, margins=False, dropna=True, margins_name="All",
                    observed=True, sort=True, **kwargs):
        """A spreadsheet-style pivot table (see ``zb.pivot_table``).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["x", "x", "y"], "c": ["a", "b", "a"], "v": [1, 2, 3]})
        >>> df.pivot_table(values="v", index="k", columns="c", aggfunc="sum",
        ...                fill_value=0).to_dict("list")
        {'a': [1, 3], 'b': [2, 0]}
        """
        return pivot_table(self, values, index, columns, aggfunc, fill_value, margins, dropna,
                           margins_name, observed, sort, **kwargs)
