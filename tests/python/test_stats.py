"""Differential tests of the statistics and hash-based operations against pandas.

Random data with nulls (nullable Int64 and boolean, float64 with NaN, uint8,
strings with NA, categoricals, timestamps with NaT), sizes 0, 1, 2, 1000 and
100_001, several seeds, 1 and 3 engine threads: var/std/median/quantile/
prod/any/all/idxmin/idxmax, min/max of strings and timestamps, nunique,
unique, value_counts, isin, duplicated/drop_duplicates (Series and
DataFrame) and the DataFrame reductions.  Where zambezi differs from pandas
on purpose (None instead of NaN/raise, a Series from unique) the test
states it.
"""

import datetime
import math

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

SIZES = [0, 1, 2, 1000, 100_001]
THREADS = [1, 3]
KINDS = ["Int64", "int64", "float64", "boolean", "uint8", "string", "category", "datetime"]
NUMERIC = ["Int64", "int64", "float64", "boolean", "uint8"]


def seeds_for(n):
    return [1, 2] if n > 10_000 else [1, 2, 3, 4]


def make(kind, n, seed, card=None):
    """A pandas Series of kind with ~15% missing values (none for int64/uint8)."""
    rng = np.random.default_rng(seed * 7919 + n + KINDS.index(kind))
    card = card or (12 if seed % 2 else max(n, 1) * 2)
    miss = rng.random(n) < 0.15
    ints = rng.integers(-card, card, n)
    if kind == "Int64":
        return pd.Series(pd.array(ints, dtype="Int64")).where(~miss, pd.NA)
    if kind == "int64":
        return pd.Series(ints * 1_000_003 + 10**12, dtype="int64")
    if kind == "uint8":
        return pd.Series(np.abs(ints) % 200, dtype="uint8")
    if kind == "float64":
        v = ints / 4.0 + (0 if card < 100 else rng.normal(0, 1e3, n))
        v[rng.random(n) < 0.05] = -0.0
        v[miss] = np.nan
        return pd.Series(v, dtype="float64")
    if kind == "boolean":
        return pd.Series(pd.array(ints % 2 == 0, dtype="boolean")).where(~miss, pd.NA)
    words = np.array([f"w{abs(x)}" if x % 5 else "" for x in ints], dtype=object)
    words[miss] = None
    if kind == "string":
        return pd.Series(words, dtype="string")
    if kind == "category":
        return pd.Series(words, dtype="category")
    if kind == "datetime":
        t = pd.Series((ints.astype("int64") * 86_400 + 1_600_000_000) * 1_000_000,
                      dtype="int64").astype("datetime64[us]")
        t[miss] = pd.NaT
        return t
    raise AssertionError(kind)


def missing(x):
    if x is None or x is pd.NA or x is pd.NaT:
        return True
    try:
        return bool(isinstance(x, float) and math.isnan(x)) or bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def norm(x):
    """A pandas/numpy/zambezi scalar as a plain comparable Python value."""
    if missing(x):
        return None
    if isinstance(x, (pd.Timestamp, np.datetime64, datetime.datetime)):
        return int(pd.Timestamp(x).as_unit("us").asm8.view("i8"))  # us since the epoch
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return float(x)
    return x


def no_value(s):
    """What zambezi gives for a statistic with nothing to report: pandas'
    NA (None) where to_pandas() shows a masked dtype (an integer or bool
    column with nulls), else NaN (pandas' numpy dtypes)."""
    if s.null_count and (s.dtype.startswith(("int", "uint")) or s.dtype == "bool"):
        return None
    return math.nan


def is_no_value(ours, s):
    want = no_value(s)
    if want is None:
        return ours is None
    return isinstance(ours, float) and math.isnan(ours)


def close(ours, theirs, rel=1e-12, s=None):
    if missing(theirs):
        if s is not None:
            return is_no_value(ours, s)
        return ours is None or (isinstance(ours, float) and math.isnan(ours))
    if ours is None:
        return False
    a, b = float(ours), float(theirs)
    if math.isinf(b) or math.isinf(a):
        return a == b
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300


@pytest.fixture(params=THREADS, ids=lambda t: f"threads{t}")
def threads(request):
    zb.set_num_threads(request.param)
    return request.param


def cases(kinds):
    for kind in kinds:
        for n in SIZES:
            for seed in seeds_for(n):
                yield kind, n, seed


# -- numeric reductions -----------------------------------------------------

@pytest.mark.parametrize("kind,n,seed", list(cases(NUMERIC)))
def test_numeric_reductions(kind, n, seed, threads):
    p = make(kind, n, seed)
    s = zb.Series(p)
    pf = p.astype("Float64") if kind == "boolean" else p
    count = int(p.count())
    for ddof in (0, 1, 2):
        if count <= ddof:
            # pandas gives NaN for numpy dtypes, NA for masked ones (no_value)
            assert is_no_value(s.var(ddof=ddof), s) and is_no_value(s.std(ddof=ddof), s)
            continue
        assert close(s.var(ddof=ddof), pf.var(ddof=ddof)), (ddof, s.var(ddof=ddof))
        assert close(s.std(ddof=ddof), pf.std(ddof=ddof))
    assert close(s.median(), pf.median(), s=s)
    qs = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0, 0.333]
    if kind == "boolean" and count:   # pandas' quantile of bools subtracts them: TypeError
        with pytest.raises(TypeError):
            p.quantile(0.5)
        with pytest.raises(TypeError, match="numpy boolean subtract"):
            s.quantile(qs)
        qs = []
    for q in qs:
        assert close(s.quantile(q), pf.quantile(q), s=s), q
    many = s.quantile(qs) if qs else None
    if qs:
        assert isinstance(many, zb.Series) and many.dtype == "float64"
        assert many.index.to_list() == qs  # indexed by q, as pandas
    for q, v in zip(qs, many.to_list() if qs else []):
        assert close(v, pf.quantile(q))
    assert s.any() == bool(p.any())
    assert s.all() == bool(p.all())
    valid = p.dropna()
    if len(valid) == 0:
        # pandas raises ValueError for idxmin of nothing, and so does zambezi
        with pytest.raises(ValueError):
            s.idxmin()
        with pytest.raises(ValueError):
            p.idxmin()
    else:
        assert s.idxmin() == p.idxmin()
        assert s.idxmax() == p.idxmax()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", ["Int64", "int64", "uint8", "float64", "boolean"])
def test_prod(kind, n, threads):
    rng = np.random.default_rng(n + 17)
    miss = rng.random(n) < 0.15
    if kind == "float64":
        v = rng.uniform(0.5, 1.5, n)
        v[miss] = np.nan
        p = pd.Series(v)
    elif kind == "Int64":
        # wraps on overflow like numpy for long columns
        p = pd.Series(pd.array(rng.choice([-3, -1, 1, 2, 3], n), dtype="Int64")).where(~miss,
                                                                                      pd.NA)
    elif kind == "int64":
        p = pd.Series(rng.choice([-3, -1, 1, 2, 3], n).astype("int64"))
    elif kind == "uint8":
        p = pd.Series(rng.choice([1, 2, 3], n).astype("uint8"))
    else:
        p = pd.Series(pd.array(rng.random(n) < 0.99, dtype="boolean"))
    s = zb.Series(p)
    ours, theirs = s.prod(), p.prod()
    if kind == "float64":
        assert close(ours, theirs, rel=1e-10)
    elif kind == "uint8":
        assert ours == int(np.uint64(theirs))
    else:
        assert ours == int(np.int64(theirs))


def test_var_accuracy():
    # large offset, small spread: a one-pass formula would lose every digit
    p = pd.Series(1e9 + np.arange(100_001) * 1e-3)
    assert close(zb.Series(p).var(), p.var(), rel=1e-9)
    assert close(zb.Series(p).std(ddof=0), p.std(ddof=0), rel=1e-9)


@pytest.mark.parametrize("order", ["sorted", "reversed", "equal", "few", "organ", "sawtooth"])
def test_quantiles_of_adversarial_orders(order, threads):
    """Orders that make a selection's partitions lopsided or full of ties:
    median and quantiles of the whole column and per group equal numpy's
    (the oracle) exactly, the values being small integers."""
    n = 100_003
    i = np.arange(n)
    values = {"sorted": i, "reversed": i[::-1], "equal": np.full(n, 7),
              "few": i % 3, "organ": np.minimum(i, n - 1 - i),
              "sawtooth": i % 1000}[order].astype("float64")
    s = zb.Series(values)
    assert s.median() == np.median(values)
    for q in (0.0, 0.01, 0.25, 0.5, 0.75, 0.999, 1.0):
        assert s.quantile(q) == np.quantile(values, q), q
    keys = i % 7
    got = zb.DataFrame({"k": keys, "v": values}).groupby("k").agg(m=("v", "median"))
    want = [np.median(values[keys == k]) for k in range(7)]
    assert got.index.to_list() == list(range(7))
    assert got["m"].to_list() == want


def test_reduction_errors():
    s = zb.Series(["a", "b"])
    with pytest.raises(zb.errors.DTypeError):
        s.var()
    with pytest.raises(zb.errors.DTypeError):
        s.median()
    with pytest.raises(zb.errors.InvalidValueError):
        zb.Series([1.0, 2.0]).quantile(1.5)
    with pytest.raises(zb.errors.InvalidValueError):
        zb.Series([1.0]).var(ddof=-1)
    with pytest.raises(zb.errors.DTypeError):
        zb.Series(pd.Series(["a", "b"], dtype="category")).min()
    assert math.isnan(zb.Series([None, None], dtype="float64").median())  # pandas: NaN
    assert zb.Series([None, None], dtype="int64").median() is None  # pandas' Int64: NA


# -- min / max of every orderable dtype --------------------------------------

@pytest.mark.parametrize("kind,n,seed", list(cases(["string", "datetime", "Int64", "float64"])))
def test_min_max(kind, n, seed, threads):
    p = make(kind, n, seed)
    s = zb.Series(p)
    assert norm(s.min()) == norm(p.min())
    assert norm(s.max()) == norm(p.max())
    if p.dropna().size:
        assert s.idxmin() == p.idxmin()
        assert s.idxmax() == p.idxmax()
    else:
        with pytest.raises(ValueError):
            s.idxmin()


# -- distinct values ----------------------------------------------------------

def as_list(values):
    return [norm(v) for v in values]


@pytest.mark.parametrize("kind,n,seed", list(cases(KINDS)))
def test_unique_nunique(kind, n, seed, threads):
    p = make(kind, n, seed)
    s = zb.Series(p, name="v")
    u = s.unique()
    assert isinstance(u, zb.Series) and u.dtype == s.dtype
    assert as_list(u.to_pandas()) == as_list(p.unique())
    assert s.nunique() == p.nunique()
    assert s.nunique(dropna=False) == p.nunique(dropna=False)


@pytest.mark.parametrize("kind,n,seed", list(cases(KINDS)))
def test_value_counts(kind, n, seed, threads):
    p = make(kind, n, seed)
    s = zb.Series(p, name="v")
    pv = p  # a categorical: every category (unused ones 0), ties in category order
    for sort, ascending, normalize, dropna in [(True, False, False, True),
                                               (True, True, False, True),
                                               (False, False, False, True),
                                               (True, False, True, True),
                                               (True, False, False, False),
                                               (False, False, True, False)]:
        res = s.value_counts(sort=sort, ascending=ascending, normalize=normalize,
                             dropna=dropna)
        want = pv.value_counts(sort=sort, ascending=ascending, normalize=normalize,
                               dropna=dropna)
        # pandas 3's shape: a Series named count / proportion, indexed by
        # the values under the Series' name
        assert res.name == want.name == ("proportion" if normalize else "count")
        # (pandas loses the index name for some masked dtypes with ascending
        # or no rows: a pandas quirk, not followed)
        assert res.index.name == "v"
        got_vals = as_list(res.index.to_pandas())
        got_counts = res.to_list()
        want_vals = as_list(want.index)
        want_counts = [norm(c) for c in want.to_list()]
        assert len(got_counts) == len(want_counts)
        if normalize:  # same proportions up to rounding: compare as counts
            total = max(int(p.count()) if dropna else n, 1)
            got_counts = [round(c * total) for c in got_counts]
            want_counts = [round(c * total) for c in want_counts]
        if dropna:
            assert got_vals == want_vals
            assert got_counts == want_counts
        else:
            # pandas puts NA after the values of masked arrays (and sorts
            # stably); zambezi keeps NA at its first appearance, so compare
            # the NA row apart and the other rows in order
            got = list(zip(got_vals, got_counts))
            want = list(zip(want_vals, want_counts))
            assert [x for x in got if x[0] is None] == [x for x in want if x[0] is None]
            assert [x for x in got if x[0] is not None] == [x for x in want if x[0] is not None]


def test_value_counts_ties_first_appearance():
    s = zb.Series(["b", "a", "a", "b", "c", None, "d", "d"], name="k")
    res = s.value_counts()
    assert res.index.to_list() == ["b", "a", "d", "c"]
    assert res.to_list() == [2, 2, 2, 1]
    assert zb.Series([1, 2, 2], name="x").value_counts(ascending=True).index.to_list() == [1, 2]
    # an unnamed Series gives an unnamed index; a Series named "count" is
    # no clash any more (pandas 3: index "count", values "count")
    assert zb.Series([1.0, 2.0]).value_counts().index.name is None
    res = zb.Series([1, 1], name="count").value_counts()
    assert (res.index.name, res.name, res.to_list()) == ("count", "count", [2])



@pytest.mark.parametrize("values", [
    pd.array([None, 1, 2, 2], dtype="Int64"), pd.array([1, None, 2, 1, None, 3], dtype="Int64"),
    pd.array([3, None, 1, 2], dtype="Int64"), pd.array([None, 5, 5, 7, 8, None], dtype="UInt8"),
    pd.array([True, None, False], dtype="boolean"), [None, "a", "b", "b"], [np.nan, 1.0, 2.0]])
@pytest.mark.parametrize("kw", [{}, dict(sort=False), dict(ascending=True), dict(normalize=True)])
def test_value_counts_places_the_missing_value_as_pandas(values, kw):
    # pandas' masked dtypes (Int64, boolean) count NA after every value,
    # then sort by count (stably): last among its ties; float NaN and
    # missing text come in order of first appearance.  (pandas gives an
    # Int64 / Float64 count for masked data: zambezi's counts hold no
    # null, so they are int64 / float64.)
    p = pd.Series(values)
    exp = p.value_counts(dropna=False, **kw)
    got = zb.Series(p).value_counts(dropna=False, **kw).to_pandas()
    pd.testing.assert_series_equal(got, exp, check_dtype=False)


# -- isin -------------------------------------------------------------------------

@pytest.mark.parametrize("kind,n,seed", list(cases(KINDS)))
def test_isin(kind, n, seed, threads):
    p = make(kind, n, seed)
    s = zb.Series(p)
    pool = p.dropna().unique()
    rng = np.random.default_rng(seed)
    picks = list(pool[rng.permutation(len(pool))[:5]]) if len(pool) else []
    if kind in ("string", "category"):
        picks = [str(x) for x in picks] + ["absent"]
    elif kind == "datetime":
        picks = [pd.Timestamp(x).to_pydatetime() for x in picks]
    elif kind == "boolean":
        picks = [bool(x) for x in picks][:1]
    elif kind == "float64":
        picks = [float(x) for x in picks] + [0.0, 12345.5]
    else:
        picks = [int(x) for x in picks] + [7]
    got = s.isin(picks).to_list()
    want = [bool(x) for x in p.isin(picks).fillna(False)]
    assert got == want
    assert s.isin([]).to_list() == [False] * n
    # picks as a Series of the same kind (a categorical of its own
    # categories: s.dtype, a CategoricalDtype, would make the picks outside
    # s's categories missing, as pandas does)
    kind_of = "category" if kind == "category" else s.dtype
    assert s.isin(zb.Series(picks, dtype=kind_of) if picks else []).to_list() == want


def test_isin_mixed_types_and_nulls():
    s = zb.Series([1, 2, None, 4], dtype="int32")
    assert s.isin([2.0, 4.5]).to_list() == [False, True, False, False]
    assert s.isin([4, None]).to_list() == [False, False, False, True]  # null -> False
    c = zb.Series(pd.Series(["a", "b", None], dtype="category"))
    assert c.isin(["b"]).to_list() == [False, True, False]
    f = zb.Series(np.array([0.0, -0.0, 1.5]))
    assert f.isin([-0.0]).to_list() == [True, True, False]
    with pytest.raises(zb.errors.DTypeError):
        zb.Series(["a"]).isin([1])
    with pytest.raises(zb.errors.InvalidValueError):
        zb.Series(["a"]).isin("a")


# -- duplicated / drop_duplicates ---------------------------------------------------

@pytest.mark.parametrize("kind,n,seed", list(cases(KINDS)))
def test_series_duplicated(kind, n, seed, threads):
    p = make(kind, n, seed)
    s = zb.Series(p, name="v")
    for keep in ("first", "last", False):
        assert s.duplicated(keep=keep).to_list() == p.duplicated(keep=keep).tolist()
        got = as_list(s.drop_duplicates(keep=keep).to_pandas())
        assert got == as_list(p.drop_duplicates(keep=keep))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_frame_duplicated(n, seed, threads):
    card = 3 if seed != 2 else 40
    pdf = pd.DataFrame({
        "i": make("Int64", n, seed, card),
        "s": make("string", n, seed + 10, card),
        "f": make("float64", n, seed + 20, card),
        "c": make("category", n, seed + 30, card),
        "t": make("datetime", n, seed + 40, card),
    })
    df = zb.DataFrame(pdf)
    for subset in (None, ["s", "c"], "f", ["t", "i"]):
        for keep in ("first", "last", False):
            got = df.duplicated(subset=subset, keep=keep)
            assert isinstance(got, zb.Series)
            assert got.to_list() == pdf.duplicated(subset=subset, keep=keep).tolist()
            dd = df.drop_duplicates(subset=subset, keep=keep).to_pandas()
            want = pdf.drop_duplicates(subset=subset, keep=keep).reset_index(drop=True)
            assert dd.shape == want.shape
            for col in pdf.columns:
                assert as_list(dd[col]) == as_list(want[col]), (subset, keep, col)
    with pytest.raises(zb.errors.ColumnNotFoundError):
        df.duplicated(subset=["nope"])
    with pytest.raises(zb.errors.InvalidValueError):
        df.duplicated(keep="middle")


# -- DataFrame reductions -----------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 1000, 100_001])
def test_frame_reductions(n, threads):
    pdf = pd.DataFrame({
        "a": make("Int64", n, 1),
        "b": make("float64", n, 2),
        "c": make("boolean", n, 3),
        "s": make("string", n, 4),
        "t": make("datetime", n, 5),
        "k": make("category", n, 6),
    })
    df = zb.DataFrame(pdf)
    num = ["a", "b", "c"]
    pnum = pdf[num].astype("Float64")
    for name in ("sum", "mean", "std", "var", "median"):
        got = getattr(df, name)(numeric_only=True)
        assert isinstance(got, zb.Series) and got.index.to_list() == num
        want = getattr(pnum, name)()
        for col in num:
            assert close(got.loc[col], want[col], rel=1e-11), (name, col)
    for name in ("min", "max"):
        # one Series per column: pandas would mix the results in an object Series
        for col in ["a", "b", "c", "s", "t"]:
            got = getattr(df[[col]], name)()
            assert got.index.to_list() == [col]
            assert norm(got.iloc[0]) == norm(getattr(pdf[col], name)()), (name, col)
    got = df.count()
    assert got.index.to_list() == list(pdf.columns)
    assert got.to_list() == [int(pdf[c].count()) for c in pdf.columns]
    assert df.nunique().to_list() == [int(pdf[c].nunique()) for c in pdf.columns]
    assert df.nunique(dropna=False).to_list() == [int(pdf[c].nunique(dropna=False))
                                                  for c in pdf.columns]


# -- thread-count independence ------------------------------------------------------

def test_results_independent_of_threads():
    p = make("string", 100_001, 2, card=5000)
    s = zb.Series(p, name="v")
    results = []
    for t in (1, 3):
        zb.set_num_threads(t)
        vc = s.value_counts()
        results.append((s.unique().to_list(), vc.index.to_list(), vc.to_list(),
                        s.duplicated().to_list(), s.idxmax(), s.nunique()))
    assert results[0] == results[1]


def test_out_of_memory_is_clean():
    s = zb.Series(make("string", 20_000, 2, card=3000), name="v")
    df = zb.DataFrame({"v": s, "w": zb.Series(make("float64", 20_000, 3))})
    ops = [s.unique, s.value_counts, s.nunique, s.duplicated, lambda: s.isin(["w1", "w2"]),
           df["w"].median, df["w"].std, df.drop_duplicates, lambda: s.min()]
    for op in ops:
        for k in range(1, 200):
            zb._core.alloc_fail_after(k)
            try:
                op()
            except zb.errors.OutOfMemoryError:
                continue
            finally:
                zb._core.alloc_fail_after(0)
            break
        else:
            raise AssertionError(f"{op} kept failing")


def test_any_all_give_pandas_scalar_types():
    # numpy bools, as pandas' numpy and masked dtypes give them
    cases = [([1.0, np.nan], None), ([True, False], None), ([0, 1], None), ([], "float64"),
             ([0.0, 0.0], None), ([1, 0], "Int64")]
    for values, dtype in cases:
        p = pd.Series(values, dtype=dtype)
        z = zb.Series(p)
        for how in ("any", "all"):
            for skipna in (True, False):
                assert repr(getattr(z, how)(skipna=skipna)) == \
                    repr(getattr(p, how)(skipna=skipna)), (values, how, skipna)


@pytest.mark.parametrize("values", [
    [pd.Timedelta.max] * 2,
    [pd.Timedelta(2**62, "ns")] * 3,
    [pd.Timedelta(-(2**62), "ns")] * 2,                   # exactly NaT's value
    [pd.Timedelta(2**62, "ns")] * 2 + [pd.Timedelta(-(2**62), "ns")],   # wraps midway
    [pd.Timedelta(days=1), None, pd.Timedelta(hours=3), pd.Timedelta(-5, "s")],
    # count times largest magnitude reaches 2**63, yet every sum fits: the
    # cheap bound cannot tell, the exact check must not raise
    [pd.Timedelta.max, -pd.Timedelta.max],
    [pd.Timedelta(2**62, "ns"), pd.Timedelta(2**61, "ns")],
])
def test_duration_sums_that_leave_the_range_raise_as_pandas(values):
    # int64 counts wrap silently; pandas raises OutOfBoundsTimedelta for a
    # sum or running sum of durations outside the range, zambezi an
    # overflow error, and both give the same value where it fits
    s = pd.Series(values)
    z = zb.from_pandas(s)
    for method in ("sum", "cumsum"):
        try:
            want = getattr(s, method)()
        except pd.errors.OutOfBoundsTimedelta:
            with pytest.raises(OverflowError, match="overflow in timedelta"):
                getattr(z, method)()
            continue
        got = getattr(z, method)()
        if method == "sum":
            assert got == want
        else:
            pd.testing.assert_series_equal(got.to_pandas(), want)
    frame = pd.DataFrame({"d": values})
    try:
        want = frame.sum()
    except pd.errors.OutOfBoundsTimedelta:
        with pytest.raises(OverflowError, match="overflow in timedelta"):
            zb.from_pandas(frame).sum()
    else:
        assert zb.from_pandas(frame).sum().to_list() == want.to_list()


@pytest.mark.parametrize("call", [
    lambda m, s: s.quantile(0.5), lambda m, s: s.quantile([0.25, 0.5]),
    lambda m, s: m.DataFrame({"b": s, "i": [1, 2, 3]}).quantile(0.5),
    lambda m, s: m.DataFrame({"b": s}).quantile([0.5], numeric_only=True),
])
def test_quantile_of_bools_raises_as_pandas(call):
    # numpy's quantile subtracts the values, which bools refuse; zambezi
    # gave their quantile as numbers.  median of bools works in both.
    with pytest.raises(TypeError, match="numpy boolean subtract"):
        call(pd, pd.Series([True, False, True]))
    with pytest.raises(TypeError, match="numpy boolean subtract"):
        call(zb, zb.Series([True, False, True]))
    assert zb.Series([True, False, True]).median() == pd.Series([True, False, True]).median()
