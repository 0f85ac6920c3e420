"""Joins (zambezi.merge, DataFrame.merge, DataFrame.join) against pandas.

The oracle is ``pandas.merge`` on the same data (null keys match each
other in both).  Inner/left/right results are compared row by row in order (zambezi follows
pandas' order); outer results after sorting (pandas sorts outer joins by
key and places NaN keys differently).  Semi/anti joins are checked against
the left rows whose key is (not) among the right keys.  Every join runs at
1 and 3 threads with identical results.
"""

import datetime
import math

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import ColumnNotFoundError, DTypeError, InvalidValueError, UnsupportedError
from conftest import seed_for

HOWS = ["inner", "left", "right", "outer"]


# ---- data ------------------------------------------------------------------------


def _keys(kind, n, rng, card, null_frac):
    """A pandas Series of n random keys of `kind` (about `card` distinct)."""
    v = rng.integers(0, max(card, 1), n)
    nulls = rng.random(n) < null_frac
    if kind in ("int64", "int32"):
        s = pd.Series(v.astype(kind)).astype(object)
    elif kind == "str":
        s = pd.Series([f"k{x}" for x in v], dtype=object)
    elif kind == "cat":
        s = pd.Series([f"c{x}" for x in v], dtype=object)
    elif kind == "date":
        s = pd.Series([datetime.date(2020, 1, 1) + datetime.timedelta(days=int(x)) for x in v],
                      dtype=object)
    else:
        raise AssertionError(kind)
    s[nulls] = None
    return s


def _frame(cols):
    """A pandas frame of object Series, converted to proper dtypes: ints
    with nulls as nullable Int, categoricals as category."""
    out = {}
    for name, (kind, s) in cols.items():
        if kind in ("int64", "int32"):
            out[name] = pd.array(s.tolist(), dtype="Int64" if kind == "int64" else "Int32")
        elif kind == "cat":
            out[name] = pd.Categorical(s.tolist())
        elif kind == "date":
            out[name] = s
        else:
            out[name] = pd.array(s.tolist(), dtype=object)
    df = pd.DataFrame(out)
    df.attrs["dates"] = [n for n, (kind, _) in cols.items() if kind == "date"]
    return df


def _to_zb(pdf):
    """A zambezi frame of pdf (date objects -> date32, Int -> int with nulls)."""
    data = {}
    for c in pdf.columns:
        col = pdf[c]
        if c in pdf.attrs.get("dates", ()):
            data[c] = zb.Series(list(col), dtype="date32")._col
        else:
            data[c] = None
    out = zb.from_pandas(pdf[[c for c in pdf.columns if data[c] is None]])
    if all(v is None for v in data.values()):
        return out
    cols, names = [], []
    for c in pdf.columns:
        cols.append(data[c] if data[c] is not None else out._table.column(c))
        names.append(c)
    return zb.DataFrame(zb._core.table_from_columns(cols, names))


def _norm(v):
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer, float, np.floating)):
        return float(v)
    if isinstance(v, (pd.Timestamp, datetime.datetime)):
        return str(v.date())
    if isinstance(v, (datetime.date, np.datetime64)):
        return str(pd.Timestamp(v).date())
    return str(v)


def _rows(pdf):
    cols = [list(pdf[c].astype(object)) for c in pdf.columns]
    return [tuple(_norm(c[i]) for c in cols) for i in range(len(pdf))]


def _sortkey(row):
    return tuple((v is None, str(type(v)), v if v is not None else 0) for v in row)


def _check(got, want, ordered):
    assert list(got.columns) == list(want.columns)
    g, w = _rows(got.to_pandas()), _rows(want)
    if not ordered:
        g, w = sorted(g, key=_sortkey), sorted(w, key=_sortkey)
    assert len(g) == len(w)
    assert g == w


def _zb_merge_threads(zl, zr, **kw):
    """The join at 1 and 3 threads; asserts they agree; returns the pandas form."""
    out = []
    for t in (1, 3):
        zb.set_num_threads(t)
        out.append(zb.merge(zl, zr, **kw).to_pandas())
    pd.testing.assert_frame_equal(out[0], out[1])
    return out[0]


def _pd_merge(pl, pr, lkeys, rkeys, **kw):
    return pd.merge(pl, pr, **kw)


# ---- differential tests ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["int64", "str", "cat", "date"])
@pytest.mark.parametrize("sizes", [(0, 5), (5, 0), (1, 1), (60, 40), (3000, 2000)])
def test_merge_one_key(kind, sizes):
    rng = np.random.default_rng(seed_for(kind, *sizes))
    nl, nr = sizes
    card = max(3, (nl + nr) // 3)
    pl = _frame({"k": (kind, _keys(kind, nl, rng, card, 0.1)),
                 "a": ("int64", _keys("int64", nl, rng, 100, 0.1)),
                 "s": ("str", _keys("str", nl, rng, 10, 0.0))})
    pr = _frame({"b": ("int64", _keys("int64", nr, rng, 100, 0.0)),
                 "k": (kind, _keys(kind, nr, rng, card, 0.1)),
                 "s": ("str", _keys("str", nr, rng, 10, 0.1))})
    zl, zr = _to_zb(pl), _to_zb(pr)
    for how in HOWS:
        got = _zb_merge_threads(zl, zr, on="k", how=how)
        want = _pd_merge(pl, pr, ["k"], ["k"], on="k", how=how)
        g = _rows(got)
        w = _rows(want)
        assert list(got.columns) == list(want.columns) == ["k", "a", "s_x", "b", "s_y"]
        if how == "outer":
            assert sorted(g, key=_sortkey) == sorted(w, key=_sortkey)
            # keys ascending, null keys last
            keys = [r[0] for r in g]
            nn = [x for x in keys if x is not None]
            assert nn == sorted(nn) and keys[: len(nn)] == nn
        else:
            assert g == w, how


@pytest.mark.parametrize("kind", ["int64", "str"])
def test_merge_partitioned_build_side(kind):
    """Both sides past the one-table limit (65536 build rows), so both are
    radix-partitioned: every how, duplicate and null keys, against pandas."""
    rng = np.random.default_rng(31 if kind == "str" else 32)
    nl, nr = 90_000, 80_000
    card = 60_000
    # few null keys: they match each other, so their rows multiply
    pl = _frame({"k": (kind, _keys(kind, nl, rng, card, 0.0005)),
                 "a": ("int64", _keys("int64", nl, rng, 100, 0.1))})
    pr = _frame({"k": (kind, _keys(kind, nr, rng, card, 0.0005)),
                 "b": ("int64", _keys("int64", nr, rng, 100, 0.0))})
    zl, zr = _to_zb(pl), _to_zb(pr)
    for how in HOWS:
        got = _zb_merge_threads(zl, zr, on="k", how=how)
        want = _pd_merge(pl, pr, ["k"], ["k"], on="k", how=how)
        g, w = _rows(got), _rows(want)
        if how == "outer":
            assert sorted(g, key=_sortkey) == sorted(w, key=_sortkey)
        else:
            assert g == w, how
    for how in ("semi", "anti"):
        got = zb.merge(zl, zr, on="k", how=how).to_pandas()
        # null keys match the other side's nulls, as in merge
        inr = pl["k"].isin(pr["k"].dropna()) | (pl["k"].isna() & pr["k"].isna().any())
        want = pl[inr if how == "semi" else ~inr]
        assert len(got) == len(want), how
        assert got["a"].isna().tolist() == want["a"].isna().tolist(), how


@pytest.mark.parametrize("two_keys", [False, True])
def test_merge_partitioned_mostly_unique_build_keys(two_keys):
    """A partitioned build side whose keys are unique but for a few repeats,
    so some partitions hold a repeated key and most do not (they skip
    writing match counts): every how against pandas, at 1 and 3 threads.
    Two keys (int, string) take the path that compares keys by row."""
    rng = np.random.default_rng(41 + two_keys)
    nl, nr = 120_000, 100_000
    rkeys = rng.permutation(int(nr * 1.1))[:nr]
    rkeys[rng.integers(0, nr, 40)] = rkeys[rng.integers(0, nr, 40)]  # a few repeats
    lkeys = rng.integers(0, int(nr * 1.2), nl)
    lnull = rng.random(nl) < 0.03

    def frame(keys, nulls, val):
        k = pd.array(keys, dtype="Int64")
        if nulls is not None:
            k[nulls] = pd.NA
        if not two_keys:
            return pd.DataFrame({"k": k, val: np.arange(len(keys))})
        k2 = pd.array([f"s{x % 7}" for x in keys], dtype=object)
        return pd.DataFrame({"k": pd.array(keys // 7, dtype="Int64"), "k2": k2,
                             val: np.arange(len(keys))})

    pl, pr = frame(lkeys, lnull, "a"), frame(rkeys, None, "b")
    if two_keys:
        pl.loc[lnull, "k2"] = None
    on = ["k", "k2"] if two_keys else ["k"]
    zl, zr = _to_zb(pl), _to_zb(pr)
    for how in HOWS:
        got = _zb_merge_threads(zl, zr, on=on, how=how)
        want = _pd_merge(pl, pr, on, on, on=on, how=how)
        g, w = _rows(got), _rows(want)
        if how == "outer":
            assert sorted(g, key=_sortkey) == sorted(w, key=_sortkey)
        else:
            assert g == w, how


def test_merge_right_side_only_keys():
    # the right frame brings nothing but the shared key
    pl = pd.DataFrame({"k": [1, 2, 3, 2], "a": [10, 20, 30, 40]})
    pr = pd.DataFrame({"k": [2, 3, 4, 4]})
    for how in HOWS:
        got = zb.merge(zb.DataFrame(pl), zb.DataFrame(pr), on="k", how=how).to_pandas()
        want = pd.merge(pl, pr, on="k", how=how)
        if how == "outer":
            want = want.sort_values("k", kind="stable")
        assert got["k"].tolist() == want["k"].tolist(), how
        assert [None if pd.isna(x) else x for x in got["a"]] == \
            [None if pd.isna(x) else x for x in want["a"]], how


@pytest.mark.parametrize("seed", [1, 2])
def test_merge_two_keys_duplicates(seed):
    rng = np.random.default_rng(seed)
    nl, nr = 1500, 1200
    pl = _frame({"i": ("int64", _keys("int64", nl, rng, 4, 0.05)),
                 "s": ("str", _keys("str", nl, rng, 5, 0.05)),
                 "v": ("int64", _keys("int64", nl, rng, 1000, 0.0))})
    pr = _frame({"s": ("str", _keys("str", nr, rng, 5, 0.05)),
                 "i": ("int64", _keys("int64", nr, rng, 4, 0.05)),
                 "w": ("int64", _keys("int64", nr, rng, 1000, 0.0))})
    zl, zr = _to_zb(pl), _to_zb(pr)
    for how in HOWS:
        got = _zb_merge_threads(zl, zr, on=["i", "s"], how=how)
        want = _pd_merge(pl, pr, ["i", "s"], ["i", "s"], on=["i", "s"], how=how)
        assert list(got.columns) == list(want.columns)
        g, w = _rows(got), _rows(want)
        if how == "outer":
            g, w = sorted(g, key=_sortkey), sorted(w, key=_sortkey)
        assert g == w, how


def test_merge_left_on_right_on_int32_int64():
    rng = np.random.default_rng(7)
    pl = _frame({"a": ("int32", _keys("int32", 500, rng, 50, 0.1)),
                 "x": ("int64", _keys("int64", 500, rng, 9, 0.0))})
    pr = _frame({"b": ("int64", _keys("int64", 300, rng, 50, 0.1)),
                 "x": ("int64", _keys("int64", 300, rng, 9, 0.0))})
    zl, zr = _to_zb(pl), _to_zb(pr)
    assert zl["a"].dtype == "int32" and zr["b"].dtype == "int64"
    for how in HOWS:
        got = _zb_merge_threads(zl, zr, left_on="a", right_on="b", how=how)
        want = _pd_merge(pl, pr, ["a"], ["b"], left_on="a", right_on="b", how=how)
        assert list(got.columns) == ["a", "x_x", "b", "x_y"]
        _check(zb.DataFrame(got), want, ordered=how != "outer")


def test_merge_cat_vs_str_and_different_categories():
    pl = pd.DataFrame({"k": pd.Categorical(["a", "b", None, "c", "a"]), "v": [1, 2, 3, 4, 5]})
    pr = pd.DataFrame({"k": ["c", "a", None, "d"], "w": [10, 20, 30, 40]})
    pr2 = pd.DataFrame({"k": pd.Categorical(["c", "a", None, "d"]), "w": [10, 20, 30, 40]})
    for right in (pr, pr2):
        zl, zr = zb.from_pandas(pl), zb.from_pandas(right)
        for how in HOWS:
            got = zb.merge(zl, zr, on="k", how=how)
            want = _pd_merge(pl.astype({"k": object}), right.astype({"k": object}), ["k"], ["k"],
                             on="k", how=how)
            _check(got, want, ordered=how != "outer")


def test_semi_anti():
    rng = np.random.default_rng(3)
    for nl, nr in [(0, 4), (4, 0), (800, 300)]:
        pl = _frame({"k": ("str", _keys("str", nl, rng, 60, 0.1)),
                     "v": ("int64", _keys("int64", nl, rng, 100, 0.1))})
        pr = _frame({"k": ("str", _keys("str", nr, rng, 60, 0.1))})
        zl, zr = _to_zb(pl), _to_zb(pr)
        # null keys match the other side's nulls, as in merge
        inset = (pl["k"].isin(pr["k"].dropna()) | (pl["k"].isna() & pr["k"].isna().any())).to_numpy()
        for how, mask in (("semi", inset), ("anti", ~inset)):
            got = _zb_merge_threads(zl, zr, on="k", how=how)
            want = pl[mask].reset_index(drop=True)
            _check(zb.DataFrame(got), want, ordered=True)


def test_cross():
    pl = pd.DataFrame({"a": [1, 2, 3], "s": ["x", "y", "z"]})
    pr = pd.DataFrame({"s": ["p", "q"], "b": [1.5, 2.5]})
    got = _zb_merge_threads(zb.from_pandas(pl), zb.from_pandas(pr), how="cross")
    want = pd.merge(pl, pr, how="cross")
    _check(zb.DataFrame(got), want, ordered=True)
    assert len(zb.merge(zb.from_pandas(pl.iloc[:0]), zb.from_pandas(pr), how="cross")) == 0


def test_no_matches_all_matches():
    pl = pd.DataFrame({"k": [1, 2, 3], "v": [1, 2, 3]})
    pr = pd.DataFrame({"k": [7, 8], "w": [1, 2]})
    zl, zr = zb.from_pandas(pl), zb.from_pandas(pr)
    for how in HOWS:
        _check(zl.merge(zr, on="k", how=how), pd.merge(pl, pr, on="k", how=how),
               ordered=how != "outer")
    pr = pd.DataFrame({"k": [3, 1, 2, 1], "w": [1, 2, 3, 4]})
    zr = zb.from_pandas(pr)
    for how in HOWS:
        _check(zl.merge(zr, on="k", how=how), pd.merge(pl, pr, on="k", how=how),
               ordered=how != "outer")


def test_null_keys_match_each_other():
    """As in pandas: a null key (NaN, None) matches the other side's null
    keys, per key column; an outer join sorts them last."""
    pl = pd.DataFrame({"k": [1.0, None, 2.0, None], "v": [1, 2, 3, 4]})
    pr = pd.DataFrame({"k": [None, 2.0, None], "w": [10, 20, 30]})
    zl, zr = zb.from_pandas(pl), zb.from_pandas(pr)
    for how in ("inner", "left", "right", "outer"):
        got = zb.merge(zl, zr, on="k", how=how).to_pandas()
        want = pd.merge(pl, pr, on="k", how=how)
        assert got["k"].isna().tolist() == want["k"].isna().tolist(), how
        assert got["v"].tolist() == want["v"].tolist() or how == "right", how
        assert [None if pd.isna(x) else x for x in got["w"]] == \
            [None if pd.isna(x) else x for x in want["w"]], how
    # two keys: a row matches where each key pair is equal or null on both sides
    pl = pd.DataFrame({"a": ["x", None, None, "y"], "b": [1.0, 2.0, None, None], "v": [1, 2, 3, 4]})
    pr = pd.DataFrame({"a": [None, "y", None, "x"], "b": [2.0, None, None, 1.0], "w": [5, 6, 7, 8]})
    got = zb.merge(zb.from_pandas(pl), zb.from_pandas(pr), on=["a", "b"]).to_pandas()
    want = pd.merge(pl, pr, on=["a", "b"])
    assert got["v"].tolist() == want["v"].tolist() == [1, 2, 3, 4]
    assert got["w"].tolist() == want["w"].tolist() == [8, 5, 7, 6]
    # a string key with nulls on one side only matches nothing there
    pl = pd.DataFrame({"k": ["a", None, "b"], "v": [1, 2, 3]})
    pr = pd.DataFrame({"k": ["b", "a"], "w": [1, 2]})
    got = zb.merge(zb.from_pandas(pl), zb.from_pandas(pr), on="k", how="left").to_pandas()
    assert [None if pd.isna(x) else x for x in got["w"]] == [2, None, 1]


def test_sort_true_matches_pandas():
    pl = pd.DataFrame({"k": ["b", "a", "c", "a", "b"], "v": [1, 2, 3, 4, 5]})
    pr = pd.DataFrame({"k": ["a", "b", "b", "d"], "w": [1, 2, 3, 4]})
    zl, zr = zb.from_pandas(pl), zb.from_pandas(pr)
    for how in HOWS:
        _check(zl.merge(zr, on="k", how=how, sort=True),
               pd.merge(pl, pr, on="k", how=how, sort=True), ordered=True)


def test_suffixes_and_join():
    pl = pd.DataFrame({"k": [1, 2, 3], "v": [1, 2, 3], "w": ["a", "b", "c"]})
    pr = pd.DataFrame({"k": [3, 1], "v": [30, 10], "z": [0.5, 1.5]})
    zl, zr = zb.from_pandas(pl), zb.from_pandas(pr)
    for suf in [("_l", "_r"), ("", "_r"), (None, "_r")]:
        _check(zl.merge(zr, on="k", suffixes=suf), pd.merge(pl, pr, on="k", suffixes=suf),
               ordered=True)
    with pytest.raises(InvalidValueError):
        zl.merge(zr, on="k", suffixes=(None, None))
    # join: pandas' join of a key column with other's index
    pri = pr.set_index("k")
    want = pl.join(pri, on="k", lsuffix="_l", rsuffix="_r")
    zri = zr.set_index("k")
    _check(zl.join(zri, on="k", lsuffix="_l", rsuffix="_r"), want, ordered=True)
    _check(zl.join(zri, on="k", suffixes=("_l", "_r")), want, ordered=True)
    with pytest.raises(InvalidValueError):
        zl.join(zri, on="k")  # overlapping 'v' with no suffix (pandas raises too)
    with pytest.raises(ValueError):
        pl.join(pri, on="k")
    # no keys given: the shared columns
    _check(zl.merge(zr.drop(columns=["v"])), pd.merge(pl, pr.drop(columns=["v"])), ordered=True)


def test_errors():
    zl = zb.DataFrame({"k": [1, 2], "s": ["a", "b"]})
    zr = zb.DataFrame({"k": [1, 2], "t": ["a", "b"]})
    with pytest.raises(DTypeError, match="'s'.*'k'|'k'.*'s'"):
        zb.merge(zl, zr, left_on="s", right_on="k")
    with pytest.raises(ColumnNotFoundError):
        zb.merge(zl, zr, on="nope")
    with pytest.raises(InvalidValueError):
        zb.merge(zl, zr, on="k", how="full")
    with pytest.raises(InvalidValueError):
        zb.merge(zl, zr, left_index=True)  # the right side's keys are missing
    with pytest.raises(UnsupportedError):
        zb.merge(zl, zr, left_index=True, right_index=True, indicator=True)
    with pytest.raises(InvalidValueError, match="not a valid argument"):
        zb.merge(zl, zr, on="k", validate="1:2")
    with pytest.raises(InvalidValueError):
        zb.merge(zl, zr, on="k", how="cross")
    with pytest.raises(InvalidValueError):
        zb.merge(zl, zr, left_on=["k", "s"], right_on="k")


@pytest.mark.parametrize("other", ["cat", "str", "int64", "float"])
@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
def test_merge_on_a_categorical_without_categories(other, how):
    """A categorical key whose values are all missing has no categories
    (pandas gives them a float64 dtype); it meets a key of any type, as
    pandas merges it, rather than refusing the types."""
    pl = pd.DataFrame({"k": pd.Categorical([None, None]), "a": [1, 2]})
    rk = {"cat": pd.Categorical(["c1", "c2"]), "str": ["c1", "c2"],
          "int64": [1, 2], "float": [1.5, 2.5]}[other]
    pr = pd.DataFrame({"k": rk, "b": [3, 4]})
    for left, right in ((pl, pr), (pr, pl)):
        got = zb.merge(zb.from_pandas(left), zb.from_pandas(right), on="k", how=how).to_pandas()
        want = pd.merge(left, right, on="k", how=how)
        # the rows and keys as pandas (its key dtype is float64 / object here)
        assert len(got) == len(want)
        assert got["k"].isna().sum() == want["k"].isna().sum()
        assert got["k"].dropna().tolist() == want["k"].dropna().tolist()


def test_join_of_multiindexes_with_other_level_names_is_refused_not_wrong():
    # pandas joins them on the levels they share; zambezi does not (yet), and
    # must not join on every level by position instead
    left = pd.DataFrame({"o": list("AAB"), "d": list("ABA"), "p": ["x", "y", "z"],
                         "t": [1, 2, 3]}).set_index(["o", "d", "p"])
    right = pd.DataFrame({"o": list("AAB"), "d": list("ABA"), "q": ["u", "v", "w"],
                          "dist": [10, 20, 30]}).set_index(["o", "d", "q"])
    with pytest.raises(zb.errors.UnsupportedError, match="level names"):
        zb.DataFrame(left).join(zb.DataFrame(right))
    same = right.rename_axis(["o", "d", "p"])
    for how in ("inner", "left", "outer"):
        got = zb.DataFrame(left).join(zb.DataFrame(same), how=how).to_pandas()
        pd.testing.assert_frame_equal(got.sort_index(), left.join(same, how=how).sort_index(),
                                      check_dtype=False)  # Int64 with missing values


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize("indicator", [True, "src"])
@pytest.mark.parametrize("sort", [False, True])
def test_merge_indicator_like_pandas(how, indicator, sort):
    a = pd.DataFrame({"k": [1.0, 2, 2, None, 7], "x": [1, 2, 3, 4, 5]})
    b = pd.DataFrame({"k": [2.0, 3, None, 8], "y": [5, 6, 7, 8]})
    want = a.merge(b, on="k", how=how, indicator=indicator, sort=sort)
    got = zb.from_pandas(a).merge(zb.from_pandas(b), on="k", how=how, indicator=indicator,
                                  sort=sort).to_pandas()
    name = "src" if indicator == "src" else "_merge"
    pd.testing.assert_series_equal(got[name], want[name])
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    with pytest.raises(ValueError, match=f"column named {name}"):
        zb.from_pandas(a.rename(columns={"x": name})).merge(zb.from_pandas(b), on="k",
                                                             indicator=indicator)


@pytest.mark.parametrize("validate", ["1:1", "one_to_many", "m:1", "many_to_one", "m:m"])
def test_merge_validate_like_pandas(validate):
    a = pd.DataFrame({"k": [1, 2, 2], "x": [1, 2, 3]})
    b = pd.DataFrame({"k": [2, 3], "y": [5, 6]})
    for left, right in [(a, b), (b, a)]:
        try:
            left.merge(right, on="k", validate=validate)
            want = None
        except ValueError as e:
            want = str(e).split(";")[0]
        z = zb.from_pandas(left)
        if want is None:
            z.merge(zb.from_pandas(right), on="k", validate=validate)
        else:
            with pytest.raises(ValueError, match=want):
                z.merge(zb.from_pandas(right), on="k", validate=validate)


@pytest.mark.parametrize("right_index", [None, "x", "oid"])
@pytest.mark.parametrize("dups", [False, True])
def test_right_join_on_the_index_takes_the_right_labels_as_pandas(right_index, dups):
    # pandas' right join on both indexes gives the right frame's labels,
    # their name and (kept whole, in order) its RangeIndex; zambezi named
    # them after the left index
    left = pd.DataFrame({"amt": [5.0, 6.0, 7.0, 8.0]},
                        index=pd.Index([0, 1, 0 if dups else 2, 3], name="oid"))
    right = pd.DataFrame({"score": [1.5, 2.5, 3.5]})
    if right_index is not None:
        right.index = pd.Index([5, 0, 9], name=right_index)
    want = left.join(right, how="right")
    got = zb.from_pandas(left).join(zb.from_pandas(right), how="right").to_pandas()
    pd.testing.assert_frame_equal(got, want)
