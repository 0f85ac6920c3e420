"""The shapes of results against pandas 3, on random data with nulls:
group-by with the keys as the index (as_index True/False, one key and
several, sort and dropna both ways, every aggregation, every agg form,
Series.groupby by a Series and by index levels), the rows' labels through
transform / cumcount / head / tail / nth, Series and DataFrame
value_counts, concat along both axes (labels kept, ignore_index, keys,
outer and inner joins) and stack / unstack.

pandas' own answer is the oracle (pandas_compare: labels, index, dtypes
and values).  Where zambezi differs on purpose the test adjusts pandas'
answer at that place and says why: an integer column that gains missing
values stays integer (pandas: float64), so the oracle's data uses pandas'
nullable Int64 where that happens.
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like

OPS = ["count", "sum", "mean", "min", "max", "std", "var", "median", "first", "last",
       "nunique", "prod", "size"]
APPROX = ("sum", "mean", "std", "var", "prod", "median", "quantile")


def _data(n, seed, card=6):
    """Keys with nulls (nullable int, str), values with nulls (float,
    nullable int, str, bool), and row labels that are not 0..n-1."""
    rng = np.random.default_rng(seed)

    def nulls(p):
        return rng.random(n) < p

    ki = pd.array(rng.integers(0, card, n), dtype="Int64")
    ki[nulls(0.1)] = pd.NA
    words = np.array(["b", "a", "cc", "", "d"])
    ks = pd.Series(words[rng.integers(0, len(words), n)], dtype="str")
    ks[nulls(0.1)] = np.nan
    vf = rng.normal(0, 10, n).round(2)
    vf[nulls(0.2)] = np.nan
    vi = pd.array(rng.integers(-20, 20, n), dtype="Int64")
    vi[nulls(0.2)] = pd.NA
    vs = pd.Series(words[rng.integers(0, len(words), n)], dtype="str")
    vs[nulls(0.2)] = np.nan
    vb = rng.random(n) < 0.5
    idx = pd.Index(rng.permutation(n) * 3 + 7, name="row")  # labels that are not positions
    pdf = pd.DataFrame({"ki": ki, "ks": ks.to_numpy(), "vf": vf, "vi": vi,
                        "vs": vs.to_numpy(), "vb": vb}, index=idx)
    pdf["ks"] = pdf["ks"].astype("str")
    pdf["vs"] = pdf["vs"].astype("str")
    return pdf


def _zb(pdf):
    return zb.from_pandas(pdf)


# --------------------------------------------------------------------------
# group-by: the keys as the index
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 50, 3000])
@pytest.mark.parametrize("keys", [["ki"], ["ks"], ["ks", "ki"]])
def test_every_aggregation_as_index(n, keys):
    pdf = _data(n, n + len(keys))
    df = _zb(pdf)
    num = ["vf", "vi"]
    for sort in (True, False):
        for dropna in (True, False):
            gz = df.groupby(keys, sort=sort, dropna=dropna)
            gp = pdf.groupby(keys, sort=sort, dropna=dropna)
            what = (keys, sort, dropna)
            for op in OPS:
                cols = num + (["vs"] if op in ("count", "min", "max", "first", "last",
                                               "nunique") else [])
                tol = SUM_TOL if op in APPROX else {}
                if op == "size":  # a Series, no name
                    assert_series_like(gz.size(), gp.size(), (what, op))
                    continue
                # a list selection: a frame indexed by the keys
                assert_frame_like(getattr(gz[cols], op)(), getattr(gp[cols], op)(),
                                  (what, op), **tol)
                # one selected column: a Series named by it
                assert_series_like(getattr(gz["vf"], op)(), getattr(gp["vf"], op)(),
                                   (what, op, "vf"), **tol)
            assert_series_like(gz["vf"].quantile(0.3), gp["vf"].quantile(0.3),
                               (what, "quantile"), **SUM_TOL)
            assert_frame_like(gz[["vb"]].any(), gp[["vb"]].any(), (what, "any"))
            assert_frame_like(gz[["vb"]].all(), gp[["vb"]].all(), (what, "all"))
            assert_series_like(gz["vi"].size(), gp["vi"].size(), (what, "size of vi"))


@pytest.mark.parametrize("keys", [["ki"], ["ks", "ki"]])
def test_as_index_false_is_the_flat_shape(keys):
    pdf = _data(2000, 5)
    df = _zb(pdf)
    for sort in (True, False):
        for dropna in (True, False):
            gz = df.groupby(keys, as_index=False, sort=sort, dropna=dropna)
            gp = pdf.groupby(keys, as_index=False, sort=sort, dropna=dropna)
            what = (keys, sort, dropna)
            assert_frame_like(gz.size(), gp.size(), (what, "size"))
            assert_frame_like(gz[["vf", "vi"]].sum(), gp[["vf", "vi"]].sum(), what, **SUM_TOL)
            assert_frame_like(gz["vf"].mean(), gp["vf"].mean(), what, **SUM_TOL)
            assert_frame_like(gz["vi"].max(), gp["vi"].max(), what)
            assert_frame_like(gz.agg(t=("vf", "sum"), m=("vs", "max")),
                              gp.agg(t=("vf", "sum"), m=("vs", "max")), what, **SUM_TOL)
            # a list of functions: MultiIndex columns, the keys padded ("k", "")
            assert_frame_like(gz[["vf", "vi"]].agg(["min", "max"]),
                              gp[["vf", "vi"]].agg(["min", "max"]), what)


def test_a_key_among_the_aggregated_columns_as_in_pandas():
    # pandas aggregates a key column named in the selection or an agg dict,
    # and with as_index=False does not insert that key again
    pdf = pd.DataFrame({"k": [1, 1, 2, 2, 3], "i": [3, 3, 4, 5, 6],
                        "v": [1.0, 2.0, 3.0, np.nan, 5.0]})
    df = zb.DataFrame(pdf)
    cases = [
        ("two keys, key selected", lambda m: m.groupby(["k", "i"], as_index=False)[["v", "i"]]
         .sum()),
        ("key selected last", lambda m: m.groupby("k", as_index=False)[["v", "k"]].mean()),
        ("key selected, max", lambda m: m.groupby(["k", "i"], as_index=False)[["v", "i"]]
         .agg("max")),
        ("dict on the key", lambda m: m.groupby("i").agg({"i": "count", "v": "sum"})),
        ("dict of lists on a key", lambda m: m.groupby(["i", "k"]).agg({"k": ["sum", "max"]})),
        ("dict on the key, flat", lambda m: m.groupby("k", as_index=False).agg({"k": "size",
                                                                                "v": "max"})),
    ]
    for what, fn in cases:
        assert_frame_like(fn(df), fn(pdf), what, **SUM_TOL)


def test_agg_forms():
    pdf = _data(3000, 11)
    df = _zb(pdf)
    for sort in (True, False):
        gz, gp = df.groupby("ks", sort=sort), pdf.groupby("ks", sort=sort)
        cases = [
            ("str", lambda g: g[["vf", "vi"]].agg("mean")),
            ("list", lambda g: g[["vf", "vi"]].agg(["sum", "max"])),
            ("list of one", lambda g: g[["vi"]].agg(["min"])),
            ("list with size", lambda g: g[["vf"]].agg(["size", "count"])),
            ("dict", lambda g: g.agg({"vf": "mean", "vi": "min"})),
            ("dict with a list", lambda g: g.agg({"vf": "mean", "vi": ["min", "max"]})),
            ("dict of lists", lambda g: g.agg({"vs": ["first", "last"], "vf": ["std"]})),
            ("named", lambda g: g.agg(a=("vf", "sum"), b=("vi", "size"), c=("vs", "nunique"))),
            ("numpy functions", lambda g: g[["vf"]].agg([np.sum, np.max])),
            ("Series list", lambda g: g["vi"].agg(["sum", "max", "count"])),
        ]
        for what, fn in cases:
            assert_frame_like(fn(gz), fn(gp), (sort, what), **SUM_TOL)
        # Series results
        assert_series_like(gz["vf"].agg("sum"), gp["vf"].agg("sum"), sort, **SUM_TOL)
        assert_series_like(gz.agg("size"), gp.agg("size"), sort)
        assert_series_like(gz["vf"].agg("size"), gp["vf"].agg("size"), sort)
        assert_frame_like(gz["vi"].agg(lo="min", hi="max"), gp["vi"].agg(lo="min", hi="max"),
                          sort)
    with pytest.raises(zb.errors.InvalidValueError):
        df.groupby("ks")["vi"].agg({"x": "sum"})  # pandas: nested renamer


def test_columns_of_a_list_agg_select_as_in_pandas():
    pdf = _data(500, 3)
    got = _zb(pdf).groupby("ki")[["vf", "vi"]].agg(["sum", "max"])
    exp = pdf.groupby("ki")[["vf", "vi"]].agg(["sum", "max"])
    assert got.columns.to_list() == exp.columns.to_list()
    assert_frame_like(got["vi"], exp["vi"], "first level")
    assert_series_like(got[("vf", "max")], exp[("vf", "max")], "one label")
    assert_frame_like(got.reset_index(), exp.reset_index(), "reset_index", **SUM_TOL)


def test_rows_keep_their_labels():
    pdf = _data(3000, 17)
    df = _zb(pdf)
    for dropna in (True, False):
        gz, gp = df.groupby("ks", dropna=dropna), pdf.groupby("ks", dropna=dropna)
        for k in (1, 3):
            assert_frame_like(gz.head(k), gp.head(k), ("head", k))
            assert_frame_like(gz.tail(k), gp.tail(k), ("tail", k))
            assert_series_like(gz["vi"].head(k), gp["vi"].head(k), ("Series head", k))
            assert_frame_like(gz[["vf"]].tail(k), gp[["vf"]].tail(k), ("selected tail", k))
        for k in (0, 2, -1):
            assert_frame_like(gz.nth(k), gp.nth(k), ("nth", k))
        # pandas turns an integer column with missing rows into float64;
        # zambezi keeps it integer with nulls: Int64 in the oracle
        exp = gp.cumcount()
        assert_series_like(gz.cumcount(), exp.astype("Int64") if dropna else exp, "cumcount")
        assert_frame_like(gz[["vf"]].transform("mean"), gp[["vf"]].transform("mean"),
                          "transform", **SUM_TOL)
        assert_series_like(gz["vf"].transform("max"), gp["vf"].transform("max"), "transform")
        exp = gp.transform("size")
        assert_series_like(gz.transform("size"), exp.astype("Int64") if dropna else exp,
                           "transform size")


def test_series_groupby():
    pdf = _data(2000, 23)
    df = _zb(pdf)
    s, ps = df["vf"], pdf["vf"]
    for sort in (True, False):
        for dropna in (True, False):
            what = (sort, dropna)
            gz = s.groupby(df["ks"], sort=sort, dropna=dropna)
            gp = ps.groupby(pdf["ks"], sort=sort, dropna=dropna)
            for op in ("sum", "mean", "max", "count", "size", "first"):
                assert_series_like(getattr(gz, op)(), getattr(gp, op)(), (what, op), **SUM_TOL)
            assert_frame_like(gz.agg(["min", "max"]), gp.agg(["min", "max"]), what)
            keys = [df["ks"], df["ki"]]
            assert_series_like(s.groupby(keys, sort=sort, dropna=dropna).mean(),
                               ps.groupby([pdf["ks"], pdf["ki"]], sort=sort,
                                          dropna=dropna).mean(), what, **SUM_TOL)
            # dropped keys: null in an integer column (pandas: float64 NaN)
            assert_series_like(gz.cumcount(),
                               gp.cumcount().astype("Int64") if dropna else gp.cumcount(),
                               (what, "cumcount"))
    # by index levels
    pm = pdf.set_index(["ks", "ki"], append=True)["vf"]
    zm = _zb(pdf).set_index(["ks", "ki"], append=True)["vf"]
    for level in (1, "ki", ["ks", "ki"], [2, 0]):
        for sort in (True, False):
            assert_series_like(zm.groupby(level=level, sort=sort).sum(),
                               pm.groupby(level=level, sort=sort).sum(), (level, sort),
                               **SUM_TOL)
    # a DataFrame grouped by an array and by index levels
    arr = np.arange(len(pdf)) % 4
    assert_frame_like(df.groupby(arr)[["vf", "vi"]].sum(), pdf.groupby(arr)[["vf", "vi"]].sum(),
                      "array key", **SUM_TOL)
    pl = pdf.set_index("ks", append=True)
    assert_frame_like(_zb(pl).groupby(level="ks")[["vi"]].max(),
                      pl.groupby(level="ks")[["vi"]].max(), "level key")
    with pytest.raises(zb.errors.InvalidValueError):
        s.groupby(df["ks"], as_index=False)


# --------------------------------------------------------------------------
# value_counts
# --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 40, 5000])
def test_value_counts_shapes(n):
    pdf = _data(n, 31 + n, card=4)
    df = _zb(pdf)
    for col in ("ki", "ks", "vb"):
        for kw in ({}, {"normalize": True}, {"sort": False}, {"dropna": False},
                   {"ascending": True, "dropna": False}):
            exp = pdf[col].value_counts(**kw)
            if exp.dtype == "Int64":  # a nullable column counts as Int64 in pandas
                exp = exp.astype("int64")
            if exp.dtype == "Float64":
                exp = exp.astype("float64")
            assert_series_like(df[col].value_counts(**kw), exp, (col, kw), **SUM_TOL)
    for subset in (None, ["ks"], "ks", ["ki", "ks"], ["vb", "ki"]):
        for kw in ({}, {"normalize": True}, {"sort": False}, {"dropna": False},
                   {"ascending": True}, {"ascending": True, "dropna": False}):
            frame = pdf[["ki", "ks", "vb"]]
            exp = frame.value_counts(subset=subset, **kw)
            got = _zb(frame).value_counts(subset=subset, **kw)
            assert_series_like(got, exp, (subset, kw), **SUM_TOL)


# --------------------------------------------------------------------------
# concat
# --------------------------------------------------------------------------

def _pieces(seed):
    rng = np.random.default_rng(seed)
    pdf = _data(int(rng.integers(5, 400)), seed)
    cuts = sorted(rng.integers(0, len(pdf), 2))
    return pdf, [pdf.iloc[:cuts[0]], pdf.iloc[cuts[0]:cuts[1]], pdf.iloc[cuts[1]:]]


@pytest.mark.parametrize("seed", range(6))
def test_concat_rows(seed):
    pdf, parts = _pieces(seed)
    zparts = [_zb(p) for p in parts]
    for kw in ({}, {"ignore_index": True}, {"keys": ["p", "q", "r"]}):
        assert_frame_like(zb.concat(zparts, **kw), pd.concat(parts, **kw), kw)
        assert_series_like(zb.concat([z["vf"] for z in zparts], **kw),
                           pd.concat([p["vf"] for p in parts], **kw), kw)
    # RangeIndexes that continue one another stay one RangeIndex
    plain = [p.reset_index(drop=True) for p in parts]
    plain = [plain[0], plain[1].set_axis(pd.RangeIndex(len(plain[0]),
                                                       len(plain[0]) + len(plain[1])))]
    got = zb.concat([_zb(p) for p in plain]).index
    assert isinstance(got, zb.RangeIndex) and len(got) == len(plain[0]) + len(plain[1])
    assert_frame_like(zb.concat([_zb(p) for p in plain]), pd.concat(plain), "ranges")
    # different columns: outer (in order of first appearance) and inner joins;
    # an integer column a frame lacks stays Int64 (pandas: float64)
    a = parts[0][["vf", "vi", "ks"]]
    b = parts[1][["ks", "vb", "vf"]]
    c = parts[2][["vs", "vf"]]
    for join in ("outer", "inner"):
        exp = pd.concat([a, b, c], join=join)
        if join == "outer":
            exp["vi"] = pd.concat([a["vi"], pd.Series(pd.NA, index=b.index, dtype="Int64"),
                                   pd.Series(pd.NA, index=c.index, dtype="Int64")])
            exp["vb"] = pd.concat([pd.Series(pd.NA, index=a.index, dtype="boolean"),
                                   b["vb"].astype("boolean"),
                                   pd.Series(pd.NA, index=c.index, dtype="boolean")])
        got = zb.concat([_zb(a), _zb(b), _zb(c)], join=join)
        assert_frame_like(got, exp, join)


@pytest.mark.parametrize("seed", range(6))
def test_concat_columns(seed):
    pdf, parts = _pieces(seed + 100)
    z = _zb(pdf)
    # equal indexes: side by side by position
    assert_frame_like(zb.concat([z[["vf", "ks"]], z["vi"], z[["vs"]]], axis=1),
                      pd.concat([pdf[["vf", "ks"]], pdf["vi"], pdf[["vs"]]], axis=1), "equal")
    # other indexes: aligned on the labels, the union in order of first
    # appearance (outer) or the first input's labels all have (inner)
    rng = np.random.default_rng(seed)
    left = pdf.iloc[rng.permutation(len(pdf))[: len(pdf) * 2 // 3]][["vf", "vi"]]
    right = pdf.iloc[rng.permutation(len(pdf))[: len(pdf) // 2]][["vs", "ki"]]
    s = pdf["ks"].iloc[::3]
    for join in ("outer", "inner"):
        exp = pd.concat([left, right, s], axis=1, join=join)
        got = zb.concat([_zb(left), _zb(right), zb.Series(s)], axis=1, join=join)
        assert_frame_like(got, exp, join)
    # keys label the columns (key, column); unnamed Series count 0, 1, ...
    exp = pd.concat([left, right], axis=1, keys=["L", "R"])
    assert_frame_like(zb.concat([_zb(left), _zb(right)], axis=1, keys=["L", "R"]), exp, "keys")
    u1, u2 = pdf["vf"].rename(None), pdf["vb"].rename(None)
    exp = pd.concat([u1, u2], axis=1)
    got = zb.concat([zb.Series(u1), zb.Series(u2)], axis=1)
    assert_frame_like(got, exp, "unnamed")
    assert got.columns.to_list() == [0, 1] == list(exp.columns)
    # labels of mixed types (0, "ks", 1): pandas' object Index, kept as they are
    exp = pd.concat([u1, pdf["ks"], u2], axis=1)
    got = zb.concat([zb.Series(u1), z["ks"], zb.Series(u2)], axis=1)
    assert got.columns.to_list() == [0, "ks", 1] == list(exp.columns)
    assert_frame_like(got, exp, "mixed labels")
    assert_frame_like(zb.concat([z["vf"], z["vi"]], axis=1, keys=["x", "y"]),
                      pd.concat([pdf["vf"], pdf["vi"]], axis=1, keys=["x", "y"]), "Series keys")
    assert_frame_like(zb.concat([z["vf"], z["vi"]], axis=1, ignore_index=True),
                      pd.concat([pdf["vf"], pdf["vi"]], axis=1, ignore_index=True), "ignore")


# --------------------------------------------------------------------------
# stack / unstack
# --------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_unstack_and_stack(seed):
    pdf = _data(2000, 50 + seed, card=5)
    df = _zb(pdf)
    for dropna in (True, False):
        # a Series with two index levels (missing keys among the labels
        # when dropna=False: pandas puts them first)
        ps = pdf.groupby(["ks", "ki"], dropna=dropna)["vi"].sum()
        zs = df.groupby(["ks", "ki"], dropna=dropna)["vi"].sum()
        # an integer column that gains missing cells stays integer in
        # zambezi: the oracle unstacks the values as Int64
        pi = ps.astype("Int64")
        for level in (-1, 0, "ki"):
            assert_frame_like(zs.unstack(level), pi.unstack(level), (dropna, level))
        assert_frame_like(zs.unstack(fill_value=0), ps.unstack(fill_value=0), "fill_value")
        pf = pdf.groupby(["ks", "ki"], dropna=dropna)[["vf", "vi"]].max()
        zf = df.groupby(["ks", "ki"], dropna=dropna)[["vf", "vi"]].max()
        wide_p = pf.astype({"vi": "Int64"}).unstack()
        wide_z = zf.unstack()
        assert_frame_like(wide_z, wide_p, (dropna, "frame"))
        # and back: the last column level into the index (rows of nulls
        # kept); pandas' stack raises KeyError on a missing column label, so
        # only without one
        if dropna:
            assert_frame_like(wide_z.stack(), wide_p.stack(), (dropna, "stack"))
    # a frame with one column level stacks into a Series, row by row
    flat = pdf[["vf", "vi"]].astype({"vi": "float64"}).head(300)
    assert_series_like(_zb(flat).stack(), flat.stack(), "stack")
    assert_series_like(_zb(flat).unstack(), flat.unstack(), "unstack of one level")
    with pytest.raises(zb.errors.InvalidValueError, match="duplicate"):
        zb.Series([1, 2], index=zb.MultiIndex.from_arrays([["a", "a"], [1, 1]])).unstack()
    with pytest.raises(zb.errors.DTypeError):
        df[["vf", "ks"]].stack()
