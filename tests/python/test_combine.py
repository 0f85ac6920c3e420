"""align and combine_first (zambezi._combine) against pandas run side by
side, dtypes included: every join of Series and of frames (rows, columns,
both, a frame with a Series), fill_value, integer columns that gain or do
not gain missing rows, text columns, and labels of numbers and text in
any order."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same

JOINS = ["outer", "inner", "left", "right"]


_same = same


def _labels(rng, text):
    pool = np.array([f"r{i}" for i in range(40)]) if text else np.arange(40) * 3
    return rng.choice(pool, int(rng.integers(1, 25)), replace=False)


def _pair(seed):
    rng = np.random.default_rng(seed)
    text = seed % 2 == 0
    ia, ib = _labels(rng, text), _labels(rng, text)
    a = pd.DataFrame({"x": rng.normal(size=len(ia)).round(2), "n": rng.integers(0, 9, len(ia)),
                      "s": rng.choice(["p", "q"], len(ia))}, index=ia)
    b = pd.DataFrame({"x": rng.normal(size=len(ib)).round(2), "m": rng.integers(0, 9, len(ib)),
                      "n": rng.integers(0, 9, len(ib))}, index=ib)
    a.loc[rng.random(len(ia)) < 0.3, "x"] = np.nan
    b.loc[rng.random(len(ib)) < 0.3, "x"] = np.nan
    return a, b


@pytest.mark.parametrize("seed", range(10))
def test_series_like_pandas(seed):
    a, b = _pair(seed)
    za, zb_ = zb.from_pandas(a), zb.from_pandas(b)
    for col in ("x", "n"):
        for join in JOINS:
            _same(za[col].align(zb_[col], join=join), a[col].align(b[col], join=join))
        _same(za[col].align(zb_[col], fill_value=0), a[col].align(b[col], fill_value=0))
        _same(za[col].combine_first(zb_[col]), a[col].combine_first(b[col]))
    _same(za["s"].align(zb_["x"]), a["s"].align(b["x"]))
    _same(za["x"].align(za["x"]), a["x"].align(a["x"]))
    _same(za["n"].combine_first(za["n"].iloc[::-1]), a["n"].combine_first(a["n"].iloc[::-1]))


@pytest.mark.parametrize("seed", range(10))
def test_frames_like_pandas(seed):
    a, b = _pair(seed)
    za, zb_ = zb.from_pandas(a), zb.from_pandas(b)
    nums = ["x", "n"]
    for join in JOINS:
        _same(za[nums].align(zb_[["m", "x", "n"]], join=join),
              a[nums].align(b[["m", "x", "n"]], join=join))
        for axis in (0, 1):
            _same(za.align(zb_, join=join, axis=axis), a.align(b, join=join, axis=axis))
        _same(za.align(zb_["m"], join=join, axis=0), a.align(b["m"], join=join, axis=0))
    _same(za[nums].combine_first(zb_[["x", "m", "n"]]), a[nums].combine_first(b[["x", "m", "n"]]))
    _same(za[nums].combine_first(za[nums].iloc[::-1]), a[nums].combine_first(a[nums].iloc[::-1]))


def test_combine_first_of_other_kinds_is_refused():
    a = zb.Series(["p", None], index=[0, 1])
    with pytest.raises(zb.errors.UnsupportedError):
        a.combine_first(zb.Series([1.5, 2.5], index=[1, 2]))
    with pytest.raises(ValueError):
        a.align(a, join="sideways")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("overwrite", [True, False])
def test_update_like_pandas(seed, overwrite):
    a, b = _pair(seed)
    a = a.astype({"x": float})
    a.loc[a.index[::3], "x"] = np.nan
    b = b.copy()
    b["n"] = b["n"].astype(float)          # whole numbers: the int column stays int
    b.loc[b.index[::2], ["x", "n"]] = np.nan
    b["extra"] = 1.0                       # a column a lacks: left out
    want = a.copy()
    want.update(b, overwrite=overwrite)
    got = zb.from_pandas(a)
    assert got.update(zb.from_pandas(b), overwrite=overwrite) is None
    same(got, want)


def test_update_from_lists_and_dicts_as_pandas():
    # pandas makes other a Series / DataFrame with its own labels, then
    # aligns: a list meets 0..n-1, a dict its keys; labels of another kind
    # (strings against numbers) match nothing
    for mk in (lambda m: m.Series([1, 2, 3], index=list("abc")), lambda m: m.Series([1, 2, 3])):
        for other in ([7, None, 9], {"b": 9}, {1: 5}, np.array([5.0, 6.0, 7.0])):
            p, z = mk(pd), mk(zb)
            p.update(other)
            z.update(other)
            assert z.to_list() == p.to_list()
    for idx in ([10, 11, 12], [0, 1, 2], ["x", "y", "z"]):
        p = pd.DataFrame({"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]}, index=idx)
        z = zb.from_pandas(p)
        p.update({"b": [9.0, None, 7.0]})
        z.update({"b": [9.0, None, 7.0]})
        assert z.to_pandas().to_dict("list") == p.to_dict("list")


def test_update_series_and_errors():
    s = pd.Series([1.0, np.nan, 3.0, 4.0], index=list("abcd"))
    o = pd.Series([9.0, np.nan, 7.0], index=list("dbz"))
    want = s.copy()
    want.update(o)
    got = zb.from_pandas(s)
    got.update(zb.from_pandas(o))
    same(got, want)
    df = pd.DataFrame({"a": [1, 2, 3], "b": [1.0, np.nan, 3.0]})
    want = df.copy()
    want.update(pd.Series([7, 8], index=[0, 1], name="a"))
    got = zb.from_pandas(df)
    got.update(zb.Series([7, 8], index=[0, 1], name="a"))
    same(got, want)
    z = zb.from_pandas(df)
    with pytest.raises(TypeError):        # pandas: Invalid value for dtype int64
        z.update(zb.DataFrame({"a": [1.5]}))
    with pytest.raises(ValueError, match="Data overlaps"):
        z.update(zb.DataFrame({"b": [5.0]}), errors="raise")
    with pytest.raises(ValueError, match="duplicate"):
        z.update(zb.DataFrame({"b": [5.0, 6.0]}, index=[0, 0]))
    same(z, df)                            # nothing changed by the refused calls


@pytest.mark.parametrize("axis", [0, 1])
def test_concat_refuses_keys_with_ignore_index_as_pandas(axis):
    a, b = pd.DataFrame({"x": [1, 2]}), pd.DataFrame({"x": [3]})
    with pytest.raises(ValueError, match="Cannot set ignore_index=True and specify keys"):
        pd.concat([a, b], keys=["A", "B"], ignore_index=True, axis=axis)
    with pytest.raises(ValueError, match="Cannot set ignore_index=True and specify keys"):
        zb.concat([zb.from_pandas(a), zb.from_pandas(b)], keys=["A", "B"], ignore_index=True,
                  axis=axis)
    # a dict's keys are no keys= given: ignore_index numbers the rows
    got = zb.concat({"A": zb.from_pandas(a), "B": zb.from_pandas(b)}, ignore_index=True)
    pd.testing.assert_frame_equal(got.to_pandas(), pd.concat({"A": a, "B": b},
                                                             ignore_index=True))
