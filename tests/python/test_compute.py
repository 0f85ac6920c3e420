"""Differential tests of the compute operations (zambezi._compute over
zambezi._core's compute functions) against pandas with nullable dtypes.

Random data with nulls (and NaN for floats) in every dtype, sizes 0, 1, 2,
1000 and 100_001, several seeds, thread counts 1 and 3.  Results keep
their row labels as pandas' do, and the index is compared too.  Where
zambezi deliberately differs from pandas (integer // 0 and % 0 give null,
integer ** negative gives null, a null in a boolean mask drops the row,
bool arithmetic gives int64) the documented behaviour is asserted directly.
"""

import contextlib
import datetime
import operator
import warnings

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import (
    ColumnNotFoundError,
    DTypeError,
    InvalidValueError,
    ZambeziError,
    ZambeziIndexError,
    ZambeziOverflowError,
)

SIZES = [0, 1, 2, 1000, 100_001]
CASES = [(seed, n) for n in SIZES for seed in (range(4) if n < 100_000 else range(1))]
CASE_IDS = [f"n{n}-s{seed}" for seed, n in CASES]

INTS = ["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"]
FLOATS = ["float32", "float64"]
NUMERIC = INTS + FLOATS
ZB_NAME = {"Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
           "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
           "Float32": "float32", "Float64": "float64", "float32": "float32",
           "float64": "float64", "boolean": "bool", "bool": "bool"}

# --------------------------------------------------------------------------
# random data
# --------------------------------------------------------------------------


def _nulls(rng, n, p=0.15):
    return rng.random(n) < p


def gen(dtype, n, rng, small=False, null_p=0.15):
    """A pandas Series of dtype with about null_p missing values."""
    mask = _nulls(rng, n, null_p)
    if dtype in INTS:
        info = np.iinfo(dtype.lower())
        if small:
            lo, hi = (0 if info.min == 0 else -20), 20
        else:
            lo, hi = int(info.min), int(info.max)
        vals = rng.integers(lo, hi, size=n, dtype=dtype.lower(), endpoint=True)
        if n and not small:  # some small values and zeros, so ops meet them
            k = rng.random(n) < 0.3
            vals[k] = rng.integers(0 if info.min == 0 else -5, 6, size=int(k.sum()))
        return pd.Series(pd.arrays.IntegerArray(vals, mask))
    if dtype in FLOATS:
        scale = 10.0 if small else 1e6
        vals = (rng.standard_normal(n) * scale).astype(dtype)
        k = rng.random(n) < 0.1
        vals[k] = np.round(vals[k])  # integral values, ties
        vals[rng.random(n) < 0.05] = 0.0
        vals[mask] = np.nan
        return pd.Series(vals)
    if dtype == "boolean":
        return pd.Series(pd.arrays.BooleanArray(rng.random(n) < 0.5, mask))
    if dtype == "string":
        words = np.array(["", "a", "ab", "b", "ba", "zeta", "Émile", "ß", "a b", "B"],
                         dtype=object)
        vals = words[rng.integers(0, len(words), size=n)]
        vals[mask] = None
        return pd.Series(vals, dtype="string")
    if dtype == "category":
        cats = ["apple", "kiwi", "pear", "plum"]
        codes = rng.integers(0, len(cats), size=n)
        codes[mask] = -1
        return pd.Series(pd.Categorical.from_codes(codes, categories=cats))
    if dtype == "timestamp":
        vals = rng.integers(-2 * 10**15, 2 * 10**15, size=n).astype("datetime64[us]")
        vals[mask] = np.datetime64("NaT")
        return pd.Series(vals)
    raise AssertionError(dtype)


def gen_dates(n, rng):
    """(zambezi date32 Series, pandas Int32 days) with nulls."""
    days = rng.integers(-30000, 30000, size=n).astype(np.int32)
    mask = _nulls(rng, n)
    z = zb.Series(zb._core.column_from_buffer(days, mask=mask, dtype="date32"), name="d")
    return z, pd.Series(pd.arrays.IntegerArray(days, mask))


# --------------------------------------------------------------------------
# comparison helpers
# --------------------------------------------------------------------------


def _na(s):
    return s.isna().to_numpy(dtype=bool)


def assert_same(zs, expected, dtype=None, rtol=0.0):
    """zambezi Series zs holds the values of the pandas Series expected
    (missing where expected is missing, NaN and null counted alike), with
    the same index."""
    got = zs.to_pandas()
    exp = expected
    assert len(got) == len(exp), (len(got), len(exp))
    pd.testing.assert_index_equal(got.index, exp.index, exact="equiv")
    if dtype is not None:
        assert zs.dtype == dtype, (zs.dtype, dtype)
    gm, em = _na(got), _na(exp)
    np.testing.assert_array_equal(gm, em, err_msg="missing-value positions differ")
    if zs.dtype in ("float32", "float64"):
        g = got.to_numpy(dtype=np.float64, na_value=np.nan)
        e = exp.to_numpy(dtype=np.float64, na_value=np.nan)
        if rtol:
            np.testing.assert_allclose(g, e, rtol=rtol, atol=0)
        else:
            np.testing.assert_array_equal(g, e)
        return
    g, e = got[~gm], exp[~em]
    kind = zs.dtype
    if kind.startswith(("int", "uint")) or kind == "bool":
        npd = "bool" if kind == "bool" else kind
        np.testing.assert_array_equal(g.to_numpy(dtype=npd), e.to_numpy(dtype=npd))
    else:
        np.testing.assert_array_equal(g.to_numpy(dtype=object), e.to_numpy(dtype=object))


def Z(ps, name="x"):
    return zb.Series(ps, name=name)


# --------------------------------------------------------------------------
# arithmetic
# --------------------------------------------------------------------------

ARITH = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
         "mod": lambda a, b: a % b}
PAIRS = [(d, d) for d in NUMERIC] + [
    ("Int8", "UInt8"), ("Int64", "UInt64"), ("Int16", "float32"), ("Int64", "float32"),
    ("UInt32", "Int32"), ("Int8", "Int64"), ("float32", "float64"), ("UInt16", "UInt64"),
    ("boolean", "Int16"), ("Int32", "boolean")]


def _pandas_binop(fn, a, b):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(a, b)


def _shown(s):
    """s with the dtype zambezi's to_pandas() gives it: a masked integer or
    boolean Series without NA is numpy's int / bool."""
    if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) and not s.isna().any() and \
            s.dtype.kind in "iub":
        return s.astype(s.dtype.numpy_dtype)
    return s


def _np_name(d):
    return "bool" if d == "boolean" else d.lower()


def _float_tol(dtype):
    return 1e-6 if dtype == "float32" else 1e-13


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("da,db", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_arithmetic_vs_pandas(seed, n, da, db):
    rng = np.random.default_rng(seed * 1000 + n)
    small = n > 1000  # keep the big case quick; the range case runs below
    a, b = gen(da, n, rng, small=small), gen(db, n, rng, small=small)
    za, zb_ = Z(a, "a"), Z(b, "b")
    for op, fn in ARITH.items():
        got = {"add": za + zb_, "sub": za - zb_, "mul": za * zb_, "truediv": za / zb_,
               "floordiv": za // zb_, "mod": za % zb_}[op]
        pa_, pb_ = a, b
        if op in ("floordiv", "mod"):  # pandas makes boolean // int a float; numpy: int
            pa_ = a.astype("Int8") if da == "boolean" else a
            pb_ = b.astype("Int8") if db == "boolean" else b
        exp = _pandas_binop(fn, pa_, pb_)
        ints = not got.dtype.startswith("float")  # int64 with uint64 computes in float64
        if ints and op in ("floordiv", "mod"):
            # documented: integer // 0 and % 0 give null (pandas gives 0)
            zero = (b == 0).fillna(False).to_numpy(dtype=bool)
            assert got.to_pandas()[zero].isna().all()
            edt = str(exp.dtype)
            exp = pd.Series(pd.array(exp.astype(object).where(~zero, None).tolist(), dtype=edt))
        rt = _float_tol(got.dtype) if got.dtype.startswith("float") else 0.0
        want = ZB_NAME[str(exp.dtype)]
        if op in ("floordiv", "mod") and got.dtype.startswith("float"):
            # numpy's result type (pandas upcasts float32 // float32 to float64)
            want = np.result_type(_np_name(da), _np_name(db)).name
            rt = _float_tol(want)
        assert_same(got, exp, want, rtol=rt)
        assert got.name is None  # different names, as pandas


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_pow_vs_pandas(seed, dtype):
    rng = np.random.default_rng(seed)
    n = 1000
    a = gen(dtype, n, rng, small=True)
    if dtype in INTS:
        e = pd.Series(pd.arrays.IntegerArray(rng.integers(0, 4, size=n).astype(dtype.lower()),
                                             _nulls(rng, n)))
    else:
        e = pd.Series(rng.uniform(-2, 3, size=n).astype(dtype))
        a = a.abs()
    got = Z(a) ** Z(e)
    exp = _pandas_binop(lambda x, y: x ** y, a, e)
    assert_same(got, exp, ZB_NAME[str(exp.dtype)], rtol=_float_tol(dtype))
    # scalar exponent and scalar base
    assert_same(Z(a) ** 2, _pandas_binop(lambda x, y: x ** y, a, 2), ZB_NAME[dtype],
                rtol=_float_tol(dtype))
    if dtype in INTS:
        # pandas: 1 ** NA == 1 and NA ** 0 == 1
        one = pd.Series([1, 1, None, 5], dtype=dtype)
        ex = pd.Series([None, 2, 0, None], dtype=dtype)
        assert (Z(one) ** Z(ex)).to_list() == [1, 1, 1, None]


def test_integer_pow_negative_exponent_raises():
    # as numpy and pandas (test_integers_to_negative_integer_powers_raise_as_pandas)
    a = zb.Series([2, 1, -1, None, 3], name="a")
    e = zb.Series([-1, -2, -3, -1, 2], name="e")
    with pytest.raises(ValueError, match="negative integer powers"):
        a ** e
    with pytest.raises(ValueError, match="negative integer powers"):
        a ** -1
    assert (a ** e.abs()).to_list() == [2, 1, -1, None, 9]


def test_integer_division_by_zero_is_null_float_follows_numpy():
    a = zb.Series([7, -7, 0, None, 5], name="a")
    z = zb.Series([0, 0, 0, 0, 2], name="z")
    assert (a // z).to_list() == [None, None, None, None, 2]
    assert (a % z).to_list() == [None, None, None, None, 1]
    assert (a // 0).to_list() == [None] * 5
    t = (a / z).to_list()
    assert t[0] == np.inf and t[1] == -np.inf and np.isnan(t[2]) and t[3] is None
    f = zb.Series([7.0, -7.0, 0.0], name="f")
    fz = (f // 0.0).to_list()
    assert fz[0] == np.inf and fz[1] == -np.inf and np.isnan(fz[2])
    assert all(np.isnan(v) for v in (f % 0.0).to_list())
    # Python semantics for signs
    assert (zb.Series([-7, 7]) // zb.Series([2, -2])).to_list() == [-4, -4]
    assert (zb.Series([-7, 7]) % zb.Series([2, -2])).to_list() == [1, -1]


def test_bool_arithmetic_as_numpy():
    # bool + bool is or (test_arithmetic_of_two_bool_operands_as_pandas);
    # a bool and an integer are integers
    a = zb.Series(pd.Series([True, True, False, None], dtype="boolean"))
    b = zb.Series(pd.Series([True, False, False, True], dtype="boolean"))
    r = a + b
    assert r.dtype == "bool" and r.to_list() == [True, True, False, None]
    assert (a * 3).dtype == "int64"
    with pytest.raises(NotImplementedError, match="int8"):   # numpy: int8, 0 for a False divisor
        a % b
    with pytest.raises(DTypeError, match="neg"):
        -a
    assert abs(a).to_list() == a.to_list()


def test_bitwise_logic_types_as_numpy():
    i = zb.Series(np.array([1, 2, 3], dtype="int64"))
    u = zb.Series(np.array([1, 2, 3], dtype="uint64"))
    u8 = zb.Series(np.array([1, 6, 255], dtype="uint8"))
    # numpy refuses int64 & uint64 (their common type is float64)
    with pytest.raises(TypeError):
        np.array([1, 2, 3], dtype="int64") & np.array([1, 2, 3], dtype="uint64")
    for op in ("__and__", "__or__", "__xor__"):
        with pytest.raises(DTypeError, match="int64 and uint64"):
            getattr(i, op)(u)
        got = getattr(i, op)(u8)
        exp = getattr(np.array([1, 2, 3], dtype="int64"), op)(np.array([1, 6, 255], "uint8"))
        assert got.dtype == str(exp.dtype) and got.to_list() == exp.tolist()


SCALARS = {"int": 3, "neg": -2, "float": 2.5, "bool": True, "np": np.int64(4),
           "npf": np.float32(1.5)}


@pytest.mark.parametrize("seed,n", [c for c in CASES if c[1] <= 1000][:8])
@pytest.mark.parametrize("dtype", NUMERIC + ["boolean"])
@pytest.mark.parametrize("sname", list(SCALARS))
def test_scalar_arithmetic_vs_pandas(seed, n, dtype, sname):
    v = SCALARS[sname]
    if dtype == "boolean" and sname in ("npf", "float", "bool"):
        pytest.skip("documented difference: bool arithmetic gives int64 "
                    "(test_bool_arithmetic_gives_int64)")
    rng = np.random.default_rng(seed)
    a = gen(dtype, n, rng, small=True)
    za = Z(a)
    pyv = v.item() if isinstance(v, np.generic) else v
    for fn in (lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
               lambda x, y: x / y, lambda x, y: y + x, lambda x, y: y - x,
               lambda x, y: y * x, lambda x, y: y / x):
        try:
            exp = _pandas_binop(fn, a, pyv)
        except (TypeError, OverflowError) as e:
            # pandas refuses (a negative scalar with an unsigned column): so
            # must zambezi, with the same kind of error
            with pytest.raises(type(e)):
                fn(za, v)
            continue
        got = fn(za, v)
        assert isinstance(got, zb.Series)
        want = ZB_NAME[str(exp.dtype)]
        rt = _float_tol(want) if want.startswith("float") else 0.0
        assert_same(got, exp, want, rtol=rt)  # float32 / float32 stays float32, as numpy
        assert got.name == "x"


@pytest.mark.parametrize("reflected", [False, True])
def test_unsigned_divided_by_negative_scalar(reflected):
    a = pd.Series([1, None, 200], dtype="UInt8", name="x")
    fn = (lambda x, y: y / x) if reflected else (lambda x, y: x / y)
    try:
        got = fn(Z(a), -2)
    except OverflowError as e:
        got = f"OverflowError: {e}"  # not the exception: its frames hold engine columns
    assert not isinstance(got, str), got
    assert_same(got, _pandas_binop(fn, a, -2), "float64")


def test_scalar_overflow_raises_like_pandas():
    s = zb.Series(pd.Series([1, None, 100], dtype="Int8"), name="small")
    with pytest.raises(OverflowError, match="small"):
        s + 1000
    with pytest.raises(OverflowError):
        zb.Series(pd.Series([1], dtype="UInt8")) - (-1)
    # comparisons widen instead (pandas: all False)
    assert (s == 1000).to_list() == [False, None, False]
    assert (s < 1000).to_list() == [True, None, True]
    assert (zb.Series([1, 2]) < 2**70).to_list() == [True, True]


def test_integer_overflow_wraps_like_numpy():
    a = zb.Series(np.array([127, -128], dtype=np.int8))
    assert (a + np.int8(1)).to_list() == [-128, -127]
    assert (-a).to_list() == [-127, -128]
    assert abs(a).to_list() == [127, -128]
    big = zb.Series(np.array([2**63 - 1], dtype=np.int64))
    assert (big * 2).to_list() == [-2]


# --------------------------------------------------------------------------
# comparisons and logic
# --------------------------------------------------------------------------

CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
       "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}
CMP_PAIRS = [(d, d) for d in NUMERIC + ["boolean"]] + [
    ("Int8", "UInt64"), ("Int64", "UInt64"), ("Int32", "float64"), ("float32", "Int16"),
    ("UInt8", "Int8")]


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("da,db", CMP_PAIRS, ids=[f"{a}-{b}" for a, b in CMP_PAIRS])
def test_compare_numeric_vs_pandas(seed, n, da, db):
    rng = np.random.default_rng(seed + 7)
    a, b = gen(da, n, rng, small=True), gen(db, n, rng, small=True)
    za, zb_ = Z(a, "a"), Z(b, "a")
    # pandas on the dtypes to_pandas() shows: float64 with NaN compares a
    # missing value as False (!= True); Int*/boolean with NA give NA, and
    # without NA they are numpy's int / bool
    a, b = _shown(a), _shown(b)
    for op, fn in CMP.items():
        got = fn(za, zb_)
        assert_same(got, _pandas_binop(fn, a, b), "bool")
        assert got.name == "a"
    for v in (0, 3, -1.5):
        if da == "boolean":
            continue
        for fn in CMP.values():
            assert_same(fn(za, v), _pandas_binop(fn, a, v), "bool")
            assert_same(fn(v, za), _pandas_binop(fn, v, a), "bool")


@pytest.mark.parametrize("threads", [1, 2])
def test_compare_nan_and_int64_extremes(threads):
    """NaN values (from 0/0; NaN read from numpy or pandas becomes null)
    compare as C and numpy do: != is true, every other comparison false;
    -0.0 equals 0.0; int64 compares signed at its extremes.  Lengths with
    whole 64-row words and a partial one, column against column and
    against a scalar.  Oracle: numpy on the same values."""
    rng = np.random.default_rng(41)
    n = 3 * 1024 + 70
    num = rng.choice([0.0, -0.0, 1.0, -2.5, 3.0, np.inf, -np.inf], n)
    den = rng.choice([0.0, 1.0, 2.0], n)
    with np.errstate(divide="ignore", invalid="ignore"):
        fx = num / den
    fy = rng.choice([0.0, -0.0, 1.0, np.inf, 0.5], n)
    ix = rng.choice(np.array([np.iinfo(np.int64).min, -1, 0, 1, np.iinfo(np.int64).max]), n)
    iy = rng.choice(np.array([np.iinfo(np.int64).min, -1, 0, 7, np.iinfo(np.int64).max]), n)
    zx = zb.Series(num) / zb.Series(den)
    assert np.isnan(zx.to_numpy()).sum() == np.isnan(fx).sum() > 0
    ops = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
    zb.set_num_threads(threads)
    try:
        for name, npop in ops.items():
            fn = CMP[name]
            assert np.array_equal(fn(zx, zb.Series(fy)).to_numpy(), npop(fx, fy)), name
            assert np.array_equal(fn(zx, 0.0).to_numpy(), npop(fx, 0.0)), name
            assert np.array_equal(fn(zb.Series(ix), zb.Series(iy)).to_numpy(), npop(ix, iy)), name
            assert np.array_equal(fn(zb.Series(ix), -1).to_numpy(), npop(ix, -1)), name
    finally:
        zb.set_num_threads(2)


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
def test_compare_strings_categoricals_dates_timestamps(seed, n):
    # The oracle is pandas on the dtypes to_pandas() shows -- str, category,
    # datetime64 (dates: object, which compares like datetime64) --, which
    # compare a missing value as False (!= as True), with no NA.
    rng = np.random.default_rng(seed + 11)
    s1, s2 = gen("string", n, rng).astype("str"), gen("string", n, rng).astype("str")
    c1 = gen("category", n, rng)
    c1s = c1.astype("str")
    for fn in CMP.values():
        assert_same(fn(Z(s1), Z(s2)), fn(s1, s2), "bool")
        assert_same(fn(Z(s1), "b"), fn(s1, "b"), "bool")
        assert_same(fn("b", Z(s1)), fn("b", s1), "bool")
    for name, fn in CMP.items():
        if name in ("eq", "ne"):  # categoricals equal by their strings
            assert_same(fn(Z(c1), Z(s1)), fn(c1s, s1), "bool")
            assert_same(fn(Z(c1), "kiwi"), fn(c1s, "kiwi"), "bool")
        else:  # unordered ones have no order: pandas' TypeError
            for other in (s1, "kiwi"):
                with pytest.raises(TypeError):
                    fn(c1, other)
                with pytest.raises(TypeError):
                    fn(Z(c1), Z(other) if not isinstance(other, str) else other)
    zd1, pd1 = gen_dates(n, rng)
    zd2, pd2 = gen_dates(n, rng)
    t1, t2 = gen("timestamp", n, rng), gen("timestamp", n, rng)
    pdd1, pdd2 = (pd.Series(p.to_numpy(dtype="float64", na_value=np.nan)
                            .astype("datetime64[D]")) for p in (pd1, pd2))
    day = datetime.date(1990, 5, 17)
    moment = datetime.datetime(2001, 2, 3, 4, 5, 6, 789)
    for fn in CMP.values():
        assert_same(fn(zd1, zd2), fn(pdd1, pdd2), "bool")
        assert_same(fn(zd1, day), fn(pdd1, pd.Timestamp(day)), "bool")
        assert_same(fn(Z(t1), Z(t2)), fn(t1, t2), "bool")
        assert_same(fn(Z(t1), moment), fn(t1, pd.Timestamp(moment)), "bool")
        assert_same(fn(Z(t1), pd.Timestamp(moment)), fn(t1, pd.Timestamp(moment)), "bool")


def test_nan_compares_like_numpy():
    # NaN read from numpy / pandas is missing (null); a computed NaN is a value
    assert zb.Series(np.array([np.nan, 1.0])).null_count == 1
    a = zb.Series([0.0, 1.0, None], name="a") / 0.0  # [NaN, inf, null]
    assert a.null_count == 1
    # a null float compares as pandas' NaN does: False, != True
    assert (a == a).to_list() == [False, True, False]
    assert (a != a).to_list() == [True, False, True]
    assert (a < 2).to_list() == [False, False, False]
    # ... and counts as missing for isna / dropna / fillna, as in pandas
    assert a.isna().to_list() == [True, False, True]
    assert a.dropna().to_list() == [np.inf]
    assert a.fillna(7.0).to_list() == [7.0, np.inf, 7.0]


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
def test_kleene_logic_vs_pandas(seed, n):
    rng = np.random.default_rng(seed + 3)
    a, b = gen("boolean", n, rng, null_p=0.3), gen("boolean", n, rng, null_p=0.3)
    za, zb_ = Z(a), Z(b)
    assert_same(za & zb_, a & b, "bool")
    assert_same(za | zb_, a | b, "bool")
    assert_same(za ^ zb_, a ^ b, "bool")
    assert_same(~za, ~a, "bool")
    for v in (True, False):
        assert_same(za & v, a & v, "bool")
        assert_same(v | za, v | a, "bool")
    # bitwise on integers
    for d in ("Int8", "UInt16", "Int64"):
        x, y = gen(d, n, rng), gen(d, n, rng)
        assert_same(Z(x) & Z(y), x & y, ZB_NAME[d])
        assert_same(Z(x) | Z(y), x | y, ZB_NAME[d])
        assert_same(Z(x) ^ Z(y), x ^ y, ZB_NAME[d])
        assert_same(~Z(x), ~x, ZB_NAME[d])


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_unary_vs_pandas(seed, n, dtype):
    rng = np.random.default_rng(seed + 5)
    a = gen(dtype, n, rng)
    with np.errstate(all="ignore"):
        assert_same(-Z(a), -a, ZB_NAME[dtype])
        assert_same(abs(Z(a)), abs(a), ZB_NAME[dtype])
        assert_same(Z(a).abs(), a.abs(), ZB_NAME[dtype])


def test_series_is_unhashable_and_has_no_truth_value():
    s = zb.Series([1, 2])
    with pytest.raises(TypeError):
        hash(s)
    with pytest.raises(ValueError):
        bool(s == s)


# --------------------------------------------------------------------------
# nulls
# --------------------------------------------------------------------------

FILL = {"Int8": 7, "UInt64": 9, "Int64": -3, "float32": 0.5, "float64": -1.25,
        "boolean": True, "string": "zz", "category": "kiwi"}
ALL = list(FILL) + ["timestamp"]


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("dtype", ALL)
def test_null_handling_vs_pandas(seed, n, dtype):
    rng = np.random.default_rng(seed + 13)
    a = gen(dtype, n, rng)
    za = Z(a)
    assert_same(za.isna(), a.isna(), "bool")
    assert_same(za.isnull(), a.isnull(), "bool")
    assert_same(za.notna(), a.notna(), "bool")
    assert_same(za.notnull(), a.notnull(), "bool")
    assert_same(za.dropna(), (a.dropna()))
    v = FILL.get(dtype, pd.Timestamp("2020-01-02 03:04:05"))
    got = za.fillna(v)
    assert got.null_count == 0 and got.dtype == za.dtype
    assert_same(got, a.fillna(v))


def test_fillna_dates_and_errors():
    z, p = gen_dates(50, np.random.default_rng(1))
    got = z.fillna(datetime.date(2000, 1, 1))
    assert got.dtype == "date32" and got.null_count == 0
    exp = p.fillna((datetime.date(2000, 1, 1) - datetime.date(1970, 1, 1)).days)
    assert_same(got.astype("int32"), exp.astype("Int32"))
    c = zb.Series(pd.Series(pd.Categorical(["a", None])), name="cat")
    with pytest.raises(TypeError, match="new category"):  # pandas' TypeError
        c.fillna("zz")
    with pytest.raises(TypeError, match="not an integer"):
        zb.Series([1, None], name="i").fillna(1.5)
    with pytest.raises(TypeError):
        zb.Series(["a", None], name="s").fillna(3)
    assert zb.Series([1, None]).fillna(2.0).to_list() == [1, 2]


def test_frame_dropna_fillna_vs_pandas():
    rng = np.random.default_rng(5)
    n = 1000
    pdf = pd.DataFrame({"i": gen("Int32", n, rng, null_p=0.4), "f": gen("float64", n, rng),
                        "s": gen("string", n, rng, null_p=0.4), "b": gen("boolean", n, rng)})
    df = zb.from_pandas(pdf)

    def same(z, p):
        assert list(z.columns) == list(p.columns)
        for c in p.columns:
            assert_same(z[c], p[c])

    same(df.dropna(), (pdf.dropna()))
    same(df.dropna(how="all"), (pdf.dropna(how="all")))
    same(df.dropna(subset=["i", "s"]), (pdf.dropna(subset=["i", "s"])))
    same(df.dropna(subset="f", how="all"), (pdf.dropna(subset=["f"], how="all")))
    same(df.fillna({"i": 0, "s": "?"}), pdf.fillna({"i": 0, "s": "?"}))
    same(df.fillna("?"), pdf.fillna({"s": "?"}))
    # pandas 3 ignores dict keys that name no column
    same(df.fillna({"nope": 1, "i": 5}), pdf.fillna({"nope": 1, "i": 5}))
    with pytest.raises(ColumnNotFoundError):
        df.dropna(subset=["nope"])


# --------------------------------------------------------------------------
# casts
# --------------------------------------------------------------------------

CAST_NUMERIC = ["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
                "Float32", "Float64", "boolean"]


@pytest.mark.parametrize("seed,n", [c for c in CASES if c[1] <= 1000], ids=[
    i for c, i in zip(CASES, CASE_IDS) if c[1] <= 1000])
@pytest.mark.parametrize("src", INTS + FLOATS + ["boolean"])
def test_astype_numeric_vs_pandas(seed, n, src):
    rng = np.random.default_rng(seed + 17)
    a = gen(src, n, rng, small=True)
    if src.startswith("float"):
        a = a.round()
    a = a.abs() if src != "boolean" else a  # every target can hold the values
    za = Z(a)
    for target in CAST_NUMERIC:
        try:
            exp = a.astype(target)
        except TypeError:  # pandas: float -> boolean needs 0/1 values
            continue
        # "bool" asks numpy's truth (missing values true), not pandas' boolean
        for spelling in (target,) if target == "boolean" else (target, ZB_NAME[target]):
            assert_same(za.astype(spelling), exp, ZB_NAME[target])
    # numpy dtypes and Python types
    assert za.astype(np.float64).dtype == "float64"
    assert za.astype(np.dtype("int16")).dtype == "int16"
    assert za.astype(int).dtype == "int64"
    assert za.astype(float).dtype == "float64"
    if src in INTS and a.isna().any():   # numpy's bool of pandas' Int64 with NA: an error
        with pytest.raises(ValueError, match="cannot convert"):
            za.astype(bool)
    else:
        assert za.astype(bool).dtype == "bool"
    # to string: pandas writes missing values as missing
    got = za.astype(str)
    assert got.dtype == "string"
    exp = a.astype("string") if src != "boolean" else a.astype(object).astype("string")
    if src.startswith("float"):
        exp = pd.Series(np.where(_na(a), None, [repr(float(x)) for x in a.fillna(0)]),
                        dtype="string")
    assert_same(got, exp)
    # and back ("boolean" parses the words; "bool" would be numpy's truth)
    assert_same(got.astype(src if src == "boolean" else ZB_NAME.get(src, src)), a)


def test_float_text_is_the_shortest_round_trip():
    # Python's repr (float64) and numpy's str (float32) are the oracles:
    # short decimals, full-precision noise, powers of two (where fewer values
    # read back below than above), subnormals, integers near 2**53
    rng = np.random.default_rng(7)
    n = 3000
    x = np.concatenate([
        np.round(rng.uniform(-1e4, 1e4, n), 2),
        rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n),
        np.ldexp(1.0, rng.integers(-1074, 1023, n)),
        np.ldexp(rng.integers(1, 999, n).astype(float), rng.integers(-40, 40, n)),
        rng.integers(-2**53, 2**53, n).astype(float),
        [5e-324, 1e-4, 9.999999999999999e15, 1e16, 1e22, 1e23, 0.3, 2 / 3],
    ])
    got = Z(pd.Series(x)).astype(str).to_numpy()
    np.testing.assert_array_equal(got, np.array([repr(float(v)) for v in x]))
    f = x.astype(np.float32)
    f = f[np.isfinite(f) & (f != 0)]
    got = Z(pd.Series(f)).astype(str).to_numpy()
    np.testing.assert_array_equal(got, np.array([str(v) for v in f]))


def test_astype_strings_categories_dates():
    rng = np.random.default_rng(2)
    ints = gen("Int64", 1000, rng)
    strs = ints.astype("string")
    assert_same(Z(strs).astype("int64"), ints, "int64")
    fl = pd.Series(rng.standard_normal(100))
    assert_same(Z(fl.astype(str)).astype("float64"), fl, "float64")
    # astype("bool") is numpy's truth (non-empty text); "boolean" parses the words
    assert Z(pd.Series(["True", "false", "1", None])).astype("bool").to_list() == \
        pd.Series(["True", "false", "1", None]).astype("bool").to_list()
    assert Z(pd.Series(["True", "false", "1", None])).astype("boolean").to_list() == [
        True, False, True, None]
    s = gen("string", 1000, rng)
    cat = Z(s).astype("category")
    exp = s.astype("category")
    assert cat.dtype == "category"
    assert cat._col.dictionary.to_pylist() == list(exp.cat.categories)
    assert_same(cat.astype("string"), s)
    assert_same(Z(s).astype(pd.CategoricalDtype()).astype(str), s)
    z, p = gen_dates(1000, rng)
    assert_same(z.astype("int32"), p, "int32")
    t = gen("timestamp", 1000, rng)
    ti = pd.Series(pd.arrays.IntegerArray(t.to_numpy().view(np.int64), _na(t)))
    assert_same(Z(t).astype("int64"), ti, "int64")
    assert_same(Z(t).astype("datetime64[ms]"), t.astype("datetime64[ms]"), "timestamp[ms]")
    assert Z(t).astype("timestamp[s]").dtype == "timestamp[s]"
    assert_same(Z(t).astype("date32").astype("int32"),
                pd.Series(pd.arrays.IntegerArray(
                    t.to_numpy().astype("datetime64[D]").view(np.int64).astype(np.int32),
                    _na(t))), "int32")


def test_astype_nan_to_integer_is_null_like_pandas_nullable():
    f = pd.Series([1.0, np.nan, 3.0])
    assert_same(Z(f).astype("int64"), f.astype("Int64"), "int64")


def test_astype_errors():
    s = zb.Series([1, 300, None], name="wide")
    with pytest.raises(OverflowError, match="wide"):
        s.astype("int8")
    with pytest.raises(DTypeError, match="unknown dtype"):
        s.astype("int65")
    with pytest.raises(DTypeError, match="wide"):
        s.astype("no_such_type")
    assert s.astype(object).dtype == "string"  # object means string (test_arguments.py)
    with pytest.raises(ValueError, match="abc"):
        zb.Series(["1", "abc"], name="t").astype("int64")


def test_frame_astype():
    pdf = pd.DataFrame({"a": pd.Series([1, 2, None], dtype="Int64"), "b": [1.0, 2.5, 3.0]})
    df = zb.from_pandas(pdf)
    assert df.astype({"a": "float32"}).dtypes.to_dict() == {"a": "float32", "b": "float64"}
    assert df.astype("float32").dtypes.to_dict() == {"a": "float32", "b": "float32"}
    assert_same(df.astype(str)["b"], pdf["b"].astype("string"))
    with pytest.raises(ColumnNotFoundError):
        df.astype({"c": "int8"})


# --------------------------------------------------------------------------
# filtering, take, iloc
# --------------------------------------------------------------------------

@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
def test_filter_vs_pandas(seed, n, threads):
    rng = np.random.default_rng(seed + 19)
    pdf = pd.DataFrame({d: gen(d, n, rng) for d in ALL})
    df = zb.from_pandas(pdf)
    mask = gen("boolean", n, rng, null_p=0.1)
    keep = mask.fillna(False).to_numpy(dtype=bool)  # documented: null drops the row
    exp = (pdf[keep])
    got = df[Z(mask)]
    assert len(got) == len(exp)
    for c in pdf.columns:
        assert_same(got[c], exp[c])
        assert_same(df[c][Z(mask)], exp[c])
        assert_same(df[c][keep], exp[c])
    # a comparison as the mask
    assert_same(df[df["Int64"] > 0]["string"],
                (pdf[(pdf["Int64"] > 0).fillna(False)]["string"]))
    # numpy / list masks through iloc
    assert_same(df.iloc[keep]["float64"], exp["float64"])
    assert_same(df["Int8"].iloc[list(keep)], exp["Int8"]) if n else None


def test_filter_keeping_every_row_shares_the_columns():
    """A mask that keeps every row returns the data without copying it
    (tables are immutable); dropna on data with nothing missing too."""
    from conftest import alloc_bytes
    n = 300_001
    df = zb.DataFrame({"i": np.arange(n), "f": np.linspace(0, 1, n),
                       "s": pd.Series(["ab", None, "c"] * (n // 3) + ["d"], dtype="string")})
    keep = df["i"] >= 0
    before = alloc_bytes()
    got = df[keep]
    no_na = df.dropna(subset=["f"])
    held = alloc_bytes() - before
    assert held < 100_000, held  # masks only, no column copies
    for c in ("i", "f", "s"):
        assert_same(got[c], df[c].to_pandas())
        assert_same(no_na[c], df[c].to_pandas())
    got["i"] = 0  # the result is a frame of its own
    assert df["i"].sum() == n * (n - 1) // 2
    one = df["f"][keep]
    assert_same(one, df["f"].to_pandas())


@pytest.mark.parametrize("max_len", [9, 20, 300])
@pytest.mark.parametrize("keep_p", [0.02, 0.5, 0.97, "runs"])
def test_filter_long_strings_vs_pandas(max_len, keep_p, threads):
    """String filters across several 65536-row morsels: a morsel whose
    predecessor has finished (one thread, or a frame's other columns ran
    meanwhile) writes straight to the output, others through per-worker
    buffers; the last morsel, whose 16-byte copies could run past the
    bytes, tests its room per row; morsels of more than 4 MiB of bytes are
    copied straight to the output; a filter keeping under a quarter of a
    large column sizes its bytes exactly first.  Words of 64 rows that are
    all kept ("runs": kept and dropped runs of 1 to 3000 rows) copy their
    bytes at once.  A slice of the column (its offsets not starting at zero)
    goes through the same paths."""
    rng = np.random.default_rng(max_len + (7 if keep_p == "runs" else int(keep_p * 100)))
    n = 200_003
    lens = rng.integers(0, max_len, n)
    alphabet = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    flat = "".join(alphabet[rng.integers(0, 26, int(lens.sum()))])
    ends = np.cumsum(lens)
    words = [flat[e - k:e] for e, k in zip(ends, lens)]
    ps = pd.Series(words, dtype="string")
    ps[rng.random(n) < 0.05] = pd.NA
    if keep_p == "runs":
        keep = np.repeat(np.arange(n) % 2 == 0, rng.integers(1, 3000, n))[:n]
    else:
        keep = rng.random(n) < keep_p
    s = Z(ps)
    assert_same(s[keep], (ps[keep]))
    part, pkeep = s.iloc[7:], keep[7:]
    assert_same(part[pkeep], (ps.iloc[7:][pkeep]))
    zmask = Z(pd.Series(keep))  # a mask that is itself a slice
    assert_same(part[zmask.iloc[7:]], (ps.iloc[7:][pkeep]))
    # fixed-width columns of every width through the sparse, dense and
    # end-of-morsel paths of the same masks
    fixed = {"i": np.arange(n), "i32": np.arange(n, dtype=np.int32),
             "f32": np.arange(n, dtype=np.float32), "i16": (np.arange(n) % 30000).astype(np.int16),
             "u8": (np.arange(n) % 251).astype(np.uint8)}
    df = zb.DataFrame({"s": s, **fixed})
    got = df[keep]
    assert_same(got["s"], (ps[keep]))
    for name, values in fixed.items():
        assert np.array_equal(got[name].to_numpy(), values[keep]), name


@pytest.mark.parametrize("seed", range(3))
def test_take_and_filter_short_strings_near_the_end_of_their_bytes(seed, threads):
    """Strings of 0 to 17 bytes in a small column (every one within 16
    bytes of the end of the column's bytes, where a 16-byte copy would run
    past them) taken many times over by random positions, and filtered at
    the end of a large column: each must be copied exactly."""
    rng = np.random.default_rng(seed)
    words = ["x" * k if k % 3 else "é" * (k // 2) for k in range(18)]
    small = pd.Series([words[k] for k in rng.permutation(18)] + [None], dtype="string")
    idx = rng.integers(0, len(small), 150_000)
    assert_same(Z(small).take(idx), small.take(idx))
    tail = pd.Series(["y" * 40] * 100_000 + [words[k] for k in rng.integers(0, 18, 700)],
                     dtype="string")
    keep = rng.random(len(tail)) < 0.5
    assert_same(Z(tail)[keep], tail[keep])


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
def test_take_and_iloc_vs_pandas(seed, n, threads):
    rng = np.random.default_rng(seed + 23)
    pdf = pd.DataFrame({d: gen(d, n, rng) for d in ALL})
    df = zb.from_pandas(pdf)
    idx = rng.integers(-n, n, size=2 * n) if n else np.array([], dtype=np.int64)
    exp = (pdf.take(idx))
    for got in (df.take(idx), df.iloc[idx], df.iloc[list(idx)]):
        for c in pdf.columns:
            assert_same(got[c], exp[c])
    for c in pdf.columns:
        assert_same(df[c].take(idx), (pdf[c].take(idx)))
        assert_same(df[c].iloc[idx], (pdf[c].iloc[idx]))
    for sl in (slice(None, None, 3), slice(None, None, -1), slice(1, -1, 2), slice(5, 1, -2),
               slice(2, 10)):
        for c in ("Int8", "string", "category"):
            assert_same(df[c].iloc[sl], (pdf[c].iloc[sl]))
            assert_same(df.iloc[sl][c], (pdf.iloc[sl][c]))
    if n:
        i = int(rng.integers(-n, n))
        assert df["Int64"].iloc[i] == (None if pd.isna(pdf["Int64"].iloc[i])
                                       else pdf["Int64"].iloc[i])
        row = df.iloc[i]
        assert set(row) == set(pdf.columns)
        assert row["string"] == (None if pd.isna(pdf["string"].iloc[i])
                                 else pdf["string"].iloc[i])
    with pytest.raises(IndexError):
        df.take([n])
    with pytest.raises(IndexError):
        df["Int8"].iloc[[0, -n - 1]]
    with pytest.raises(IndexError):
        df.iloc[n]


# --------------------------------------------------------------------------
# sorting
# --------------------------------------------------------------------------

SORT_DTYPES = NUMERIC + ["boolean", "string", "category", "timestamp"]


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("dtype", SORT_DTYPES)
def test_series_sort_vs_pandas(seed, n, dtype, threads):
    rng = np.random.default_rng(seed + 29)
    a = gen(dtype, n, rng, small=True)
    if dtype == "float64" and n:
        a.iloc[rng.integers(0, n, size=max(1, n // 50))] = -0.0  # -0.0 == 0.0, stable
    za = Z(a)
    for asc in (True, False):
        for na in ("last", "first"):
            exp = a.sort_values(ascending=asc, na_position=na, kind="stable")
            assert_same(za.sort_values(ascending=asc, na_position=na), (exp))
            pos = za.argsort(ascending=asc, na_position=na)
            np.testing.assert_array_equal(pos.to_numpy(), exp.index.to_numpy())
    if dtype not in ("category", "string"):  # pandas refuses these
        k = max(n // 3, 1)
        assert_same(za.nlargest(k), (a.nlargest(k)))
        assert_same(za.nsmallest(k), (a.nsmallest(k)))
        assert_same(za.nlargest(n + 1), (a.nlargest(n + 1)))
    if not a.isna().any() and dtype in NUMERIC:
        np.testing.assert_array_equal(za.argsort().to_numpy(),
                                      a.argsort(kind="stable").to_numpy())


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
def test_categorical_sorts_in_category_order(seed, n, threads):
    # categories in an order that is not the strings' order (as pandas users
    # write for ordered levels): pandas sorts by category, and so must we
    rng = np.random.default_rng(seed + 37)
    cats = ["zeta", "", "b", "apple", "Émile", "a b", "kiwi"]
    order = [cats[i] for i in rng.permutation(len(cats))]
    codes = rng.integers(-1, len(order), size=n)  # -1: missing
    a = pd.Series(pd.Categorical.from_codes(codes, categories=order), name="k")
    za = Z(a, "k")
    for asc in (True, False):
        for na in ("last", "first"):
            exp = a.sort_values(ascending=asc, na_position=na, kind="stable")
            assert_same(za.sort_values(ascending=asc, na_position=na), (exp))
            np.testing.assert_array_equal(
                za.argsort(ascending=asc, na_position=na).to_numpy(), exp.index.to_numpy())
    pdf = pd.DataFrame({"k": a, "j": rng.integers(0, 3, size=n), "v": np.arange(n)})
    df = zb.from_pandas(pdf)
    for by, asc in ((["k", "j"], [True, False]), (["j", "k"], [False, True])):
        exp = pdf.sort_values(by, ascending=asc, kind="stable")
        np.testing.assert_array_equal(df.sort_values(by, ascending=asc)["v"].to_numpy(),
                                      exp["v"].to_numpy())


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
def test_frame_sort_vs_pandas(seed, n, threads):
    rng = np.random.default_rng(seed + 31)
    pdf = pd.DataFrame({"k1": gen("Int8", n, rng, small=True),
                        "k2": gen("string", n, rng), "k3": gen("float64", n, rng, small=True),
                        "k4": gen("boolean", n, rng), "v": np.arange(n)})
    df = zb.from_pandas(pdf)
    for by, asc in ((["k1"], True), (["k1", "k2"], [True, False]),
                    (["k2", "k4", "k3"], [False, True, False]), ("k3", False)):
        for na in ("last", "first"):
            exp = pdf.sort_values(by, ascending=asc, na_position=na, kind="stable")
            got = df.sort_values(by, ascending=asc, na_position=na)
            np.testing.assert_array_equal(got["v"].to_numpy(), exp["v"].to_numpy())
            assert_same(got["k2"], (exp["k2"]))
            for key in ([by] if isinstance(by, str) else by):  # the sorted keys, labelled
                assert_same(got[key], exp[key])
            assert list(got.columns) == list(exp.columns)
    # pandas' DataFrame.nlargest treats NA inconsistently (it may return an
    # all-NA row); compare on keys without missing values, and check that
    # zambezi drops rows missing a key separately.
    pdf = pdf.fillna({"k1": 0, "k3": 0.5})
    df = zb.from_pandas(pdf)
    k = max(n // 4, 1)
    for cols in ("k1", ["k1", "k3"]):
        exp = pdf.nlargest(k, cols)
        np.testing.assert_array_equal(df.nlargest(k, cols)["v"].to_numpy(),
                                      exp["v"].to_numpy())
        exp = pdf.nsmallest(k, cols)
        np.testing.assert_array_equal(df.nsmallest(k, cols)["v"].to_numpy(),
                                      exp["v"].to_numpy())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [0, 1, 33, 5000, 150_000])
def test_string_sort_hard_keys(seed, n, threads):
    # shared prefixes of 0..70 bytes (ties continuing past several 7-byte
    # digits and past the merge-sort depth), embedded NULs ("ab" < "ab\0"),
    # empty strings, non-ASCII and nulls; Python's stable sort is the oracle
    rng = np.random.default_rng(seed)
    prefixes = ["", "x" * 7, "y" * 13, "https://example.com/", "z" * 57, "w" * 70]
    alphabet = np.array(list("ab\x00\x01cé~"))
    vals = []
    for i in range(n):
        tail = "".join(alphabet[rng.integers(0, len(alphabet), rng.integers(0, 4))])
        vals.append(None if rng.random() < 0.05 else prefixes[rng.integers(0, 6)] + tail)
    s = zb.Series(pd.Series(vals, dtype="string"))
    valid = [i for i, v in enumerate(vals) if v is not None]
    missing = [i for i, v in enumerate(vals) if v is None]
    enc = {i: vals[i].encode() for i in valid}
    asc = sorted(valid, key=lambda i: enc[i])
    desc = sorted(valid, key=lambda i: enc[i], reverse=True)  # stable too
    assert s.argsort().to_list() == asc + missing
    assert s.argsort(ascending=False, na_position="first").to_list() == missing + desc
    assert s.sort_values().to_list() == [vals[i] for i in asc] + [None] * len(missing)


@pytest.mark.parametrize("case", ["float_ties", "short_runs", "long_runs", "huge_run"])
def test_wide_key_sorts_order_ties(case, threads):
    """Keys whose range and row position do not fit 64 bits together are
    sorted by their top bits packed with the position, then each run of
    equal top bits by the rest.  Here: float64 with many equal values, and
    int64 in three far-apart clusters whose rows differ only in low bits
    (top-bit runs of about 25, 1500 and 100,000 rows); one key and two,
    ascending and descending, with and without nulls; pandas' stable sort
    is the oracle."""
    rng = np.random.default_rng(["float_ties", "short_runs", "long_runs", "huge_run"].index(case))
    n = 300_001  # 19 position bits: about 19 low key bits go to the tie pass
    if case == "float_ties":
        wide = pd.Series(np.round(rng.random(n) * 200 - 100, 3))
        wide[rng.random(n) < 0.01] = -0.0
    else:
        span = {"short_runs": 2**30, "long_runs": 2**24, "huge_run": 2**18}[case]
        wide = pd.Series(rng.choice([-2**62, 5, 2**62 - 2**40], n) + rng.integers(0, span, n))
    pdf = pd.DataFrame({"wide": wide, "small": rng.integers(0, 3, n), "v": np.arange(n)})
    holes = pdf.astype({"wide": "Float64" if case == "float_ties" else "Int64"})
    holes.loc[rng.random(n) < 0.02, "wide"] = pd.NA
    for frame in (pdf, holes):
        df = zb.from_pandas(frame)
        for by, asc in (("wide", True), ("wide", False), (["small", "wide"], [True, False]),
                        (["wide", "small"], [False, True])):
            exp = frame.sort_values(by, ascending=asc, kind="stable")["v"].to_numpy()
            got = df.sort_values(by, ascending=asc)["v"].to_numpy()
            np.testing.assert_array_equal(got, exp, err_msg=f"{by} {asc}")
    np.testing.assert_array_equal(zb.from_pandas(pdf)["wide"].argsort().to_numpy(),
                                  pdf["wide"].argsort(kind="stable").to_numpy())


def test_frame_nlargest_drops_missing_keys():
    df = zb.DataFrame({"k": [None, 3, None, 3, 1], "v": [0, 1, 2, 3, 4]})
    assert df.nlargest(3, "k")["v"].to_list() == [1, 3, 4]
    assert df.nsmallest(2, "k")["v"].to_list() == [4, 1]
    # n >= rows: a plain sort, missing keys last (as pandas)
    assert df.nlargest(5, "k")["v"].to_list() == [1, 3, 4, 0, 2]


def test_sort_errors():
    df = zb.DataFrame({"a": [2, 1]})
    with pytest.raises(ColumnNotFoundError):
        df.sort_values("b")
    with pytest.raises(ValueError):
        df.sort_values("a", na_position="middle")
    with pytest.raises(ValueError):
        df.sort_values(["a"], ascending=[True, False])


# --------------------------------------------------------------------------
# column assignment, assign, drop, concat
# --------------------------------------------------------------------------

def test_setitem_assign_drop():
    pdf = pd.DataFrame({"a": pd.Series([1, 2, None], dtype="Int64"), "b": ["x", "y", "z"]})
    df = zb.from_pandas(pdf)
    before = df.copy()
    df["c"] = df["a"] * 2
    df["d"] = 1.5
    df["e"] = np.array([True, False, True])
    df["f"] = ["p", "q", None]
    df["a"] = df["a"] + 1  # replace keeps the position
    assert list(df.columns) == ["a", "b", "c", "d", "e", "f"]
    assert list(before.columns) == ["a", "b"]  # the copy still sees the old table
    assert before["a"].to_list() == [1, 2, None]
    assert df["a"].to_list() == [2, 3, None]
    assert df["c"].to_list() == [2, 4, None]
    assert df["d"].to_list() == [1.5] * 3
    assert df["e"].dtype == "bool" and df["f"].to_list() == ["p", "q", None]
    with pytest.raises(InvalidValueError, match="'g'"):
        df["g"] = [1, 2]
    out = df.assign(h=lambda d: d["c"] + d["a"], i=7, j=lambda d: d["h"] * 0)
    exp = pdf.assign(c=pdf["a"] * 2)
    exp = exp.assign(a=exp["a"] + 1).assign(h=lambda d: d["c"] + d["a"])
    assert_same(out["h"], exp["h"])
    assert out["j"].to_list() == [0, 0, None]
    assert "h" not in df
    dropped = out.drop(columns=["h", "i"])
    assert list(dropped.columns) == [c for c in out.columns if c not in ("h", "i")]
    assert list(out.drop(columns="j").columns) == list(out.columns)[:-1]
    with pytest.raises(ColumnNotFoundError):
        out.drop(columns=["nope"])


@pytest.mark.parametrize("seed", range(3))
def test_setitem_column_list_and_bool_frame(seed):
    # df[[a, b]] = frame (columns by position) or a scalar; df[bool frame] = v
    # (where the mask is true): what Dask's group-by var / std chunks do
    rng = np.random.default_rng(seed)
    n = 50
    pdf = pd.DataFrame({"a": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
                        "b": rng.normal(size=n), "c": rng.integers(-3, 3, n).astype(float)})
    df = zb.from_pandas(pdf)
    pdf[pdf.columns[:2]] = pdf[pdf.columns[:2]] ** 2
    df[df.columns[:2]] = df[df.columns[:2]] ** 2
    pdf[["c", "a"]] = pdf[["a", "b"]]
    df[["c", "a"]] = df[["a", "b"]]
    pdf[["d", "b"]] = 0.5
    df[["d", "b"]] = 0.5
    pdf[pdf < 0.3] = 0
    df[df < 0.3] = 0
    pdf[pdf == 0] = np.nan
    df[df == 0] = np.nan
    pd.testing.assert_frame_equal(df.to_pandas(), pdf)
    with pytest.raises(InvalidValueError, match="2 columns from a frame of 1"):
        df[["a", "b"]] = df[["c"]]


@pytest.mark.parametrize("seed", range(3))
def test_concat_vs_pandas(seed):
    rng = np.random.default_rng(seed + 37)
    frames = [pd.DataFrame({d: gen(d, n, rng) for d in ALL}) for n in (0, 5, 1000, 1)]
    got = zb.concat([zb.from_pandas(f) for f in frames], ignore_index=True)
    exp = pd.concat(frames, ignore_index=True)
    assert list(got.columns) == list(exp.columns)
    # the inputs' labels are kept without ignore_index (0..4, 0..999, 0)
    kept = zb.concat([zb.from_pandas(f) for f in frames]).index.to_pandas()
    pd.testing.assert_index_equal(kept, pd.concat(frames).index, exact="equiv")
    for c in exp.columns:
        assert_same(got[c], exp[c])
    # categoricals with different categories: their values, as pandas
    pa_, pb_ = pd.Series(pd.Categorical(["x", None, "y"])), pd.Series(pd.Categorical(["z", "x"]))
    s = zb.concat([zb.Series(pa_, name="c"), zb.Series(pb_, name="c")])
    assert s.name == "c" and s.to_pandas().dtype == pd.concat([pa_, pb_]).dtype
    assert s.to_list() == ["x", None, "y", "z", "x"]
    assert zb.concat([zb.Series([1]), zb.Series([2, 3])]).to_list() == [1, 2, 3]


NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"]


@pytest.mark.parametrize("a", NUMERIC)
def test_concat_of_numbers_of_different_types_as_pandas(a):
    # numpy's promotion, as pandas: int8 + int16 is int16, float32 + int8
    # float32, int64 + uint64 float64 (values past int64's range kept)
    for b in NUMERIC:
        big = {"uint64": 2**63 + 5, "int64": -(2**62)}.get(b, 3)
        pa_ = pd.DataFrame({"x": np.array([1, 2], dtype=a), "k": [1, 2]})
        pb = pd.DataFrame({"x": np.array([big, 4], dtype=b), "k": [3, 4]})
        exp = pd.concat([pa_, pb], ignore_index=True)
        got = zb.concat([zb.DataFrame(pa_), zb.DataFrame(pb)], ignore_index=True).to_pandas()
        pd.testing.assert_frame_equal(got, exp, obj=f"{a} + {b}")
        ps = pd.concat([pa_["x"], pb["x"], pa_["x"]])
        zs = zb.concat([zb.Series(pa_["x"]), zb.Series(pb["x"]), zb.Series(pa_["x"])])
        pd.testing.assert_series_equal(zs.to_pandas(), ps, obj=f"{a} + {b} (Series)")


def test_concat_labels_as_pandas():
    idx = [pd.Index(list("abc"), name=n) for n in ("i", "i", None)]
    pf = [pd.DataFrame({c: [0, 1, 2]}, index=i) for c, i in zip("xyz", idx)]
    zf = [zb.DataFrame(f) for f in pf]
    for k in (2, 3):  # index names: the one every input shares, else none
        pd.testing.assert_frame_equal(zb.concat(zf[:k], axis=1).to_pandas(),
                                      pd.concat(pf[:k], axis=1))
    s1, s2 = pd.Series([1, 2], name="x"), pd.Series([3, 4], name="y")
    u1, u2 = pd.Series([1, 2]), pd.Series([3, 4])
    pdf = pd.DataFrame({"a": [5, 6]})
    cases = [(dict(axis=1, ignore_index=True), [s1, s2]), (dict(axis=1), [u1, u2]),
             (dict(axis=1, keys=["k", "l", "m"]), [pdf, s1, s2]),
             (dict(sort=True), [pd.DataFrame({"c": [1], "b": [2], "a": [3]})] * 2),
             (dict(sort=True, join="inner"),
              [pd.DataFrame({"c": [1], "b": [2]}), pd.DataFrame({"b": [3], "c": [4]})])]
    for kw, objs in cases:
        exp = pd.concat(objs, **kw)
        got = zb.concat([zb.Series(o) if isinstance(o, pd.Series) else zb.DataFrame(o)
                         for o in objs], **kw).to_pandas()
        pd.testing.assert_frame_equal(got, exp, check_column_type=True, obj=str(kw))
    with pytest.raises(TypeError, match="all inputs must be Index"):
        zb.Index([1, 2]).append([zb.Index([3]), [4]])


def test_concat_errors():
    with pytest.raises(ZambeziError, match="'a'"):
        zb.concat([zb.DataFrame({"a": [1]}), zb.DataFrame({"a": ["x"]})])
    with pytest.raises(DTypeError):
        zb.concat([zb.DataFrame({"a": [1]}), [1, 2]])
    with pytest.raises(InvalidValueError):
        zb.concat([])
    with pytest.raises(InvalidValueError, match="join"):
        zb.concat([zb.DataFrame({"a": [1]})], join="left")
    with pytest.raises(InvalidValueError, match="axis"):
        zb.concat([zb.DataFrame({"a": [1]})], axis=2)
    with pytest.raises(InvalidValueError, match="keys"):
        zb.concat([zb.DataFrame({"a": [1]})], keys=["p", "q"])
    with pytest.raises(InvalidValueError, match="unique"):  # aligning needs unique labels
        zb.concat([zb.Series([1, 2], index=[0, 0]), zb.Series([3], index=[1])], axis=1)


# --------------------------------------------------------------------------
# errors name the columns
# --------------------------------------------------------------------------

def test_errors_name_the_columns():
    a = zb.Series([1, 2, 3], name="left")
    b = zb.Series([1, 2], name="right")
    # Series of other labels align (pandas: label 2 has no partner -> NaN) ...
    assert (a + b).to_pandas().to_dict() == {0: 2.0, 1: 4.0, 2: pytest.approx(float("nan"),
                                                                             nan_ok=True)}
    # ... but do not compare
    with pytest.raises(InvalidValueError, match="identically-labeled") as e:
        a == b
    assert "left" in str(e.value) and "right" in str(e.value)
    s = zb.Series(["x", "y"], name="words")
    i = zb.Series([1, 2], name="nums")
    with pytest.raises(DTypeError) as e:
        s + i
    assert "words" in str(e.value) and "nums" in str(e.value)
    with pytest.raises(DTypeError, match="words"):
        s * 2
    with pytest.raises(DTypeError, match="nums"):
        i == "a"  # documented: pandas gives all False
    with pytest.raises(InvalidValueError, match="length mismatch"):
        a + [1, 2]
    with pytest.raises(KeyError, match="not in index"):
        a[zb.Series([1.5, 2.0, 3.0])]  # labels, as pandas: 1.5 and 3.0 are not there
    with pytest.raises(IndexError, match="unalignable"):
        a[zb.Series([True, False])]  # pandas: IndexingError, unalignable boolean Series
    with pytest.raises(InvalidValueError, match="3 rows"):
        a[[True, False]]
    df = zb.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(IndexError):
        df[zb.Series([True])]
    with pytest.raises(InvalidValueError):
        df[[True]]
    ts = zb.Series(pd.Series(pd.to_datetime(["2020-01-01"]).tz_localize("UTC")), name="t")
    with pytest.raises(DTypeError, match="timezone"):
        ts < datetime.datetime(2020, 1, 1)
    with pytest.raises(DTypeError):
        zb.Series([1, 2]) + object()


def test_memory_is_released_after_errors():
    from conftest import alloc_bytes

    base = alloc_bytes()
    a = zb.Series(np.arange(1000), name="a")
    for _ in range(3):
        with pytest.raises(DTypeError):
            a + zb.Series(["x"] * 1000)
        with pytest.raises(IndexError):
            a.take([5000])
        with pytest.raises(OverflowError):
            a.astype("int8")
    del a
    assert alloc_bytes() == base


def test_gil_released_results_identical_across_threads():
    import threading

    rng = np.random.default_rng(0)
    p = gen("Int64", 100_001, rng)
    z = Z(p)
    exp = (z * 3 + 1).sort_values().to_numpy()
    out = []

    def work():
        out.append((z * 3 + 1).sort_values().to_numpy())

    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for o in out:
        np.testing.assert_array_equal(o, exp)


def test_failed_allocations_raise_and_leak_nothing():
    """Every allocation the bindings and engine make for these operations may
    fail: each failure is an OutOfMemoryError and nothing leaks."""
    from conftest import alloc_bytes, fail_allocations_in_turn

    pdf = pd.DataFrame({"i": pd.Series([3, None, 1, 2] * 50, dtype="Int32"),
                        "s": pd.Series(["b", None, "a", "c"] * 50, dtype="string")})
    df = zb.from_pandas(pdf)
    s = df["i"]
    ops = [lambda: s + s, lambda: s * 2, lambda: -s, lambda: s.astype("string"),
           lambda: s.isna(), lambda: s.fillna(0), lambda: df[s > 1],
           lambda: df.take([3, 0, 1]), lambda: df.sort_values(["s", "i"]),
           lambda: zb.concat([df, df]), lambda: df["s"] == "a", lambda: s.nlargest(3)]
    base = alloc_bytes()
    for i, op in enumerate(ops):
        expected = op()
        del expected
        fail_allocations_in_turn(op, f"operation {i}", limit=60)
    assert alloc_bytes() == base


@pytest.mark.parametrize("dtype", ["Int64", "UInt8", "float32", "string", "category"])
def test_results_identical_for_1_and_3_threads(dtype):
    rng = np.random.default_rng(42)
    a, b = gen(dtype, 100_001, rng), gen(dtype, 100_001, rng)
    outs = []
    for t in (1, 3):
        zb.set_num_threads(t)
        za, zb_ = Z(a), Z(b)
        r = [(za < zb_) if dtype != "category" else (za == zb_), za.isna(), za.sort_values(),
             za[za != zb_]]
        if dtype not in ("string", "category"):
            r += [za + zb_, za * zb_, za // zb_, za.astype("float64")]
        outs.append([x.to_pandas() for x in r])
    for x, y in zip(*outs):
        pd.testing.assert_series_equal(x, y)


@pytest.mark.parametrize("seed,n", CASES, ids=CASE_IDS)
def test_date_sort_vs_pandas(seed, n):
    z, p = gen_dates(n, np.random.default_rng(seed + 41))
    for asc in (True, False):
        for na in ("first", "last"):
            exp = p.sort_values(ascending=asc, na_position=na, kind="stable")
            got = z.argsort(ascending=asc, na_position=na)
            np.testing.assert_array_equal(got.to_numpy(), exp.index.to_numpy())
            assert_same(z.sort_values(ascending=asc, na_position=na).astype("int32"),
                        (exp))


def test_numpy_ufuncs_and_scalars():
    s = zb.Series([1, 2, None], name="s")
    r = np.add(s, 1)
    assert isinstance(r, zb.Series) and r.to_list() == [2, 3, None]
    assert (np.int64(10) - s).to_list() == [9, 8, None]
    assert (np.float64(0.5) * s).to_list() == [0.5, 1.0, None]
    assert np.negative(s).to_list() == [-1, -2, None]
    root = np.sqrt(zb.Series([4.0, 9.0], name="v"))  # run by numpy, a Series as in pandas
    assert isinstance(root, zb.Series) and root.to_list() == [2.0, 3.0] and root.name == "v"
    assert (s == np.int8(2)).to_list() == [False, True, None]


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_float_to_int_truncates_toward_zero_at_the_bounds(device):
    """A float just past an integer type's bound whose truncation is the
    bound itself (-128.5 -> int8 -128) converts as numpy does, on both
    backends; one truncating past the bound is an overflow."""
    cases = {
        "int8": [-128.5, -128.99, 127.9, -0.5, 0.5, -1.5],
        "int16": [-32768.9, 32767.9],
        "int32": [-2147483648.7, 2147483647.5],
        "uint8": [-0.9, 255.9],
        "uint32": [-0.5, 4294967295.5],
        "int64": [-9.2e18, 9.2e18],
    }
    for dtype, vals in cases.items():
        arr = np.array(vals)
        got = zb.Series(arr).to(device).astype(dtype).to("cpu").to_list()
        assert got == arr.astype(dtype).tolist(), dtype
    for dtype, bad in (("int8", -129.0), ("uint8", 256.0), ("int32", 2147483648.0)):
        with pytest.raises(ZambeziOverflowError, match="row 1"):
            zb.Series(np.array([1.0, bad])).to(device).astype(dtype)


def test_column_same_data_asks_for_memory_not_values():
    """Column.same_data: views of one column's memory (the frame's column
    and a Series taken from it, the same slice) are the same; equal values
    elsewhere, another slice or another dtype are not."""
    z = zb.DataFrame({"a": [1, 2, 1, 3], "s": ["x", None, "y", "x"]})
    t = z._table
    for name in ("a", "s"):
        own = t.column(name)
        assert own.same_data(z[name]._col) and own.same_data(t.column(name))
        assert not own.same_data(zb.Series(z[name].to_list())._col)   # equal values, apart
        assert own.slice(1, 2).same_data(own.slice(1, 2))
        assert not own.slice(1, 2).same_data(own.slice(0, 2))
    assert not t.column("a").same_data(z["a"].astype("int32")._col)
    with pytest.raises(TypeError, match="same_data"):
        t.column("a").same_data([1, 2])


@pytest.mark.parametrize("data", [[1, 2, 3], [1.5, None, 2.0], [True, False, True],
                                  ["a", None, "c"]])
def test_comparisons_with_missing_scalars_as_pandas(data):
    # pd.NaT is a datetime next to numbers (an order against it is pandas'
    # TypeError, == / != are False / True), numpy's NaT and None are
    # missing, NaN next to text is missing; from either side (numpy hands
    # its NaT to the ufunc as a 0-d array)
    import operator

    s, z = pd.Series(data), zb.Series(data)
    for v in (pd.NaT, np.datetime64("NaT"), None, np.nan):
        for op in ("lt", "le", "gt", "ge", "eq", "ne"):
            for reflected in (False, True):
                def run(o):
                    f = getattr(operator, op)
                    return f(v, o) if reflected else f(o, v)
                try:
                    want = run(s).tolist()
                except TypeError:
                    with pytest.raises(TypeError):
                        run(z)
                    continue
                assert run(z).tolist() == want, (v, op, reflected)
    frame = pd.DataFrame({"x": data})
    with pytest.raises(TypeError) if s.dtype.kind in "iufb" else contextlib.nullcontext():
        frame < pd.NaT
    with pytest.raises(TypeError) if s.dtype.kind in "iufb" else contextlib.nullcontext():
        zb.from_pandas(frame) < pd.NaT


_BOOL_OPERANDS = {
    "bools": lambda m: m.Series([True, False, True]),
    "bools with missing": lambda m: m.Series([True, None, False],
                                             dtype="boolean" if m is pd else "bool"),
}


@pytest.mark.parametrize("left", list(_BOOL_OPERANDS))
@pytest.mark.parametrize("right", ["same", True, np.True_, "array", "list", "frame"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "floordiv", "pow"])
def test_arithmetic_of_two_bool_operands_as_pandas(left, right, op):
    # numpy's bool arithmetic, as pandas gives it: + is or, * is and (a
    # bool result; zambezi gave int64 counts), - raises TypeError, / // **
    # NotImplementedError
    def run(m):
        s = _BOOL_OPERANDS[left](m)
        if right == "frame":
            x, y = m.DataFrame({"a": s}), True
        elif right == "same":
            x, y = s, s
        else:
            x = s
            y = {"array": np.array([True, False, False]),
                 "list": [True, False, True]}.get(right, right)
        return getattr(operator, op)(x, y), getattr(operator, op)(y, x)

    try:
        want = run(pd)
    except (TypeError, NotImplementedError) as e:
        with pytest.raises(type(e)):
            run(zb)
        return
    for got, w in zip(run(zb), want):
        if isinstance(w, pd.DataFrame):
            pd.testing.assert_frame_equal(got.to_pandas(), w)
        else:
            pd.testing.assert_series_equal(got.to_pandas(), w)


@pytest.mark.parametrize("base,exponent", [
    ([1, 2, 4], -1), ([1, 2, 4], np.int64(-2)), ([1, None, 4], -1),
    ([1, 2, 3], [2, -1, 1]), (2, [1, -1, 0]), ([1, 2, 4], -1.0), ([1, 2, 4], 0),
    ([1, 2, 4], [2, 0, 1]),
])
def test_integers_to_negative_integer_powers_raise_as_pandas(base, exponent):
    # numpy (and pandas, missing values or not) refuses them; zambezi gave
    # missing values
    def run(m):
        def side(v):
            if not isinstance(v, list):
                return v
            return m.Series(v, dtype="Int64" if m is pd and None in v else None)
        return side(base) ** side(exponent)

    try:
        want = run(pd)
    except ValueError:
        with pytest.raises(ValueError, match="negative integer powers"):
            run(zb)
        return
    assert run(zb).to_list() == [None if pd.isna(v) else v for v in want.tolist()]


@pytest.mark.parametrize("values,dtype", [
    ([1.0, 0.0, None, np.nan, -0.0, np.inf], "float64"), ([0.5, None, 0.0], "float32"),
    (["True", "False", "", None, "0"], "str"), ([1, 0, 2], "int64"), ([1, 0, None], "Int64"),
])
@pytest.mark.parametrize("to", [bool, "bool", np.bool_])
def test_astype_numpy_bool_is_numpy_truth_as_pandas(values, dtype, to):
    # numpy's truth: NaN and a missing float are true, text is true unless
    # empty (missing too); zambezi gave missing values and parsed the text.
    # An integer column with missing values raises, as pandas.
    p = pd.Series(values, dtype=dtype)
    z = zb.from_pandas(p)
    try:
        want = p.astype(to)
    except ValueError:
        with pytest.raises(ValueError):
            z.astype(to)
        return
    pd.testing.assert_series_equal(z.astype(to).to_pandas(), want)
    frame = zb.from_pandas(pd.DataFrame({"a": p}))
    pd.testing.assert_series_equal(frame.astype({"a": to})["a"].to_pandas(), want.rename("a"))
