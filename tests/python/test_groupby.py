"""DataFrame.groupby against pandas: every aggregation, key dtypes (int,
nullable int, string with None, categorical, bool, date, several keys),
nulls in keys with dropna True/False, sort True/False, sizes 0..100_001,
thread counts 1 and 3, head/tail/nth/transform/cumcount and corr."""

import re

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like

ALL_OPS = ["sum", "mean", "min", "max", "count", "std", "var", "median", "first", "last",
           "nunique", "prod", "any", "all"]


def _frame(n, seed, key_card=7):
    rng = np.random.default_rng(seed)

    def nulls(p):
        return rng.random(n) < p

    ki = rng.integers(-3, key_card, n)
    kn = pd.array(ki, dtype="Int64")
    kn[nulls(0.1)] = pd.NA
    words = np.array(["apple", "b", "cherry", "", "dd", "zz", "Ä"])
    ks = pd.array(words[rng.integers(0, len(words), n)], dtype="string")
    ks[nulls(0.1)] = pd.NA
    cats = pd.Categorical(words[rng.integers(0, 4, n)], categories=["dd", "cherry", "apple", "b", ""])
    kb = pd.array(rng.random(n) < 0.4, dtype="boolean")
    kb[nulls(0.1)] = pd.NA
    days = np.datetime64("2020-01-01") + rng.integers(0, 5, n).astype("timedelta64[D]")
    vi = rng.integers(-1000, 1000, n)
    vn = pd.array(rng.integers(-50, 50, n), dtype="Int64")
    vn[nulls(0.2)] = pd.NA
    vf = rng.normal(10, 5, n).round(3)
    vf[nulls(0.15)] = np.nan
    vsmall = rng.integers(-2, 3, n)
    vb = pd.array(rng.random(n) < 0.7, dtype="boolean")
    vb[nulls(0.1)] = pd.NA
    vs = pd.array(words[rng.integers(0, len(words), n)], dtype="string")
    vs[nulls(0.2)] = pd.NA
    return pd.DataFrame({"ki": ki, "kn": kn, "ks": ks, "kc": cats, "kb": kb,
                         "kd": days.astype("datetime64[s]"), "vi": vi, "vn": vn, "vf": vf,
                         "vsmall": vsmall, "vb": vb, "vs": vs})


# aggregations whose float results zambezi computes in another order than
# pandas (sums, products, moments; median and quantile interpolate between
# two values with another formula, 1 ulp apart): compared within SUM_TOL;
# every other column (min, max, first, last, counts, keys ...) exactly
APPROX_OPS = ("sum", "mean", "std", "var", "prod", "median", "quantile")


def _approx(spec):
    """The output columns of a named-aggregation spec compared within
    SUM_TOL."""
    return [out for out, (_, op) in spec.items() if op in APPROX_OPS]


def assert_same(got, exp, ctx="", approx=()):
    """got: zambezi DataFrame; exp: pandas' answer (see pandas_compare):
    dtypes, index and values; floats in the columns named in approx within
    SUM_TOL, all else exact."""
    assert_frame_like(got, exp, str(ctx), approx=approx, **SUM_TOL)


def _dropped_keys_null(exp, dropna):
    """pandas' per-row result exp (transform, cumcount) as zambezi gives it:
    the rows whose key dropna dropped are null in an integer column (as
    zambezi._groupby documents), where pandas turns the column into float64
    with NaN."""
    if dropna and exp.dtype == np.float64:
        return exp.astype("Int64")
    return exp


def _expected(pdf, keys, dropna, sort, spec):
    gb = pdf.groupby(keys, dropna=dropna, sort=sort, observed=True)
    return gb.agg(**spec)


def _spec(ops, cols):
    spec = {}
    for c in cols:
        for op in ops:
            spec[f"{c}_{op}"] = (c, op)
    return spec


def _ok(op, col):
    if col in ("vs",) and op in ("sum", "mean", "std", "var", "median", "prod", "any", "all"):
        return False
    if col == "vb" and op in ("std", "var", "median", "min", "max", "prod"):
        return False  # pandas' boolean dtype refuses or differs (object results)
    return True


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("n", [0, 1, 2, 1000, 100_001])
def test_all_aggregations_int_key(n, threads):
    zb.set_num_threads(threads)
    try:
        pdf = _frame(n, n + 1)
        df = zb.DataFrame(pdf)
        cols = ["vi", "vn", "vf", "vsmall", "vb", "vs"]
        spec = {f"{c}_{op}": (c, op) for c in cols for op in ALL_OPS if _ok(op, c)}
        for keys in (["ki"], ["kn"]):
            for dropna in (True, False):
                for sort in (True, False):
                    exp = _expected(pdf, keys, dropna, sort, spec)
                    got = df.groupby(keys, dropna=dropna, sort=sort).agg(**spec)
                    assert_same(got, exp, (keys, dropna, sort), _approx(spec))
    finally:
        zb.set_num_threads(2)


@pytest.mark.parametrize("keys", [["ks"], ["kc"], ["kb"], ["kd"], ["ks", "kn"],
                                  ["kc", "kb", "ki"], ["kb", "kn"], ["kn", "kc", "ki"]])
@pytest.mark.parametrize("n", [1, 2, 1000, 100_001])
def test_key_dtypes(keys, n):
    pdf = _frame(n, 7 * n + len(keys))
    df = zb.DataFrame(pdf)
    spec = {"s": ("vi", "sum"), "m": ("vf", "mean"), "c": ("vn", "count"), "sz": ("vi", "size"),
            "mx": ("vs", "max"), "md": ("vf", "median"), "nu": ("vs", "nunique"),
            "sd": ("vf", "std"), "fi": ("vn", "first"), "la": ("vs", "last")}
    for dropna in (True, False):
        for sort in (True, False):
            exp = _expected(pdf, keys, dropna, sort, spec)
            got = df.groupby(keys, dropna=dropna, sort=sort).agg(**spec)
            assert_same(got, exp, (keys, dropna, sort), _approx(spec))


@pytest.mark.parametrize("threads", [1, 3])
def test_threads_identical_and_many_groups(threads):
    n = 300_007
    rng = np.random.default_rng(5)
    pdf = pd.DataFrame({"k": rng.integers(0, 10**12, n) // 3 * 3,  # wide: hashed
                        "k2": rng.integers(0, 100_000, n),          # 10^5 groups: scan
                        "k3": rng.permutation(n) // 1,              # > 2^18 groups: csr
                        "v": rng.normal(0, 1, n), "i": rng.integers(-10**6, 10**6, n)})
    df = zb.DataFrame(pdf)
    spec = {"s": ("v", "sum"), "m": ("v", "mean"), "si": ("i", "sum"), "sd": ("v", "std"),
            "mn": ("i", "min"), "q": ("v", "median")}
    zb.set_num_threads(threads)
    try:
        for keys in (["k"], ["k2"], ["k3"], ["k2", "k"]):
            for sort in (True, False):
                got = df.groupby(keys, sort=sort).agg(**spec)
                exp = _expected(pdf, keys, True, sort, spec)
                assert_same(got, exp, (keys, sort), _approx(spec))
        # > 2^18 groups without median: each task owns a range of groups
        spec2 = {"s": ("v", "sum"), "m": ("v", "mean"), "si": ("i", "sum"),
                 "sd": ("v", "std"), "mn": ("i", "min"), "mx": ("v", "max"),
                 "fi": ("i", "first"), "la": ("v", "last"), "c": ("v", "count"),
                 "p": ("i", "prod"), "c2": ("v", "count"), "n": ("i", "size"),
                 "n2": ("v", "size")}  # counts shared by two results
        for keys in (["k3"], ["k2", "k3"]):  # k2 x k3: too many for direct, packed
            for sort in (True, False):
                got = df.groupby(keys, sort=sort).agg(**spec2)
                assert_same(got, _expected(pdf, keys, True, sort, spec2), (keys, sort),
                            _approx(spec2))
        runs = [(keys, sp, df.groupby(keys).agg(**sp).to_pandas())
                for keys, sp in (("k2", spec), ("k3", spec), ("k3", spec2))]
        zb.set_num_threads(1 if threads == 3 else 3)
        for keys, sp, a in runs:
            b = df.groupby(keys).agg(**sp).to_pandas()
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        # more threads than owned group ranges allow: the rows are ordered by
        # group instead, and every value is still the same
        zb.set_num_threads(6)
        for keys, sp, a in runs:
            b = df.groupby(keys).agg(**sp).to_pandas()
            pd.testing.assert_frame_equal(a, b, check_exact=True)
    finally:
        zb.set_num_threads(2)


@pytest.mark.parametrize("threads", [2, 3])
def test_hashed_single_key_with_nulls_vs_pandas(threads):
    """One hashed 64-bit key over several partitions: its keys move with
    the rows into partition order (nulls dropped first, or kept as a group
    through the general path); int32 and float keys (NaN as missing, -0.0
    equal to 0.0) take the same path."""
    n = 300_007
    rng = np.random.default_rng(21)
    k = pd.array(rng.integers(0, 10**12, n) // 7 * 7, dtype="Int64")
    k[rng.random(n) < 0.03] = pd.NA
    k[rng.integers(0, n, 5000)] = 42  # one large group among small ones
    f = rng.integers(-10**6, 10**6, n) / 8.0
    f[rng.random(n) < 0.02] = np.nan
    f[rng.integers(0, n, 1000)] = -0.0
    pdf = pd.DataFrame({"k": k, "k32": rng.integers(-2**31, 2**31 - 1, n, dtype=np.int32) // 5,
                        "f": f, "v": rng.normal(0, 1, n), "i": rng.integers(-50, 50, n)})
    df = zb.from_pandas(pdf)
    spec = {"s": ("v", "sum"), "n": ("i", "size"), "mn": ("i", "min"), "fv": ("v", "first")}
    zb.set_num_threads(threads)
    try:
        for key in ("k", "k32", "f"):
            for dropna in (True, False):
                for sort in (True, False):
                    got = df.groupby(key, dropna=dropna, sort=sort).agg(**spec)
                    exp = _expected(pdf, [key], dropna, sort, spec)
                    assert_same(got, exp, (key, dropna, sort), _approx(spec))
    finally:
        zb.set_num_threads(2)


@pytest.mark.parametrize("threads", [1, 3])
def test_wide_direct_key_vs_pandas(threads):
    """An integer key spanning more than 2^18 values but no more than the
    rows call for is still indexed directly (no hashing)."""
    n = 600_000
    rng = np.random.default_rng(12)
    k = pd.array(rng.integers(5, 300_005, n), dtype="Int64")
    k[rng.random(n) < 0.02] = pd.NA
    pdf = pd.DataFrame({"k": k, "v": rng.normal(0, 1, n), "i": rng.integers(0, 50, n)})
    df = zb.from_pandas(pdf)
    spec = {"s": ("v", "sum"), "mx": ("i", "max"), "n": ("i", "size"), "md": ("v", "median"),
            "u": ("i", "nunique"), "f": ("v", "first")}
    zb.set_num_threads(threads)
    try:
        for dropna in (True, False):
            for sort in (True, False):
                got = df.groupby("k", dropna=dropna, sort=sort).agg(**spec)
                assert_same(got, _expected(pdf, ["k"], dropna, sort, spec), (dropna, sort),
                            _approx(spec))
    finally:
        zb.set_num_threads(2)


def test_sliced_frame_keys_vs_pandas():
    """Keys and values that start inside their buffers (a slice): group ids
    computed from the keys block by block must honour the offset."""
    n = 200_003
    rng = np.random.default_rng(13)
    k1 = pd.array(rng.integers(0, 40, n), dtype="Int64")
    k1[rng.random(n) < 0.05] = pd.NA
    pdf = pd.DataFrame({"k1": k1, "k2": rng.integers(-5, 5, n),
                        "c": pd.Categorical(rng.choice(["x", "y", "z"], n)),
                        "v": rng.normal(0, 1, n), "i": rng.integers(0, 9, n).astype(np.int32)})
    df = zb.from_pandas(pdf)
    part, ppart = df.iloc[70_001:], pdf.iloc[70_001:]
    spec = {"s": ("v", "sum"), "si": ("i", "sum"), "m": ("i", "mean"), "md": ("v", "median"),
            "n": ("v", "size")}
    for keys in (["k1"], ["k1", "k2"], ["c", "k2"]):
        for dropna in (True, False):
            got = part.groupby(keys, dropna=dropna, sort=True).agg(**spec)
            exp = _expected(ppart, keys, dropna, True, spec)
            assert_same(got, exp, (keys, dropna), _approx(spec))
    got = part.groupby("k1").cumcount()
    assert_series_like(got, _dropped_keys_null(ppart.groupby("k1").cumcount(), True))


@pytest.mark.parametrize("dropna", [True, False])
def test_several_wide_integer_keys_vs_pandas(dropna):
    """Integer keys whose ranges multiply past direct indexing but fit in 62
    bits are grouped as one packed int64 key: nulls in any key, dropna and
    sort as pandas has them."""
    n = 50_000
    rng = np.random.default_rng(11)

    def key(lo, hi, p):
        k = pd.array(rng.integers(lo, hi, n), dtype="Int64")
        k[rng.random(n) < p] = pd.NA
        return k

    pdf = pd.DataFrame({"a": key(-50, 50, 0.05), "b": key(0, 3000, 0.0),
                        "c": key(10**6, 10**6 + 5000, 0.02),
                        "v": rng.normal(0, 1, n), "w": rng.integers(0, 9, n)})
    df = zb.from_pandas(pdf)
    spec = {"s": ("v", "sum"), "n": ("w", "size"), "mx": ("w", "max"), "f": ("v", "first")}
    for keys in (["a", "b", "c"], ["c", "a"], ["b", "c"]):
        for sort in (True, False):
            got = df.groupby(keys, dropna=dropna, sort=sort).agg(**spec)
            assert_same(got, _expected(pdf, keys, dropna, sort, spec), (keys, dropna, sort),
                        _approx(spec))


def test_float_sums_with_infinities():
    # the compensated sum must not turn inf into NaN (inf - inf)
    pdf = pd.DataFrame({"k": [1, 1, 2, 2, 3, 3, 4], "v": [np.inf, 1.0, -np.inf, 2.0,
                                                          np.inf, -np.inf, 1e308]})
    pdf.loc[len(pdf)] = [4, 1e308]
    df = zb.DataFrame(pdf)
    spec = {"s": ("v", "sum"), "m": ("v", "mean")}
    for sort in (True, False):
        assert_same(df.groupby("k", sort=sort).agg(**spec),
                    _expected(pdf, ["k"], True, sort, spec), sort, _approx(spec))


def test_one_group_and_each_row_own_group():
    n = 1000
    pdf = _frame(n, 3)
    pdf["one"] = 1
    pdf["own"] = np.arange(n)[::-1]
    df = zb.DataFrame(pdf)
    spec = {"s": ("vi", "sum"), "m": ("vf", "mean"), "v": ("vf", "var"), "q": ("vn", "median")}
    for k in ("one", "own"):
        for sort in (True, False):
            assert_same(df.groupby(k, sort=sort).agg(**spec),
                        _expected(pdf, [k], True, sort, spec), (k, sort), _approx(spec))


@pytest.mark.parametrize("threads", [1, 3])
def test_unique_keys_share_the_key_columns(threads):
    """When every row is its own group in row order (first appearance, or
    keys already sorted), the result's keys are the key columns themselves
    (no copy); one repeated key anywhere, or sorting that reorders, takes
    them row by row.  Both against pandas, across several morsels, with a
    null key (its own group when dropna=False)."""
    from conftest import alloc_bytes
    zb.set_num_threads(threads)
    n = 200_001
    rng = np.random.default_rng(5)
    perm = rng.permutation(n)
    words = pd.array([f"w{i}" for i in perm], dtype="string")
    words[7] = pd.NA
    pdf = pd.DataFrame({"u": perm, "s": words, "c": pd.Categorical(perm % 3),
                        "v": rng.normal(size=n)})
    df = zb.DataFrame(pdf)
    spec = {"v": ("v", "sum"), "n": ("v", "size")}
    for keys, sort in ((["u"], False), (["u", "c"], False), (["s"], False), (["u"], True),
                       (["s", "u"], True)):
        got = df.groupby(keys, sort=sort, dropna=False).agg(**spec)
        exp = _expected(pdf, keys, False, sort, spec)
        assert_same(got, exp, (keys, sort), _approx(spec))
    before = alloc_bytes()
    got = df.groupby(["u", "s"], sort=False, dropna=False).agg(**spec)
    assert alloc_bytes() - before < 3 * 8 * n, alloc_bytes() - before  # v and n only
    ordered = pdf.sort_values("u", ignore_index=True)
    assert_same(zb.DataFrame(ordered).groupby("u").agg(**spec),
                _expected(ordered, ["u"], True, True, spec), "sorted keys", _approx(spec))
    twice = pdf.copy()
    twice.loc[n - 1, "u"] = twice.loc[0, "u"]  # one key repeated: n - 1 groups
    assert_same(zb.DataFrame(twice).groupby("u", sort=False).agg(**spec),
                _expected(twice, ["u"], True, False, spec), "one repeat", _approx(spec))


def test_methods_and_selection():
    pdf = _frame(1000, 11)
    df = zb.DataFrame(pdf)
    gbz, gbp = df.groupby("kn"), pdf.groupby("kn")
    num = ["ki", "vi", "vn", "vf", "vsmall"]
    for op in ["sum", "mean", "std", "var", "median", "prod", "min", "max", "count", "first",
               "last", "nunique"]:
        assert_same(getattr(gbz[num], op)(), getattr(gbp[num], op)(), op,
                    num if op in APPROX_OPS else ())
    assert_series_like(gbz["vf"].quantile(0.3), gbp["vf"].quantile(0.3), "q", **SUM_TOL)
    assert_same(gbz[["vf", "vi"]].std(ddof=0), gbp[["vf", "vi"]].std(ddof=0),
                "std", ["vf", "vi"])
    assert_same(gbz[["vb"]].any(), gbp[["vb"]].any())
    assert_same(gbz[["vb"]].all(), gbp[["vb"]].all())
    assert_series_like(gbz.size(), gbp.size())
    # default column choice, as pandas 3: a numeric op raises TypeError on a
    # string column (numeric_only=True leaves it out), sum joins strings
    for g in (gbz, gbp):
        with pytest.raises(TypeError, match="does not support operation 'mean'"):
            g.mean()
    assert "vs" not in gbz.mean(numeric_only=True).columns
    assert "vs" in gbz[["vs", "vf"]].max().columns
    assert gbz["vs"].sum().to_list() == gbp["vs"].sum().to_list()
    # agg forms
    assert_same(gbz.agg({"vi": "sum", "vf": "mean"}),
                gbp.agg({"vi": "sum", "vf": "mean"}), "dict", ["vi", "vf"])
    assert_same(gbz[["vi", "vf"]].agg(["sum", "max"]), gbp[["vi", "vf"]].agg(["sum", "max"]),
                "list", [("vf", "sum"), ("vi", "sum")])
    assert_same(gbz[num].agg("mean")[["vf"]], gbp[["vf"]].mean(), "mean", ["vf"])


def test_head_tail_nth_transform_cumcount():
    pdf = _frame(1000, 21)
    df = zb.DataFrame(pdf)
    for dropna in (True, False):
        gbz, gbp = df.groupby("kn", dropna=dropna), pdf.groupby("kn", dropna=dropna)
        for n in (0, 1, 3, -1, -4):   # negative: all but the last (first) -n rows
            assert_same(gbz.head(n), gbp.head(n))
            assert_same(gbz.tail(n), gbp.tail(n))
        for n in (0, 2, -1, -3):
            assert_same(gbz.nth(n), gbp.nth(n), n)
        for op in ("sum", "mean", "max", "count"):
            got = gbz[["vi", "vf"]].transform(op)
            exp = gbp[["vi", "vf"]].transform(op)
            for c in {"sum": ["vi"], "max": ["vi"], "count": ["vi", "vf"]}.get(op, []):
                exp[c] = _dropped_keys_null(exp[c], dropna)
            assert_same(got, exp, (op, dropna), ["vi", "vf"] if op in APPROX_OPS else ())
        assert_series_like(gbz["vf"].transform("mean"), gbp["vf"].transform("mean"),
                           ("vf", dropna), **SUM_TOL)
        assert_series_like(gbz.cumcount(), _dropped_keys_null(gbp.cumcount(), dropna), dropna)


@pytest.mark.parametrize("threads", [1, 3])
def test_head_tail_cumcount_many_rows(threads):
    """Several chunks of rows (positions counted per chunk and carried over),
    string and integer keys with nulls, and more groups than the counters
    allow (rows ordered by group instead)."""
    n = 300_007
    rng = np.random.default_rng(8)
    kn = pd.array(rng.integers(0, 50, n), dtype="Int64")
    kn[rng.random(n) < 0.05] = pd.NA
    ks = pd.array(np.array(["a", "bb", "c", "dd", "eee"])[rng.integers(0, 5, n)],
                  dtype="string")
    ks[rng.random(n) < 0.05] = pd.NA
    pdf = pd.DataFrame({"kn": kn, "ks": ks, "own": rng.permutation(n),
                        "v": rng.normal(0, 1, n)})
    df = zb.DataFrame(pdf)
    zb.set_num_threads(threads)
    try:
        for key in ("kn", "ks", "own"):
            for dropna in (True, False):
                gbz, gbp = df.groupby(key, dropna=dropna), pdf.groupby(key, dropna=dropna)
                assert_same(gbz.head(2), gbp.head(2), (key, dropna))
                assert_same(gbz.tail(1), gbp.tail(1), (key, dropna))
                for asc in (True, False):
                    exp = _dropped_keys_null(gbp.cumcount(ascending=asc), dropna)
                    assert_series_like(gbz.cumcount(ascending=asc), exp, (key, dropna, asc))
    finally:
        zb.set_num_threads(2)


def test_cumcount_more_groups_than_counters():
    # 16 chunks x 10^6 groups pass the counters' budget: rows ordered by group
    n = 1_000_003
    rng = np.random.default_rng(9)
    pdf = pd.DataFrame({"k": rng.permutation(n) // 1, "v": np.arange(n)})
    pdf.loc[rng.random(n) < 0.01, "k"] = 7  # one big group among singletons
    df = zb.DataFrame(pdf)
    for asc in (True, False):
        assert_series_like(df.groupby("k").cumcount(ascending=asc),
                           pdf.groupby("k").cumcount(ascending=asc), asc)


def test_corr():
    pdf = _frame(5000, 4)
    df = zb.DataFrame(pdf)
    # pandas gives a per-group 2x2 matrix; its (vf, vi) entry is zambezi's
    exp = pdf.groupby("ks")[["vf", "vi"]].corr().xs("vf", level=1)["vi"]
    exp = exp.rename("corr")
    assert len(exp) == 7  # every key word is a group (the empty string too)
    assert_series_like(df.groupby("ks").corr("vf", "vi"), exp, "corr", **SUM_TOL)


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_sum_of_small_integers_keeps_the_dtype(op):
    pdf = pd.DataFrame({"k": [1, 1, 2], "v": np.array([1, 2, 3], dtype=np.int32)})
    assert_same(getattr(zb.from_pandas(pdf).groupby("k")[["v"]], op)(),
                getattr(pdf.groupby("k")[["v"]], op)())


def test_errors():
    df = zb.DataFrame(_frame(10, 1))
    with pytest.raises(zb.errors.ColumnNotFoundError):
        df.groupby("nope")
    with pytest.raises(zb.errors.ColumnNotFoundError):
        df.groupby("ki")["nope"]
    with pytest.raises(TypeError):
        df.groupby("ki")["vs"].mean()
    with pytest.raises(TypeError):
        df.groupby("ki")["kc"].max()  # unordered categories
    with pytest.raises(ValueError):
        df.groupby("ki").agg({"vi": "avg"})
    with pytest.raises(ValueError):
        df.groupby("ki")["vf"].quantile(2.0)


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_integer_means_exact_near_the_limits(dtype, threads):
    """Group means of integers whose sums need more than 64 bits: the exact
    quotient correctly rounded, as Series.mean gives it (converting the sum
    and then dividing misses the nearest double about one time in four).
    Oracle: Python fractions."""
    from fractions import Fraction
    info = np.iinfo(dtype)
    rng = np.random.default_rng(11)
    n, groups = 60_000, 40
    values = rng.integers(info.max - 2**50, info.max, n, dtype=dtype, endpoint=True)
    if info.min < 0:
        values[::3] = rng.integers(info.min, info.min + 2**50, (n + 2) // 3, dtype=dtype)
    keys = rng.integers(0, groups, n)
    zb.set_num_threads(threads)
    try:
        df = zb.DataFrame({"k": keys, "v": values})
        got = df.groupby("k").agg(m=("v", "mean"))
        for k, m in zip(got.index.to_list(), got["m"].to_list()):
            sel = [int(v) for v in values[keys == k]]
            assert m == float(Fraction(sum(sel), len(sel))), (dtype, k)
        one = zb.DataFrame({"k": np.zeros(n, dtype=np.int64), "v": values})
        assert one.groupby("k").agg(m=("v", "mean"))["m"].to_list() == [zb.Series(values).mean()]
    finally:
        zb.set_num_threads(2)


@pytest.mark.parametrize("seed", [1, 2])
def test_groupby_sum_joins_strings_as_pandas(seed):
    # pandas' sum of a string column joins each group's strings in row
    # order, leaving missing values out ('' for a group with none);
    # numeric_only=True leaves the column out
    rng = np.random.default_rng(seed)
    n = 3000
    s = pd.Series(rng.choice(["a", "bb", "çé", "", None], n).tolist(), dtype="str")
    p = pd.DataFrame({"k": rng.integers(0, 60, n), "s": s, "v": rng.random(n)})
    p.loc[p.k == 7, "s"] = None
    z = zb.from_pandas(p)
    pd.testing.assert_frame_equal(z.groupby("k").sum().to_pandas(), p.groupby("k").sum(),
                                  check_dtype=False, check_index_type=False)
    pd.testing.assert_series_equal(z.groupby("k")["s"].sum().to_pandas(),
                                   p.groupby("k")["s"].sum(), check_dtype=False,
                                   check_index_type=False)
    pd.testing.assert_frame_equal(z.groupby("k").agg({"s": "sum", "v": "max"}).to_pandas(),
                                  p.groupby("k").agg({"s": "sum", "v": "max"}),
                                  check_dtype=False, check_index_type=False)
    pd.testing.assert_frame_equal(z.groupby("k").sum(numeric_only=True).to_pandas(),
                                  p.groupby("k").sum(numeric_only=True),
                                  check_dtype=False, check_index_type=False)


@pytest.mark.parametrize("how", ["sum", "mean", "median", "min", "max", "std", "var", "prod",
                                 "first", "last"])
def test_groupby_numeric_only_keeps_numbers_and_bools(how):
    # pandas' numeric_only=True keeps int, float and bool columns: timestamps,
    # durations, strings and categoricals are left out, whatever the
    # aggregation could do with them
    rng = np.random.default_rng(3)
    n = 200
    p = pd.DataFrame({"k": rng.integers(0, 7, n), "i": rng.integers(-5, 5, n),
                      "f": rng.normal(size=n).round(3), "b": rng.random(n) < 0.5,
                      "t": pd.Timestamp("2024-01-01") + pd.to_timedelta(
                          rng.integers(0, 10**6, n), unit="s"),
                      "d": pd.to_timedelta(rng.integers(0, 10**6, n), unit="s"),
                      "s": rng.choice(["x", "y", "z"], n).tolist(),
                      "c": pd.Categorical(rng.choice(["u", "v"], n).tolist(), ordered=True)})
    z = zb.from_pandas(p)
    want = getattr(p.groupby("k"), how)(numeric_only=True)
    got = getattr(z.groupby("k"), how)(numeric_only=True)
    assert list(got.columns) == list(want.columns) == ["i", "f", "b"]
    assert_frame_like(got, want, how, rtol=1e-9)
    for col in ("t", "d"):
        with pytest.raises(TypeError, match="numeric_only=True"):
            getattr(p.groupby("k")[col], how)(numeric_only=True)
        with pytest.raises(TypeError, match="numeric_only=True"):
            getattr(z.groupby("k")[col], how)(numeric_only=True)


def test_groupby_levels_refused_as_pandas_refuses():
    # a single-level index: no levels, several levels, or a level past 0/-1
    p = pd.Series([1, 2, 3, 10, 4], pd.Index([1, 2, 1, 2, 3], name="foo"))
    z = zb.Series(p)
    for level in ([], [0, 0], [0, 1], 1, -2, [1]):
        with pytest.raises(ValueError) as exp:
            p.groupby(level=level)
        with pytest.raises(ValueError, match=re.escape(str(exp.value))):
            z.groupby(level=level)
    for level in (0, [0], -1, [-1], "foo"):
        assert z.groupby(level=level).sum().to_pandas().tolist() == \
            p.groupby(level=level).sum().tolist()
    pf = pd.DataFrame({"v": [1.0, 2.0, 3.0]}, index=pd.Index(["a", "b", "a"], name="k"))
    with pytest.raises(ValueError, match="No group keys passed!"):
        zb.DataFrame(pf).groupby(level=[])


def test_groupby_median_of_infinities_and_huge_values_as_pandas():
    # the halfway point of a median is (x0 + x1) / 2, as pandas' (and the
    # Series median): two equal infinities give that infinity, -x and x give
    # 0 without overflowing; quantile(0.5) interpolates as pandas' quantile
    inf = np.inf
    p = pd.DataFrame({"k": [1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5],
                      "v": [inf, inf, -1.7e308, 1.7e308, -inf, -inf, 1.0, inf, 2.0,
                            -inf, inf]})
    z = zb.from_pandas(p)
    for many in (False, True):  # one key, and two keys (another grouping path)
        keys = ["k", "c"] if many else "k"
        pp = p.assign(c=0) if many else p
        zz = zb.from_pandas(pp)
        want = pp.groupby(keys)["v"].median()
        got = zz.groupby(keys)["v"].median().to_pandas()
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    assert z.groupby("k").agg({"v": "median"}).to_pandas()["v"].tolist()[:2] == [inf, 0.0]
    want = p.groupby("k")["v"].quantile(0.5).to_numpy()
    got = z.groupby("k")["v"].quantile(0.5).to_pandas().to_numpy()
    np.testing.assert_array_equal(got, want)


_PY_FRAME = {"k": [1, 1, 2, 2, 3], "i": [3, 1, 2, 5, 4], "f": [0.1, 0.2, 0.3, 0.4, 0.7],
             "v": [float("nan"), 1.0, 2.0, float("nan"), 3.0], "s": ["b", "a", "c", "d", "e"]}


@pytest.mark.parametrize("col", ["i", "f", "v", "s"])
@pytest.mark.parametrize("func", [max, min, sum])
@pytest.mark.parametrize("how", ["agg", "transform", "agg list"])
def test_python_builtins_per_group_as_pandas_3(col, func, how):
    # pandas 3 calls Python's max / min / sum per group as functions (max
    # of [nan, 1.0] is nan, a float sum adds in order): zambezi gives the
    # same answer, serving them with its own aggregation only where that
    # is the same (numbers without missing values, integer sums), calling
    # them per group elsewhere (in a list or dict too), and refuses missing
    # values (it skipped them: max gave 1.0)
    def run(mod):
        g = mod.DataFrame(_PY_FRAME).groupby("k")
        if how == "agg list":
            return g.agg({col: [func, "count"]})[(col, func.__name__)]
        return getattr(g[col], how)(func)

    try:
        p = run(pd)
    except TypeError:   # Python's sum of strings
        with pytest.raises((TypeError, zb.errors.UnsupportedError)):
            run(zb)
        return
    if p.isna().any():
        with pytest.raises(zb.errors.UnsupportedError):
            run(zb)
        return
    z = run(zb).to_pandas()
    assert z.tolist() == p.tolist()
    assert z.dtype == p.dtype and z.index.tolist() == p.index.tolist()


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint16", "uint32", "int64"])
@pytest.mark.parametrize("values", [[1, 1, 3], [100, 100, 3], [60000, 60000, 1]])
@pytest.mark.parametrize("op", ["sum", "prod", "cumsum", "cumprod"])
def test_narrow_integer_sums_per_group_keep_the_dtype_when_they_fit_as_pandas(dtype, values, op):
    # pandas gives a group-by sum / prod / cumsum / cumprod of int8 ...
    # uint32 values back in that dtype when every result fits it (else
    # 64 bits); zambezi gave 64 bits always
    arr = np.array(values, dtype=dtype) if all(
        np.iinfo(dtype).min <= v <= np.iinfo(dtype).max for v in values) else None
    if arr is None:
        pytest.skip("values out of the dtype's range")
    p = pd.DataFrame({"k": [1, 1, 2], "v": arr})
    z = zb.DataFrame(p)
    for pr, zr in [(getattr(p.groupby("k").v, op)(), getattr(z.groupby("k").v, op)()),
                   (getattr(p.groupby("k"), op)().v, getattr(z.groupby("k"), op)()["v"])]:
        zr = zr.to_pandas()
        assert zr.dtype == pr.dtype and zr.tolist() == pr.tolist()
        assert zr.index.tolist() == pr.index.tolist()
    if op in ("sum", "prod"):
        pr, zr = p.groupby("k").agg({"v": op}).v, z.groupby("k").agg({"v": op})["v"].to_pandas()
        assert zr.dtype == pr.dtype and zr.tolist() == pr.tolist()
        assert zr.index.tolist() == pr.index.tolist()


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "first", "last"])
def test_min_count_like_pandas(op):
    """min_count: a group with fewer values than it gets a missing value;
    observed=False groups with no rows too."""
    rng = np.random.default_rng(5)
    n = 60
    df = pd.DataFrame({"k": rng.choice(["a", "b", "c", None], n), "x": rng.integers(0, 5, n),
                       "y": rng.normal(size=n),
                       "c": pd.Categorical(rng.choice(["p", "q"], n), categories=["p", "q", "r"])})
    df.loc[rng.random(n) < 0.4, "y"] = np.nan
    z = zb.from_pandas(df)
    for mc in (0, 1, 2, 5, 20):
        for key, kw in (("k", {}), ("c", {"observed": False}), (["k", "c"], {"observed": True})):
            want = getattr(df.groupby(key, **kw)[["x", "y"]], op)(min_count=mc)
            got = getattr(z.groupby(key, **kw)[["x", "y"]], op)(min_count=mc)
            pd.testing.assert_frame_equal(got.to_pandas(), want, check_dtype=False)
        got = getattr(z.groupby("k")["y"], op)(min_count=mc)
        want = getattr(df.groupby("k")["y"], op)(min_count=mc)
        pd.testing.assert_series_equal(got.to_pandas(), want, check_dtype=False)


_DTYPE_COLS = {"s": ["x", "", "", "w"], "c": pd.Categorical(["x", "", "x", ""]),
               "co": pd.Categorical(list("xyxy"), ordered=True),
               "t": pd.to_datetime(["2020", "2021", "2022", "2023"]),
               "d": pd.to_timedelta([1, 0, 0, 4], unit="D"), "b": [True, False, True, True]}


@pytest.mark.parametrize("col", sorted(_DTYPE_COLS))
def test_aggregations_refuse_columns_as_pandas(col):
    """A frame's column an aggregation cannot take raises TypeError as
    pandas 3 does (the same message), or is computed as pandas computes
    it (any / all of strings, categoricals and durations by their truth);
    numeric_only=True leaves it out.  (zambezi used to leave such columns
    out silently.)"""
    df = pd.DataFrame({"a": [1, 1, 2, 2], "n": [1.0, 2, 3, 4], col: _DTYPE_COLS[col]})
    z = zb.from_pandas(df)
    for op in ["sum", "mean", "std", "var", "median", "quantile", "prod", "sem", "skew",
               "kurt", "min", "max", "first", "last", "any", "all"]:
        for how in ("method", "agg", "transform"):
            def run(m, how=how, op=op):
                gb = m.groupby("a")
                return getattr(gb, op)() if how == "method" else \
                    gb.agg(op) if how == "agg" else gb.transform(op)
            try:
                want = run(df)
            except TypeError as e:
                with pytest.raises(TypeError, match=re.escape(str(e)) if "support" in str(e)
                                   else None):
                    run(z)
                continue
            try:
                got = run(z)
            except zb.errors.UnsupportedError:   # pandas computes it, zambezi says so
                assert (op == "sem" and col in ("t", "d")), (op, how, col)
                continue
            assert_frame_like(got, want, f"{op} {how}", rtol=1e-9)
        nums = z.groupby("a").mean(numeric_only=True).columns.tolist()
        assert nums == df.groupby("a").mean(numeric_only=True).columns.tolist()


def test_agg_takes_groupby_method_names_and_own_column_keys():
    df = pd.DataFrame({"a": [1, 1, 2, 2, 1], "b": list("xyxyx"), "c": [3.0, 1, 2, 5, 4]})
    z = zb.from_pandas(df)
    for name in ("cumsum", "rank", "diff", "shift", "cummax", "idxmax", "pct_change"):
        assert_frame_like(z[["a", "c"]].groupby("a").agg(name),
                          df[["a", "c"]].groupby("a").agg(name), name)
    # keys that are the frame's own columns (df["b"]) leave them out of the values
    assert_frame_like(z.groupby([z["a"], z["b"]]).mean(),
                      df.groupby([df["a"], df["b"]]).mean(), "own columns")
    # a Series of the same name and values made apart from the frame is not
    # its column: the column stays among the values (pandas asks for memory)
    apart = [1, 1, 2, 2, 1]
    assert_frame_like(z.groupby(zb.Series(apart, name="a")).sum(),
                      df.groupby(pd.Series(apart, name="a")).sum(), "equal values, apart")
    assert_frame_like(z.groupby([z["b"], zb.Series(apart, name="a")]).max(),
                      df.groupby([df["b"], pd.Series(apart, name="a")]).max(), "mixed")


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean", "median", "std", "var"])
def test_skipna_false_like_pandas(op):
    """skipna=False: a group holding a missing value gets a missing value
    (with min_count too)."""
    rng = np.random.default_rng(8)
    n = 40
    df = pd.DataFrame({"k": rng.choice(["a", "b", "c", "d"], n), "x": rng.normal(size=n),
                       "c": pd.Categorical(rng.choice(["p", "q"], n), categories=["p", "q", "r"])})
    df.loc[rng.random(n) < 0.1, "x"] = np.nan
    df.loc[df.k == "d", "x"] = 1.0   # a group with no missing value
    z = zb.from_pandas(df)
    kws = [{"skipna": False}] + ([{"skipna": False, "min_count": 3}]
                                 if op in ("sum", "prod", "min", "max") else [])
    for kw in kws:
        for key, more in (("k", {}), ("c", {"observed": False})):
            assert_frame_like(getattr(z.groupby(key, **more)[["x"]], op)(**kw),
                              getattr(df.groupby(key, **more)[["x"]], op)(**kw), f"{op} {kw}",
                              rtol=1e-9)


def test_numeric_only_must_be_a_bool_as_pandas():
    df = pd.DataFrame({"A": range(5), "B": range(5)})
    z = zb.from_pandas(df)
    for op in ("mean", "sum", "min", "median"):
        for bad in ("True", 1, ["B"]):
            with pytest.raises(ValueError, match="numeric_only accepts only Boolean values"):
                getattr(df.groupby("A"), op)(numeric_only=bad)
            with pytest.raises(ValueError, match="numeric_only accepts only Boolean values"):
                getattr(z.groupby("A"), op)(numeric_only=bad)


@pytest.mark.parametrize("seed", range(3))
def test_any_all_skipna_false_read_missing_as_true(seed):
    """any / all with skipna=False: a missing value counts as True, as
    pandas, for numbers (NaN too), strings, categoricals, durations and
    dates; groups of missing values only included. A bool column with
    missing values (pandas' Kleene logic) says it is not supported."""
    rng = np.random.default_rng(seed)
    n = 60
    df = pd.DataFrame({"k": rng.choice(["a", "b", "c", "d", "e"], n),
                       "f": rng.choice([0.0, 1.5, np.nan], n), "i": rng.choice([0, 3], n),
                       "s": rng.choice(["", "x", None], n),
                       "c": pd.Categorical(rng.choice(["", "p", None], n)),
                       "d": pd.to_timedelta(rng.choice([0.0, 2.0, np.nan], n), unit="s"),
                       "t": pd.to_datetime(rng.choice(["2020-01-01", None], n))})
    df.loc[df.k == "e", ["f", "s", "c", "d"]] = np.nan    # a group of missing values only
    z = zb.from_pandas(df)
    for name in ("any", "all"):
        for kw in ({}, {"as_index": False}, {"sort": False}):
            assert_frame_like(getattr(z.groupby("k", **kw)[["f", "i", "s", "c", "d"]], name)(
                skipna=False), getattr(df.groupby("k", **kw)[["f", "i", "s", "c", "d"]], name)(
                skipna=False), f"{name} {kw}")
        assert_series_like(getattr(z.groupby("k")["s"], name)(skipna=False),
                           getattr(df.groupby("k")["s"], name)(skipna=False), name)
        with pytest.raises(zb.errors.UnsupportedError, match="skipna=False"):
            getattr(zb.DataFrame({"k": [1, 1], "b": [True, None]}).groupby("k"), name)(
                skipna=False)


@pytest.mark.parametrize("op", ["first", "last"])
def test_first_last_skipna_false_take_the_edge_row(op):
    rng = np.random.default_rng(9)
    n = 30
    df = pd.DataFrame({"k": rng.choice(["a", "b", "c", None], n), "x": rng.normal(size=n),
                       "s": rng.choice(["p", "q", None], n),
                       "t": pd.date_range("2020", periods=n)})
    df.loc[rng.random(n) < 0.3, "x"] = np.nan
    df.loc[rng.random(n) < 0.3, "t"] = pd.NaT
    z = zb.from_pandas(df)
    for kw in ({}, {"dropna": False}, {"sort": False}, {"as_index": False}):
        for mc in (0, 1, 5, 12):   # pandas counts the rows, but a string column's values
            assert_frame_like(getattr(z.groupby("k", **kw), op)(skipna=False, min_count=mc),
                              getattr(df.groupby("k", **kw), op)(skipna=False, min_count=mc),
                              f"{op} {kw} {mc}")
    assert_series_like(getattr(z.groupby("k")["x"], op)(skipna=False),
                       getattr(df.groupby("k")["x"], op)(skipna=False), op)


def test_unobserved_categories_idx_and_sem_like_pandas():
    """observed=False with a category no row has: idxmax / idxmin raise
    pandas' ValueError; sem gives NaN there without a numpy warning."""
    df = pd.DataFrame({"a": pd.Categorical([2, 1, 2, 3], categories=[1, 4, 3, 2]),
                       "b": range(4)})
    z = zb.from_pandas(df)
    for how in ("idxmax", "idxmin"):
        for m in (df, z):
            with pytest.raises(ValueError, match="empty group due to unobserved categories"):
                getattr(m.groupby("a", observed=False), how)()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = z.groupby("a", observed=False).sem()
    assert_frame_like(got, df.groupby("a", observed=False).sem(), "sem")


def test_any_all_of_a_selected_time_column_raise_as_pandas():
    df = pd.DataFrame({"a": [1, 1, 2], "t": pd.to_datetime(["2020", "2021", "2022"])})
    z = zb.from_pandas(df)
    for how in ("any", "all"):
        for m in (df, z):
            with pytest.raises(TypeError, match=f"'{how}' with datetime64 dtypes"):
                getattr(m.groupby("a")["t"], how)()
