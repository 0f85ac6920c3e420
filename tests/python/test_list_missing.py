"""Missing rows of list columns as pandas shows them: ``str.split`` /
``str.findall`` of a missing row is NaN in pandas' object column of lists
(repr and to_pandas), and ``str.len()`` of such a column is float64 with
NaN when a row is missing, int64 when none is.  Compared with pandas run
side by side, on the default str dtype and on object columns."""
import numpy as np
import pandas as pd
import pytest

import zambezi as zb

WORDS = ["a", "bb", "é", "ß中", "x y", "", "Tete"]


def rand_strings(n, seed, null_rate):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        if rng.random() < null_rate:
            out.append(None)
        else:
            k = int(rng.integers(0, 5))
            out.append(" ".join(rng.choice(WORDS, k)) if k else "")
    return out


def rows(r):
    """The row lines of a repr (the dtype line differs: list<string> / object)."""
    return r.splitlines()[:-1]


@pytest.mark.parametrize("null_rate", [0.0, 0.2, 0.9])
@pytest.mark.parametrize("pdtype", [None, object])
@pytest.mark.parametrize("how", ["split", "split_pat", "rsplit", "findall"])
def test_len_and_missing_rows_as_pandas(null_rate, pdtype, how):
    data = rand_strings(200, 7, null_rate)
    z, p = zb.Series(data, name="w"), pd.Series(data, name="w", dtype=pdtype)

    def run(s):
        if how == "split":
            return s.str.split()
        if how == "split_pat":
            return s.str.split(" ", n=2)
        if how == "rsplit":
            return s.str.rsplit(" ", n=1)
        return s.str.findall(r"\w+")

    zl, pl = run(z), run(p)
    # str.len(): int64 without missing rows, float64 with NaN with them
    got = zl.str.len()
    pd.testing.assert_series_equal(got.to_pandas(), pl.str.len())
    assert str(got.dtype) == str(pl.str.len().dtype)
    # to_pandas: a list per row, NaN for a missing row (pandas' default str
    # dtype gives NaN; object keeps the input's None, the same missing value)
    out = run(z).to_pandas()
    assert out.dtype == object and out.name == "w"
    for g, w in zip(out, pl):
        if isinstance(w, list):
            assert g == w
        else:
            assert g is np.nan and pd.isna(w)
    if pdtype is None:
        pd.testing.assert_series_equal(out, pl)
        assert rows(repr(run(z).head(15))) == rows(repr(pl.head(15)))
        df = zb.DataFrame({"w": data}).assign(l=lambda d: run(d["w"]))
        pdf = pd.DataFrame({"w": data}).assign(l=lambda d: run(d["w"]))
        pd.testing.assert_frame_equal(df.to_pandas(), pdf)
        # the list column's cells (zambezi's header has a dtype line)
        def cells(r, first):
            return [ln.split("  ")[-1].strip() for ln in r.splitlines()[first:first + 12]]

        assert cells(repr(df[["l"]].head(12)), 2) == cells(repr(pdf[["l"]].head(12)), 1)


def test_list_len_keeps_nullable_ints():
    # .list.len() (the ArrowDtype accessor's, not .str.len) keeps int64 with nulls
    s = zb.Series([["a"], None, []])
    assert s.list.len().dtype == "int64"
    assert s.list.len().to_list() == [1, None, 0]
    assert s.str.len().to_list() == [1.0, None, 0.0]
    assert s.str.len().dtype == "float64"


def test_a_missing_number_inside_a_list_is_nan_in_pandas():
    # pandas' agg(list) of a float column holds NaN for a missing value;
    # zambezi's lists gave None (a sliced column too)
    d = pd.DataFrame({"k": ["a", "a", "b", "c"], "f": [1.0, np.nan, 2.0, np.nan]})
    got = zb.from_pandas(d).groupby("k")["f"].agg(list).to_pandas()
    want = d.groupby("k")["f"].agg(list)
    assert repr(got) == repr(want)
    s = zb.Series([[1.0, None], None, [None, 2.5]])
    for part, rows in ((s, [[1.0, np.nan], np.nan, [np.nan, 2.5]]),
                       (s.iloc[1:], [np.nan, [np.nan, 2.5]])):
        assert repr(part.to_pandas().tolist()) == repr(rows)
