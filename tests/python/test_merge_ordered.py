"""merge_ordered against pandas run side by side: random small frames
with repeated and missing keys, every how, fill_method None / 'ffill',
several keys, left_on / right_on, left_by / right_by (groups with no
match, a missing group key), suffixes; pandas' errors."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

CASES = [dict(on="t"), dict(on="t", fill_method="ffill"),
         dict(on="t", how="inner", fill_method="ffill"),
         dict(on="t", how="left", fill_method="ffill"),
         dict(on="t", how="right", fill_method="ffill"),
         dict(on=["t", "g"], fill_method="ffill"),
         dict(left_on="t", right_on="w", fill_method="ffill", rename=True),
         dict(on="t", left_by="g", fill_method="ffill"), dict(on="t", left_by="g"),
         dict(on="t", right_by="g", fill_method="ffill"),
         dict(on="t", suffixes=("_l", "_r"), fill_method="ffill")]


def _sides(seed):
    rng = np.random.default_rng(seed)
    nl, nr = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    left = pd.DataFrame({"t": rng.integers(0, 6, nl),
                         "g": pd.array(rng.choice(["a", "b", None], nl), dtype="str"),
                         "v": rng.normal(size=nl).round(2), "w": rng.integers(0, 9, nl)})
    right = pd.DataFrame({"t": rng.integers(0, 6, nr), "g": rng.choice(["a", "b"], nr),
                          "v": rng.normal(size=nr).round(2),
                          "u": pd.array(rng.choice(["x", "y", None], nr), dtype="str")})
    left.loc[rng.random(nl) < 0.2, "v"] = np.nan
    return left, right


@pytest.mark.parametrize("seed", range(25))
def test_merge_ordered_like_pandas(seed):
    left, right = _sides(seed)
    for case in CASES:
        kw = dict(case)
        r = right.rename(columns={"t": "w", "u": "uu"}) if kw.pop("rename", False) else right
        lf = left.dropna(subset=["g"]) if "right_by" in kw else left
        try:
            want = pd.merge_ordered(lf, r, **kw)
        except ValueError:   # pandas: no group to concatenate
            with pytest.raises(ValueError, match="No objects to concatenate"):
                zb.merge_ordered(zb.from_pandas(lf), zb.from_pandas(r), **kw)
            continue
        got = zb.merge_ordered(zb.from_pandas(lf), zb.from_pandas(r), **kw)
        pd.testing.assert_frame_equal(got.to_pandas(), want, check_dtype=False,
                                      check_index_type=False, obj=str(case))


def test_merge_ordered_ffill_fills_unmatched_rows_not_values():
    # pandas forward-fills the join's rows: a matched row's missing value stays
    quotes = pd.DataFrame({"t": [1, 2, 4], "bid": [10.0, np.nan, 12.0]})
    trades = pd.DataFrame({"t": [3, 4, 5], "qty": [7, 8, 9]})
    want = pd.merge_ordered(quotes, trades, on="t", fill_method="ffill")
    got = zb.merge_ordered(zb.from_pandas(quotes), zb.from_pandas(trades), on="t",
                           fill_method="ffill")
    pd.testing.assert_frame_equal(got.to_pandas(), want, check_dtype=False)
    assert np.isnan(got.to_pandas()["bid"][2])   # t=3 takes t=2's row, whose bid is NaN


def test_merge_ordered_errors_like_pandas():
    a = pd.DataFrame({"t": [1], "g": ["x"]})
    for kw, err, match in ((dict(on="t", fill_method="bfill"), ValueError, "fill_method"),
                           (dict(on="t", left_by="g", right_by="g"), ValueError,
                            "Can only group either left or right"),
                           (dict(on="t", left_by="nope"), KeyError, "not found in left")):
        with pytest.raises(err, match=match):
            pd.merge_ordered(a, a, **kw)
        with pytest.raises(err, match=match):
            zb.merge_ordered(zb.from_pandas(a), zb.from_pandas(a), **kw)
