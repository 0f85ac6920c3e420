"""zb.merge_asof against pandas.merge_asof run side by side: directions
backward / forward / nearest, by= and left_by / right_by, tolerance,
allow_exact_matches, integer, float and timestamp keys, left_on /
right_on / the index as the key, duplicate right keys, empty sides, and
pandas' errors (unsorted or missing keys, mismatched key types, negative
tolerance)."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _sides(seed, nl=300, nr=200, kind="int", groups=4):
    rng = np.random.default_rng(seed)
    lk = np.sort(rng.integers(0, 500, nl))
    rk = np.sort(rng.integers(0, 500, nr))  # repeats: equal right keys
    if kind == "float":
        lk, rk = lk / 7.0, rk / 7.0
    elif kind == "time":
        base = np.datetime64("2024-01-01T00:00:00", "ns")
        lk = base + lk.astype("timedelta64[s]")
        rk = base + rk.astype("timedelta64[s]")
    g = np.array(["a", "b", "c", "d", "e"])[:groups]
    left = pd.DataFrame({"t": lk, "g": g[rng.integers(0, groups, nl)],
                         "h": rng.integers(0, 2, nl), "lv": rng.normal(0, 1, nl)})
    rv = rng.normal(0, 1, nr)
    rv[rng.random(nr) < 0.1] = np.nan
    right = pd.DataFrame({"t": rk, "g": g[rng.integers(0, groups, nr)],
                          "h": rng.integers(0, 2, nr), "rv": rv, "ri": rng.integers(0, 9, nr),
                          "lv": np.arange(nr, dtype=np.float64)})
    return left, right


def _check(got, exp):
    got = got.to_pandas()
    for c in got.columns:  # zambezi keeps unmatched integers as integers with nulls
        if str(got[c].dtype) in ("Int64", "Int32") or got[c].dtype.kind in "iu":
            got[c] = got[c].astype("float64")
            exp[c] = exp[c].astype("float64")
        elif got[c].dtype == object or str(got[c].dtype).startswith(("str", "string")):
            got[c] = got[c].astype(object).where(got[c].notna(), None)
            exp[c] = exp[c].astype(object).where(exp[c].notna(), None)
    pd.testing.assert_frame_equal(got, exp, check_dtype=False, check_index_type=False,
                                  check_column_type=False)


@pytest.mark.parametrize("kind", ["int", "float", "time"])
@pytest.mark.parametrize("direction", ["backward", "forward", "nearest"])
@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("by", [None, "g", ["g", "h"]])
def test_merge_asof_on(kind, direction, exact, by):
    left, right = _sides(3, kind=kind)
    kw = dict(on="t", by=by, direction=direction, allow_exact_matches=exact)
    _check(zb.merge_asof(zb.from_pandas(left), zb.from_pandas(right), **kw),
           pd.merge_asof(left, right, **kw))


@pytest.mark.parametrize("kind", ["int", "float", "time"])
@pytest.mark.parametrize("direction", ["backward", "forward", "nearest"])
def test_merge_asof_tolerance(kind, direction):
    left, right = _sides(5, kind=kind)
    tol = pd.Timedelta(seconds=3) if kind == "time" else (3 if kind == "int" else 0.5)
    for by in (None, "g"):
        kw = dict(on="t", by=by, direction=direction, tolerance=tol)
        _check(zb.merge_asof(zb.from_pandas(left), zb.from_pandas(right), **kw),
               pd.merge_asof(left, right, **kw))


def test_merge_asof_keys_and_index():
    left, right = _sides(7, nl=50, nr=40)
    zl, zr = zb.from_pandas(left), zb.from_pandas(right)
    lr = left.rename(columns={"t": "lt", "g": "lg"})
    zlr = zb.from_pandas(lr)
    cases = [
        (dict(left_on="lt", right_on="t", left_by="lg", right_by="g"), lr, right, zlr, zr),
        (dict(left_index=True, right_index=True), left.set_index("t"), right.set_index("t"),
         zl.set_index("t"), zr.set_index("t")),
        (dict(left_on="t", right_index=True, by="g"), left, right.set_index("t"), zl,
         zr.set_index("t")),
        # (pandas fills the right key column with the left keys here with
        # direction="forward" and with the right ones with "backward")
        (dict(left_index=True, right_on="t"), left.set_index("t"), right,
         zl.set_index("t"), zr),
        (dict(on="t", suffixes=("_l", "_r")), left, right, zl, zr),
    ]
    for kw, pl, pr, ql, qr in cases:
        _check(zb.merge_asof(ql, qr, **kw), pd.merge_asof(pl, pr, **kw))
    # empty sides
    _check(zb.merge_asof(zl.iloc[:0], zr, on="t"), pd.merge_asof(left.iloc[:0], right, on="t"))
    _check(zb.merge_asof(zl, zr.iloc[:0], on="t", by="g"),
           pd.merge_asof(left, right.iloc[:0], on="t", by="g"))


def test_merge_asof_small_by_hand():
    trades = zb.DataFrame({"t": [1, 5, 10], "sym": ["a", "b", "a"], "qty": [10, 20, 30]})
    quotes = zb.DataFrame({"t": [1, 2, 3, 6, 7], "sym": ["a", "a", "b", "b", "a"],
                           "bid": [1.0, 2.0, 3.0, 6.0, 7.0]})
    out = zb.merge_asof(trades, quotes, on="t", by="sym")
    assert out.to_dict("list") == {"t": [1, 5, 10], "sym": ["a", "b", "a"],
                                   "qty": [10, 20, 30], "bid": [1.0, 3.0, 7.0]}
    # nearest: a tie goes to the row before, as pandas
    a = zb.DataFrame({"t": [4]})
    b = zb.DataFrame({"t": [2, 6], "w": [1, 2]})
    assert zb.merge_asof(a, b, on="t", direction="nearest")["w"].to_list() == [1]


def test_merge_asof_errors_as_pandas():
    left = pd.DataFrame({"t": [1, 5, 10], "v": [1, 2, 3]})
    right = pd.DataFrame({"t": [1, 2, 7], "w": [1.0, 2.0, 3.0]})
    zl, zr = zb.from_pandas(left), zb.from_pandas(right)
    with pytest.raises(ValueError, match="left keys must be sorted"):
        zb.merge_asof(zb.from_pandas(left.iloc[::-1]), zr, on="t")
    with pytest.raises(ValueError, match="right keys must be sorted"):
        zb.merge_asof(zl, zb.from_pandas(right.iloc[::-1]), on="t")
    with pytest.raises(ValueError, match="null values on left side"):
        zb.merge_asof(zb.from_pandas(pd.DataFrame({"t": pd.array([1, None], "Int64")})), zr,
                      on="t")
    with pytest.raises(ValueError, match="incompatible merge keys"):
        zb.merge_asof(zl, zb.from_pandas(right.astype({"t": float})), on="t")
    with pytest.raises(ValueError, match="non-negative"):
        zb.merge_asof(zl, zr, on="t", tolerance=-1)
    with pytest.raises(ValueError, match="incompatible tolerance"):
        zb.merge_asof(zl, zr, on="t", tolerance=1.5)
    with pytest.raises(ValueError, match="direction"):
        zb.merge_asof(zl, zr, on="t", direction="sideways")
    with pytest.raises(zb.errors.DTypeError, match="string"):
        zb.merge_asof(zb.DataFrame({"t": ["a"]}), zb.DataFrame({"t": ["a"]}), on="t")
    with pytest.raises(KeyError, match="nope"):
        zb.merge_asof(zl, zr, on="t", by="nope")


def test_merge_asof_left_index_right_on_key_column():
    # pandas' right key column: the matched right keys when every left row
    # found one, else the left keys (the index) -- both cases, both directions
    left = pd.DataFrame({"a": [1, 2, 3]}, index=pd.Index([3, 5, 10], name="t"))
    for rk in ([2, 4, 8], [4, 6, 12], [2, 4, 8, 11]):
        right = pd.DataFrame({"t": rk, "b": range(10, 10 + 10 * len(rk), 10)})
        for direction in ("backward", "forward", "nearest"):
            kw = dict(left_index=True, right_on="t", direction=direction)
            exp = pd.merge_asof(left, right, **kw)
            got = zb.merge_asof(zb.from_pandas(left), zb.from_pandas(right), **kw)
            _check(got, exp)
    # the same under the accelerator's routing: pandas' own test data shape
    left = pd.DataFrame({"a": [1, 2, 3]}, index=pd.Index([1.0, 5.0, 10.0], name="t"))
    right = pd.DataFrame({"t": [2.0, 4.0, 8.0], "b": [10, 20, 30]})
    got = zb.merge_asof(zb.from_pandas(left), zb.from_pandas(right), left_index=True,
                        right_on="t")
    assert got["t"].to_list() == [1.0, 5.0, 10.0]


def test_merge_asof_keys_and_by_columns_of_one_dtype():
    # pandas requires each key and by pair to have one dtype
    t = np.array([1, 3, 7])
    cases = [
        (pd.DataFrame({"t": t.astype("int32")}), pd.DataFrame({"t": t, "v": [1, 2, 3]}), {}),
        (pd.DataFrame({"t": pd.to_datetime(t, unit="s").as_unit("ns")}),
         pd.DataFrame({"t": pd.to_datetime(t, unit="s").as_unit("us"), "v": [1, 2, 3]}), {}),
        (pd.DataFrame({"t": t, "k": ["a", "b", "a"]}),
         pd.DataFrame({"t": t, "k": pd.Categorical(["a", "b", "a"]), "v": [1, 2, 3]}),
         {"by": "k"}),
        (pd.DataFrame({"t": t, "k": np.array([1, 2, 1], dtype="int32")}),
         pd.DataFrame({"t": t, "k": [1, 2, 1], "v": [1, 2, 3]}), {"by": "k"}),
    ]
    for left, right, kw in cases:
        with pytest.raises(pd.errors.MergeError, match="incompatible merge keys"):
            pd.merge_asof(left, right, on="t", **kw)
        with pytest.raises(ValueError, match="incompatible merge keys .* must be the same type"):
            zb.merge_asof(zb.from_pandas(left), zb.from_pandas(right), on="t", **kw)
