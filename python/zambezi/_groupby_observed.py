"""Group-by with ``observed=False`` on categorical keys: every category a
group, as pandas.

The engine groups the rows by the keys that occur (zambezi._groupby);
this module widens that per-group result to every category of the
categorical keys, and gives a combination no row has what the
aggregation gives for no rows: 0 for sum, count, size and nunique, 1 for
prod, '' for a string sum, False for any, True for all, else a missing
value.  The work is over groups (numpy index arithmetic and engine takes),
never over rows.

Order, as pandas 3:

- The groups are the combinations of the non-categorical keys that occur
  times every combination of the categorical keys' levels.
- ``sort=True``: ordered by the keys in key order, each categorical key in
  category order, other keys ascending, a missing key (``dropna=False``)
  last.
- ``sort=False``: each categorical key's categories in the order: those
  that occur as they appear, then the rest in category order.  With only
  categorical keys, every combination in that order (the first key
  varying slowest); with other keys too, the groups that occur first, in
  order of appearance, then the others, the non-categorical keys'
  combinations (in order of appearance) varying slowest.

Differences from pandas: an empty group's min / max / first / last / mean
of an integer column is a missing integer (zambezi keeps integer columns
with nulls), where pandas makes the column float64 with NaN.
"""

import numpy as np

from zambezi import _core
from zambezi._convert import null_mask, values_numpy
from zambezi._reshape import _codes, _fill, _host_numpy, _int64, _positions
from zambezi.errors import InvalidValueError

# what an aggregation gives for a group with no rows; the others give null
_EMPTY = {"sum": 0, "count": 0, "size": 0, "nunique": 0, "prod": 1, "any": False,
          "all": True}
_MAX_GROUPS = 10**8


def _appearance(k, n):
    """The distinct values of the int64 codes k (0 <= k < n) in order of
    first appearance, then the codes that do not occur, ascending."""
    if len(k):
        uniq, first = np.unique(k, return_index=True)
        seen = uniq[np.argsort(first, kind="stable")]
    else:
        seen = np.empty(0, dtype=np.int64)
    rest = np.ones(n, dtype=bool)
    rest[seen] = False
    return np.r_[seen, np.flatnonzero(rest)].astype(np.int64)


def _level_codes(h, ncat, missing):
    """A categorical column's codes as int64, a missing value numbered ncat
    when missing (one more level), else left as it is."""
    k = values_numpy(h).astype(np.int64)
    m = null_mask(h)
    if m is not None and m.any():
        k = np.where(m, ncat, k) if missing else k[~m]
    return k


def _categorical_level(c, sort, full=None):
    """(codes, level) of a categorical key column of the groups that
    occur: each group's position among the level's values, and the level:
    every category, and a missing value when a group has one (dropna=False),
    last with sort, else where it first appears -- in full, the key column
    of every row (pandas orders the level by the whole column, rows that
    another key's missing value leaves out included), when given."""
    h = c if c.device == "cpu" else c.to_device("cpu")
    ncat = h.dictionary.length
    m = null_mask(h)
    missing = m is not None and bool(m.any())   # the missing value: a level numbered ncat
    nlev = ncat + missing
    k = _level_codes(h, ncat, missing)
    if sort:
        order = np.arange(nlev, dtype=np.int64)
    elif full is None:
        order = _appearance(k, nlev)
    else:
        order = _appearance(_level_codes(full if full.device == "cpu" else full.to_device("cpu"),
                                         ncat, missing), nlev)
    rank = np.empty(nlev, dtype=np.int64)
    rank[order] = np.arange(nlev, dtype=np.int64)
    codes = rank[k] if nlev else k
    level = _core.categorical_from_codes(np.where(order == ncat, -1, order).astype(np.int32),
                                         h.dictionary)
    return codes, level


def _first_rows(cols, n):
    """(ids, first) of the rows of engine columns cols (n rows): each row's
    combination of values numbered in order of first appearance, and the
    row where each combination first occurs."""
    if not cols:
        return np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64)
    t = _core.table_from_columns(cols, [f"k{i}" for i in range(len(cols))])
    ids, _ = _core.group_ids(t, list(range(len(cols))), False, False)
    ids = _host_numpy(ids).astype(np.int64)
    _, first = np.unique(ids, return_index=True)  # ids are 0..m-1 by first appearance
    return ids, first.astype(np.int64)


def _all_combinations(full_ob, group_ob, dropna):
    """(columns, nf): the non-categorical keys of every row (nf of them;
    with dropna, those without a missing one) followed by those of the
    groups: pandas makes the combinations of these keys over all rows, a
    row another key's missing value leaves out included."""
    if dropna:
        keep = None
        for c in full_ob:
            nn = _core.notnull(c)
            keep = nn if keep is None else _core.binary("and", keep, nn)
        full_ob = [_core.filter(c, keep) for c in full_ob]
    nf = full_ob[0].length
    return [_core.concat([f, g]) for f, g in zip(full_ob, group_ob)], nf


def widen(table, nk, ops, sort, full=None, dropna=True):
    """The engine's group-by result table (nk key columns, then one column
    per op in ops) widened, when a key is categorical, to the combinations
    of the other keys that occur times every combination of the
    categorical keys' levels (pandas' groups for observed=False; see the
    module's comment); table itself when no key is categorical.  Raises
    InvalidValueError past 10^8 groups.  full: the key columns of every
    row (see _categorical_level, _all_combinations), and dropna the
    group-by's."""
    keys = [table.column(i) for i in range(nk)]
    is_cat = [c.dtype == "category" for c in keys]
    if not any(is_cat):
        return table
    if table.device != "cpu":  # a table of groups: widened on the host, copied back
        return widen(table.to_device("cpu"), nk, ops, sort, full, dropna).to_device(table.device)
    n = keys[0].length
    ob = [c for c, cat in zip(keys, is_cat) if not cat]
    obsrc = ob  # where the other keys' combinations are read: the groups, or every row
    if full is not None and ob:
        obsrc, nf = _all_combinations([f for f, cat in zip(full, is_cat) if not cat], ob, dropna)
        ids, ob_first = _first_rows(obsrc, nf + n)
        ob_ids = ids[nf:]
        nob = len(ob_first)
    else:
        ob_ids, ob_first = _first_rows(ob, n)
        nob = len(ob_first) if (n or not ob) else 0
    codes, levels = [], []
    for i, (c, cat) in enumerate(zip(keys, is_cat)):
        if cat:
            k, lev = _categorical_level(c, sort, full[i] if full is not None else None)
            codes.append(k)
            levels.append(lev)
    sizes = tuple(lev.length for lev in levels)
    nunob = int(np.prod(sizes, dtype=np.float64))
    total = nob * nunob
    if total > _MAX_GROUPS:
        raise InvalidValueError(f"groupby: observed=False makes {total} groups (every "
                                "combination of the keys' categories); use observed=True")
    at = ob_ids * nunob + (np.ravel_multi_index(codes, sizes) if n else 0)
    row_of = np.full(total, -1, dtype=np.int64)
    row_of[at] = np.arange(n, dtype=np.int64)
    every = np.arange(total, dtype=np.int64)
    ob_part = every // max(nunob, 1)
    cat_parts = np.unravel_index(every % max(nunob, 1), sizes) if total else \
        [every] * len(sizes)
    if sort or not ob:  # every group, ordered by the keys (their levels' order) in key order
        ranks, it_cat, it_ob = [], 0, 0
        for c, cat in zip(keys, is_cat):
            if cat:
                ranks.append(cat_parts[it_cat])
                it_cat += 1
            else:  # the value's rank among the key's values (missing last), per combination
                r, _ = _codes([obsrc[it_ob]])
                it_ob += 1
                ranks.append(np.asarray(r, dtype=np.int64)[ob_first][ob_part] if nob else every)
        grid = np.lexsort(ranks[::-1]).astype(np.int64) if total else every
        where = row_of[grid]
    else:  # the groups that occur, then the others in (other keys, categorical keys) order
        grid = np.r_[at, np.flatnonzero(row_of < 0)].astype(np.int64)
        where = np.r_[np.arange(n, dtype=np.int64), np.full(total - n, -1, dtype=np.int64)]
    cols, it_cat, it_ob = [], 0, 0
    for c, cat in zip(keys, is_cat):
        if cat:
            cols.append(_core.take(levels[it_cat], _int64(cat_parts[it_cat][grid])))
            it_cat += 1
        else:
            cols.append(_core.take(obsrc[it_ob], _int64(ob_first[ob_part[grid]])))
            it_ob += 1
    pos = _positions(where)
    for i, op in enumerate(ops):
        out = _core.take(table.column(nk + i), pos)
        empty = _EMPTY.get(op)
        if op == "sum" and out.dtype == "string":
            empty = ""
        cols.append(_fill(out, empty) if empty is not None else out)
    return _core.table_from_columns(cols, list(table.names))
