"""What Dask needs of a partition's pandas-shaped answers (found running
Dask's own test_groupby with the zambezi backend): columns and dtypes as
pandas objects, the group-by keys and methods Dask calls, and the in-place
setters it uses.  Each result is compared with pandas on the same data."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
import zambezi.frame as zbframe


def _pdf():
    return pd.DataFrame({"k": ["a", "b", "a", None, "b", "a"],
                         "v": [1, 2, 1, 4, 5, 3],
                         "f": [0.5, None, 2.0, 1.0, None, 0.5]},
                        index=pd.Index([10, 11, 12, 13, 14, 15], name="ix"))


# -- columns and dtypes -----------------------------------------------------------------------
def test_columns_is_a_pandas_index():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    assert isinstance(df.columns, pd.Index)
    pd.testing.assert_index_equal(df.columns, pdf.columns, exact=False)
    assert df.columns.difference(["k"]).to_list() == ["f", "v"]
    got = df.groupby("k").agg(["sum", "max"]).columns
    assert isinstance(got, pd.MultiIndex)
    assert got.to_list() == pdf.groupby("k").agg(["sum", "max"]).columns.to_list()
    # a pandas Index selects and relabels
    assert df[df.columns[1:]].columns.to_list() == ["v", "f"]
    df.columns = pd.Index(["x", "y", "z"])
    assert df.columns.to_list() == ["x", "y", "z"]


def test_dtypes_is_a_pandas_series():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    got = df.dtypes
    assert isinstance(got, pd.Series)
    assert got.index.to_list() == pdf.dtypes.index.to_list()
    assert got.to_dict() == {"k": "string", "v": "int64", "f": "float64"}
    assert [got[c].kind for c in got.index] == ["O", "i", "f"]


def test_columns_and_dtypes_without_pandas(monkeypatch):
    monkeypatch.setattr(zbframe, "_PANDAS", [False])
    df = zb.DataFrame({"a": [1], "b": ["x"]})
    assert isinstance(df.columns, zb.Index) and df.columns.to_list() == ["a", "b"]
    assert df.dtypes == {"a": "int64", "b": "string"}
    assert df.dtypes.to_dict() == {"a": "int64", "b": "string"}


# -- groupby keys and methods -----------------------------------------------------------------
def _eq(got, exp):
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    if isinstance(exp, pd.DataFrame):
        pd.testing.assert_frame_equal(got, exp, check_dtype=False, check_index_type=False)
    else:
        pd.testing.assert_series_equal(got, exp, check_dtype=False, check_index_type=False)


def test_groupby_index_level_name():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    _eq(df.groupby("ix").sum(), pdf.groupby("ix").sum())
    _eq(df.groupby(["k", "ix"])["v"].sum(), pdf.groupby(["k", "ix"])["v"].sum())
    _eq(df["v"].groupby("ix").cumsum(), pdf["v"].groupby("ix").cumsum())
    with pytest.raises(zb.errors.DTypeError, match="names no index level"):
        df["v"].groupby("nope")


def test_groupby_function_of_the_index_label():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    _eq(df.groupby(lambda i: i % 3)["f"].sum(), pdf.groupby(lambda i: i % 3)["f"].sum())
    _eq(df["v"].groupby(lambda i: i > 12).max(), pdf["v"].groupby(lambda i: i > 12).max())


@pytest.mark.parametrize("by", ["k", "ix", ["k", "ix"], lambda i: i % 2])
def test_groupby_any_key_on_an_empty_frame(by):
    pdf = _pdf().iloc[:0]
    df = zb.from_pandas(pdf)
    got = df.groupby(by)["v"].sum().to_pandas()
    exp = pdf.groupby(by)["v"].sum()
    assert len(got) == 0 and got.name == exp.name
    assert list(got.index.names) == list(exp.index.names)


def test_groupby_unique_and_len():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    for col in ["v", "f"]:
        got = df.groupby("k")[col].unique().to_pandas()
        exp = pdf.groupby("k")[col].unique()
        assert got.index.to_list() == exp.index.to_list() and got.name == exp.name
        assert [list(x) for x in got] == [list(x) for x in exp] or \
            got.explode().astype("float64").fillna(-1).to_list() == \
            exp.explode().astype("float64").fillna(-1).to_list()
    assert len(df.groupby("k")) == len(pdf.groupby("k")) == 2
    assert len(df.groupby("k", dropna=False)) == len(pdf.groupby("k", dropna=False)) == 3


def test_groupby_transform_with_args_and_kwargs():
    pdf = _pdf().dropna(subset=["k"])
    df = zb.from_pandas(pdf)

    def shift_by(s, a, b=0):
        return s - s.min() + a * b

    _eq(df.groupby("k")["v"].transform(shift_by, 2, b=3),
        pdf.groupby("k")["v"].transform(shift_by, 2, b=3))
    _eq(df.groupby("k")["f"].transform("sum", min_count=1),
        pdf.groupby("k")["f"].transform("sum", min_count=1))


# -- setters --------------------------------------------------------------------------------
def test_series_setitem_mask():
    ps = pd.Series([1.0, 2.0, None, 4.0, 5.0])
    s = zb.Series(ps)
    s[s > 1.5] = 0.0
    ps[ps > 1.5] = 0.0
    _eq(s, ps)
    mask = np.array([True, False, False, False, True])
    s[mask] = 9.0
    ps[mask] = 9.0
    _eq(s, ps)
    s[1] = 7.0
    ps[1] = 7.0
    _eq(s, ps)


def test_series_setitem_reads_keys_as_getitem_does():
    # pandas 3: a scalar or a list is a label, a slice of ints is positional
    ps = pd.Series([1.0, 2.0, 3.0, 4.0], index=[30, 10, 20, 40])
    s = zb.Series(ps)
    for key, v in [(10, 7.0), ([20, 40], 8.0), (slice(0, 2), 9.0),
                   (np.array([False, True, False, True]), 6.0)]:
        s[key] = v
        ps[key] = v
        _eq(s, ps)
        assert s[10] == ps[10]


def test_index_set_names_inplace():
    for pix, zix in [(pd.Index([1, 2]), zb.Index([1, 2])),
                     (pd.RangeIndex(3), zb.Series([1, 2, 3]).index),
                     (pd.MultiIndex.from_arrays([[1], ["a"]]),
                      zb.MultiIndex.from_arrays([[1], ["a"]]))]:
        names = ["x"] * pix.nlevels
        assert zix.set_names(names, inplace=True) is None
        pix.set_names(names, inplace=True)
        assert list(zix.names) == list(pix.names)
        pd.testing.assert_index_equal(zix.to_pandas(), pix, exact=False)


def test_series_rename_index():
    ps = pd.Series([1, 2, 3], index=["a", "b", "c"], name="s")
    s = zb.Series(ps)
    _eq(s.rename(index={"a": "z"}), ps.rename(index={"a": "z"}))
    _eq(s.rename(index=str.upper), ps.rename(index=str.upper))
    _eq(s.rename(index="t"), ps.rename(index="t"))
    _eq(s.rename("t"), ps.rename("t"))
    s.rename(index={"b": "y"}, inplace=True)
    ps.rename(index={"b": "y"}, inplace=True)
    _eq(s, ps)


def test_groupby_missing_column_message_as_pandas():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    for key, words in [("A", "Column not found: "), (["v", "A"], "Columns not found: ")]:
        with pytest.raises(KeyError) as exp:
            pdf.groupby("k")[key]
        with pytest.raises(KeyError) as got:
            df.groupby("k")[key]
        assert words in str(exp.value) and words in str(got.value)


def test_series_groupby_by_a_dask_series():
    # Dask groups its meta by the key's expression before planning
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import zambezi.dask  # noqa: F401  (registers the backend)

    pdf = pd.DataFrame({"a": [1, 2, 3, 4, 5, 6], "b": [1, 1, 2, 2, 2, None]})
    exp = pdf.a.groupby(pdf.b).sum()
    with dask.config.set({"dataframe.backend": "zambezi"}):
        ddf = dd.from_pandas(pdf, npartitions=2)
        got = ddf.a.groupby(ddf.b).sum().compute(scheduler="sync")
    assert isinstance(got, zb.Series)
    _eq(got.sort_index(), exp)


def test_naming_the_columns_index_names_the_frame_labels():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    df.columns.name = "cols"
    pdf.columns.name = "cols"
    assert df.columns.name == "cols"
    pd.testing.assert_frame_equal(df.to_pandas(), pdf, check_dtype=False,
                                  check_index_type=False, check_column_type=False)
    df["w"] = df["v"]          # a new column: the Index given before no longer applies
    assert df.columns.to_list() == ["k", "v", "f", "w"]


def test_series_values_set_through_loc_align_by_label():
    # pandas lines a Series value up with the rows loc (or a mask) sets, by
    # label; iloc sets it by position
    def runs(s):
        s = s.copy()
        s[s > 1] = (s[s > 1] * 10).iloc[::-1]
        s.loc[s > 25] = (s * 2).iloc[3:]          # one label only: the other is missing
        s.loc[[0, 1]] = (s * 100).iloc[::-1].iloc[2:]
        s.iloc[[0, 1]] = (s * 5).iloc[::-1].iloc[:2]
        return s

    ps = pd.Series([0.0, 1.0, 2.0, 3.0], name="v")
    _eq(runs(zb.Series(ps)), runs(ps))
    pdf = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [1, 2, 3, 4]})
    zdf = zb.from_pandas(pdf)
    for df in (pdf, zdf):
        df.loc[df.a > 1, "a"] = df.a * 10
        df.loc[[1, 3], "b"] = (df.b * 100).iloc[::-1]
    pd.testing.assert_frame_equal(zdf.to_pandas(), pdf)


def test_series_values_labelled_as_the_frame_set_through_loc():
    # a value labelled as the frame itself (df.loc[m, c] = df.c * 10) sets
    # the rows by their labels, also on a shuffled or string index, with
    # missing values; a value whose labels are the frame's in another order
    # is still lined up by label
    rng = np.random.default_rng(7)
    n = 500
    a = rng.random(n)
    a[rng.random(n) < 0.1] = np.nan
    for index in (rng.permutation(n) * 3, [f"r{i}" for i in rng.permutation(n)]):
        pdf = pd.DataFrame({"a": a, "b": rng.integers(0, 9, n)}, index=index)
        zdf = zb.from_pandas(pdf)
        for df in (pdf, zdf):
            df.loc[df.a > 0.5, "a"] = df.a * 10
            df.loc[df.b > 4, "b"] = (df.b * 100).iloc[::-1]
            s = df["a"].copy()
            s[s < 0.2] = -s
            df["c"] = s
        pd.testing.assert_frame_equal(zdf.to_pandas(), pdf)


def test_frame_values_set_through_loc_align_by_labels_iloc_by_position():
    # a frame set through loc lines up with the rows and the columns it
    # sets by their labels; through iloc, by position
    pdf = pd.DataFrame({"a": [1.0, 2, 3, 4], "f": [5.0, 6, 7, 8], "g": [0, 0, 0, 0]},
                       index=[10, 20, 30, 40])
    zdf = zb.from_pandas(pdf)
    for df in (pdf, zdf):
        df.loc[df.a > 1, ["a", "f"]] = df[["a", "f"]] * 10
        df.loc[df.a > 25, ["f", "a"]] = df[["a", "f"]].iloc[::-1] + 1
        df.iloc[[0, 1], [0, 1]] = df[["f", "a"]].iloc[2:]
    pd.testing.assert_frame_equal(zdf.to_pandas(), pdf)
    with pytest.raises(zb.errors.UnsupportedError, match="without them"):
        zdf.loc[zdf.a > 1, ["a", "g"]] = zdf[["a", "f"]]
