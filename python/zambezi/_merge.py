"""Joins: ``zambezi.merge``, ``DataFrame.merge`` and ``DataFrame.join``.

The engine (``zambezi/join.h``) computes two int64 row-index columns, one
per side (null = no row on that side); this module only shapes arguments,
takes the rows of each side with ``_core.take`` and names the columns the
way pandas does:

- ``on=`` (or no keys: the columns both frames share): each key column
  appears once, at its place among the left columns; its values are the
  left key, or the right key for rows with no left side (right/outer);
- ``left_on=``/``right_on=``: both key columns are kept (a pair with the
  same name is merged into one, as pandas does);
- other columns present on both sides get ``suffixes`` (``None`` keeps a
  side's name);
- ``how="semi"`` / ``"anti"`` (not in pandas; polars has them): the left
  rows with / without a match, left columns only.

Joins on the index (``left_index`` / ``right_index``, ``DataFrame.join``)
use the index levels as key columns, and label the result as pandas does:
both sides on their index: the joined labels; ``left_on`` with
``right_index``: the left labels (and the left key column takes the right
label where a row has no left side); ``left_index`` with ``right_on``: the
right labels.  A left join on the right index (right join on the left
index) that keeps each row of its side once, unsorted, keeps that side's
index itself (a RangeIndex stays one).  A key column whose name takes a
suffix (the other side has a column of that name) comes again, unsuffixed,
at the key's position, as pandas adds it.  Other joins number the result
from 0.

Null keys (None, NaN, NaT) match each other, as in pandas (per key
column: rows match when each key pair is equal or null on both sides).
Differences from pandas, by design: integer columns that gain missing
rows stay integer with nulls (pandas turns them into float64 with NaN).  Row order follows
pandas: inner/left in left order (each left row's matches in right order),
right in right order, outer sorted by the keys (nulls last), cross
left-major; ``sort=True`` sorts any join by its keys.
"""

import numpy as np

from zambezi import _base, _convert, _core, _indexing, _labels
from zambezi import index as _ix
from zambezi.errors import ColumnNotFoundError, InvalidValueError, UnsupportedError

_HOWS = ("inner", "left", "right", "outer", "semi", "anti", "cross")


def _as_list(keys, what):
    if keys is None:
        return None
    if isinstance(keys, str):
        return [keys]
    try:
        keys = list(keys)
    except TypeError:
        raise InvalidValueError(f"merge: {what} must be a column name or a list of names") from None
    for k in keys:
        if not isinstance(k, str):
            raise InvalidValueError(f"merge: {what} must name columns, not {type(k).__name__}")
    return keys


def _index_of(names, name, side):
    try:
        return names.index(name)
    except ValueError:
        raise ColumnNotFoundError(
            f"merge: no column named {name!r} in the {side} frame; its columns are {names!r}"
        ) from None


def _key_levels(df, keys):
    """The keys that name an index level of df and none of its columns."""
    if not keys:
        return []
    cols = set(df._table.names)
    names = [n for n in df._index.names if n is not None]
    return [k for k in keys if k not in cols and k in names]


def _merge_on_levels(left, right, how, on, left_on, right_on, kwargs):
    """merge whose on / left_on / right_on name index levels (pandas lets
    keys name a level where no column has the name): those levels become
    columns first, then as pandas: a key pair that is a level of the same
    name on both sides labels the result; a level paired with a key of
    another name is dropped.  None when no key names a level."""
    lk = _as_list(on, "on") if on is not None else _as_list(left_on, "left_on")
    rk = _as_list(on, "on") if on is not None else _as_list(right_on, "right_on")
    lv, rv = _key_levels(left, lk), _key_levels(right, rk)
    if not lv and not rv:
        return None
    out = merge(left.reset_index(level=lv) if lv else left,
                right.reset_index(level=rv) if rv else right,
                how=how, on=on, left_on=left_on, right_on=right_on, **kwargs)
    pairs = list(zip(lk or [], rk or []))
    labels = [a for a, b in pairs if a == b and a in lv and b in rv]
    drop = [a for a, b in pairs if a != b and a in lv] + \
        [b for a, b in pairs if a != b and b in rv]
    drop = [c for c in drop if c in set(out._table.names)]
    if drop:
        out = out.drop(columns=drop)
    return out.set_index(labels) if labels else out


def _no_categories(col):
    """A categorical without categories (its values all missing: it meets
    keys of any type, as in pandas)."""
    return col.dtype == "category" and col.dictionary.length == 0


def _same_dtype_categoricals(a, b):
    from zambezi._concat import _same_categories

    return a.dtype == b.dtype == "category" and _same_categories([a, b])


def _recode(c, dictionary):
    from zambezi._categorical import recode

    return recode(c, dictionary)


def _coalesce(c, cond, rc):
    """c where cond, else rc: a merged key column.  Two categoricals of the
    same categories stay categorical; a categorical beside anything else
    gives its categories' values, as pandas."""
    if c.dtype != "category" and rc.dtype != "category":
        return _core.column_where(c, cond, rc)
    from zambezi._frame_extra import _category_codes, _codes_where

    if not _same_dtype_categoricals(c, rc):
        c, rc = (_core.cast(x, x.dictionary.dtype) if x.dtype == "category" else x
                 for x in (c, rc))
        return _core.column_where(c, cond, rc)

    take = _convert.to_numpy(cond).astype(bool)
    return _codes_where(take, c, _category_codes(_recode(rc, c.dictionary)))


def _swapped(t, cols):
    """Table t with the columns cols ({position: column}) in place."""
    if not cols:
        return t
    return _core.table_from_columns([cols.get(i, t.column(i)) for i in range(t.num_columns)],
                                    list(t.names))


def _categorical_keys(left, right, li_keys, ri_keys):
    """(left, right, left table to join, right table to join), as pandas
    joins categorical keys: a pair whose categories differ (or with one side
    not categorical) joins on the categories' values, and the key columns
    become those values; a pair with the same categories joins on the
    codes of the left side's categories (so an outer or sorted join orders
    the keys in category order) and stays categorical."""
    from zambezi._concat import _same_categories
    from zambezi._frame_extra import _category_codes

    lt, rt = left._table, right._table
    values, codes = ({}, {}), ({}, {})
    for a, b in zip(li_keys, ri_keys):
        ca, cb = lt.column(a), rt.column(b)
        if "category" not in (ca.dtype, cb.dtype) or any(
                c.dtype == "category" and c.dictionary.length == 0 for c in (ca, cb)):
            continue   # no categories (all missing): the engine meets any key type
        if ca.dtype == cb.dtype and _same_categories([ca, cb]):
            for side, i, c in ((0, a, ca), (1, b, _recode(cb, ca.dictionary))):
                # a missing key is code -1, as pandas: it matches missing keys, sorts first
                codes[side][i] = _core.column_from_buffer(_category_codes(c))
            continue
        for side, i, c in ((0, a, ca), (1, b, cb)):
            if c.dtype == "category":
                values[side][i] = _core.cast(c, c.dictionary.dtype)
    left, right = (f._like(_swapped(f._table, v)) if v else f
                   for f, v in zip((left, right), values))
    return (left, right, _swapped(left._table, codes[0]), _swapped(right._table, codes[1]))


def merge(left, right, how="inner", on=None, left_on=None, right_on=None, left_index=False,
          right_index=False, sort=False, suffixes=("_x", "_y"), copy=None, indicator=False,
          validate=None):
    """Join two DataFrames on key columns, as ``pandas.merge``.

    how: "inner" (default), "left", "right", "outer", "cross", and "semi" /
    "anti" (left rows with / without a match; left columns only).  Keys:
    ``on`` (names in both frames), or ``left_on`` and ``right_on`` (lists of
    equal length), or neither (the columns the frames share).  Key pairs
    must have compatible types: the same type, any integers, integers and
    floats, strings and categoricals.  A null key (None, NaN, NaT) matches
    the null keys of the other side, as in pandas.  The notes of the module zambezi._merge give the
    column naming and the row order.

    Parameters
    ----------
    left, right : DataFrame
        The two sides.
    how : str
        "inner", "left", "right", "outer", "cross", "semi" or "anti".
    on, left_on, right_on : str or list of str
        The key columns (see above).
    sort : bool
        Sort the result by the keys (outer joins always are).
    suffixes : pair of str or None
        Added to the names of non-key columns present on both sides.
    left_index, right_index : bool
        Use a side's index levels as its keys (see the module notes for
        the labels of the result).
    indicator : bool or str
        Add a categorical column ("_merge", or the name given) telling
        each row's sides: "left_only", "right_only" or "both".
    validate : str
        "1:1", "1:m", "m:1" (or "one_to_one" ...): raise ValueError when
        the side(s) that should have unique keys do not; "m:m" checks
        nothing.  copy is ignored.

    Examples
    --------
    >>> trips = zb.DataFrame({"city": ["Maun", "Tete", "Maun", "Kariba"],
    ...                       "fare": [7.0, 3.5, 9.0, 4.0]})
    >>> cities = zb.DataFrame({"city": ["Maun", "Tete", "Zumbo"],
    ...                        "country": ["Botswana", "Mozambique", "Mozambique"]})
    >>> zb.merge(trips, cities, on="city")
         city     fare     country
       string  float64      string
    0    Maun        7    Botswana
    1    Tete      3.5  Mozambique
    2    Maun        9    Botswana
    <BLANKLINE>
    [3 rows x 3 columns]
    >>> zb.merge(trips, cities, on="city", how="left")["country"].to_list()
    ['Botswana', 'Mozambique', 'Botswana', None]
    >>> zb.merge(trips, cities, on="city", how="anti").to_dict("list")
    {'city': ['Kariba'], 'fare': [4.0]}
    >>> a = zb.DataFrame({"id": [1, 2], "v": [10, 20]})
    >>> b = zb.DataFrame({"key": [2, 3], "v": [0.5, 0.7]})
    >>> zb.merge(a, b, left_on="id", right_on="key").to_dict("list")
    {'id': [2], 'v_x': [20], 'key': [2], 'v_y': [0.5]}
    """
    # a named Series joins as a one-column frame, as in pandas
    left, right = (s.to_frame() if _base.is_series(s) and s.name is not None else s
                   for s in (left, right))
    if not _base.is_frame(left) or not _base.is_frame(right):
        raise InvalidValueError("merge: both sides must be zambezi DataFrames or named Series")
    if how not in _HOWS:
        raise InvalidValueError(f"merge: how must be one of {', '.join(_HOWS)} (got {how!r})")
    validate = _check_validate(validate)
    nl, nr = (1 if _labels.labels(d) is None else _labels.labels(d).nlevels
              for d in (left, right))
    if nl != nr:   # pandas' MergeError (a ValueError)
        raise InvalidValueError(f"Not allowed to merge between different levels. ({nl} levels "
                                f"on the left, {nr} on the right)")
    if not (left_index or right_index) and how != "cross":
        out = _merge_on_levels(left, right, how, on, left_on, right_on,
                               dict(sort=sort, suffixes=suffixes, indicator=indicator,
                                    validate=validate))
        if out is not None:
            return out
    if left_index or right_index:
        if indicator or validate is not None:
            raise UnsupportedError("merge: indicator= and validate= with left_index / "
                                   "right_index are not supported")
        if on is not None:
            raise InvalidValueError("merge: give on= or left_index/right_index, not both")
        return _merge_on_index(left, right, how, left_on, right_on, left_index, right_index,
                               sort, suffixes)
    if suffixes is None or len(suffixes) != 2:
        raise InvalidValueError("merge: suffixes must be a pair (left, right)")
    lnames, rnames = list(left.columns), list(right.columns)
    on = _as_list(on, "on")
    left_on = _as_list(left_on, "left_on")
    right_on = _as_list(right_on, "right_on")

    if how == "cross":
        if on or left_on or right_on:
            raise InvalidValueError("merge: how='cross' takes no key columns")
        lk, rk = [], []
    elif on is not None:
        if left_on is not None or right_on is not None:
            raise InvalidValueError("merge: give on= or left_on=/right_on=, not both")
        lk, rk = list(on), list(on)
    elif left_on is not None or right_on is not None:
        if left_on is None or right_on is None:
            raise InvalidValueError("merge: left_on= and right_on= go together")
        if len(left_on) != len(right_on):
            raise InvalidValueError(
                f"merge: left_on has {len(left_on)} keys but right_on has {len(right_on)}")
        lk, rk = list(left_on), list(right_on)
    else:
        lk = [n for n in lnames if n in rnames]
        if not lk:
            raise InvalidValueError("merge: no common columns to join on; give on= or "
                                    "left_on=/right_on=")
        rk = list(lk)
    if how != "cross" and not lk:
        raise InvalidValueError("merge: no key columns given")
    li_keys = [_index_of(lnames, k, "left") for k in lk]
    ri_keys = [_index_of(rnames, k, "right") for k in rk]
    ind_name = _indicator_name(indicator, lnames, rnames, how)
    if validate is not None:
        _validate(left, right, li_keys, ri_keys, validate)
    left, right, jl, jr = _categorical_keys(left, right, li_keys, ri_keys)

    lidx, ridx = _core.join_indices(jl, jr, li_keys, ri_keys, how, bool(sort))
    ind = None if ind_name is None else _indicator(lidx, ridx)
    lt = _core.take(left._table, lidx)
    if how in ("semi", "anti"):
        return left._constructor._wrap(lt)

    # Key pairs with one name become one column (pandas): left value where
    # the row has a left side, else the right value.
    merged = {}  # left column index -> right column index
    for a, b in zip(li_keys, ri_keys):
        if lnames[a] == rnames[b]:
            merged[a] = b
    dropped_right = set(merged.values())
    right_kept = [j for j in range(len(rnames)) if j not in dropped_right]
    has_left_gaps = how in ("right", "outer")
    cond = None
    if merged and has_left_gaps:
        cond = _core.notnull(lidx)
    del lidx  # the left side is taken: its indices go before the right side comes
    # only the right columns the result shows (merged keys where they fill gaps)
    wanted = sorted(set(right_kept) | (dropped_right if has_left_gaps else set()))
    rt = _core.take(right._table.select(wanted), ridx) if wanted else None
    del ridx
    rpos = {j: p for p, j in enumerate(wanted)}
    left_rest = {lnames[i] for i in range(len(lnames)) if i not in merged}
    right_rest = {rnames[j] for j in right_kept}
    overlap = left_rest & right_rest
    ls, rs = suffixes
    if overlap and ls is None and rs is None:
        raise InvalidValueError(f"merge: columns overlap but no suffix was given: {sorted(overlap)}")

    cols, names = [], []
    for i, n in enumerate(lnames):
        c = lt.column(i)
        if i in merged and has_left_gaps:
            rc = rt.column(rpos[merged[i]])
            if how == "right":   # a categorical key keeps the left side's categories, as pandas
                c = _recode(rc, c.dictionary) if _same_dtype_categoricals(c, rc) else rc
            elif how == "outer":
                if _no_categories(c):  # all missing: rc's keys where the left has none
                    c = _core.column_where(rc, cond, None, mask=True)
                elif _no_categories(rc):
                    c = _core.column_where(c, cond, None)
                else:
                    c = _coalesce(c, cond, rc)
        elif n in overlap and ls:
            n = n + ls
        cols.append(c)
        names.append(n)
    for j in right_kept:
        n = rnames[j]
        if n in overlap and rs:
            n = n + rs
        cols.append(rt.column(rpos[j]))
        names.append(n)
    if ind is not None:
        cols.append(ind)
        names.append(ind_name)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InvalidValueError(f"merge: the result would have duplicate column names {dup}; "
                                "choose other suffixes")
    return left._constructor._wrap(_core.table_from_columns(cols, names))


_VALIDATE = {"1:1": "1:1", "one_to_one": "1:1", "1:m": "1:m", "one_to_many": "1:m",
             "m:1": "m:1", "many_to_one": "m:1", "m:m": "m:m", "many_to_many": "m:m"}


def _check_validate(validate):
    if validate is None:
        return None
    try:
        return _VALIDATE[validate]
    except (KeyError, TypeError):
        raise InvalidValueError(f'merge: "{validate}" is not a valid argument for validate=; '
                                f"valid arguments: {', '.join(_VALIDATE)}") from None


def _validate(left, right, li_keys, ri_keys, kind):
    """pandas' validate=: the sides whose keys must be unique are (one
    engine duplicated pass each); InvalidValueError (a ValueError, as
    pandas' MergeError) naming the side otherwise."""
    words = {"1:1": "one-to-one", "1:m": "one-to-many", "m:1": "many-to-one"}
    for side, df, keys, one in (("left", left, li_keys, kind in ("1:1", "1:m")),
                                ("right", right, ri_keys, kind in ("1:1", "m:1"))):
        if one and _core.duplicated(df._table, list(keys), "first").reduce("sum"):
            raise InvalidValueError(f"Merge keys are not unique in {side} dataset; not a "
                                    f"{words[kind]} merge")


def _indicator_name(indicator, lnames, rnames, how):
    """The name of merge's indicator column (None: no indicator)."""
    if not indicator:
        return None
    if how in ("semi", "anti", "cross"):
        raise UnsupportedError(f"merge: indicator= with how={how!r} is not supported")
    name = indicator if isinstance(indicator, str) else "_merge"
    if name in lnames or name in rnames:
        raise InvalidValueError(f"Cannot use `indicator=True` option when data contains a "
                                f"column named {name}")
    return name


def _indicator(lidx, ridx):
    """pandas' indicator: a categorical of each result row's sides
    ("left_only", "right_only", "both"), from the join's row indices (a
    missing index: no row on that side)."""
    has_left = _convert.values_numpy(_core.notnull(lidx)).astype(bool)
    has_right = _convert.values_numpy(_core.notnull(ridx)).astype(bool)
    codes = np.where(~has_right, 0, np.where(~has_left, 1, 2)).astype(np.int32)
    return _core.categorical_from_codes(
        codes, _convert.to_column(["left_only", "right_only", "both"]), ordered=False)


def _with_levels(df):
    """df's columns followed by its index levels (under internal names),
    as one engine table; returns (table, number of data columns)."""
    t = df._table
    levels = df._index._levels()
    cols = [t.column(i) for i in range(t.num_columns)] + levels
    names = list(t.names)
    taken = set(names)
    for i in range(len(levels)):
        # a name no data column has (the engine reads names up to a NUL
        # byte, so a NUL prefix would make every level's name "")
        name = f"__level_{i}__"
        while name in taken:
            name = "_" + name
        taken.add(name)
        names.append(name)
    return _core.table_from_columns(cols, names), t.num_columns


def _merge_on_index(left, right, how, left_on, right_on, left_index, right_index, sort,
                    suffixes):
    """merge with one or both sides keyed by their index (see the module
    notes for the result's labels)."""
    if how == "cross":
        raise InvalidValueError("merge: how='cross' takes no keys")
    if suffixes is None or len(suffixes) != 2:
        raise InvalidValueError("merge: suffixes must be a pair (left, right)")
    if left_index and right_index and (left._index.nlevels > 1 or right._index.nlevels > 1) \
            and list(left._index.names) != list(right._index.names):
        # pandas joins two MultiIndexes on the levels they both name
        raise UnsupportedError("merge: joining indexes of different level names on the levels "
                               "they share is not supported")
    la, nl = _with_levels(left)
    ra, nr = _with_levels(right)
    lnames, rnames = list(left._table.names), list(right._table.names)
    if left_index:
        if left_on is not None:
            raise InvalidValueError("merge: give left_on= or left_index=True, not both")
        lk = list(range(nl, la.num_columns))
    else:
        lk = [_index_of(lnames, k, "left") for k in (_as_list(left_on, "left_on") or [])]
    if right_index:
        if right_on is not None:
            raise InvalidValueError("merge: give right_on= or right_index=True, not both")
        rk = list(range(nr, ra.num_columns))
    else:
        rk = [_index_of(rnames, k, "right") for k in (_as_list(right_on, "right_on") or [])]
    if not lk or not rk:
        raise InvalidValueError("merge: with left_index/right_index, give the other side's "
                                "keys (left_on= / right_on=) or set both")
    if len(lk) != len(rk):
        raise InvalidValueError(
            f"merge: {len(lk)} left keys but {len(rk)} right keys (index levels count)")
    lidx, ridx = _core.join_indices(la, ra, lk, rk, how, bool(sort))
    if how in ("semi", "anti"):
        return left._select_rows(_indexing.take_rows(lidx))
    L = _core.take(la, lidx)
    R = _core.take(ra, ridx)
    has_left = _core.notnull(lidx)
    has_right = _core.notnull(ridx)
    lcols = [L.column(i) for i in range(nl)]
    rcols = [R.column(j) for j in range(nr)]
    llevels = [L.column(i) for i in range(nl, L.num_columns)]
    rlevels = [R.column(j) for j in range(nr, R.num_columns)]
    gaps_left = how in ("right", "outer")
    gaps_right = how in ("left", "outer")
    ls, rs = suffixes
    overlap = set(lnames) & set(rnames)
    if overlap and ls is None and rs is None:
        raise InvalidValueError(f"merge: columns overlap but no suffix was given: {sorted(overlap)}")
    names = [n + ls if n in overlap and ls else n for n in lnames] + \
        [n + rs if n in overlap and rs else n for n in rnames]
    # A key column whose name a suffix changed (the other side has a column
    # of that name too): pandas adds the key under its own name, at the
    # key's position, and leaves the suffixed column as it is.
    keys = []
    if left_index and right_index and how == "right":   # pandas: the right labels
        index = _kept_index(right, R.num_rows, not sort) or \
            _ix.Index._from_columns(rlevels, right._index.names)
    elif left_index and right_index:
        levels = [_coalesce(a, has_left, b) if gaps_left else a
                  for a, b in zip(llevels, rlevels)]
        index = _ix.Index._from_columns(levels, left._index.names)
    elif right_index:  # left_on + right_index: the left labels
        for i, (a, b) in enumerate(zip(lk, rlevels)):
            key = _coalesce(lcols[a], has_left, b) if gaps_left else lcols[a]
            if names[a] == lnames[a]:
                lcols[a] = key
            else:
                keys.append((i, lnames[a], key))
        index = _kept_index(left, L.num_rows, how == "left" and not sort) or \
            _ix.Index._from_columns(llevels, left._index.names)
    else:  # left_index + right_on: the right labels
        for i, (j, lv) in enumerate(zip(rk, llevels)):
            key = _coalesce(rcols[j], has_right, lv) if gaps_right else rcols[j]
            if names[nl + j] == rnames[j]:
                rcols[j] = key
            else:
                keys.append((i, rnames[j], _coalesce(lv, has_left, rcols[j])
                             if gaps_left else lv))
        index = _kept_index(right, R.num_rows, how == "right" and not sort) or \
            _ix.Index._from_columns(rlevels, right._index.names)
    cols = lcols + rcols
    for i, name, key in keys:
        names.insert(i, name)
        cols.insert(i, key)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InvalidValueError(f"merge: the result would have duplicate column names {dup}; "
                                "choose other suffixes")
    return left._constructor._wrap(_core.table_from_columns(cols, names), index)


def _kept_index(side, nrows, keeps):
    """side's own index when a join keeps each of its rows once, in order
    (pandas' left join on the other side's index, unsorted, where the
    result has as many rows as side: it returns side's index as it is, a
    RangeIndex staying one); else None."""
    return side._index if keeps and nrows == len(side) else None


class FrameMerge:
    """The mixin that gives DataFrame ``merge`` and ``join``."""

    __slots__ = ()

    def merge(self, right, how="inner", on=None, left_on=None, right_on=None, left_index=False,
              right_index=False, sort=False, suffixes=("_x", "_y"), copy=None, indicator=False,
              validate=None):
        """Join with another DataFrame on key columns; see ``zambezi.merge``
        (``df.merge(right, ...)`` is ``zb.merge(df, right, ...)``).

        Examples
        --------
        >>> trips = zb.DataFrame({"city": ["Maun", "Tete", "Kariba"], "fare": [7.0, 3.5, 4.0]})
        >>> cities = zb.DataFrame({"city": ["Maun", "Tete"], "country": ["Botswana", "Mozambique"]})
        >>> trips.merge(cities, on="city", how="left").to_dict("list")
        {'city': ['Maun', 'Tete', 'Kariba'], 'fare': [7.0, 3.5, 4.0], 'country': ['Botswana',
        'Mozambique', None]}
        >>> trips.merge(cities, how="semi")["city"].to_list()
        ['Maun', 'Tete']
        """
        return merge(self, right, how=how, on=on, left_on=left_on, right_on=right_on,
                     left_index=left_index, right_index=right_index, sort=sort,
                     suffixes=suffixes, copy=copy, indicator=indicator, validate=validate)

    def join(self, other, on=None, how="left", lsuffix="", rsuffix="", sort=False,
             validate=None, suffixes=None):
        """Join other's columns on other's index, as pandas' DataFrame.join:
        on self's index (``on=None``) or on self's columns ``on`` (a name
        or list of names, matched against other's index levels).  how: left
        (default), right, inner, outer, semi, anti.  Overlapping column
        names take lsuffix / rsuffix (an overlap with no suffix is an
        error, as in pandas); suffixes=(l, r) may be given instead.  other
        may be a Series (its name becomes the column), or a list of frames
        joined one after the other on the index.

        Examples
        --------
        >>> trips = zb.DataFrame({"city": ["Maun", "Tete", "Kariba"], "fare": [7.0, 3.5, 4.0]})
        >>> countries = zb.DataFrame({"country": ["Botswana", "Mozambique"]},
        ...                          index=["Maun", "Tete"])
        >>> trips.join(countries, on="city")["country"].to_list()
        ['Botswana', 'Mozambique', None]
        >>> a = zb.DataFrame({"v": [10, 20]}, index=["x", "y"])
        >>> a.join(zb.DataFrame({"v": [5]}, index=["y"]), rsuffix="_r")
               v    v_r
           int64  int64
        x     10   <NA>
        y     20      5
        <BLANKLINE>
        [2 rows x 2 columns]
        """
        if validate is not None:
            raise UnsupportedError("DataFrame.join: validate= is not supported")
        if suffixes is not None:
            lsuffix, rsuffix = suffixes
        if isinstance(other, (list, tuple)):  # several frames: joined one after the other
            if on is not None:
                raise InvalidValueError("Joining multiple DataFrames only supported for "
                                        "joining on index")
            if lsuffix or rsuffix:  # as pandas
                raise InvalidValueError("Suffixes not supported when joining multiple "
                                        "DataFrames")
            out = self
            for o in other:
                out = out.join(o, how=how, lsuffix=lsuffix, rsuffix=rsuffix, sort=sort)
            return out
        if _base.is_series(other):
            if other.name is None:
                raise InvalidValueError("DataFrame.join: a Series needs a name")
            other = other.to_frame()
        if how == "cross":
            return merge(self, other, how="cross", suffixes=(lsuffix or None, rsuffix or None))
        if on is None:
            return merge(self, other, how=how, left_index=True, right_index=True, sort=sort,
                         suffixes=(lsuffix or None, rsuffix or None))
        return merge(self, other, how=how, left_on=on, right_index=True, sort=sort,
                     suffixes=(lsuffix or None, rsuffix or None))
