"""GroupBy.describe against pandas run side by side: one and two keys,
one column, several, the whole frame (text columns left out, as pandas),
percentiles.  Shapes, labels and order exactly; values within 1e-12
(pandas runs Series.describe per group: its means and std add a group's
values in numpy's order, zambezi's aggregations in row order)."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import UnsupportedError


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("keys", ["k", ["k", "k2"]])
@pytest.mark.parametrize("sel,pct", [(None, None), ("v", None), (["v", "i"], [0.1, 0.9]),
                                     ("i", [0.5])])
def test_like_pandas(seed, keys, sel, pct):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    df = pd.DataFrame({"k": rng.integers(0, 7, n), "k2": rng.choice(["x", "y", None], n),
                       "v": rng.normal(size=n) * 100, "i": rng.integers(-50, 50, n),
                       "s": rng.choice(["p", "q"], n)})
    df.loc[rng.random(n) < 0.1, "v"] = np.nan
    g, zg = df.groupby(keys), zb.from_pandas(df).groupby(keys)
    if sel is not None:
        g, zg = g[sel], zg[sel]
    pd.testing.assert_frame_equal(zg.describe(percentiles=pct).to_pandas(),
                                  g.describe(percentiles=pct), check_exact=False,
                                  rtol=1e-12, atol=1e-12)


def test_unsupported():
    z = zb.DataFrame({"k": [1, 1], "s": ["a", "b"]})
    with pytest.raises(UnsupportedError):
        z.groupby("k")["s"].describe()
    with pytest.raises(UnsupportedError):
        z.groupby("k", as_index=False).describe()
