"""Plain string keys (issue #21) against pandas: group-by, unique, nunique,
value_counts, duplicated, drop_duplicates, isin, merge and the cast to
category, on random strings with nulls at several cardinalities.

Few distinct strings take the parallel string-codes path
(src/cpu/strcodes.c); many distinct strings (more than one worker's table
allows, ZB_STRING_CODES_MAX_GROUPS = 2^18) fall back to hashing the rows,
so one test runs above that bound.  The data covers empty strings next to
nulls, strings longer than 16 bytes that share their first 16 (or 64)
bytes, strings over 32 bytes that differ only between their first and
last 16 bytes, runs of one byte of 17 to 46 bytes, strings of 38 to 48
bytes around the 40 the codes' worker tables hold whole, and strings of one
length that differ in one byte (the packed keys and the hash must not
confuse them).
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like

N = 3000


def _pool(kind, k, rng):
    """k distinct strings of one kind."""
    ids = np.arange(k)
    if kind == "short":  # 1 to 12 bytes, "" included
        s = np.char.add("k", ids.astype(str)).astype(object)
        s[0] = ""
        if k >= 4:  # equal but for a trailing NUL byte
            s[2], s[3] = "k1\x00", "\x00"
        return s
    if kind == "long":  # > 16 bytes, the first 16 (and for some 64) shared
        pre = np.where(ids % 2 == 0, "p" * 16, "q" * 70)
        return np.char.add(pre, ids.astype(str)).astype(object)
    if kind == "onebyte":  # one length (8 or 20 bytes), one byte different
        base8, base20 = "abcdefgh", "abcdefghijklmnopqrst"
        out = []
        for x in range(k):  # k is small: building the pool, not the rows
            base = base8 if x % 2 else base20
            pos, ch = (x // 2) % len(base), chr(ord("A") + (x // 2) // len(base) % 26)
            out.append(base[:pos] + ch + base[pos + 1:])
        return np.array(sorted(set(out)), dtype=object)
    if kind == "unicode":
        return np.char.add("Łódź-ß-", ids.astype(str)).astype(object)
    if kind == "middle":  # over 32 bytes: only the middle differs; runs of one byte
        mid = np.char.zfill(ids.astype(str), 12)
        s = np.char.add(np.char.add("m" * 16, mid), "z" * 16).astype(object)
        s[: min(k, 30)] = ["a" * (17 + x) for x in range(min(k, 30))]  # 17..46 bytes
        return s
    if kind == "wide":  # 38 to 48 bytes around the 40 the codes' tables hold
        # whole: one 40-byte prefix, then a byte or two that differ, or none
        # (a string of 40 and one of 41 that ends in a NUL byte)
        base = "w" * 20 + "é" * 10  # 40 bytes, non-ASCII in its second half
        out = [base, base + "\x00", base[:38], base[:39], base[:-2] + "e"]
        out += [base + chr(ord("A") + x % 26) * (1 + x // 26) for x in range(max(k - 5, 0))]
        return np.array(out[:k], dtype=object)
    raise AssertionError(kind)


def _keys(n, k, rng, kind="short", null_frac=0.1):
    """A pandas str Series of n keys drawn from k distinct strings, nulls."""
    pool = _pool(kind, k, rng)
    v = pool[rng.integers(0, len(pool), n)]
    v[rng.random(n) < null_frac] = None
    return pd.Series(v, dtype="str")


CARDS = [1, 3, 1000, N]
KINDS = ["short", "long", "onebyte", "unicode", "middle", "wide"]


@pytest.mark.parametrize("card", CARDS)
@pytest.mark.parametrize("kind", KINDS)
def test_groupby_one_string_key(card, kind):
    rng = np.random.default_rng(card * 7 + len(kind))
    pdf = pd.DataFrame({"k": _keys(N, card, rng, kind), "v": rng.random(N),
                        "i": rng.integers(-5, 5, N)})
    z = zb.from_pandas(pdf)
    for sort in (True, False):
        for dropna in (True, False):
            what = f"{kind} card={card} sort={sort} dropna={dropna}"
            exp = pdf.groupby("k", sort=sort, dropna=dropna).agg(
                {"v": ["sum", "mean", "min", "max", "count", "std"], "i": ["sum", "nunique"]})
            got = z.groupby("k", sort=sort, dropna=dropna).agg(
                {"v": ["sum", "mean", "min", "max", "count", "std"], "i": ["sum", "nunique"]})
            assert_frame_like(got, exp, what, **SUM_TOL)
            assert_series_like(z.groupby("k", sort=sort, dropna=dropna).size(),
                               pdf.groupby("k", sort=sort, dropna=dropna).size(), what)


@pytest.mark.parametrize("agg", ["sum", "mean", "min", "max", "count", "first", "last",
                                 "median", "var", "prod", "nunique", "size"])
def test_groupby_every_aggregation(agg):
    rng = np.random.default_rng(5)
    pdf = pd.DataFrame({"k": _keys(N, 40, rng, "long"), "v": rng.random(N)})
    pdf.loc[rng.random(N) < 0.1, "v"] = np.nan
    z = zb.from_pandas(pdf)
    for sort in (True, False):
        exp = getattr(pdf.groupby("k", sort=sort)["v"], agg)()
        got = getattr(z.groupby("k", sort=sort)["v"], agg)()
        assert_series_like(got, exp, f"{agg} sort={sort}", **SUM_TOL)


@pytest.mark.parametrize("dropna", [True, False])
@pytest.mark.parametrize("sort", [True, False])
def test_groupby_multi_key(sort, dropna):
    rng = np.random.default_rng(11)
    pdf = pd.DataFrame({"a": _keys(N, 30, rng, "short"), "b": rng.integers(0, 4, N),
                        "c": _keys(N, 5, rng, "onebyte"),
                        "f": rng.integers(0, 3, N).astype(float), "v": rng.random(N)})
    pdf.loc[rng.random(N) < 0.05, "f"] = np.nan
    z = zb.from_pandas(pdf)
    for keys in (["a", "b"], ["a", "c", "f"], ["c", "a"]):
        what = f"{keys} sort={sort} dropna={dropna}"
        exp = pdf.groupby(keys, sort=sort, dropna=dropna)["v"].agg(["sum", "count"])
        got = z.groupby(keys, sort=sort, dropna=dropna)["v"].agg(["sum", "count"])
        assert_frame_like(got, exp, what, **SUM_TOL)


def test_groupby_many_distinct_falls_back():
    """More distinct strings than one worker's codes table takes (one
    thread, 2^18): the partitioned path, same answers."""
    rng = np.random.default_rng(3)
    n = 300_000
    pool = np.char.add("s", np.arange(n).astype(str)).astype(object)
    pool[::2] = np.char.add("a much longer shared prefix ", pool[::2].astype(str))
    idx = rng.permutation(n)
    idx[: n // 10] = idx[n // 10: n // 5]  # 10% repeated keys
    k = pd.Series(pool[rng.permutation(idx)], dtype="str")
    k[rng.random(n) < 0.01] = None
    pdf = pd.DataFrame({"k": k, "v": rng.integers(0, 10, n)})
    z = zb.from_pandas(pdf)
    old = zb.get_num_threads()
    try:
        zb.set_num_threads(1)
        for sort, dropna in ((True, True), (False, False)):
            assert_series_like(z.groupby("k", sort=sort, dropna=dropna)["v"].sum(),
                               pdf.groupby("k", sort=sort, dropna=dropna)["v"].sum(),
                               f"sort={sort} dropna={dropna}")
        assert_frame_like(z.drop_duplicates("k"), pdf.drop_duplicates("k"), "drop_duplicates")
        assert z["k"].nunique() == pdf["k"].nunique()
    finally:
        zb.set_num_threads(old)


@pytest.mark.parametrize("card", CARDS)
@pytest.mark.parametrize("kind", ["short", "long", "onebyte", "wide"])
def test_distinct_operations(card, kind):
    rng = np.random.default_rng(card + 100 * len(kind))
    ps = _keys(N, card, rng, kind).rename("k")
    zs = zb.from_pandas(ps.to_frame())["k"]
    what = f"{kind} card={card}"
    # zambezi's unique is a Series (pandas: an array; docs/api.md)
    assert_series_like(zs.unique(), pd.Series(ps.unique(), name="k"), what)
    for dropna in (True, False):
        assert zs.nunique(dropna=dropna) == ps.nunique(dropna=dropna), what
        for sort in (True, False):
            assert_series_like(zs.value_counts(sort=sort, dropna=dropna),
                               ps.value_counts(sort=sort, dropna=dropna), what)
    for keep in ("first", "last", False):
        assert_series_like(zs.duplicated(keep=keep), ps.duplicated(keep=keep), f"{what} {keep}")
        assert_series_like(zs.drop_duplicates(keep=keep), ps.drop_duplicates(keep=keep),
                           f"{what} {keep}")
    vals = list(_pool(kind, max(card, 2), rng)[: max(card // 2, 1)]) + ["absent", ""]
    assert_series_like(zs.isin(vals), ps.isin(vals), what)
    assert_series_like(zs.astype("category"), ps.astype("category"), what)


@pytest.mark.parametrize("keep", ["first", "last", False])
def test_frame_duplicates_mixed_keys(keep):
    rng = np.random.default_rng(17)
    pdf = pd.DataFrame({"a": _keys(N, 20, rng, "long"), "b": rng.integers(0, 3, N),
                        "c": _keys(N, 4, rng, "short", 0.3)})
    z = zb.from_pandas(pdf)
    for subset in (["a"], ["a", "b"], ["c", "a", "b"]):
        assert_series_like(z.duplicated(subset, keep=keep), pdf.duplicated(subset, keep=keep),
                           f"{subset}")
        assert_frame_like(z.drop_duplicates(subset, keep=keep),
                          pdf.drop_duplicates(subset, keep=keep), f"{subset}")


@pytest.mark.parametrize("how", ["inner", "left", "outer"])
@pytest.mark.parametrize("kind", ["short", "long", "onebyte"])
def test_merge_string_key(how, kind):
    # keys without nulls: zambezi's null keys match nothing (docs/api.md)
    rng = np.random.default_rng(len(kind) * 3 + len(how))
    left = pd.DataFrame({"k": _keys(N, 200, rng, kind, 0.0), "x": rng.random(N)})  # float: gains NaN
    right = pd.DataFrame({"k": _keys(300, 250, rng, kind, 0.0), "y": rng.random(300)})
    exp = left.merge(right, on="k", how=how)
    got = zb.from_pandas(left).merge(zb.from_pandas(right), on="k", how=how)
    if how == "outer":  # pandas sorts outer joins by key; compare as sets of rows
        assert_frame_like(got, exp, how, any_order=True)
    else:
        assert_frame_like(got, exp, how)


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize("kind", ["short", "long", "middle", "unicode", "onebyte"])
def test_merge_string_key_partitioned(how, kind):
    # both sides over 65536 rows: the radix-partitioned join (its packed
    # keys compare the 16-byte prefix, then bytes past it: "middle" and
    # "long" keys share their prefixes); some keys repeat, some match nothing
    rng = np.random.default_rng(len(kind) * 5 + len(how))
    pool = _pool(kind, 90_000, rng) if kind != "onebyte" else _pool(kind, 800, rng)
    nl, nr = 150_000, 100_000
    lk = pool[rng.integers(0, len(pool), nl)]
    rk = pool[rng.integers(0, len(pool) * 5 // 6, nr)]  # the last sixth: left only
    left = pd.DataFrame({"k": pd.Series(lk, dtype="str"), "x": rng.random(nl)})
    right = pd.DataFrame({"k": pd.Series(rk, dtype="str"), "y": rng.random(nr)})  # floats: gain NaN
    if kind == "onebyte":  # few keys: keep the output small
        left, right = left.iloc[:70_000], right.drop_duplicates("k")
        right = pd.concat([right, pd.DataFrame({"k": pd.Series(
            [f"pad{i}" for i in range(70_000)], dtype="str"), "y": 0.5})], ignore_index=True)
    exp = left.merge(right, on="k", how=how)
    got = zb.from_pandas(left).merge(zb.from_pandas(right), on="k", how=how)
    assert_frame_like(got, exp, f"{kind} {how}", any_order=how == "outer")


def test_empty_and_all_null():
    for ps in (pd.Series([], dtype="str"), pd.Series([None, None], dtype="str"),
               pd.Series(["", None, "", None], dtype="str")):
        pdf = pd.DataFrame({"k": ps, "v": np.arange(len(ps), dtype="int64")})
        z = zb.from_pandas(pdf)
        for dropna in (True, False):
            assert_series_like(z.groupby("k", dropna=dropna)["v"].sum(),
                               pdf.groupby("k", dropna=dropna)["v"].sum(), repr(ps.tolist()))
        assert_series_like(z["k"].value_counts(dropna=False),
                           pdf["k"].value_counts(dropna=False), repr(ps.tolist()))
        assert z["k"].nunique() == pdf["k"].nunique()


def test_string_codes_independent_of_threads():
    rng = np.random.default_rng(23)
    n = 200_000  # several morsels, so several workers meet the strings
    pdf = pd.DataFrame({"k": _keys(n, 5000, rng, "long"), "v": rng.integers(0, 5, n)})
    z = zb.from_pandas(pdf)
    old = zb.get_num_threads()
    try:
        res = []
        for t in (1, 3):
            zb.set_num_threads(t)
            res.append(z.groupby("k", sort=False)["v"].sum().to_pandas())
        pd.testing.assert_series_equal(res[0], res[1])
        assert_series_like(z.groupby("k", sort=False)["v"].sum(),
                           pdf.groupby("k", sort=False)["v"].sum())
    finally:
        zb.set_num_threads(old)


@pytest.mark.parametrize("make,values", [
    (lambda: pd.Series(["a", "", None, "b"], dtype="str"), ["a", None]),
    (lambda: pd.Series(["a", "", None, "b"], dtype="str"), [np.nan]),
    (lambda: pd.Series(["a", "", None, "b"], dtype="str"), ["a"]),
    (lambda: pd.Series(["a", None], dtype="category"), [None]),
    (lambda: pd.Series([1.0, np.nan, 3.0]), [np.nan, 3.0]),
    (lambda: pd.Series([1.0, np.nan, 3.0]), [None, 3.0]),
    (lambda: pd.Series(pd.to_datetime(["2024-01-01", None])), [pd.NaT]),
    (lambda: pd.Series(pd.to_datetime(["2024-01-01", None])), [None]),
    (lambda: pd.Series(pd.to_timedelta([1, None], unit="h")), [pd.NaT]),
    (lambda: pd.Series([1, None, 3], dtype="Int64"), [1, None]),
    (lambda: pd.Series([1, None, 3], dtype="Int64"), [1, pd.NA]),
    (lambda: pd.Series([True, None], dtype="boolean"), [pd.NA]),
    (lambda: pd.Series([1.0, np.nan]), [pd.NA]),
    (lambda: pd.Series(["a", None], dtype="str"), [pd.NA, "a"]),
])
def test_isin_missing_values_as_pandas(make, values):
    # pandas matches a missing value in values with the column's missing
    # values: any for text and categoricals, NaN for floats, NaT for times,
    # NA for nullable ints and bools
    p = make()
    got = zb.Series(p).isin(values).to_pandas().tolist()
    assert got == p.isin(values).tolist()


@pytest.mark.parametrize("kind", ["short", "wide", "middle", "unicode"])
def test_string_codes_wide_then_packed(kind):
    # a worker's codes table moves from whole 40-byte keys to packed ones
    # past 4096 distinct strings (src/cpu/strcodes.c SW_MAX_WIDE), keeping
    # the ids it gave; with one thread and with several
    rng = np.random.default_rng(31 + len(kind))
    n = 150_000
    pdf = pd.DataFrame({"k": _keys(n, 9000, rng, kind, null_frac=0.05),
                        "v": rng.integers(0, 5, n)})
    z = zb.from_pandas(pdf)
    old = zb.get_num_threads()
    try:
        for t in (1, 3):
            zb.set_num_threads(t)
            what = f"{kind} threads={t}"
            for sort in (True, False):
                assert_series_like(z.groupby("k", sort=sort)["v"].sum(),
                                   pdf.groupby("k", sort=sort)["v"].sum(), what)
            assert_series_like(z["k"].value_counts(), pdf["k"].value_counts(), what)
            assert_series_like(z["k"].astype("category"), pdf["k"].astype("category"), what)
    finally:
        zb.set_num_threads(old)
