"""One grouping reused across aggregations, and GroupBy.groups / .indices.

A GroupBy groups its keys once; later aggregations on it, and on column
selections made from it (``gb["v"]``, as Dask's chunk step asks them, one
column per call), aggregate by the kept group ids.  pandas, run side by
side with the same sequence of calls on one GroupBy, is the oracle for every
result (values, index, dtypes, order); a spy on the engine bindings checks
that the keys were grouped once.
"""

import gc

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi import _core
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like


def _data(n, seed, card=7):
    rng = np.random.default_rng(seed)
    ki = pd.array(rng.integers(0, card, n), dtype="Int64")
    ki[rng.random(n) < 0.1] = pd.NA
    words = np.array(["b", "a", "cc", "", "d"])
    ks = pd.Series(words[rng.integers(0, len(words), n)], dtype="str")
    ks[rng.random(n) < 0.1] = np.nan
    vf = rng.normal(0, 10, n).round(2)
    vf[rng.random(n) < 0.2] = np.nan
    vi = pd.array(rng.integers(-20, 20, n), dtype="Int64")
    vi[rng.random(n) < 0.2] = pd.NA
    vs = pd.Series(words[rng.integers(0, len(words), n)], dtype="str")
    idx = pd.Index(rng.permutation(n) * 3 + 7)
    return pd.DataFrame({"ki": ki, "ks": ks.to_numpy(), "vf": vf, "vi": vi,
                         "vs": vs.to_numpy()}, index=idx).astype({"ks": "str", "vs": "str"})


class _Spy:
    """Counts the engine's grouping calls (groupby, group_ids) and its
    aggregations by kept ids (groupby_ids)."""

    def __init__(self, monkeypatch):
        self.grouped = self.by_ids = 0
        for name, attr in (("groupby", "grouped"), ("group_ids", "grouped"),
                           ("groupby_ids", "by_ids")):
            orig = getattr(_core, name)

            def spy(*a, _orig=orig, _attr=attr):
                setattr(self, _attr, getattr(self, _attr) + 1)
                return _orig(*a)
            monkeypatch.setattr(_core, name, spy)


# (label, call on a GroupBy, pandas tolerance)
CALLS = [
    ("sum vf", lambda g: g["vf"].sum(), SUM_TOL),
    ("sum vf again", lambda g: g["vf"].sum(), SUM_TOL),
    ("count vf", lambda g: g["vf"].count(), {}),
    ("mean vi", lambda g: g["vi"].mean(), SUM_TOL),
    ("min, max", lambda g: g[["vf", "vi", "vs"]].min(), {}),
    ("max", lambda g: g[["vf", "vi"]].max(), {}),
    ("size", lambda g: g.size(), {}),
    ("std", lambda g: g["vf"].std(), SUM_TOL),
    ("var ddof 0", lambda g: g[["vf", "vi"]].var(ddof=0), SUM_TOL),
    ("first", lambda g: g[["vf", "vs"]].first(), {}),
    ("last", lambda g: g["vi"].last(), {}),
    ("nunique", lambda g: g[["vi", "vs"]].nunique(), {}),
    ("median", lambda g: g["vf"].median(), SUM_TOL),
    ("agg dict", lambda g: g.agg({"vf": "sum", "vi": ["min", "max"]}), SUM_TOL),
    ("agg list", lambda g: g["vf"].agg(["sum", "mean", "count"]), SUM_TOL),
    ("named", lambda g: g.agg(t=("vf", "sum"), n=("vs", "size")), SUM_TOL),
    ("transform", lambda g: g["vf"].transform("mean"), SUM_TOL),
    ("transform size", lambda g: g["vi"].transform("size"), {}),
    ("cumcount", lambda g: g.cumcount(), {}),
    ("head", lambda g: g.head(2), {}),
]


def _check(got, exp, what, tol):
    if isinstance(exp, pd.Series):
        assert_series_like(got, exp, what, **tol)
    else:
        assert_frame_like(got, exp, what, **tol)


def _pandas_like(what, exp):
    """pandas' answer where zambezi differs on purpose: transform and
    cumcount give null for rows whose key was dropped, and keep integer
    columns integer (pandas: NaN, float64)."""
    if what in ("transform size", "cumcount") and exp.isna().any():
        return exp.astype("Int64")
    return exp


@pytest.mark.parametrize("n", [0, 1, 3000])
@pytest.mark.parametrize("keys", [["ki"], ["ks"], ["ks", "ki"]])
@pytest.mark.parametrize("sort,dropna", [(True, True), (False, False), (True, False)])
def test_repeated_aggregations_match_pandas(monkeypatch, n, keys, sort, dropna):
    pdf = _data(n, n + len(keys))
    df = zb.from_pandas(pdf)
    spy = _Spy(monkeypatch)
    gz = df.groupby(keys, sort=sort, dropna=dropna)
    gp = pdf.groupby(keys, sort=sort, dropna=dropna)
    for what, call, tol in CALLS:
        _check(call(gz), _pandas_like(what, call(gp)), (keys, sort, dropna, what), tol)
    assert spy.grouped == 1  # the keys were grouped once, by the first call
    assert spy.by_ids > 0


def test_as_index_false_and_series_groupby_reuse(monkeypatch):
    pdf = _data(2000, 3)
    df = zb.from_pandas(pdf)
    spy = _Spy(monkeypatch)
    gz, gp = df.groupby("ks", as_index=False), pdf.groupby("ks", as_index=False)
    for _ in range(2):
        assert_frame_like(gz["vf"].sum(), gp["vf"].sum(), "as_index=False", **SUM_TOL)
        assert_frame_like(gz.size(), gp.size(), "size")
    sz, sp = df["vf"].groupby(df["ks"]), pdf["vf"].groupby(pdf["ks"])
    for op in ("sum", "max", "count", "mean"):
        assert_series_like(getattr(sz, op)(), getattr(sp, op)(), op, **SUM_TOL)
    assert spy.grouped == 2  # one grouping per GroupBy object


def test_durations_and_lists_by_kept_ids():
    pdf = pd.DataFrame({"k": ["a", "b", "a", None, "b", "a"],
                        "d": pd.to_timedelta([1, 2, 3, 4, None, 6], unit="s"),
                        "v": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    df = zb.from_pandas(pdf)
    gz, gp = df.groupby("k"), pdf.groupby("k")
    gz["v"].sum()  # keeps the grouping
    assert_series_like(gz["d"].sum(), gp["d"].sum(), "duration sum")
    assert_series_like(gz["d"].mean(), gp["d"].mean(), "duration mean")
    got = gz["v"].agg(list)
    assert got.to_list() == [list(x) for x in gp["v"].agg(list)]


def test_grouping_is_released_with_the_groupby():
    n = 200_000
    df = zb.DataFrame({"k": np.arange(n) % 1000, "v": np.ones(n)})
    gc.collect()
    before = _core.alloc_stats()["host_bytes"]
    gb = df.groupby("k")
    gb["v"].sum()
    sel = gb["v"]
    kept = _core.alloc_stats()["host_bytes"] - before
    assert kept >= n * 8  # the ids: an int64 per row
    del gb, sel
    gc.collect()
    assert _core.alloc_stats()["host_bytes"] - before < n * 8


# --------------------------------------------------------------------------
# groups and indices
# --------------------------------------------------------------------------

def _key(k):
    """A key with its missing value (NaN, NaT, NA; None in an index's
    to_list) as one marker, so that keys compare as set members (the names
    of missing keys are compared in test_groupby_iter)."""
    if isinstance(k, tuple):
        return tuple(_key(x) for x in k)
    return "<missing>" if k is None or pd.isna(k) else k


# pandas warns that a one-key list will give 1-tuples some day; pandas 3 (and
# zambezi) give the scalar
@pytest.mark.filterwarnings("ignore:In a future version, the keys of")
@pytest.mark.parametrize("n", [0, 1, 500])
@pytest.mark.parametrize("keys", ["ks", ["ki"], ["ks", "ki"]])
@pytest.mark.parametrize("sort,dropna", [(True, True), (False, True), (True, False),
                                         (False, False)])
def test_groups_and_indices_match_pandas(n, keys, sort, dropna):
    pdf = _data(n, 17 + n)
    df = zb.from_pandas(pdf)
    gz = df.groupby(keys, sort=sort, dropna=dropna)
    gp = pdf.groupby(keys, sort=sort, dropna=dropna)
    exp_idx = {_key(k): v for k, v in gp.indices.items()}
    got_idx = {_key(k): v for k, v in gz.indices.items()}
    # the same keys; per key the same positions (int64, row order)
    assert set(got_idx) == set(exp_idx) and len(got_idx) == len(exp_idx)
    for k, v in got_idx.items():
        assert v.dtype == np.int64
        np.testing.assert_array_equal(v, exp_idx[k])
    exp_groups = {_key(k): v for k, v in gp.groups.items()}
    got_groups = {_key(k): v for k, v in gz.groups.items()}
    assert list(got_groups) == list(got_idx)
    for k, v in got_groups.items():
        assert isinstance(v, zb.Index)
        assert v.to_list() == list(exp_groups[k])
    # the key order is the group order, the results' index order
    assert list(got_idx) == [_key(k) for k in gz.size().index.to_list()]
    # and from a column selection, or a Series.groupby
    assert [_key(k) for k in gz["vf"].groups] == list(got_groups)
    sidx = df["vf"].groupby(df["ks"], sort=sort, dropna=dropna).indices
    pidx = pdf["vf"].groupby(pdf["ks"], sort=sort, dropna=dropna).indices
    assert {_key(k): v.tolist() for k, v in pidx.items()} == \
        {_key(k): v.tolist() for k, v in sidx.items()}


def test_groups_with_a_multiindex_of_rows():
    pdf = pd.DataFrame({"k": ["x", "y", "x"], "v": [1, 2, 3]},
                       index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2), ("c", 3)]))
    df = zb.from_pandas(pdf)
    got = df.groupby("k").groups
    exp = pdf.groupby("k").groups
    assert list(got) == list(exp)
    for k in exp:
        assert got[k].to_list() == list(exp[k])


@pytest.mark.parametrize("keys", ["ks", ["ks", "ki"]])
def test_get_group_matches_pandas(keys):
    pdf = _data(400, 5)
    df = zb.from_pandas(pdf)
    gz, gp = df.groupby(keys), pdf.groupby(keys)
    for k in list(gp.groups)[:4]:
        assert_frame_like(gz.get_group(k), gp.get_group(k), k)
        assert_series_like(gz["vf"].get_group(k), gp["vf"].get_group(k), k)
    with pytest.raises(KeyError):
        gz.get_group("no such key" if keys == "ks" else ("x", 99))
