"""Reshaping and user functions against pandas 3, on small random frames
with nulls (strings with non-ASCII text, nullable ints, floats,
categoricals): melt, pivot, pivot_table (aggfunc forms, fill_value,
margins, dropna, sort), crosstab (counts, values, normalize, margins),
get_dummies, cut / qcut, Series.map / apply, DataFrame.map /
apply(axis=1) and groupby apply / filter / agg / transform with Python
functions.

pandas' own answer is the oracle (pandas_compare).  Where zambezi
differs on purpose the test adjusts pandas' answer at that place and
says why:

- integer cells that become missing stay integer (pandas: float64 with
  NaN), so the oracle's data uses pandas' nullable Int64 where that
  happens;
- cut / qcut give the interval labels as text in a categorical (zambezi
  has no interval dtype), so pandas' categories are turned into str.
"""

import re

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like


def _data(n, seed):
    rng = np.random.default_rng(seed)

    def nulls(p):
        return rng.random(n) < p

    city = pd.Series(np.array(["Maun", "Tete", "Zürich", "Åre"])[rng.integers(0, 4, n)],
                     dtype="str")
    city[nulls(0.1)] = np.nan
    kind = pd.Series(np.array(["bus", "taxi", "boat"])[rng.integers(0, 3, n)], dtype="str")
    kind[nulls(0.1)] = np.nan
    year = pd.array(rng.integers(2020, 2023, n), dtype="Int64")
    fare = rng.normal(10, 3, n).round(2)
    fare[nulls(0.15)] = np.nan
    seats = pd.array(rng.integers(0, 50, n), dtype="Int64")
    seats[nulls(0.15)] = pd.NA
    cat = pd.Series(pd.Categorical(np.array(["lo", "mid", "hi"])[rng.integers(0, 3, n)],
                                   categories=["lo", "mid", "hi", "none"]))
    cat[nulls(0.1)] = np.nan
    pdf = pd.DataFrame({"city": city, "kind": kind, "year": year, "fare": fare,
                        "seats": seats, "cat": cat})
    pdf.index = pd.Index(rng.permutation(n) * 3, name="row")
    return pdf, zb.DataFrame(pdf)


SEEDS = [0, 1]


# ----------------------------------------------------------------------------
# melt / pivot
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_melt(seed):
    pdf, df = _data(60, seed)
    for kw in [dict(id_vars="city", value_vars=["fare"]),
               dict(id_vars=["city", "kind"], value_vars=["seats", "year"], var_name="what",
                    value_name="v"),
               dict(id_vars="kind", value_vars=["city"], ignore_index=False)]:
        assert_frame_like(df.melt(**kw), pdf.melt(**kw), f"melt {kw}")
    assert_frame_like(zb.melt(df[["seats", "year"]]), pd.melt(pdf[["seats", "year"]]), "all")


@pytest.mark.parametrize("seed", SEEDS)
def test_melt_errors(seed):
    _, df = _data(60, seed)
    with pytest.raises(zb.errors.ColumnNotFoundError, match="nope"):
        df.melt(id_vars="nope")
    with pytest.raises(zb.DTypeError, match="common type"):
        df.melt(id_vars="city", value_vars=["fare", "kind"])


def test_pivot():
    rng = np.random.default_rng(5)
    pdf = pd.DataFrame({"r": np.repeat(["x", "é", "a"], 4), "c": np.tile([3, 1, 2, 0], 3),
                        "v": rng.normal(size=12), "w": rng.integers(0, 9, 12)})
    pdf = pdf.drop(index=[2, 7]).reset_index(drop=True)
    df = zb.DataFrame(pdf)
    assert_frame_like(df.pivot(index="r", columns="c", values="v"),
                      pdf.pivot(index="r", columns="c", values="v"), "one value")
    assert_frame_like(df.pivot(index="r", columns="c"), pdf.pivot(index="r", columns="c"),
                      "all values")
    assert_frame_like(df.pivot(index="c", columns="r", values=["w"]),
                      pdf.pivot(index="c", columns="r", values=["w"]),
                      "list")  # integer cells with a gap: float64, as pandas
    dup = zb.DataFrame({"r": ["a", "a"], "c": ["x", "x"], "v": [1, 2]})
    with pytest.raises(ValueError, match="duplicate"):
        dup.pivot(index="r", columns="c", values="v")


def _gappy(missing):
    rng = np.random.default_rng(8)
    n = 12
    pdf = pd.DataFrame({"r": np.repeat(["x", "y", "z"], 4), "c": np.tile([0, 1, 2, 3], 3),
                        "i": rng.integers(-9, 9, n), "i8": rng.integers(-9, 9, n).astype("int8"),
                        "u": rng.integers(0, 9, n).astype("uint16"),
                        "f32": rng.normal(size=n).astype("float32"), "f": rng.normal(size=n),
                        "s": [f"s{v}" for v in range(n)]})
    if missing:
        pdf = pdf.drop(index=[1, 6]).reset_index(drop=True)
    return pdf, zb.DataFrame(pdf)


@pytest.mark.parametrize("missing", [True, False])
def test_unstack_and_pivot_upcast_integers_when_a_cell_is_missing(missing):
    # pandas unstacks a block of values at a time: when any cell has no row,
    # every integer column becomes float64 (not only those with a gap);
    # without gaps they stay integer.  pivot's list of values is one 2-D
    # array first (numbers take their common type)
    pdf, df = _gappy(missing)
    num = ["i", "i8", "u", "f32", "f"]
    pi, zi = pdf.set_index(["r", "c"]), df.set_index(["r", "c"])
    assert_frame_like(zi[num + ["s"]].unstack(), pi[num + ["s"]].unstack(), "unstack")
    assert_frame_like(zi[["i", "u"]].unstack(), pi[["i", "u"]].unstack(), "unstack ints")
    assert_frame_like(zi["i8"].unstack(), pi["i8"].unstack(), "Series.unstack")
    assert_frame_like(zi[["i"]].unstack(fill_value=0), pi[["i"]].unstack(fill_value=0),
                      "unstack fill_value")
    for values in (None, "i", ["i"], ["i", "f"], ["i8", "f32"], ["i8", "u"], ["i", "u"], ["s"]):
        kw = dict(index="r", columns="c", values=values)
        if values is None:
            kw.pop("values")
        assert_frame_like(df.pivot(**kw), pdf.pivot(**kw), f"pivot {values}")


# ----------------------------------------------------------------------------
# pivot_table / crosstab
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("aggfunc", ["mean", "sum", "count", "max", "median", len, np.sum,
                                     ["sum", "mean"], {"fare": "max", "seats": "sum"}])
def test_pivot_table_aggfunc(seed, aggfunc):
    pdf, df = _data(60, seed)
    kw = dict(index="city", columns="kind", aggfunc=aggfunc)
    if not isinstance(aggfunc, dict):
        kw["values"] = ["fare", "seats"]
    got = df.pivot_table(**kw)
    exp = pdf.pivot_table(**kw)
    if aggfunc is len or aggfunc == "count":
        exp = exp.astype("Int64")  # counts with missing cells stay integer
    assert_frame_like(got, exp, f"pivot_table {aggfunc}", **SUM_TOL)


@pytest.mark.parametrize("kw", [
    dict(values="fare", index=["city", "kind"], columns="year"),
    dict(values="fare", index="kind", columns=["year", "city"], fill_value=0.0),
    dict(values="seats", index="year", columns="cat", aggfunc="sum", fill_value=0),
    dict(values="fare", index="city", columns="kind", dropna=False),
    dict(values="fare", index="city", aggfunc="min"),
    dict(values=["seats", "year"], columns="kind", aggfunc="sum"),
    dict(values="fare", columns=["kind", "cat"], aggfunc="mean"),
    dict(values=["seats", "fare"], index="kind", columns="city", aggfunc="max"),
    dict(values=["seats", "fare"], index="kind", columns="city", aggfunc="max", sort=False),
    dict(values="fare", index="city", columns="kind", aggfunc=lambda s: s.max() - s.min()),
])
@pytest.mark.parametrize("seed", SEEDS)
def test_pivot_table_options(seed, kw):
    pdf, df = _data(60, seed)
    assert_frame_like(zb.pivot_table(df, **kw), pd.pivot_table(pdf, **kw), f"{kw}", **SUM_TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("aggfunc", ["sum", "mean"])
def test_pivot_table_margins(seed, aggfunc):
    pdf, df = _data(60, seed)
    kw = dict(values=["fare"], index="city", columns="kind", aggfunc=aggfunc, margins=True)
    assert_frame_like(df.pivot_table(**kw), pdf.pivot_table(**kw), "margins", **SUM_TOL)
    kw = dict(values="fare", index="kind", columns="city", aggfunc=aggfunc, margins=True,
              margins_name="Total")
    assert_frame_like(df.pivot_table(**kw), pdf.pivot_table(**kw), "margins 1", **SUM_TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kw", [
    dict(index="city", columns="kind"),
    dict(index="city", columns="kind", fill_value=0),
    dict(index=["city"], columns=["kind"], values=["fare"]),
    dict(index="kind", columns="year", values=["fare", "seats"], fill_value=-1),
    dict(index=["city", "kind"], columns="year"),
    dict(index="city"),
    dict(columns="kind"),
    dict(index="city", columns="kind", aggfunc=["size"]),
])
def test_pivot_table_size_counts_rows_once(seed, kw):
    # aggfunc="size" is the size of each group whatever the value columns
    # (pandas' groupby().agg("size") is one Series): one column per label,
    # or a Series of the sizes with only index or only columns
    pdf, df = _data(60, seed)
    kw = dict(kw, aggfunc=kw.get("aggfunc", "size"))
    got = df.pivot_table(**kw)
    exp = pdf.pivot_table(**kw)
    if isinstance(exp, pd.Series):
        assert_series_like(got, exp, f"size {kw}")
        return
    assert_frame_like(got, exp, f"size {kw}")  # float64 where a cell is missing, as pandas


@pytest.mark.parametrize("seed", SEEDS)
def test_pivot_table_errors(seed):
    _, df = _data(60, seed)
    with pytest.raises(zb.errors.ColumnNotFoundError, match="nope"):
        df.pivot_table(values="nope", index="city")
    with pytest.raises(zb.InvalidValueError, match="unknown aggregation"):
        df.pivot_table(values="fare", index="city", aggfunc="avg")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kw", [{}, dict(normalize=True), dict(normalize="index"),
                                dict(normalize="columns"), dict(margins=True),
                                dict(margins=True, normalize="index"),
                                dict(margins=True, normalize="columns"),
                                dict(margins=True, normalize=True),
                                dict(values="fare", aggfunc="mean")])
def test_crosstab(seed, kw):
    pdf, df = _data(60, seed)
    kw = dict(kw)
    if "values" in kw:
        kw["values"] = pdf["fare"]
        zkw = dict(kw, values=df["fare"])
    else:
        zkw = kw
    got = zb.crosstab(df["city"], df["kind"], **zkw)
    exp = pd.crosstab(pdf["city"], pdf["kind"], **kw)
    assert_frame_like(got, exp, f"crosstab {kw}", **SUM_TOL)
    if "margins" not in kw:  # margins need string factors
        got = zb.crosstab(df["kind"], [df["city"], df["year"]], **zkw)
        exp = pd.crosstab(pdf["kind"], [pdf["city"], pdf["year"]], **kw)
        assert_frame_like(got, exp, f"crosstab 2 {kw}", **SUM_TOL)


# ----------------------------------------------------------------------------
# get_dummies
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kw", [{}, dict(drop_first=True), dict(dummy_na=True),
                                dict(dtype="int8", prefix_sep="="),
                                dict(columns=["city", "year"], prefix=["c", "y"])])
def test_get_dummies(seed, kw):
    pdf, df = _data(60, seed)
    assert_frame_like(zb.get_dummies(df, **kw), pd.get_dummies(pdf, **kw), f"dummies {kw}")


@pytest.mark.parametrize("seed", SEEDS)
def test_get_dummies_series(seed):
    pdf, df = _data(60, seed)
    for col in ["city", "cat", "year"]:
        assert_frame_like(zb.get_dummies(df[col]), pd.get_dummies(pdf[col]), col)
    assert_frame_like(zb.get_dummies(df["kind"], prefix="k", dummy_na=True),
                      pd.get_dummies(pdf["kind"], prefix="k", dummy_na=True), "prefix")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kw", [dict(dummy_na=True), dict(dummy_na=True, drop_first=True),
                                dict(dummy_na=True, prefix="p"), dict(drop_first=True), {}])
def test_get_dummies_missing_label_as_pandas(seed, kw):
    # the missing-value column is labelled NaN (not the text 'nan'); integer
    # levels become floats beside it; a categorical gives a CategoricalIndex
    pdf, df = _data(60, seed)
    ints = np.random.default_rng(seed).integers(0, 4, 60)
    floats = np.where(ints == 2, np.nan, ints / 4)
    cases = [(df["city"], pdf["city"]), (df["cat"], pdf["cat"]), (df["kind"], pdf["kind"]),
             (zb.Series(ints), pd.Series(ints)), (zb.Series(floats), pd.Series(floats))]
    for z, p in cases:
        got, exp = zb.get_dummies(z, **kw).to_pandas(), pd.get_dummies(p, **kw)
        pd.testing.assert_index_equal(got.columns, exp.columns)
        assert got.to_numpy().tolist() == exp.to_numpy().tolist(), (p.dtype, kw)
    # a frame (prefixes are the column names), columns= naming an int column
    pdf = pdf.assign(n=ints)
    df = zb.DataFrame(pdf)
    for ckw in ({}, dict(columns=["city", "n", "cat"])):
        got, exp = zb.get_dummies(df, **kw, **ckw), pd.get_dummies(pdf, **kw, **ckw)
        assert got.to_pandas().columns.to_list() == exp.columns.to_list(), ckw
        assert_frame_like(got, exp, f"dummies {kw} {ckw}")


@pytest.mark.parametrize("seed", SEEDS)
def test_pivot_table_integer_aggregates_with_missing_cells_as_pandas(seed):
    # a missing cell makes every integer column float64 (pandas' unstack),
    # unless fill_value fills it; crosstab's counts fill 0 and stay int64
    rng = np.random.default_rng(seed)
    pdf = pd.DataFrame({"k": rng.choice(list("abc"), 12), "y": rng.choice(list("pqrs"), 12),
                        "v": rng.integers(0, 9, 12), "w": rng.integers(0, 9, 12)})
    df = zb.DataFrame(pdf)
    for agg in ("sum", "max", "count", "size", "first"):
        for kw in (dict(values="v"), dict(values=["v", "w"]), dict(values="v", fill_value=0)):
            got = df.pivot_table(index="k", columns="y", aggfunc=agg, **kw).to_pandas()
            exp = pdf.pivot_table(index="k", columns="y", aggfunc=agg, **kw)
            pd.testing.assert_frame_equal(got, exp, check_names=False, obj=f"{agg} {kw}")
    for kw in ({}, dict(values=pdf.v, aggfunc="sum")):
        zkw = {k: zb.Series(v) if isinstance(v, pd.Series) else v for k, v in kw.items()}
        pd.testing.assert_frame_equal(
            zb.crosstab(zb.Series(pdf.k), zb.Series(pdf.y), **zkw).to_pandas(),
            pd.crosstab(pdf.k, pdf.y, **kw))


def test_crosstab_aligns_series_on_their_labels_as_pandas():
    a = pd.Series(list("xyxyz"), index=[1, 2, 3, 4, 5], name="a")
    b = pd.Series(list("ppqqr"), index=[3, 4, 5, 6, 7], name="b")
    v = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0], index=[5, 4, 3, 2, 1])
    pd.testing.assert_frame_equal(zb.crosstab(zb.Series(a), zb.Series(b)).to_pandas(),
                                  pd.crosstab(a, b))
    pd.testing.assert_frame_equal(
        zb.crosstab(zb.Series(a), zb.Series(b), values=zb.Series(v), aggfunc="sum").to_pandas(),
        pd.crosstab(a, b, values=v, aggfunc="sum"))


def test_rename_axis_of_columns_as_pandas():
    pdf = pd.DataFrame({"a": [1]}).rename_axis(columns="bar")
    for kw in (dict(columns={"bar": "foo"}, axis=1), dict(mapper="x", axis=1),
               dict(columns="c"), dict(mapper="r"), dict(columns=None)):
        got = zb.DataFrame(pdf).rename_axis(**kw).to_pandas()
        exp = pdf.rename_axis(**kw)
        assert (got.columns.name, got.index.name) == (exp.columns.name, exp.index.name), kw


def test_get_dummies_prefix_sep_per_column_and_argument_errors_as_pandas():
    pdf = pd.DataFrame({"C": [1, 2, 3], "A": ["a", "b", "a"], "B": ["b", "b", "c"]})
    df = zb.DataFrame(pdf)
    for kw in (dict(prefix_sep=["..", "__"]), dict(prefix_sep={"B": "..", "A": "+"}),
               dict(prefix=["x", "y"], prefix_sep=["-", "+"]),
               dict(prefix={"B": "q", "A": "r"})):
        got, exp = zb.get_dummies(df, **kw), pd.get_dummies(pdf, **kw)
        assert got.to_pandas().columns.to_list() == exp.columns.to_list(), kw
        assert_frame_like(got, exp, str(kw))
    for kw, err in ((dict(prefix_sep=["bad"]), ValueError), (dict(prefix=["p"]), ValueError),
                    (dict(prefix_sep={"A": ".."}), ValueError),
                    (dict(columns="A"), TypeError)):
        with pytest.raises(err) as theirs:
            pd.get_dummies(pdf, **kw)
        with pytest.raises(err, match=re.escape(str(theirs.value))):
            zb.get_dummies(df, **kw)
    # nothing left to encode: labelled as pandas' empty frame, rows kept
    for z, p in ((zb.Series(list("aaa")), pd.Series(list("aaa"))),
                 (zb.DataFrame({"a": list("aaa")}), pd.DataFrame({"a": list("aaa")}))):
        got, exp = zb.get_dummies(z, drop_first=True).to_pandas(), \
            pd.get_dummies(p, drop_first=True)
        pd.testing.assert_frame_equal(got, exp)


def test_frame_of_no_columns_as_pandas():
    for index in (pd.RangeIndex(3), pd.Index(["a", "b"])):
        got = zb.DataFrame(index=index)
        assert len(got) == len(index)
        pd.testing.assert_frame_equal(got.to_pandas(), pd.DataFrame(index=index))
    pd.testing.assert_frame_equal(zb.DataFrame().to_pandas(), pd.DataFrame())


def test_sparse_pandas_columns_are_refused_not_densified():
    pdf = pd.DataFrame({"s": pd.arrays.SparseArray([0, 1, 0])})
    with pytest.raises(zb.errors.UnsupportedError, match="'s'.*sparse"):
        zb.DataFrame(pdf)


@pytest.mark.parametrize("seed", SEEDS)
def test_str_get_dummies(seed):
    rng = np.random.default_rng(seed)
    tok = np.array(["a", "é", "bc", ""])
    vals = ["|".join(rng.choice(tok, rng.integers(1, 4))) for _ in range(40)]
    ps = pd.Series(vals, dtype="str", index=rng.permutation(40))
    ps[rng.random(40) < 0.2] = np.nan
    s = zb.Series(ps)
    # pandas' str dtype makes a column "" for the empty token, as zambezi
    assert_frame_like(s.str.get_dummies(), ps.str.get_dummies(), "sep |")
    assert_frame_like(s.str.get_dummies(sep="b", dtype="bool"),
                      ps.str.get_dummies(sep="b", dtype="bool"), "sep b")
    p2 = pd.Series(["a b", "c d", None, "  e", ""], dtype="str")
    assert_frame_like(zb.Series(p2).str.get_dummies(sep=" "), p2.str.get_dummies(sep=" "),
                      "sep ' '")


# ----------------------------------------------------------------------------
# cut / qcut
# ----------------------------------------------------------------------------

def _as_text(s):
    """pandas' Interval categories as the text zambezi gives."""
    cats = [str(c) for c in s.cat.categories]
    codes = s.cat.codes.to_numpy()
    return pd.Series(pd.Categorical.from_codes(codes, categories=pd.Index(cats, dtype="str")),
                     index=s.index, name=s.name)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kw", [dict(bins=4), dict(bins=3, right=False),
                                dict(bins=[0, 5, 9.5, 12, 30]),
                                dict(bins=[5, 10, 12], include_lowest=True),
                                dict(bins=[0, 10, 20], right=False),
                                dict(bins=[0, 10, 20], labels=["low", "high"])])
def test_cut(seed, kw):
    pdf, df = _data(60, seed)
    for col in ["fare", "seats"]:
        exp = pd.cut(pdf[col], **kw)
        assert_series_like(zb.cut(df[col], **kw), _as_text(exp), f"cut {col} {kw}")
        codes = pd.cut(pdf[col], **dict(kw, labels=False))
        codes = pd.Series(pd.array(np.where(np.isnan(codes), pd.NA, codes), dtype="Int64"),
                          index=codes.index, name=col)  # codes stay integer with nulls
        assert_series_like(zb.cut(df[col], **dict(kw, labels=False)), codes, f"codes {kw}")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("q", [4, [0, 0.1, 0.5, 1], 10])
def test_qcut(seed, q):
    pdf, df = _data(60, seed)
    exp, eb = pd.qcut(pdf["fare"], q, retbins=True)
    got, gb = zb.qcut(df["fare"], q, retbins=True)
    assert_series_like(got, _as_text(exp), f"qcut {q}")
    np.testing.assert_allclose(gb, eb)


def test_cut_errors():
    with pytest.raises(zb.InvalidValueError, match="unique"):
        zb.cut(zb.Series([1.0, 2.0]), [0, 1, 1, 2])
    with pytest.raises(zb.InvalidValueError, match="monotonically"):
        zb.cut(zb.Series([1.0, 2.0]), [3, 1, 2])
    with pytest.raises(zb.DTypeError, match="numbers"):
        zb.cut(zb.Series(["a"]), 2)
    with pytest.raises(zb.InvalidValueError, match="one fewer"):
        zb.cut(zb.Series([1.0]), [0, 1, 2], labels=["a"])


# ----------------------------------------------------------------------------
# map / apply
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_series_map(seed):
    pdf, df = _data(60, seed)
    mapping = {"Maun": 1.5, "Zürich": -2.0, "Åre": 7.0}
    for col in ["city", "cat"]:
        exp = pdf[col].map(mapping)
        if col == "cat":
            exp = exp.astype("float64")  # pandas keeps a categorical of the floats
        assert_series_like(df[col].map(mapping), exp, f"map dict {col}")
    ints = {2020: "a", 2022: "ç"}
    assert_series_like(df["year"].map(ints), pdf["year"].map(ints), "int keys")
    ms = pd.Series([10, 20, 30], index=["bus", "taxi", "boat"], dtype="Int64")
    assert_series_like(df["kind"].map(zb.Series(ms)), pdf["kind"].map(ms).astype("Int64"),
                       "map Series")
    with pytest.raises(zb.InvalidValueError, match="repeated"):
        df["kind"].map(zb.Series([1, 2], index=["bus", "bus"]))
    f = lambda v: len(v) * 2  # noqa: E731
    assert_series_like(df["kind"].map(f, na_action="ignore"),
                       pdf["kind"].map(f, na_action="ignore").astype("Int64"), "function")
    assert_series_like(df["cat"].map(str.upper, na_action="ignore"),
                       pdf["cat"].map(str.upper, na_action="ignore"), "categorical function")


@pytest.mark.parametrize("seed", SEEDS)
def test_series_apply(seed):
    pdf, df = _data(60, seed)
    assert_series_like(df["fare"].apply(np.sqrt), pdf["fare"].apply(np.sqrt), "ufunc")
    g = lambda v: v * 2 + 1  # noqa: E731
    assert_series_like(df["fare"].apply(g), pdf["fare"].apply(g), "per value")
    assert df["seats"].apply("sum") == pdf["seats"].apply("sum")


def test_python_functions_in_profile():
    s = zb.Series([1, 2, 3])
    with zb.profile() as p:
        s.map(lambda v: v + 1)
        zb.DataFrame({"k": ["a", "b", "a"]}).groupby("k").filter(lambda g: len(g) > 1)
    slow = [(r.op, r.device, r.rows) for r in p.records if r.device == "python"]
    assert slow == [("map", "python", 3), ("groupby", "python", 2)]
    assert "slow" in str(p)


@pytest.mark.parametrize("seed", SEEDS)
def test_frame_map_apply_rows(seed):
    pdf, df = _data(60, seed)
    num = ["fare", "year"]
    assert_frame_like(df[num].map(lambda v: v / 2), pdf[num].map(lambda v: v / 2), "map")
    f = lambda r: r["fare"] + r["year"]  # noqa: E731
    assert_series_like(df.apply(f, axis=1), pdf.apply(f, axis=1), "apply rows")
    h = lambda r: {"a": r["fare"] * 2, "b": r.name}  # noqa: E731
    exp = pd.DataFrame(pdf.apply(h, axis=1).tolist(), index=pdf.index)
    assert_frame_like(df.apply(h, axis=1), exp, "dict rows")


# ----------------------------------------------------------------------------
# groupby with Python functions
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_groupby_agg_transform_callable(seed):
    pdf, df = _data(60, seed)
    spread = lambda s: s.max() - s.min()  # noqa: E731
    assert_frame_like(df.groupby("city")[["fare", "seats"]].agg(spread),
                      pdf.groupby("city")[["fare", "seats"]].agg(spread), "agg")
    assert_series_like(df.groupby(["kind", "year"])["fare"].agg(spread),
                       pdf.groupby(["kind", "year"])["fare"].agg(spread), "agg one")
    centre = lambda s: s - s.mean()  # noqa: E731
    assert_series_like(df.groupby("city")["fare"].transform(centre),
                       pdf.groupby("city")["fare"].transform(centre), "transform", **SUM_TOL)
    got = df.groupby("kind")[["fare", "year"]].transform(lambda s: s.count())
    exp = pdf.groupby("kind")[["fare", "year"]].transform(lambda s: s.count()).astype("Int64")
    assert_frame_like(got, exp, "transform scalar")  # rows with a missing key stay integer


@pytest.mark.parametrize("seed", SEEDS)
def test_groupby_filter_apply(seed):
    pdf, df = _data(60, seed)
    keep = lambda g: g["fare"].mean() > 10  # noqa: E731
    assert_frame_like(df.groupby("city").filter(keep), pdf.groupby("city").filter(keep),
                      "filter")
    assert_series_like(df.groupby("kind")["seats"].filter(lambda s: len(s) > 18),
                       pdf.groupby("kind")["seats"].filter(lambda s: len(s) > 18), "series")
    one = lambda g: g["fare"].sum()  # noqa: E731
    assert_series_like(df.groupby("city").apply(one), pdf.groupby("city").apply(one), "apply",
                       **SUM_TOL)
    # a selected column's per-group values keep its name ("fare"), as pandas
    spread = lambda s: s.max() - s.min()  # noqa: E731
    got = df.groupby("city")["fare"].apply(spread)
    assert_series_like(got, pdf.groupby("city")["fare"].apply(spread), "SeriesGroupBy.apply")
    assert got.name == "fare"
    top = lambda g: g.sort_values("fare").head(2)  # noqa: E731
    assert_frame_like(df.groupby("kind").apply(top), pdf.groupby("kind").apply(top), "frames")
    desc = lambda g: pd.Series({"n": len(g), "m": g["fare"].max()})  # noqa: E731
    zdesc = lambda g: zb.Series({"n": float(len(g)), "m": g["fare"].max()})  # noqa: E731
    assert_frame_like(df.groupby("city").apply(zdesc), pdf.groupby("city").apply(desc),
                      "series per group")
    # a function written for pandas (it returns pandas Series), keys as columns
    pmax = lambda g: pd.Series({"m": g["fare"].max(), "s": g["seats"].sum()})  # noqa: E731
    assert_frame_like(df.groupby("city", as_index=False, sort=False).apply(pmax),
                      pdf.groupby("city", as_index=False, sort=False).apply(pmax),
                      "pandas Series per group, as_index=False", **SUM_TOL)
    with pytest.raises(zb.DTypeError, match="bool"):
        df.groupby("city").filter(lambda g: 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_groupby_filter_verdicts_as_pandas(seed):
    # a missing verdict drops the group; a one-value Series squeezes to its
    # value; anything else that is not a bool raises pandas' TypeError
    pdf, df = _data(60, seed)
    for f in [lambda g: np.nan if g["fare"].mean() > 10 else True,
              lambda g: None if len(g) > 12 else np.True_,
              lambda g: g["fare"].head(1) > 10]:
        assert_frame_like(df.groupby("city").filter(f), pdf.groupby("city").filter(f),
                          "filter verdicts")
    # a SeriesGroupBy takes any truth value
    f = lambda s: len(s)  # noqa: E731
    assert_series_like(df.groupby("kind")["seats"].filter(f),
                       pdf.groupby("kind")["seats"].filter(f), "truthy")
    for obj in (df, pdf):
        with pytest.raises(TypeError, match="filter function returned a DataFrame"):
            obj.groupby("city").filter(lambda g: g)
        with pytest.raises(TypeError, match="filter function returned a float"):
            obj.groupby("city").filter(lambda g: 1.5)

        def fails(s):
            raise ValueError("no")
        with pytest.raises(TypeError, match="the filter must return a boolean result"):
            obj.groupby("kind")["seats"].filter(fails)


@pytest.mark.parametrize("seed", SEEDS)
def test_frame_apply_rows_returning_rows(seed):
    # apply(axis=1) with a function giving a row back (a Series in pandas):
    # its labels become the columns
    pdf, df = _data(30, seed)
    cols = ["fare", "city"]
    assert_frame_like(df[cols].apply(lambda r: r, axis=1), pdf[cols].apply(lambda r: r, axis=1),
                      "rows")


def test_groupby_agg_function_results_as_pandas():
    pdf = pd.DataFrame({"k": [1, 1, 2], "b": np.array([3, 4, 5], dtype="int8"),
                        "f": np.array([1.5, 2.5, 3.5], dtype="float32")})
    df = zb.DataFrame(pdf)
    # numpy scalars keep their dtype
    first = lambda s: s.to_numpy()[0]  # noqa: E731
    assert_frame_like(df.groupby("k").agg(first), pdf.groupby("k").agg(first), "dtypes")
    # a one-value Series gives its value, with pandas' deprecation warning
    from pandas.errors import Pandas4Warning
    one = lambda s: s.head(1)  # noqa: E731
    with pytest.warns(Pandas4Warning, match="Series or array of length 1"):
        exp = pdf.groupby("k").b.agg(one)
    with pytest.warns(Pandas4Warning, match="Series or array of length 1") as rec:
        got = df.groupby("k").b.agg(one)
    assert rec[0].filename == __file__   # pointed at the caller's line
    assert_series_like(got, exp, "one-value Series")


@pytest.mark.parametrize("call", [
    lambda d: d.pivot(index="id", columns="name", values="v"),
    lambda d: d.pivot(index="name", columns="id", values="v"),
    lambda d: d.pivot(index="id", columns="f", values="v"),
    lambda d: d.pivot_table(index="id", columns="name", values="v", dropna=False),
    lambda d: d.groupby(["id", "name"], dropna=False)["v"].sum().unstack(),
])
def test_a_missing_key_sorts_first_in_pivot_as_pandas(call):
    # pandas' pivot (set_index, then unstack) gives a missing label the
    # code -1, so it comes first among the rows and columns; pivot_table
    # and the unstack of a group-by result, whose levels hold the missing
    # key, put it last.  zambezi put it last everywhere.  (An unstack after
    # set_index puts it first in pandas and last in zambezi, which does not
    # know how its index was built.)
    def run(m):
        return call(m.DataFrame({"id": [1, 2, 3, 4], "name": ["x", "y", None, "x"],
                                 "f": [2.0, np.nan, 1.0, 0.5], "v": [1.0, 2.0, 3.0, 4.0]}))
    want = run(pd)
    got = run(zb).to_pandas()
    assert [str(x) for x in got.columns] == [str(x) for x in want.columns]
    assert [str(x) for x in got.index] == [str(x) for x in want.index]
    np.testing.assert_array_equal(got.to_numpy(dtype=float), want.to_numpy(dtype=float))
