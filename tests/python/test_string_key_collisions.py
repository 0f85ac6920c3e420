"""Plain string keys under forced hash collisions and code-table overflow,
against pandas.

zambezi._core.test_string_keys(hash_bits, max_codes) narrows every string
hash to hash_bits bits (so distinct strings share hashes and every
probe-and-compare path runs: packed 16-byte prefixes, tails of long
strings, the partitioned tables) and caps the dense string codes at
max_codes distinct strings (so the partitioned fallback runs on small
data).  Results must be those of pandas under every setting.  A fixture
resets the hook after each test, failed or not.
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like
from test_string_keys import _keys, _pool

N = 2000

# (hash_bits, max_codes): every string one hash (bit 0 aside); four hashes
# and codes overflowing at 5 strings; 128 hashes; full hashes but codes
# overflowing
SETTINGS = [(0, 0), (2, 5), (7, 0), (64, 5)]
IDS = [f"bits{b}-codes{m}" for b, m in SETTINGS]


@pytest.fixture(autouse=True)
def _reset_hook():
    zb._core.test_string_keys()
    yield
    zb._core.test_string_keys()


def _hook(setting):
    zb._core.test_string_keys(*setting)


def test_hook_arguments_checked():
    with pytest.raises(ValueError, match="hash_bits"):
        zb._core.test_string_keys(65)
    with pytest.raises(ValueError, match="max_codes"):
        zb._core.test_string_keys(8, -1)


@pytest.mark.parametrize("card", [3, 300, N])
@pytest.mark.parametrize("kind", ["short", "long", "middle", "onebyte", "wide"])
@pytest.mark.parametrize("setting", SETTINGS, ids=IDS)
def test_groupby_one_key(setting, kind, card):
    rng = np.random.default_rng(card + len(kind))
    pdf = pd.DataFrame({"k": _keys(N, card, rng, kind), "v": rng.random(N),
                        "i": rng.integers(-5, 5, N)})
    z = zb.from_pandas(pdf)
    spec = {"v": ["sum", "mean", "min", "max", "count"], "i": ["first", "nunique"]}
    _hook(setting)
    for sort in (True, False):
        for dropna in (True, False):
            what = f"{kind} card={card} sort={sort} dropna={dropna}"
            exp = pdf.groupby("k", sort=sort, dropna=dropna).agg(spec)
            got = z.groupby("k", sort=sort, dropna=dropna).agg(spec)
            assert_frame_like(got, exp, what, **SUM_TOL)
            assert_series_like(z.groupby("k", sort=sort, dropna=dropna).size(),
                               pdf.groupby("k", sort=sort, dropna=dropna).size(), what)


@pytest.mark.parametrize("card", [300, N])
@pytest.mark.parametrize("kind", ["short", "long", "middle"])
@pytest.mark.parametrize("setting", SETTINGS, ids=IDS)
def test_groupby_one_key_without_nulls(setting, kind, card):
    # no nulls: past the codes, the partitioned grouping's ids are the groups
    rng = np.random.default_rng(card + 3 * len(kind))
    pdf = pd.DataFrame({"k": _keys(N, card, rng, kind, 0.0), "v": rng.random(N),
                        "i": rng.integers(-5, 5, N)})
    z = zb.from_pandas(pdf)
    spec = {"v": ["sum", "min", "count"], "i": ["last", "nunique"]}
    _hook(setting)
    for sort in (True, False):
        what = f"{kind} card={card} sort={sort}"
        exp = pdf.groupby("k", sort=sort).agg(spec)
        assert_frame_like(z.groupby("k", sort=sort).agg(spec), exp, what, **SUM_TOL)
        assert_series_like(z.groupby("k", sort=sort)["v"].cumsum(),
                           pdf.groupby("k", sort=sort)["v"].cumsum(), what, **SUM_TOL)


@pytest.mark.parametrize("setting", SETTINGS, ids=IDS)
def test_groupby_two_keys_and_mixed(setting):
    rng = np.random.default_rng(23)
    pdf = pd.DataFrame({"a": _keys(N, 60, rng, "long"), "b": _keys(N, 7, rng, "onebyte"),
                        "n": rng.integers(0, 4, N), "v": rng.random(N)})
    z = zb.from_pandas(pdf)
    _hook(setting)
    for keys in (["a", "b"], ["a", "n"], ["n", "b", "a"]):
        for sort, dropna in ((True, True), (False, False)):
            what = f"{keys} sort={sort} dropna={dropna}"
            exp = pdf.groupby(keys, sort=sort, dropna=dropna)["v"].agg(["sum", "max", "count"])
            got = z.groupby(keys, sort=sort, dropna=dropna)["v"].agg(["sum", "max", "count"])
            assert_frame_like(got, exp, what, **SUM_TOL)


@pytest.mark.parametrize("card", [3, 300, N])
@pytest.mark.parametrize("kind", ["short", "long", "middle", "onebyte", "wide"])
@pytest.mark.parametrize("setting", SETTINGS, ids=IDS)
def test_distinct_operations(setting, kind, card):
    rng = np.random.default_rng(card * 3 + len(kind))
    ps = _keys(N, card, rng, kind).rename("k")
    zs = zb.from_pandas(ps.to_frame())["k"]
    vals = list(_pool(kind, max(card, 2), rng)[: max(card // 2, 1)]) + ["absent", ""]
    _hook(setting)
    what = f"{kind} card={card}"
    assert_series_like(zs.unique(), pd.Series(ps.unique(), name="k"), what)
    for dropna in (True, False):
        assert zs.nunique(dropna=dropna) == ps.nunique(dropna=dropna), what
        assert_series_like(zs.value_counts(dropna=dropna), ps.value_counts(dropna=dropna), what)
    for keep in ("first", "last", False):
        assert_series_like(zs.duplicated(keep=keep), ps.duplicated(keep=keep), f"{what} {keep}")
        assert_series_like(zs.drop_duplicates(keep=keep), ps.drop_duplicates(keep=keep),
                           f"{what} {keep}")
    assert_series_like(zs.isin(vals), ps.isin(vals), what)


@pytest.mark.parametrize("setting", SETTINGS, ids=IDS)
def test_frame_duplicates_mixed_keys(setting):
    rng = np.random.default_rng(31)
    pdf = pd.DataFrame({"a": _keys(N, 50, rng, "middle"), "b": rng.integers(0, 3, N),
                        "c": _keys(N, 6, rng, "short", 0.3)})
    z = zb.from_pandas(pdf)
    _hook(setting)
    for subset in (["a"], ["a", "b"], ["c", "a"]):
        for keep in ("first", False):
            assert_series_like(z.duplicated(subset, keep=keep),
                               pdf.duplicated(subset, keep=keep), f"{subset} {keep}")
            assert_frame_like(z.drop_duplicates(subset, keep=keep),
                              pdf.drop_duplicates(subset, keep=keep), f"{subset} {keep}")


@pytest.mark.parametrize("how", ["inner", "left", "outer"])
@pytest.mark.parametrize("kind", ["short", "long", "middle"])
@pytest.mark.parametrize("setting", SETTINGS, ids=IDS)
def test_merge(setting, kind, how):
    # keys without nulls: zambezi's null keys match nothing (docs/api.md)
    rng = np.random.default_rng(len(kind) * 7 + len(how))
    # n: a float key next to the string (ints would gain NaN in an outer join)
    left = pd.DataFrame({"k": _keys(N, 200, rng, kind, 0.0),
                         "n": rng.integers(0, 2, N).astype(float), "x": rng.random(N)})
    right = pd.DataFrame({"k": _keys(300, 250, rng, kind, 0.0),
                          "n": rng.integers(0, 2, 300).astype(float), "y": rng.random(300)})
    zl, zr = zb.from_pandas(left), zb.from_pandas(right)
    _hook(setting)
    for on in ("k", ["k", "n"]):
        exp = left.merge(right, on=on, how=how)
        got = zl.merge(zr, on=on, how=how)
        assert_frame_like(got, exp, f"{on} {how}", any_order=how == "outer")


@pytest.mark.parametrize("how", ["inner", "outer"])
def test_merge_partitioned(how):
    # both sides over 65536 rows (the radix-partitioned join), 2^10 hashes
    # for 40000 strings sharing 16-byte prefixes
    rng = np.random.default_rng(41)
    pool = _pool("long", 40_000, rng)
    nl, nr = 80_000, 70_000
    left = pd.DataFrame({"k": pd.Series(pool[rng.integers(0, len(pool), nl)], dtype="str"),
                         "x": rng.random(nl)})
    right = pd.DataFrame({"k": pd.Series(pool[rng.integers(0, 35_000, nr)], dtype="str"),
                          "y": rng.random(nr)})
    zl, zr = zb.from_pandas(left), zb.from_pandas(right)
    zb._core.test_string_keys(10)
    got = zl.merge(zr, on="k", how=how)
    exp = left.merge(right, on="k", how=how)
    assert_frame_like(got, exp, how, any_order=how == "outer")


@pytest.mark.parametrize("setting", [(0, 0), (64, 0), (3, 2)], ids=["bits0", "bits64", "bits3"])
def test_partitioned_keys_near_the_length_escape(setting):
    # Long keys around 2**19 bytes (a length boundary a partition record
    # could encode its strings by), equal but for the last byte, with
    # short keys and nulls: the partitioned grouping tells them apart.
    esc = 2**19 - 1
    body = "x" * (esc + 2)
    pool = [body[:esc - 1], body[:esc - 2] + "y", body[:esc], body[:esc - 1] + "y",
            body[:esc + 1], body[:esc] + "y", body[:esc + 2], "", "short", "é" * 20]
    rng = np.random.default_rng(5)
    pick = rng.integers(0, len(pool), 40)
    v = np.array([pool[i] for i in pick], dtype=object)
    v[[3, 17]] = None
    pdf = pd.DataFrame({"k": pd.Series(v, dtype="str"), "v": rng.random(40)})
    z = zb.from_pandas(pdf)
    _hook(setting)
    for sort in (True, False):
        for dropna in (True, False):
            what = f"sort={sort} dropna={dropna}"
            assert_frame_like(z.groupby("k", sort=sort, dropna=dropna).agg({"v": ["sum", "count"]}),
                              pdf.groupby("k", sort=sort, dropna=dropna).agg({"v": ["sum", "count"]}),
                              what, **SUM_TOL)
    assert_series_like(z["k"].duplicated(), pdf["k"].duplicated(), "duplicated")
    assert zb.from_pandas(pdf)["k"].nunique() == pdf["k"].nunique()


@pytest.mark.parametrize("op", ["groupby", "drop_duplicates", "nunique"])
def test_partitioned_grouping_fails_allocations_cleanly(op):
    # codes capped at 5 strings: the partitioned grouping runs; each of its
    # allocations failing in turn is a MemoryError that leaks nothing, and
    # the result once they succeed is pandas'
    from conftest import fail_allocations_in_turn
    rng = np.random.default_rng(11)
    pdf = pd.DataFrame({"k": _keys(400, 120, rng, "middle"), "v": rng.random(400)})
    z = zb.from_pandas(pdf)
    _hook((64, 5))
    if op == "groupby":
        got, _ = fail_allocations_in_turn(lambda: z.groupby("k", sort=False)["v"].sum(), op)
        assert_series_like(got, pdf.groupby("k", sort=False)["v"].sum(), op, **SUM_TOL)
    elif op == "drop_duplicates":
        got, _ = fail_allocations_in_turn(lambda: z["k"].drop_duplicates(), op)
        assert_series_like(got, pdf["k"].drop_duplicates(), op)
    else:
        got, _ = fail_allocations_in_turn(lambda: z["k"].nunique(dropna=False), op)
        assert got == pdf["k"].nunique(dropna=False)
