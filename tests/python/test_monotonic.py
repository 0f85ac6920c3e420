"""Series / Index is_monotonic_increasing and is_monotonic_decreasing
against pandas run side by side: numbers, strings, times, bools, ordered
categories, with missing values (pandas: not monotonic), one value, empty,
and past the engine's morsels."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _cases():
    rng = np.random.default_rng(0)
    big = np.sort(rng.integers(0, 1000, 200_000))
    yield [1, 2, 2, 5]
    yield [3, 2, 2]
    yield pd.array([1, None, 3], dtype="Int64")
    yield [np.nan]
    yield [1.0]
    yield np.array([], dtype="float64")
    yield [1.0, np.nan, 2.0]
    yield ["a", "b", "b", "é"]
    yield ["b", "a"]
    yield [True, False, False]
    yield pd.to_datetime(["2024-01-01", "2024-01-02", None])
    yield pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-02"])
    yield pd.Categorical(["b", "a", "a"], categories=["b", "a"])
    yield pd.Categorical(["a", "b", "a"])
    yield big
    yield big[::-1]
    swapped = big.copy()
    swapped[150_000], swapped[150_001] = swapped[150_001] + 1, swapped[150_000]
    yield swapped


@pytest.mark.parametrize("case", list(_cases()), ids=lambda c: str(list(c[:4])))
def test_is_monotonic_vs_pandas(case):
    ps = pd.Series(case)
    zs = zb.Series(ps)
    for attr in ("is_monotonic_increasing", "is_monotonic_decreasing"):
        assert getattr(zs, attr) == getattr(ps, attr), f"Series.{attr}"
        assert getattr(zb.Index(ps), attr) == getattr(pd.Index(ps), attr), f"Index.{attr}"
