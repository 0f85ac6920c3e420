"""get_dummies and melt on the engine's reshape kernels (``one_hot``,
``repeat``) against pandas 3, on frames long enough that the kernels cross
64-row words and 65,536-row morsels, with nulls, non-ASCII strings and
sliced inputs.  pandas' own answer is the oracle (pandas_compare).
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like

N = 70_001  # one full morsel and a partial one, the last word partial


def _words(n, seed, distinct=13):
    rng = np.random.default_rng(seed)
    pool = np.array([f"w{i}é" if i % 3 else f"v{i}" for i in range(distinct)])
    s = pd.Series(pool[rng.integers(0, distinct, n)], dtype="str")
    s[rng.random(n) < 0.07] = np.nan
    return s


@pytest.mark.parametrize("kw", [{}, dict(dummy_na=True, prefix="s"), dict(drop_first=True),
                                dict(dtype="int8", prefix="p")])
def test_get_dummies_long_series(kw):
    ps = _words(N, 1)
    assert_frame_like(zb.get_dummies(zb.Series(ps), **kw), pd.get_dummies(ps, **kw), str(kw))


def test_get_dummies_long_frame_sliced():
    rng = np.random.default_rng(2)
    pdf = pd.DataFrame({"a": _words(N, 3), "b": _words(N, 4, distinct=20),
                        "x": rng.integers(0, 9, N)})
    df = zb.DataFrame(pdf)
    # a slice: the string columns start inside their buffers
    assert_frame_like(zb.get_dummies(df.iloc[77:]), pd.get_dummies(pdf.iloc[77:]), "sliced")
    one = pd.Series(["only"] * 65, dtype="str")
    assert_frame_like(zb.get_dummies(zb.Series(one)), pd.get_dummies(one), "one value")
    empty = pd.Series([None] * 5, dtype="str")
    assert_frame_like(zb.get_dummies(zb.Series(empty)), pd.get_dummies(empty), "all missing")


def test_melt_long():
    N = 25_001  # three value columns: 75,003 rows, a morsel starting inside a name's run
    rng = np.random.default_rng(5)
    pdf = pd.DataFrame({"id": _words(N, 6), "n": rng.integers(0, 100, N),
                        "x1": rng.normal(size=N), "x2": rng.normal(size=N),
                        "längd": rng.normal(size=N)})
    pdf.loc[rng.random(N) < 0.1, "x2"] = np.nan
    df = zb.DataFrame(pdf)
    assert_frame_like(df.melt(id_vars=["id", "n"]), pdf.melt(id_vars=["id", "n"]), "ids")
    assert_frame_like(df.iloc[100:].melt(id_vars="id", value_vars=["x2", "längd"],
                                         var_name="v"),
                      pdf.iloc[100:].melt(id_vars="id", value_vars=["x2", "längd"],
                                          var_name="v"), "sliced")
    kw = dict(id_vars="n", value_vars=["x1", "x2"], ignore_index=False)
    assert_frame_like(df.iloc[:300].melt(**kw), pdf.iloc[:300].melt(**kw), "index kept")
    assert_frame_like(df.melt(id_vars=["id"], value_vars=[]),
                      pdf.melt(id_vars=["id"], value_vars=[]), "no value columns")


def test_one_hot_and_repeat_errors():
    codes = zb._core.column_from_buffer(np.array([0, 3, 1], dtype=np.int64))
    with pytest.raises(zb.errors.ZambeziError, match="row 1"):
        zb._core.one_hot(codes, 3)
    with pytest.raises(zb.DTypeError, match="bool"):
        zb._core.repeat(zb._core.column_from_buffer(np.array([True])), 2)
