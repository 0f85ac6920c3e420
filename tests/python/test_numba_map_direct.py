"""Series.map / apply with engine="numba" on the direct path (the loop reads
the engine's buffers and writes the result and its validity in place) for
functions returning bool (the result written as a bitmap) and for integer
columns with nulls (handed to the function as float64, as pandas holds an
integer column with missing values), against pandas' Python map on the
same values: random data with nulls, lengths that are not a multiple of 8,
sliced columns, both na_action values.  Skipped without numba."""
import numpy as np
import pandas as pd
import pytest

import zambezi as zb

numba = pytest.importorskip("numba")


def _is_big(v):
    return v > 3


def _half(v):
    return v / 2.0


def _sign(v):
    return 1 if v > 0 else -1


def _is_nan(v):
    return v != v


def ints_with_nulls(n, seed, dtype="int64", null_rate=0.2):
    rng = np.random.default_rng(seed)
    v = rng.integers(-9, 10, n).astype(dtype)
    miss = rng.random(n) < null_rate
    return [None if m else int(x) for x, m in zip(v, miss)]


@pytest.fixture
def direct_only(monkeypatch):
    """The copying path (a NaN-filled copy of the input) made to fail: the
    cases below must take the direct path."""
    from zambezi import _numba

    def copying(*a, **k):
        raise AssertionError("the copying path ran")

    monkeypatch.setattr(_numba, "column_values", copying)


def _want(p, f, na_action):
    return p.map(f, na_action=na_action)


def _same(got, want, bool_result):
    """got (zambezi) holds pandas' values: a missing value where pandas has
    NaN / None; dtype float64 / int64 as pandas, bool where pandas gives
    bool (or object holding bools and NaN: na_action='ignore' on a column
    with missing values, which zambezi holds as bool with nulls)."""
    g = got.to_pandas()
    assert len(g) == len(want)
    if bool_result:
        assert str(got.dtype) == "bool"
        assert want.dtype == bool or want.dtype == object
    else:
        assert str(got.dtype) == str(want.dtype)
    gl = [None if pd.isna(v) else v for v in g.tolist()]
    wl = [None if pd.isna(v) else v for v in want.tolist()]
    assert gl == wl


@pytest.mark.parametrize("n", [1, 8, 13, 1000])
@pytest.mark.parametrize("na_action", [None, "ignore"])
@pytest.mark.parametrize("f,bool_result", [(_is_big, True), (_is_nan, True), (_half, False),
                                           (_sign, False)])
def test_int_with_nulls_and_bool_results_as_pandas(n, na_action, f, bool_result, direct_only):
    data = ints_with_nulls(n, n)
    z, p = zb.Series(data), pd.Series(data, dtype="float64")  # pandas: float64 with NaN
    assert z.dtype == "int64"
    _same(z.map(f, engine="numba", na_action=na_action), _want(p, f, na_action), bool_result)
    if na_action is None:
        _same(z.apply(f, engine="numba"), p.apply(f), bool_result)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16"])
def test_narrow_ints_with_nulls(dtype, direct_only):
    data = [None if v is None else abs(v) for v in ints_with_nulls(300, 5)]
    z = zb.Series(data).astype(dtype)
    p = pd.Series(data, dtype="float64")
    _same(z.map(_half, engine="numba"), p.map(_half), False)
    _same(z.map(_is_big, engine="numba"), p.map(_is_big), True)


def test_bool_results_of_floats_and_sliced_columns(direct_only):
    rng = np.random.default_rng(9)
    v = rng.normal(0, 5, 999)
    v[rng.random(999) < 0.1] = np.nan
    z, p = zb.Series(v), pd.Series(v)
    for na in (None, "ignore"):
        _same(z.map(_is_big, engine="numba", na_action=na), p.map(_is_big, na_action=na), True)
    # a slice starts inside a validity byte: the bit offset is honoured
    for a, b in [(3, 900), (13, 14), (1, 999)]:
        _same(z.iloc[a:b].map(_is_big, engine="numba", na_action="ignore"),
              p.iloc[a:b].reset_index(drop=True).map(_is_big, na_action="ignore"), True)
        iz = zb.Series(ints_with_nulls(999, 2)).iloc[a:b]
        ip = pd.Series(ints_with_nulls(999, 2), dtype="float64").iloc[a:b].reset_index(drop=True)
        _same(iz.map(_half, engine="numba"), ip.map(_half), False)
    # no nulls: ints stay ints, bools a bitmap without a validity bitmap
    zi = zb.Series(np.arange(21))
    got = zi.map(_is_big, engine="numba")
    assert got.null_count == 0 and got.to_list() == [x > 3 for x in range(21)]
    assert zi.map(_sign, engine="numba").dtype == "int64"


def test_other_engine_kwargs_compile_again():
    """A function compiled with some engine_kwargs is compiled again with
    others (as pandas keys its cache): Numba reads a closure's values when it
    compiles, so new engine_kwargs see the closure's new values."""
    flag = 1

    def plus(v):
        return v + flag

    s = zb.Series([1.0, 2.0])
    assert s.map(plus, engine="numba", engine_kwargs={"nogil": True}).to_list() == [2.0, 3.0]
    flag = 10
    assert s.map(plus, engine="numba", engine_kwargs={"nogil": False}).to_list() == [11.0, 12.0]
    # the same engine_kwargs: the compiled function, as pandas
    assert s.map(plus, engine="numba", engine_kwargs={"nogil": True}).to_list() == [2.0, 3.0]


def test_pandas_numba_engine_under_the_accelerator(tmp_path):
    """Calls that pandas compiles with Numba (group-by agg / transform with
    engine="numba", also by pandas' compute.use_numba option) get the user's
    function itself, not the accelerator's wrapper (which Numba cannot
    compile), and print what they print under plain pandas."""
    from conftest import same_under_accelerator

    out = same_under_accelerator(tmp_path, """
import numpy as np
import pandas as pd
df = pd.DataFrame({"k": [1, 1, 2, 2, 2], "v": np.arange(5.0)})
def mean_plus(values, index):
    return values.mean() + 1.0
def centred(values, index):
    return values - values.mean()
print(df.groupby("k").agg(mean_plus, engine="numba"))
print(df.groupby("k")["v"].transform(centred, engine="numba"))
with pd.option_context("compute.use_numba", True):
    print(df.groupby("k").agg(mean_plus))
""")
    assert "1.5" in out and "4.0" in out and "-1.0" in out
