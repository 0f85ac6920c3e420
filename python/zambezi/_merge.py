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

Differences from pandas, by design: a null key never matches (pandas
matches NaN/None keys with each other); zambezi has no index, so
``left_index``/``right_index`` and ``DataFrame.join`` without ``on`` are
not supported; integer columns that gain missing rows stay integer with
nulls (pandas turns them into float64 with NaN).  Row order follows
pandas: inner/left in left order (each left row's matches in right order),
right in right order, outer sorted by the keys (nulls last), cross
left-major; ``sort=True`` sorts any join by its keys.
"""

from zambezi import _base, _core
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


def merge(left, right, how="inner", on=None, left_on=None, right_on=None, left_index=False,
          right_index=False, sort=False, suffixes=("_x", "_y"), copy=None, indicator=False,
          validate=None):
    """Join two DataFrames on key columns, as ``pandas.merge``.

    how: "inner" (default), "left", "right", "outer", "cross", and "semi" /
    "anti" (left rows with / without a match; left columns only).  Keys:
    ``on`` (names in both frames), or ``left_on`` and ``right_on`` (lists of
    equal length), or neither (the columns the frames share).  Key pairs
    must have compatible types: the same type, any integers, integers and
    floats, strings and categoricals.  A null key matches nothing (pandas
    matches NaN with NaN).  The notes of the module zambezi._merge give the
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
    left_index, right_index, indicator, validate
        Not supported (zambezi frames have no index): raise
        UnsupportedError when set.  copy is ignored.

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
    if not _base.is_frame(left) or not _base.is_frame(right):
        raise InvalidValueError("merge: both sides must be zambezi DataFrames")
    if how not in _HOWS:
        raise InvalidValueError(f"merge: how must be one of {', '.join(_HOWS)} (got {how!r})")
    if left_index or right_index:
        raise UnsupportedError("merge: zambezi frames have no index; join on columns with on=")
    if indicator:
        raise UnsupportedError("merge: indicator= is not supported")
    if validate is not None:
        raise UnsupportedError("merge: validate= is not supported")
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

    lidx, ridx = _core.join_indices(left._table, right._table, li_keys, ri_keys, how, bool(sort))
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
            if how == "right":
                c = rc
            elif how == "outer":
                c = _core.column_where(c, cond, rc)
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
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InvalidValueError(f"merge: the result would have duplicate column names {dup}; "
                                "choose other suffixes")
    return left._constructor._wrap(_core.table_from_columns(cols, names))


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
        """pandas' DataFrame.join for frames without an index: ``on`` (a
        name or list of names) must name key columns present in both
        frames; it is ``merge(other, on=on, how=how)`` with the suffixes
        lsuffix / rsuffix for other overlapping columns (an overlap with no
        suffix is an error, as in pandas).  how: left (default), right,
        inner, outer, cross, semi, anti.  suffixes=(l, r) may be given
        instead of lsuffix / rsuffix (pandas' newer spelling).

        Examples
        --------
        >>> a = zb.DataFrame({"id": [1, 2], "v": [10, 20]})
        >>> b = zb.DataFrame({"id": [1], "v": [5]})
        >>> a.join(b, on="id", rsuffix="_r").to_dict("list")
        {'id': [1, 2], 'v': [10, 20], 'v_r': [5, None]}
        """
        if on is None and how != "cross":
            raise UnsupportedError(
                "DataFrame.join: zambezi frames have no index, so join needs on= (key columns "
                "present in both frames)")
        if validate is not None:
            raise UnsupportedError("DataFrame.join: validate= is not supported")
        if suffixes is not None:
            lsuffix, rsuffix = suffixes
        return merge(self, other, how=how, on=on, sort=sort,
                     suffixes=(lsuffix or None, rsuffix or None))
