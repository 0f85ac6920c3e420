"""GroupBy.idxmax / idxmin against pandas run side by side: one and two
keys (a text key with missing values), sort and dropna, one column and
several (numbers with NaN, text), row labels of text or numbers, ties (the
first row wins), a group without a value (pandas' ValueError), and the
everyday use df.loc[gb["v"].idxmax()]."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import UnsupportedError


def _frame(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    df = pd.DataFrame({"k": rng.integers(0, 6, n), "k2": rng.choice(["x", "y", None], n),
                       "v": rng.integers(0, 5, n).astype(float),
                       "w": rng.normal(size=n).round(1), "s": rng.choice(["p", "q", "r"], n)},
                      index=[f"r{i}" for i in rng.permutation(n)] if seed % 2 else None)
    if seed % 3 == 0:
        df.loc[rng.random(n) < 0.1, "v"] = np.nan
    return df


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("keys", ["k", ["k", "k2"]])
@pytest.mark.parametrize("how", ["idxmax", "idxmin"])
def test_like_pandas(seed, keys, how):
    df = _frame(seed)
    z = zb.from_pandas(df)
    for sort in (True, False):
        for dropna in (True, False):
            for sel in ["v", ["v", "w"], ["w", "s"]]:
                try:
                    want = getattr(df.groupby(keys, sort=sort, dropna=dropna)[sel], how)()
                except ValueError:   # a group with no value
                    with pytest.raises(ValueError, match="encountered all NA values"):
                        getattr(z.groupby(keys, sort=sort, dropna=dropna)[sel], how)()
                    continue
                got = getattr(z.groupby(keys, sort=sort, dropna=dropna)[sel], how)().to_pandas()
                if isinstance(want, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, want)
                else:
                    pd.testing.assert_series_equal(got, want)


def test_top_row_per_group():
    df = pd.DataFrame({"store": ["a", "b", "a", "b", "a"], "sales": [3.0, 1.0, 7.0, 1.0, 7.0]},
                      index=[10, 11, 12, 13, 14])
    z = zb.from_pandas(df)
    pd.testing.assert_frame_equal(z.loc[z.groupby("store")["sales"].idxmax()].to_pandas(),
                                  df.loc[df.groupby("store")["sales"].idxmax()])
    pd.testing.assert_frame_equal(z.groupby("store").idxmin().to_pandas(),
                                  df.groupby("store").idxmin())
    with pytest.raises(UnsupportedError):
        z.groupby("store")["sales"].idxmax(skipna=False)
