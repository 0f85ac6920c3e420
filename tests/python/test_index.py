"""The Index against pandas: labels through selections, loc / at / iat /
iloc with pandas 3's rules, set_index / reset_index / sort_index /
reindex / rename_axis, setting values through loc and iloc, and the index
through from_pandas / to_pandas.

Random frames with nulls and random labels (ints, strings, timestamps,
duplicates) are run through zambezi and pandas side by side; every result
is compared with pandas_compare, which checks the index (values, dtype as
to_pandas shows it) as well as the values.
"""

import datetime

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like

N = 200


def _frame(seed, n=N):
    rng = np.random.default_rng(seed)
    pdf = pd.DataFrame({
        "i": pd.array(np.where(rng.random(n) < 0.1, None, rng.integers(-50, 50, n)),
                      dtype="Int64"),
        "f": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
        "s": pd.array(np.where(rng.random(n) < 0.1, None,
                               rng.choice(["ant", "bee", "cat", "dog", "eel"], n)),
                      dtype="str"),
        "k": rng.integers(0, 20, n),
    })
    return pdf


def _labels(kind, n, rng):
    if kind == "int":
        return pd.Index(rng.permutation(n) * 3 - 7)
    if kind == "dup":
        return pd.Index(rng.integers(0, n // 4, n))
    if kind == "str":
        return pd.Index([f"r{v}" for v in rng.permutation(n)], dtype="str")
    if kind == "sorted_int":
        return pd.Index(np.sort(rng.choice(10 * n, n, replace=False)))
    if kind == "ts":
        start = np.datetime64("2024-01-01T00:00:00", "ns")
        return pd.DatetimeIndex(start + np.sort(rng.integers(0, 86400 * 90, n)) *
                                np.timedelta64(1, "s"))
    if kind == "range":
        return pd.RangeIndex(5, 5 + 2 * n, 2)
    raise ValueError(kind)


KINDS = ["int", "dup", "str", "sorted_int", "ts", "range"]


def _pair(seed, kind):
    rng = np.random.default_rng(seed + 100)
    pdf = _frame(seed)
    pdf.index = _labels(kind, len(pdf), rng)
    return zb.DataFrame(pdf), pdf


# --------------------------------------------------------------------------
# labels through selections
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(3))
def test_selections_keep_labels(seed, kind):
    df, pdf = _pair(seed, kind)
    mask = (pdf["f"] > 0).to_numpy()
    assert_frame_like(df, pdf, "round trip")
    assert_frame_like(df[mask], pdf[mask], "filter")
    assert_frame_like(df[df["f"] > 0], pdf[pdf["f"] > 0], "filter by a Series")
    assert_frame_like(df.head(7), pdf.head(7), "head")
    assert_frame_like(df.tail(7), pdf.tail(7), "tail")
    assert_frame_like(df.iloc[10:50:3], pdf.iloc[10:50:3], "iloc slice with step")
    pos = np.random.default_rng(seed).integers(-N, N, 30)
    assert_frame_like(df.iloc[pos], pdf.iloc[pos], "iloc positions")
    assert_frame_like(df.take(pos), pdf.take(pos), "take")
    assert_frame_like(df.sort_values(["k", "f"]), pdf.sort_values(["k", "f"], kind="stable"),
                      "sort_values")
    assert_frame_like(df.sort_values("k", ignore_index=True),
                      pdf.sort_values("k", kind="stable", ignore_index=True), "ignore_index")
    assert_frame_like(df.nlargest(9, "f"), pdf.nlargest(9, "f"), "nlargest")
    assert_frame_like(df.drop_duplicates(["k"]), pdf.drop_duplicates(["k"]), "drop_duplicates")
    assert_frame_like(df.dropna(), pdf.dropna(), "dropna")
    assert_series_like(df["f"].sort_values(), pdf["f"].sort_values(kind="stable"),
                       "Series.sort_values")
    assert_series_like(df["s"][df["k"] > 10], pdf["s"][pdf["k"] > 10], "Series filter")
    assert_series_like(df["f"].nsmallest(5), pdf["f"].nsmallest(5), "nsmallest")
    # a filter of a filter gathers the labels of the first selection once
    a, pa = df[df["k"] > 5], pdf[pdf["k"] > 5]
    assert_frame_like(a[a["f"] > 0], pa[pa["f"] > 0], "filter of a filter")
    assert_frame_like(a.iloc[::-2].head(4), pa.iloc[::-2].head(4), "chain")


def test_the_default_index_costs_no_memory():
    df = zb.DataFrame({"a": np.arange(10**6)})
    assert isinstance(df.index, zb.RangeIndex) and df.index.nbytes == 0
    assert isinstance(df[10:20].index, zb.RangeIndex)
    assert df[10:20].index.to_list() == list(range(10, 20))
    for make in (lambda: zb.DataFrame({"a": [1]}),
                 lambda: zb.merge(df.head(3), df.head(3), on="a"),
                 lambda: zb.concat([df.head(2), df.head(2)], ignore_index=True)):
        assert isinstance(make().index, zb.RangeIndex)


def test_read_csv_gives_a_range_index(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("a,b\n1,x\n2,y\n")
    df = zb.read_csv(p)
    assert df.index.equals(zb.RangeIndex(2)) and isinstance(df.index, zb.RangeIndex)


# --------------------------------------------------------------------------
# loc, at, iat, iloc
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["int", "dup", "str", "sorted_int", "range"])
@pytest.mark.parametrize("seed", range(3))
def test_loc_labels_lists_and_slices(seed, kind):
    df, pdf = _pair(seed, kind)
    rng = np.random.default_rng(seed)
    labels = list(pdf.index[rng.integers(0, N, 12)])
    for lab in labels[:4]:
        exp = pdf.loc[lab]
        got = df.loc[lab]
        if isinstance(exp, pd.DataFrame):
            assert_frame_like(got, exp, f"loc[{lab!r}]")
        else:  # one row: mixed dtypes give a dict
            assert got == {c: (None if pd.isna(v) else v) for c, v in exp.items()}
        exp_s = pdf["f"].loc[lab]
        got_s = df["f"].loc[lab]
        if isinstance(exp_s, pd.Series):
            assert_series_like(got_s, exp_s, f"Series.loc[{lab!r}]")
        else:
            assert (got_s is None and np.isnan(exp_s)) or got_s == exp_s
    assert_frame_like(df.loc[labels], pdf.loc[labels], "loc[list]")
    assert_series_like(df.loc[labels, "s"], pdf.loc[labels, "s"], "loc[list, col]")
    assert_frame_like(df.loc[labels, ["k", "i"]], pdf.loc[labels, ["k", "i"]], "loc[list, cols]")
    mask = (pdf["k"] > 7).to_numpy()
    assert_frame_like(df.loc[mask], pdf.loc[mask], "loc[mask]")
    assert_frame_like(df.loc[df["k"] > 7, "i":"s"], pdf.loc[pdf["k"] > 7, "i":"s"],
                      "loc[Series mask, column slice]")
    assert_frame_like(df.loc[lambda d: d["k"] > 7], pdf.loc[lambda d: d["k"] > 7], "callable")
    if pdf.index.is_monotonic_increasing or pdf.index.is_unique:
        a, b = sorted(labels[:2]) if pdf.index.is_monotonic_increasing else labels[:2]
        if not pdf.index.is_monotonic_increasing:
            if pdf.index.get_loc(a) > pdf.index.get_loc(b):
                a, b = b, a
        assert_frame_like(df.loc[a:b], pdf.loc[a:b], f"loc[{a!r}:{b!r}]")
        assert_frame_like(df.loc[:b], pdf.loc[:b], "loc[:b]")
        assert_frame_like(df.loc[a:], pdf.loc[a:], "loc[a:]")
        assert_frame_like(df.loc[a:b:2], pdf.loc[a:b:2], "loc[a:b:2]")
    if pdf.index.is_unique:
        lab = labels[0]
        assert df.at[lab, "k"] == pdf.at[lab, "k"]
        assert df["k"].at[lab] == pdf["k"].at[lab]
        assert df.index.get_loc(lab) == pdf.index.get_loc(lab)
        ask = labels[:5] + ([10**9] if pdf.index.dtype.kind == "i" else ["zz"])
        np.testing.assert_array_equal(df.index.get_indexer(ask), pdf.index.get_indexer(ask))
    missing = 10**9 if pdf.index.dtype.kind == "i" else "nope"
    with pytest.raises(KeyError):
        pdf.loc[missing]
    with pytest.raises(KeyError):
        df.loc[missing]
    with pytest.raises(KeyError):
        df.loc[[labels[0], missing]]


def test_loc_on_a_range_index_slices_by_label():
    pdf = _frame(1)
    pdf.index = pd.RangeIndex(100, 100 - 3 * N, -3)
    df = zb.DataFrame(pdf)
    assert isinstance(df.index, zb.RangeIndex)
    for a, b in [(97, 40), (100, None), (None, 0), (52, 52), (51, 40), (1000, 0), (40, 97)]:
        assert_frame_like(df.loc[a:b], pdf.loc[a:b], f"loc[{a}:{b}]")
    pdf.index = pd.RangeIndex(3, 3 + 4 * N, 4)
    df = zb.DataFrame(pdf)
    for a, b in [(3, 40), (4, 41), (None, 10), (50, None), (-100, 7), (800, 900), (40, 3)]:
        assert_frame_like(df.loc[a:b], pdf.loc[a:b], f"loc[{a}:{b}]")
    assert_frame_like(df.loc[[7, 3, 7]], pdf.loc[[7, 3, 7]], "loc[list]")


def test_loc_dates_on_a_timestamp_index():
    df, pdf = _pair(4, "ts")
    for key in ["2024-01", "2024-02-03", "2024-02-03 05", "2024"]:
        assert_frame_like(df.loc[key], pdf.loc[key], f"loc[{key!r}]")
    for a, b in [("2024-01-10", "2024-02"), ("2024-02-03 05:00", "2024-02-05"),
                 (None, "2024-01-15"), ("2024-03", None)]:
        assert_frame_like(df.loc[a:b], pdf.loc[a:b], f"loc[{a!r}:{b!r}]")
    exact = pdf.index[17]
    assert_series_like(df["f"].loc[[exact]], pdf["f"].loc[[exact]], "a Timestamp label")
    assert df.loc[exact.to_pydatetime(), "k"] == pdf.loc[exact, "k"]


def test_series_getitem_follows_pandas_3():
    ps = pd.Series([10, 20, 30, 40], index=["a", "b", "c", "d"], name="v")
    s = zb.Series(ps)
    assert s["c"] == ps["c"]
    assert_series_like(s[["d", "a"]], ps[["d", "a"]], "list of labels")
    assert_series_like(s["b":"c"], ps["b":"c"], "label slice")
    assert_series_like(s[1:3], ps[1:3], "int slice is positional")
    assert_series_like(s[s > 15], ps[ps > 15], "mask")
    with pytest.raises(KeyError):
        ps[0]
    with pytest.raises(KeyError):
        s[0]  # pandas 3: an int is a label, never a position
    pi = pd.Series([1.5, 2.5, 3.5], index=[7, 3, 5])
    zi = zb.Series(pi)
    assert zi[3] == pi[3] and zi.iloc[0] == pi.iloc[0]


def test_iloc_pairs_and_iat():
    df, pdf = _pair(2, "str")
    for key in [(5, 1), (slice(2, 9), 0), ([3, 1], [2, 0]), (slice(None), slice(1, 3)),
                ([True, False] * (N // 2), 2), (-1, -1)]:
        exp = pdf.iloc[key]
        got = df.iloc[key]
        if isinstance(exp, pd.DataFrame):
            assert_frame_like(got, exp, f"iloc{key}")
        elif isinstance(exp, pd.Series):
            assert_series_like(got, exp, f"iloc{key}")
        else:
            assert got == exp or (got is None and pd.isna(exp))
    assert df.iat[3, 3] == pdf.iat[3, 3]


def test_a_row_with_one_dtype_is_a_series():
    pdf = pd.DataFrame({"a": [1, 2], "b": [0.5, 1.5]}, index=["x", "y"])
    df = zb.DataFrame(pdf)
    assert_series_like(df.loc["y"], pdf.loc["y"], "numbers promote")
    assert_series_like(df.iloc[0], pdf.iloc[0], "iloc row")


# --------------------------------------------------------------------------
# setting through loc / iloc
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["int", "str", "range"])
def test_setting_values(kind):
    df, pdf = _pair(5, kind)
    rng = np.random.default_rng(5)
    labels = list(pdf.index[rng.choice(N, 10, replace=False)])
    for target in (df, pdf):
        target.loc[target["k"] > 10, "f"] = 0.25
        target.loc[labels[0], "k"] = 99
        target.loc[labels[1:4], ["k"]] = [7, 8, 9]
        target.iloc[2:5, 1] = -1.0
        target.iloc[[0, -1], 3] = 42
        target.loc[target["k"] == 7, "new"] = "seven"
    assert_frame_like(df, pdf, "after setting")
    s, ps = df["f"].copy(), pdf["f"].copy()
    s.loc[labels[5]] = 3.0
    ps.loc[labels[5]] = 3.0
    s.iloc[-3:] = 1.0
    ps.iloc[-3:] = 1.0
    assert_series_like(s, ps, "Series after setting")
    with pytest.raises(TypeError):
        df.loc[labels[0], "k"] = 1.5  # pandas 3: an int column cannot hold 1.5
    with pytest.raises(TypeError):
        pdf.loc[labels[0], "k"] = 1.5


# --------------------------------------------------------------------------
# set_index, reset_index, sort_index, reindex, rename_axis
# --------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_set_and_reset_index(seed):
    pdf = _frame(seed)
    df = zb.DataFrame(pdf)
    for keys, kw in [("s", {}), (["k", "s"], {}), ("k", {"drop": False}), ("i", {})]:
        exp = pdf.set_index(keys, **kw)
        got = df.set_index(keys, **kw)
        assert_frame_like(got, exp, f"set_index({keys!r}, {kw})")
        if kw.get("drop") is False:  # the column is still there: both refuse
            with pytest.raises(ValueError):
                exp.reset_index()
            with pytest.raises(ValueError):
                got.reset_index()
        else:
            assert_frame_like(got.reset_index(), exp.reset_index(), "reset_index")
        assert_frame_like(got.reset_index(drop=True), exp.reset_index(drop=True), "drop")
        if isinstance(keys, list):
            assert_frame_like(got.reset_index(level="s"), exp.reset_index(level="s"), "level")
            assert got.index.names == list(exp.index.names)
    exp = pdf.set_index("k").set_index("s", append=True)
    assert_frame_like(df.set_index("k").set_index("s", append=True), exp, "append")
    arr = np.arange(N) * 2
    assert_frame_like(df.set_index(zb.Series(arr, name="x")),
                      pdf.set_index(pd.Series(arr, name="x")), "a Series as keys")
    assert_frame_like(df.reset_index(), pdf.reset_index(), "reset of a RangeIndex")
    assert_series_like(df["f"].reset_index(drop=True), pdf["f"].reset_index(drop=True), "s")
    assert_frame_like(df.set_index("s")["f"].reset_index(),
                      pdf.set_index("s")["f"].reset_index(), "Series.reset_index")


@pytest.mark.parametrize("kind", ["int", "dup", "str", "ts", "range"])
def test_sort_index(kind):
    df, pdf = _pair(6, kind)
    for asc in (True, False):
        assert_frame_like(df.sort_index(ascending=asc),
                          pdf.sort_index(ascending=asc, kind="stable"), f"asc={asc}")
        assert_series_like(df["s"].sort_index(ascending=asc),
                           pdf["s"].sort_index(ascending=asc, kind="stable"), "Series")
    two = pdf.set_index(["k", "s"])
    assert_frame_like(zb.DataFrame(two).sort_index(), two.sort_index(kind="stable"), "multi")
    assert_frame_like(zb.DataFrame(two).sort_index(ascending=[True, False]),
                      two.sort_index(ascending=[True, False], kind="stable"), "multi mixed")


def test_sort_index_with_missing_labels():
    pdf = pd.DataFrame({"v": [1, 2, 3, 4]}, index=pd.Index([3.0, np.nan, 1.0, 2.0]))
    df = zb.DataFrame(pdf)
    for na in ("first", "last"):
        assert_frame_like(df.sort_index(na_position=na),
                          pdf.sort_index(na_position=na, kind="stable"), na)


@pytest.mark.parametrize("kind", ["int", "str"])
def test_reindex(kind):
    df, pdf = _pair(7, kind)
    rng = np.random.default_rng(7)
    new = list(pdf.index[rng.integers(0, N, 15)].unique())
    new += [10**9] if kind == "int" else ["zz"]
    exp = pdf.reindex(new)
    got = df.reindex(new)
    assert list(got.index.to_list()) == list(exp.index)
    assert_series_like(got["s"], exp["s"], "reindex s")
    assert_series_like(got["f"], exp["f"], "reindex f")
    assert_series_like(df["f"].reindex(new, fill_value=0.5),
                       pdf["f"].reindex(new, fill_value=0.5), "fill_value")
    exp = pdf.reindex(columns=["s", "nope", "k"])
    got = df.reindex(columns=["s", "nope", "k"])
    assert_frame_like(got, exp, "reindex columns")


def test_missing_labels_find_the_missing_label_as_pandas():
    """reindex / get_indexer: NaN, None, NaT and NA find the index's
    missing label (pandas matches NaN with NaN), numbers, strings, times."""
    cases = [([1.0, 4.0, np.nan, 8.0], [np.nan, 1.0, np.nan, 8.0, 4.0, 7.0]),
             (["a", None, "c"], [None, "c", np.nan, "q"]),
             (pd.to_datetime(["2020-01-01", None, "2020-01-03"]),
              [pd.NaT, pd.Timestamp("2020-01-03"), pd.Timestamp("2020-02-01")])]
    for labels, new in cases:
        p = pd.Series([2.5, 3, 5, 7][:len(labels)], index=labels)
        z = zb.Series(p)
        assert_series_like(z.reindex(new), p.reindex(new), f"reindex {new}")
        assert z.index.get_indexer(new).tolist() == p.index.get_indexer(new).tolist()
    pdf = pd.DataFrame([[1, 2], [3, 5], [7, 11], [9, 23]], index=[2, np.nan, 1, 5],
                       columns=["joe", "jim"])
    new = [np.nan, 5, 5, np.nan, 1, 2, np.nan]
    want, got = pdf.reindex(new), zb.DataFrame(pdf).reindex(new)
    # (zambezi's labels [nan, 5, ...] are int64 with a missing label, pandas' float64)
    assert [None if v != v else v for v in want.index] == got.index.to_list()
    assert_frame_like(got.reset_index(drop=True), want.reset_index(drop=True), "frame")


def test_reindex_keeps_the_index_name_as_pandas():
    # labels without a name of their own keep the index's name; an Index
    # brings its own (None included)
    pdf = pd.DataFrame({"day": [1, 2], "sales": [1.5, np.nan]}).set_index("day")
    df = zb.DataFrame(pdf)
    for new in [range(4), [2, 5], np.array([1, 3]), (1, 2), pd.Index([1, 9]),
                pd.Index([1, 9], name="d2")]:
        want = pdf.reindex(new)
        assert df.reindex(new).to_pandas().index.name == want.index.name, new
        assert df["sales"].reindex(new).to_pandas().index.name == want.index.name, new
    assert df.reindex(range(3)).to_csv() == pdf.reindex(range(3)).to_csv()


def test_series_drop_like_pandas():
    p = pd.Series([1.0, 2, 3, 4], index=["a", "b", "c", "b"], name="x")
    z = zb.Series(p)
    for kw in [{"labels": "a"}, {"labels": ["b"]}, {"index": ["a", "c"]},
               {"labels": ["z"], "errors": "ignore"}, {"labels": np.array(["a"])}]:
        pd.testing.assert_series_equal(z.drop(**kw).to_pandas(), p.drop(**kw))
    with pytest.raises(KeyError):
        z.drop("z")
    q = pd.Series([5, 6, 7])
    pd.testing.assert_series_equal(zb.Series(q).drop([0, 2]).to_pandas(), q.drop([0, 2]))


def test_series_combine_first_like_pandas():
    cases = [(pd.Series([1.0, np.nan, 3], name="a"), pd.Series([9.0, 8, np.nan], name="b")),
             (pd.Series(["x", None, None]), pd.Series(["p", "q", None])),
             (pd.Series([1, 2], index=[5, 6]), pd.Series([3, 4], index=[5, 6]))]
    for a, b in cases:
        pd.testing.assert_series_equal(zb.Series(a).combine_first(zb.Series(b)).to_pandas(),
                                       a.combine_first(b))
    a, b = pd.Series([1.0]), pd.Series([2.0], index=[7])   # other labels: aligned
    pd.testing.assert_series_equal(zb.Series(a).combine_first(zb.Series(b)).to_pandas(),
                                   a.combine_first(b))


def test_rename_axis_and_names():
    pdf = _frame(0).set_index(["k", "s"])
    df = zb.DataFrame(pdf)
    assert_frame_like(df.rename_axis(["a", "b"]), pdf.rename_axis(["a", "b"]), "list")
    assert_series_like(df["f"].rename_axis(index={"k": "kk"}),
                       pdf["f"].rename_axis(index={"k": "kk"}), "dict")
    df.index.names = ["x", "y"]
    assert df.index.names == ["x", "y"]


# --------------------------------------------------------------------------
# the Index objects
# --------------------------------------------------------------------------

@pytest.mark.parametrize("values", [
    [3, 1, 2, 1], ["b", "a", None, "a"], [0.5, np.nan, 0.5], [True, False],
    [datetime.date(2024, 1, 2), datetime.date(2023, 1, 1)], [], [5, 6, 7]])
def test_index_properties(values):
    pidx = pd.Index(values)
    idx = zb.Index(values)
    assert idx.is_unique == pidx.is_unique
    assert idx.is_monotonic_increasing == pidx.is_monotonic_increasing
    assert idx.is_monotonic_decreasing == pidx.is_monotonic_decreasing
    assert len(idx) == len(pidx)
    got_unique = idx.unique().to_pandas()
    assert list(got_unique.astype(object).where(got_unique.notna(), None)) == \
        list(pidx.unique().astype(object).where(pidx.unique().notna(), None))
    for v in values[:2]:
        if v is None or (isinstance(v, float) and np.isnan(v)):
            continue
        exp = pidx.get_loc(v)
        got = idx.get_loc(v)
        if isinstance(exp, np.ndarray):
            np.testing.assert_array_equal(got, exp)
        else:
            assert got == exp
        assert v in idx


def test_range_index_matches_pandas():
    for args in [(0, 10, 1), (5, 50, 7), (10, 0, -2), (3, 3, 1)]:
        r, pr = zb.RangeIndex(*args), pd.RangeIndex(*args)
        assert r.to_list() == list(pr) and len(r) == len(pr)
        for v in (0, 5, 12, 4, -2):
            assert (v in r) == (v in pr)
        assert r.is_monotonic_increasing == pr.is_monotonic_increasing
        pd.testing.assert_index_equal(r.to_pandas(), pr, exact=True)


def test_multiindex():
    pdf = _frame(3).set_index(["s", "k"])
    df = zb.DataFrame(pdf)
    mi, pmi = df.index, pdf.index
    assert mi.nlevels == 2 and mi.names == ["s", "k"]
    assert mi.to_list()[:5] == [tuple(None if pd.isna(x) else x for x in t)
                                for t in pmi[:5]]
    lab = pmi[3]
    exp = pdf.loc[lab]
    got = df.loc[lab]
    if isinstance(exp, pd.DataFrame):
        assert_frame_like(got, exp, "loc[tuple]")
    assert_frame_like(df.loc[lab[0]], pdf.loc[lab[0]], "loc[first level]")
    assert mi.get_level_values("k").to_list() == list(pmi.get_level_values("k"))


def test_index_survives_device_moves_and_pickles():
    import pickle

    df = zb.DataFrame(_frame(0)).set_index("s")
    back = pickle.loads(pickle.dumps(df, protocol=5))
    assert_frame_like(back, df.to_pandas(), "pickle")
    assert pickle.loads(pickle.dumps(zb.RangeIndex(3, 9, 2))).to_list() == [3, 5, 7]
    lazy = df[df["f"] > 0]  # labels not gathered yet
    assert_frame_like(pickle.loads(pickle.dumps(lazy)), lazy.to_pandas(), "lazy")
    if zb.cuda_available():
        g = df.to("cuda")
        assert g.index._levels()[0].device.startswith("cuda")
        assert_frame_like(g.to("cpu"), df.to_pandas(), "device round trip")
        assert_frame_like(g[g["f"] > 0], lazy.to_pandas(), "filter on the device")


def test_repr_shows_labels():
    pdf = pd.DataFrame({"v": [1, 2]}, index=pd.Index(["x", "y"], name="key"))
    text = repr(zb.DataFrame(pdf))
    lines = text.splitlines()
    assert lines[2].startswith("key") and lines[3].startswith("x") and lines[4].startswith("y")
    s = repr(zb.Series([5, 6], index=["a", "b"]))
    assert s.splitlines()[0].startswith("a") and s.splitlines()[1].startswith("b")


# --------------------------------------------------------------------------
# joins on the index
# --------------------------------------------------------------------------

def test_merge_and_join_on_the_index():
    rng = np.random.default_rng(8)
    n = 60
    left = pd.DataFrame({"k": rng.integers(0, 40, n), "a": rng.normal(size=n)},
                        index=pd.Index([f"L{i}" for i in rng.permutation(n)], dtype="str"))
    right = pd.DataFrame({"b": rng.normal(size=30)}, index=rng.permutation(50)[:30])
    right2 = pd.DataFrame({"k2": left.index[rng.integers(0, n, 25)], "b": rng.normal(size=25)},
                          index=pd.Index(rng.permutation(100)[:25]))
    zl, zr, zr2 = zb.DataFrame(left), zb.DataFrame(right), zb.DataFrame(right2)
    # hows whose result has no missing label (an int index with missing
    # labels is float64 NaN in pandas, Int64 here)
    for how in ("inner", "left"):
        assert_frame_like(zb.merge(zl, zr, left_on="k", right_index=True, how=how),
                          pd.merge(left, right, left_on="k", right_index=True, how=how),
                          f"left_on/right_index {how}")
        assert_frame_like(zl.join(zr, on="k", how=how), left.join(right, on="k", how=how),
                          f"join(on=) {how}")
    for how in ("inner", "right"):
        assert_frame_like(zb.merge(zl, zr2, left_index=True, right_on="k2", how=how),
                          pd.merge(left, right2, left_index=True, right_on="k2", how=how),
                          f"left_index/right_on {how}")
    a = pd.DataFrame({"x": rng.normal(size=20)}, index=rng.permutation(30)[:20])
    b = pd.DataFrame({"y": rng.normal(size=20)}, index=rng.permutation(30)[:20])
    for how in ("inner", "left", "right", "outer"):
        assert_frame_like(zb.merge(zb.DataFrame(a), zb.DataFrame(b), left_index=True,
                                   right_index=True, how=how),
                          pd.merge(a, b, left_index=True, right_index=True, how=how),
                          f"both indexes {how}")
        assert_frame_like(zb.DataFrame(a).join(zb.DataFrame(b), how=how), a.join(b, how=how),
                          f"join {how}")
    s = pd.Series(rng.normal(size=20), index=a.index, name="s")
    assert_frame_like(zb.DataFrame(a).join(zb.Series(s)), a.join(s), "join a Series")


def test_merge_on_the_index_adds_the_suffixed_key_and_keeps_the_labels():
    # left_on + right_index where the right side has a column named as the
    # key too: pandas adds the key column under its own name (the suffixed
    # column keeps the left values only); a left join that keeps each left
    # row once, in order, keeps the left index as it is (a RangeIndex)
    left = pd.DataFrame({"k": [1, 2, 3, 2], "a": [1.0, 2.0, 3.0, 4.0]})
    right = pd.DataFrame({"b": [0.5, 1.5, 2.5], "k": [7.0, 8.0, 9.0]}, index=[1, 2, 4])
    dup = pd.DataFrame({"b": [0.5, 1.5, 2.5]}, index=[1, 1, 4])
    on_right = dict(left_on="k", right_index=True)
    cases = [(left, right, on_right), (left, dup, on_right),
             (right, left, dict(left_index=True, right_on="k"))]
    for how in ("inner", "left", "right", "outer"):
        for sort in (False, True):
            for x, y, kw in cases:
                got = zb.merge(zb.DataFrame(x), zb.DataFrame(y), how=how, sort=sort, **kw)
                exp = pd.merge(x, y, how=how, sort=sort, **kw)
                what = f"{kw} {how} sort={sort}"
                if how in ("inner", "left") if "right_index" in kw else how in ("inner", "right"):
                    pd.testing.assert_frame_equal(got.to_pandas(), exp, obj=what)
                else:  # missing labels and keys: float64 NaN in pandas, Int64 here
                    pd.testing.assert_frame_equal(got.to_pandas().reset_index(drop=True),
                                                  exp.reset_index(drop=True), check_dtype=False,
                                                  obj=what)
    got = zb.DataFrame(left).join(zb.DataFrame(right), on="k", lsuffix="_l", rsuffix="_r")
    with pytest.warns(Warning):
        exp = left.join(right, on="k", lsuffix="_l", rsuffix="_r")
    pd.testing.assert_frame_equal(got.to_pandas(), exp)


def test_merge_on_a_multiindex():
    # left_on with two keys against the right side's two index levels
    left = pd.DataFrame({"k": [1, 2, 3, 2], "s": list("xyzy"), "a": [1.0, 2.0, 3.0, 4.0]})
    right = pd.DataFrame({"b": [0.5, 1.5, 2.5], "s": list("pqr")},
                         index=pd.MultiIndex.from_tuples([(1, "x"), (2, "y"), (4, "z")],
                                                         names=["k2", "s2"]))
    for how in ("inner", "left"):
        got = zb.merge(zb.DataFrame(left), zb.DataFrame(right), left_on=["k", "s"],
                       right_index=True, how=how)
        pd.testing.assert_frame_equal(
            got.to_pandas(), pd.merge(left, right, left_on=["k", "s"], right_index=True, how=how))


def test_assigning_a_series_lines_up_by_label():
    pdf = pd.DataFrame({"a": [1, 2, 3, 4]}, index=["w", "x", "y", "z"])
    df = zb.DataFrame(pdf)
    for target, make in ((pdf, pd.Series), (df, zb.Series)):
        target["b"] = make([10.0, 30.0, 5.0], index=["z", "x", "q"])
        target["c"] = target["a"] * 2  # the same labels: positional
    assert_frame_like(df, pdf, "df[col] = Series")


# --------------------------------------------------------------------------
# loc enlargement; results indexed by column labels other than names
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["int", "str", "range"])
def test_setting_a_new_label_appends_a_row(kind):
    df, pdf = _pair(8, kind)
    new = {"int": 10 ** 6, "str": "zz-new", "range": 10 ** 6}[kind]
    for target in (df, pdf):
        target.loc[new] = [target.iloc[0, j] for j in range(target.shape[1])]
    assert_frame_like(df, pdf, "a whole new row")
    s, ps = df["f"].copy(), pdf["f"].copy()
    s.loc[new] = 2.5
    ps.loc[new] = 2.5
    assert_series_like(s, ps, "a new Series label")
    new2 = {"int": 10 ** 6 + 1, "str": "zz-other", "range": 10 ** 6 + 1}[kind]
    d2, p2 = df[["f"]].copy(), pdf[["f"]].copy()
    d2.loc[new2] = {"f": -1.0}
    p2.loc[new2] = {"f": -1.0}
    assert_frame_like(d2, p2, "a dict row")
    # one column of a new row: the others are missing there
    d3, p3 = df[["f", "s"]].copy(), pdf[["f", "s"]].copy()
    d3.loc[new2, "f"] = 7.0
    p3.loc[new2, "f"] = 7.0
    assert_frame_like(d3, p3, "one column of a new row")


def test_frame_results_keep_multiindex_column_labels():
    pdf = pd.DataFrame({"k": ["a", "b", "a", "c", "b"], "x": [1.0, 2.0, 3.0, 4.0, None],
                        "y": [1, 2, 3, 4, 5]})
    pg = pdf.groupby("k").agg({"x": ["sum", "mean"], "y": ["max"]})
    zg = zb.from_pandas(pdf).groupby("k").agg({"x": ["sum", "mean"], "y": ["max"]})
    assert_frame_like(zg, pg, "agg with lists")
    assert_series_like(zg.sum(), pg.sum(), "sum per column")
    assert_series_like(zg.max(), pg.max().astype("float64"), "max per column")
    assert_frame_like(zg.describe(), pg.describe(), "describe", rtol=1e-12)
    assert_frame_like(zg.T, pg.T, "transpose")
    assert_frame_like(zg.quantile([0.25, 0.5]), pg.quantile([0.25, 0.5]), "quantiles")
    assert_series_like(zg.iloc[1], pg.iloc[1], "one row")
    assert_frame_like(zg.corr(), pg.corr(), "corr", rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda d: d.iloc[[1, 2, 3]], lambda d: d.iloc[::2], lambda d: d.iloc[::-1],
    lambda d: d.iloc[[3, 1]], lambda d: d.iloc[[2, 2]], lambda d: d.iloc[[0]],
    lambda d: d.iloc[[]], lambda d: d.loc[[2, 3]], lambda d: d.nlargest(2, "v"),
    lambda d: d.sort_values("v"), lambda d: d.sort_values("v", ascending=False),
    lambda d: d[d.v > 0], lambda d: d[d.v > 10], lambda d: d.dropna(),
    lambda d: d[d.v.isin([1, 2, 5])], lambda d: d.v[d.v > 0], lambda d: d.head(3),
])
def test_a_range_index_taken_at_even_steps_stays_one_as_pandas(call):
    # pandas 3 keeps a RangeIndex when the rows taken step evenly (and when
    # a mask keeps all rows or none); zambezi gave an int64 Index
    df = pd.DataFrame({"v": [1, 2, 3, 4, 5, 6]})
    want = call(df).index
    got = call(zb.from_pandas(df)).to_pandas().index
    assert repr(got) == repr(want)
    z = zb.from_pandas(df)
    out = call(z)
    out.index.name = "x"   # a new index object: the frame's own keeps its name
    assert z.index.name is None
