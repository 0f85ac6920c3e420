"""zb.isna / notna / unique / NamedAgg / IndexSlice, and loc on a
MultiIndex with slices and lists per level (pd.IndexSlice), against pandas
run side by side: the rows, their order, and which levels pandas keeps."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

VALUES = [None, np.nan, "x", 3, 2.5, np.datetime64("NaT"), pd.NaT, pd.NA, (1, None),
          [1, None, np.nan], np.array([1.0, np.nan]), np.array(["a", None], dtype=object),
          np.array(["2020-01-01", "NaT"], dtype="M8[s]"), np.array([1, 2]),
          np.array([np.timedelta64("NaT"), np.timedelta64(1, "s")]), [pd.NaT, 1, "a"],
          np.array([[1.0, np.nan]])]


@pytest.mark.parametrize("i", range(len(VALUES)))
def test_isna_notna_like_pandas(i):
    v = VALUES[i]
    for mine, theirs in ((zb.isna, pd.isna), (zb.notna, pd.notna), (zb.isnull, pd.isnull),
                         (zb.notnull, pd.notnull)):
        got, want = mine(v), theirs(v)
        assert type(got) is type(want) or isinstance(want, (bool, np.bool_))
        assert np.array_equal(np.asarray(got), np.asarray(want))


def test_isna_of_zambezi_objects():
    p = pd.DataFrame({"a": [1.0, None, 3.0], "b": ["x", None, "z"]})
    z = zb.from_pandas(p)
    assert zb.isna(z).to_pandas().equals(pd.isna(p))
    assert zb.notna(z["b"]).to_list() == pd.notna(p["b"]).tolist()
    assert zb.isna(zb.Index([1.0, None])).tolist() == [False, True]
    assert zb.isna(p["a"]).tolist() == pd.isna(p["a"]).tolist()  # pandas' own


@pytest.mark.parametrize("values", [[3, 1, 3, 2], ["b", "a", "b", "c"], [2.0, np.nan, 2.0],
                                    np.array([5, 5, 4], dtype=np.int32)])
def test_unique_like_pandas(values):
    got, want = zb.unique(values), pd.unique(np.asarray(values))
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, want)
    assert zb.unique(zb.Series(values)).to_list() == \
        zb.Series(values).drop_duplicates().to_list()


def test_named_agg_and_index_slice():
    p = pd.DataFrame({"k": ["a", "b", "a"], "x": [1, 2, 3]})
    z = zb.from_pandas(p)
    got = z.groupby("k").agg(total=zb.NamedAgg(column="x", aggfunc="sum"),
                             most=zb.NamedAgg("x", "max"))
    want = p.groupby("k").agg(total=pd.NamedAgg(column="x", aggfunc="sum"),
                              most=pd.NamedAgg("x", "max"))
    pd.testing.assert_frame_equal(got.to_pandas(), want, check_dtype=False)
    assert zb.NamedAgg("x", "sum") == ("x", "sum")
    assert zb.IndexSlice[:, "b"] == pd.IndexSlice[:, "b"]
    assert zb.IndexSlice["a":"c", [1, 2]] == pd.IndexSlice["a":"c", [1, 2]]


def _three_levels(sort=True):
    rng = np.random.default_rng(3)
    n = 60
    df = pd.DataFrame({"k": rng.choice(["a", "b", "c", "d"], n), "j": rng.integers(1, 4, n),
                       "i": rng.choice([5, 6], n), "v": np.arange(n)})
    df = df.set_index(["k", "j", "i"])
    return df.sort_index() if sort else df


KEYS = [(slice(None), 1), (["c", "a"], 1), (slice("a", "b"), 2), ("a", [2]),
        (["a", "b"], slice(None)), (["a"], 1, 5), (slice(None), 1, 5), (["b", "a"], [3, 1], 5),
        ("a", slice(None), 5), (slice(None), slice(None), [6]), (slice("b", None), [2, 1]),
        (slice(None, "b"), slice(2, 3), 6), (["d", "b", "d"], [3, 2, 1, 3])]


def _bounded(key):
    return any(isinstance(k, slice) and k != slice(None) for k in key)


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("key", KEYS, ids=[str(k) for k in KEYS])
def test_loc_level_picks_like_pandas(key, sort):
    if not sort and _bounded(key):
        pytest.skip("pandas slices the labels of a sorted index only")
    p = _three_levels(sort)
    z = zb.from_pandas(p)
    for zf, pf in ((lambda: z.loc[key, :], lambda: p.loc[key, :]),
                   (lambda: z.loc[key, "v"], lambda: p.loc[key, "v"]),
                   (lambda: z["v"].loc[key], lambda: p["v"].loc[key])):
        try:
            want = pf()
        except KeyError:
            with pytest.raises(KeyError):
                zf()
            continue
        got = zf().to_pandas()
        assert list(got.index.names) == list(want.index.names)
        assert got.reset_index().values.tolist() == want.reset_index().values.tolist()


def test_loc_level_picks_numpy_arrays_and_index_like_lists():
    p = _three_levels()
    z = zb.from_pandas(p)
    key = (np.array(["c", "a"]), slice(None), 5)
    want = p.loc[key, :]
    got = z.loc[key, :].to_pandas()
    assert got.reset_index().values.tolist() == want.reset_index().values.tolist()
    key = (zb.Index(["b"]), [2, 1])
    assert z.loc[key, "v"].to_list() == p.loc[(["b"], [2, 1]), "v"].tolist()


def test_loc_level_picks_errors():
    z = zb.from_pandas(_three_levels())
    with pytest.raises(KeyError):
        z.loc[(slice(None), 9), :]
    with pytest.raises(zb.errors.UnsupportedError, match="step"):
        z.loc[(slice("a", "c", 2), 1), :]


@pytest.mark.parametrize("iterables", [
    [["a", "b"], [1, 2, 3]], [range(3), ["x"]], [["p", "q"], [1.5, 2.5], [True, False]],
    [[], [1, 2]], [[7], []]])
def test_multiindex_from_product_like_pandas(iterables):
    want = pd.MultiIndex.from_product(iterables, names=[f"l{i}" for i in range(len(iterables))])
    got = zb.MultiIndex.from_product(iterables,
                                     names=[f"l{i}" for i in range(len(iterables))])
    assert got.to_list() == want.tolist() and list(got.names) == list(want.names)
    named = [pd.Series(list(it), name=f"s{i}") for i, it in enumerate(iterables)]
    assert zb.MultiIndex.from_product(named).names == \
        list(pd.MultiIndex.from_product(named).names)


@pytest.mark.parametrize("kw, cols", [
    (dict(stubnames="ht", i=["famid", "birth"], j="age"), ["famid", "birth", "ht1", "ht2", "z"]),
    (dict(stubnames=["A", "B"], i="id", j="year"), ["id", "A1970", "A1980", "B1970", "B1990", "X"]),
    (dict(stubnames="wt", i="id", j="k", sep="_", suffix=r"\w+"), ["id", "wt_one", "wt_two", "z"]),
    (dict(stubnames=["A", "ht"], i="id", j="year"), ["id", "A1970", "A1980", "ht1", "ht2"]),
    (dict(stubnames=["A", "Q"], i="id", j="year"), ["z", "id", "A1970", "A1980"]),
])
def test_wide_to_long_like_pandas(kw, cols):
    rng = np.random.default_rng(1)
    n = 5
    df = pd.DataFrame({"famid": [1, 1, 1, 2, 2], "birth": [1, 2, 3, 1, 2],
                       "ht1": rng.normal(size=n), "ht2": rng.normal(size=n),
                       "wt_one": rng.integers(0, 9, n), "wt_two": rng.integers(0, 9, n),
                       "z": list("edcba"), "A1970": [1.0, 2, np.nan, 4, 5],
                       "A1980": [6.0, 7, 8, 9, 10], "B1970": [0.1] * 5, "B1990": [0.2] * 5,
                       "X": rng.normal(size=n), "id": [4, 2, 0, 1, 3]})[cols]
    pd.testing.assert_frame_equal(zb.wide_to_long(zb.from_pandas(df), **kw).to_pandas(),
                                  pd.wide_to_long(df, **kw), check_dtype=False,
                                  check_index_type=False)


def test_wide_to_long_errors_like_pandas():
    df = pd.DataFrame({"id": [1, 1], "A1": [1, 2], "A2": [3, 4]})
    for kw, match in ((dict(stubnames="A", i="id", j="n"), "uniquely identify"),
                      (dict(stubnames="A1", i="id", j="n"), "identical to a column name")):
        with pytest.raises(ValueError, match=match):
            pd.wide_to_long(df, **kw)
        with pytest.raises(ValueError, match=match):
            zb.wide_to_long(zb.from_pandas(df), **kw)
