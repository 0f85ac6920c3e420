"""Small top-level names pandas code reaches for: ``isna`` / ``isnull`` /
``notna`` / ``notnull``, ``unique``, ``NamedAgg`` and ``IndexSlice``.

They take zambezi objects (and answer as their methods do), scalars, and
lists or numpy arrays (numpy answers, computed by numpy's or the engine's
loops, never a Python loop over the values); a pandas object is given to
its own method.
"""

from typing import Any, NamedTuple

import numpy as np

from zambezi import _base


def _is_zambezi(obj):
    from zambezi import index as _ix

    return _base.is_series(obj) or _base.is_frame(obj) or isinstance(obj, _ix.Index)


def _scalar_missing(x):
    if x is None:
        return True
    if isinstance(x, (float, np.floating)):
        return bool(x != x)
    if isinstance(x, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(x))
    return type(x).__name__ in ("NaTType", "NAType")


def _array_missing(arr):
    arr = np.asarray(arr)
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind in "mM":
        return np.isnat(arr)
    if arr.dtype.kind != "O":
        return np.zeros(arr.shape, dtype=bool)
    # numpy's object loops: None is None, NaN (and NaT) is not equal to itself
    with np.errstate(invalid="ignore"):
        out = np.equal(arr, None) | np.not_equal(arr, arr)
    return np.asarray(out, dtype=bool)


def isna(obj):
    """Whether values are missing (None, NaN, NaT), as ``pd.isna``: a bool
    for a scalar (a tuple is one), a numpy bool array for a list, array or
    Index, and a Series or DataFrame of bools for those (their ``isna()``).

    Examples
    --------
    >>> zb.isna(None), zb.isna(float("nan")), zb.isna("x")
    (True, True, False)
    >>> zb.isna([1.0, None, float("nan")]).tolist()
    [False, True, True]
    >>> zb.isna(zb.Series([1, None])).to_list()
    [False, True]
    """
    if _is_zambezi(obj) or (type(obj).__module__.startswith("pandas") and
                            hasattr(obj, "isna")):
        out = obj.isna()
        return np.asarray(out) if not (hasattr(out, "to_list") or hasattr(out, "columns")) \
            else out
    if isinstance(obj, (list, np.ndarray)):  # a tuple is one value, as pandas
        return _array_missing(obj)
    return _scalar_missing(obj)


def notna(obj):
    """Whether values are present: the negation of ``isna`` (``pd.notna``).

    Examples
    --------
    >>> zb.notna(None), zb.notna(3)
    (False, True)
    >>> zb.notna(zb.Series(["a", None])).to_list()
    [True, False]
    """
    out = isna(obj)
    if isinstance(out, (bool, np.bool_)):
        return not out
    return ~out


isnull = isna
notnull = notna


def unique(values):
    """The distinct values in order of first appearance (``pd.unique``): a
    zambezi Series or Index gives its ``unique()`` (a Series, an Index);
    a list or numpy array gives a numpy array (the engine finds them).

    Examples
    --------
    >>> zb.unique([3, 1, 3, 2]).tolist()
    [3, 1, 2]
    >>> zb.unique(zb.Series(["b", "a", "b"])).to_list()
    ['b', 'a']
    """
    if _is_zambezi(values) or (type(values).__module__.startswith("pandas") and
                               hasattr(values, "unique")):
        return values.unique()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"unique: values must be one-dimensional, not of shape {arr.shape}")
    return _base.series_class()(arr).unique().to_numpy()


class NamedAgg(NamedTuple):
    """A named aggregation, ``agg(total=zb.NamedAgg(column="x",
    aggfunc="sum"))``: the same as the tuple ``("x", "sum")``, as pandas.

    Examples
    --------
    >>> df = zb.DataFrame({"k": ["a", "b", "a"], "x": [1, 2, 3]})
    >>> df.groupby("k").agg(total=zb.NamedAgg(column="x", aggfunc="sum")).to_dict("list")
    {'total': [4, 2]}
    """

    column: Any
    aggfunc: Any


class _IndexSlice:
    """``zb.IndexSlice[...]`` gives its key: a tuple of labels, slices and
    lists of the levels of a MultiIndex for ``loc`` (``pd.IndexSlice``).

    Examples
    --------
    >>> idx = zb.IndexSlice
    >>> idx[:, "b"]
    (slice(None, None, None), 'b')
    >>> df = zb.DataFrame({"k": ["x", "x", "y"], "j": ["a", "b", "b"], "v": [1, 2, 3]})
    >>> df.set_index(["k", "j"]).loc[idx[:, "b"], "v"].to_list()
    [2, 3]
    """

    def __getitem__(self, key):
        return key


IndexSlice = _IndexSlice()


def wide_to_long(df, stubnames, i, j, sep="", suffix=r"\d+"):
    """Columns named stub + sep + suffix ("a1", "a2", "b1" ...) to rows,
    as pandas' ``wide_to_long``: one row per (id, suffix) with one column
    per stub, indexed by the id columns ``i`` and the suffix as ``j``
    (numbers when every suffix is one).  The other columns repeat (sorted
    by name, as pandas).  Built from melt, concat and a join.

    Examples
    --------
    >>> df = zb.DataFrame({"id": [1, 2], "h1": [3.0, 4.0], "h2": [5.0, 6.0], "city": ["x", "y"]})
    >>> zb.wide_to_long(df, "h", i="id", j="n").reset_index().to_dict("list")
    {'id': [1, 2, 1, 2], 'n': [1, 1, 2, 2], 'city': ['x', 'y', 'x', 'y'], 'h': [3.0, 4.0, 5.0, 6.0]}
    """
    import re

    from zambezi._concat import concat
    from zambezi._labels import as_list
    from zambezi._numeric import to_numeric
    from zambezi._pivot import melt
    from zambezi.errors import InvalidValueError

    stubnames, i = as_list(stubnames), as_list(i)
    columns = list(df.columns)
    if any(s in columns for s in stubnames):
        raise InvalidValueError("stubname can't be identical to a column name")
    groups = []
    for stub in stubnames:
        pattern = re.compile(rf"^{re.escape(stub)}{re.escape(sep)}{suffix}$")
        groups.append([c for c in columns if isinstance(c, str) and pattern.match(c)])
    if df[i].duplicated().any():
        raise InvalidValueError("the id variables need to uniquely identify each row")
    melted = []
    for stub, value_vars in zip(stubnames, groups):
        part = melt(df, id_vars=i, value_vars=value_vars, value_name=stub.rstrip(sep),
                    var_name=j)
        part[j] = part[j].str.replace(re.escape(stub + sep), "", regex=True)
        try:   # numbers when every suffix is one, as pandas
            part[j] = to_numeric(part[j])
        except (TypeError, ValueError, OverflowError):
            pass
        melted.append(part.set_index(i + [j]))
    melted = concat(melted, axis=1)
    used = {c for g in groups for c in g}
    rest = df[sorted(c for c in columns if c not in used)]
    if len(i) == 1:   # pandas joins the ids' rows onto the long rows, in their order
        long = melted.reset_index()
        out = long.merge(rest, on=i, how="left")
        order = i + [j] + [c for c in rest.columns if c not in i] + list(melted.columns)
        return out[order].set_index(i + [j])
    return rest.merge(melted.reset_index(), on=i).set_index(i + [j])
