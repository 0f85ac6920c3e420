"""``inplace=True`` as pandas 3.1 has it, side by side with pandas: the
methods that change values (fillna, where, mask, clip, replace,
interpolate ...) change the object and give it back; the methods whose
inplace pandas 3.1 deprecates (dropna, sort_values, drop, drop_duplicates,
query ...) change the object, warn (a DeprecationWarning; pandas' own is
its Pandas4Warning) and give None.  Existing pandas code that uses
inplace=True runs unchanged."""

import warnings

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _frame():
    return pd.DataFrame({"a": [3.0, np.nan, 1.0, 1.0, 7.5], "b": ["x", "y", None, "y", "z"],
                         "c": [5, 4, 3, 4, 1]}, index=[10, 11, 12, 13, 14])


FRAME = {  # name: (call, pandas gives the object (True) or None (False: deprecated))
    "dropna": (lambda d: d.dropna(inplace=True), False),
    "dropna subset": (lambda d: d.dropna(subset=["b"], inplace=True), False),
    "sort_values": (lambda d: d.sort_values(["c", "a"], inplace=True), False),
    "sort_index": (lambda d: d.sort_index(ascending=False, inplace=True), False),
    "drop columns": (lambda d: d.drop(columns=["b"], inplace=True), False),
    "drop rows": (lambda d: d.drop(index=[10, 12], inplace=True), False),
    "drop_duplicates": (lambda d: d.drop_duplicates(["b", "c"], inplace=True), False),
    "query": (lambda d: d.query("c > 3", inplace=True), False),
    "reset_index": (lambda d: d.reset_index(inplace=True), False),
    "set_index": (lambda d: d.set_index("c", inplace=True), False),
    "fillna": (lambda d: d.fillna({"a": 0.0}, inplace=True), True),
    "replace": (lambda d: d.replace(1.0, 2.0, inplace=True), True),
    "where": (lambda d: d[["a", "c"]].where(d[["a", "c"]] > 2, inplace=True), True),
    "ffill": (lambda d: d.ffill(inplace=True), True),
}

SERIES = {
    "dropna": (lambda s: s.dropna(inplace=True), False),
    "sort_values": (lambda s: s.sort_values(ascending=False, inplace=True), False),
    "sort_index": (lambda s: s.sort_index(ascending=False, inplace=True), False),
    "drop": (lambda s: s.drop([11, 13], inplace=True), False),
    "drop_duplicates": (lambda s: s.drop_duplicates(inplace=True), False),
    "reset_index": (lambda s: s.reset_index(drop=True, inplace=True), False),
    "fillna": (lambda s: s.fillna(-1.0, inplace=True), True),
    "replace": (lambda s: s.replace(1.0, 2.0, inplace=True), True),
    "where": (lambda s: s.where(s > 2, 0.0, inplace=True), True),
    "mask": (lambda s: s.mask(s > 2, 0.0, inplace=True), True),
    "clip": (lambda s: s.clip(1.5, 5.0, inplace=True), True),
    "interpolate": (lambda s: s.interpolate(inplace=True), True),
}


def _run_pandas(call, obj):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(obj)


def _check(call, gives_self, p, z):
    want = _run_pandas(call, p)
    if gives_self:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # no warning here
            got = call(z)
    else:
        with pytest.warns(DeprecationWarning, match="inplace keyword"):
            got = call(z)
    assert (got is z) == (want is p) and (got is None) == (want is None)
    back = z.to_pandas()
    assert list(back.index) == list(p.index) and list(back.columns if p.ndim == 2 else [0]) == \
        list(p.columns if p.ndim == 2 else [0])
    np.testing.assert_array_equal(back.to_numpy(dtype=object, na_value=None),
                                  p.astype(object).where(p.notna(), None).to_numpy())


@pytest.mark.parametrize("name", list(FRAME))
def test_frame_inplace_like_pandas(name):
    call, gives_self = FRAME[name]
    if name == "where":  # a frame made of the numeric columns (pandas' where would need
        p = _frame()[["a", "c"]]  # a str fill for the str column)
        call, gives_self = (lambda d: d.where(d > 2, inplace=True)), True
    else:
        p = _frame()
    _check(call, gives_self, p, zb.from_pandas(p))


@pytest.mark.parametrize("name", list(SERIES))
def test_series_inplace_like_pandas(name):
    call, gives_self = SERIES[name]
    p = _frame()["a"]
    _check(call, gives_self, p, zb.from_pandas(p))


def test_inplace_must_be_bool():
    z = zb.from_pandas(_frame())
    with pytest.raises(ValueError, match="inplace"):   # pandas' ValueError
        z.sort_values("c", inplace="yes")
    with pytest.raises(ValueError, match="inplace"):
        _frame().sort_values("c", inplace="yes")
