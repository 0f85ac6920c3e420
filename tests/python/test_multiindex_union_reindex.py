"""What Dask's cumulative group-bys call on partitions, against pandas run
side by side: MultiIndex.union (sort None / False / True, names, missing
label parts), reindex of rows by a MultiIndex, a number column label in
df[...] and gb[...] (pandas frames with int labels and Dask's to_frame of
an unnamed Series), and pandas' words for a cumulative op on timestamps."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _zindex(pidx):
    return zb.from_pandas(pd.DataFrame(index=pidx)).index


def _tuples(idx):
    return [tuple(None if isinstance(v, float) and np.isnan(v) else v for v in t)
            for t in (idx.to_list() if hasattr(idx, "to_list") else list(idx))]


@pytest.mark.parametrize("sort", [None, False, True])
def test_multiindex_union(sort):
    a = pd.MultiIndex.from_tuples([(1, "x"), (2, "y"), (1, "z"), (4, None)], names=["k", "j"])
    b = pd.MultiIndex.from_tuples([(2, "y"), (0, "a"), (3, "b"), (1, "x")], names=["k", "q"])
    for left, right in ((a, b), (b, a), (a, a), (a, a[:0]), (a[:0], b)):
        exp = left.union(right, sort=sort)
        got = _zindex(left).union(_zindex(right), sort=sort)
        assert _tuples(got) == _tuples(exp), (left, right)
        assert list(got.names) == list(exp.names)


def test_reindex_rows_by_multiindex():
    rng = np.random.default_rng(2)
    idx = pd.MultiIndex.from_arrays([rng.permutation(40) % 7, rng.permutation(40)],
                                    names=["a", "b"])
    p = pd.DataFrame({"v": rng.normal(0, 1, 40), "n": np.arange(40)}, index=idx)
    z = zb.from_pandas(p)
    new = pd.MultiIndex.from_arrays([np.r_[idx.get_level_values(0)[::3], [99, 5]],
                                     np.r_[idx.get_level_values(1)[::3], [1, 1000]]],
                                    names=["a", "b"])
    got = z.reindex(new).to_pandas()
    exp = p.reindex(new)
    pd.testing.assert_frame_equal(got, exp, check_dtype=False)
    got = z["v"].reindex(new).to_pandas()
    pd.testing.assert_series_equal(got, p["v"].reindex(new), check_dtype=False)
    with pytest.raises(zb.errors.UnsupportedError, match="levels"):
        z.reindex([1, 2])


def test_number_column_labels():
    p = pd.DataFrame({0: [1.0, 2.0, 4.0, 8.0], "k": [1, 1, 2, 2]})
    z = zb.from_pandas(p)
    pd.testing.assert_series_equal(z[0].to_pandas(), p[0], check_names=False)
    pd.testing.assert_series_equal(z.groupby("k")[0].cumsum().to_pandas(),
                                   p.groupby("k")[0].cumsum(), check_names=False)
    pd.testing.assert_series_equal(z.groupby("k")[0].sum().to_pandas(), p.groupby("k")[0].sum(),
                                   check_names=False)
    with pytest.raises(KeyError):
        z.groupby("k")[5]


def test_cumulative_on_timestamps_says_what_pandas_says():
    p = pd.DataFrame({"k": [1, 1], "dt": pd.to_datetime(["2020-01-01", "2021-01-01"])})
    with pytest.raises(TypeError, match="does not support operation 'cumsum'"):
        p.groupby("k").dt.cumsum()
    with pytest.raises(TypeError, match="does not support operation 'cumsum'"):
        zb.from_pandas(p).groupby("k").dt.cumsum()
