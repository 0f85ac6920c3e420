"""Selections and relabellings by the row labels (zambezi._axis_ops)
against pandas run side by side: xs (first levels, level=, drop_level),
droplevel / swaplevel / reorder_levels, set_axis, filter (items, like,
regex, rows), truncate, first / last_valid_index, between_time / at_time
(wrapping midnight, zoned index), asfreq (plain, ffill / bfill,
fill_value) and shift(freq=...), tz_localize / tz_convert of the index."""

import datetime
import functools

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same
from zambezi.errors import DTypeError, UnsupportedError


_same = functools.partial(same, check_dtype=False)


def _times(seed, n=None, freq="37min"):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(5, 120))
    idx = pd.date_range("2024-03-09 21:00", periods=n, freq=freq)
    df = pd.DataFrame({"a": rng.integers(0, 100, n), "b": rng.normal(size=n).round(2),
                       "k": rng.choice(["x", "y", "z"], n)}, index=idx)
    df.loc[rng.random(n) < 0.15, "b"] = np.nan
    return df


def _multi(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 80))
    df = pd.DataFrame({"k": rng.choice(["x", "y", "z"], n), "j": rng.integers(0, 4, n),
                       "v": rng.normal(size=n).round(2), "w": rng.integers(0, 9, n)})
    return df.set_index(["k", "j"]).sort_index()


@pytest.mark.parametrize("seed", range(6))
def test_xs_like_pandas(seed):
    m = _multi(seed)
    z = zb.from_pandas(m)
    for key in ("x", "y"):
        if key in m.index.get_level_values(0):
            _same(z.xs(key), m.xs(key))
            _same(z.xs(key, drop_level=False), m.xs(key, drop_level=False))
            _same(z["v"].xs(key), m["v"].xs(key))
    for j in range(4):
        if j in m.index.get_level_values(1):
            _same(z.xs(j, level="j"), m.xs(j, level="j"))
            _same(z.xs(j, level=1, drop_level=False), m.xs(j, level=1, drop_level=False))
    _same(z.xs("w", axis=1), m.xs("w", axis=1))
    with pytest.raises(KeyError):
        z.xs("nope")
    with pytest.raises(TypeError):
        z.xs(["x"])


def test_xs_single_level_and_full_key():
    df = pd.DataFrame({"v": [1.0, 2.0, 3.0], "w": [4.0, 5.0, 6.0]}, index=["a", "b", "a"])
    z = zb.from_pandas(df)
    _same(z.xs("a"), df.xs("a"))
    _same(z.xs("b"), df.xs("b"))
    m = df.set_index(pd.MultiIndex.from_arrays([["p", "q", "p"], [1, 1, 2]]))
    zm = zb.from_pandas(m)
    _same(zm.xs(("p", 2)), m.xs(("p", 2)))
    with pytest.raises(TypeError):
        zb.from_pandas(df).xs("a", level=0)


@pytest.mark.parametrize("seed", range(4))
def test_level_relabels_like_pandas(seed):
    m = _multi(seed)
    z = zb.from_pandas(m)
    _same(z.droplevel(0), m.droplevel(0))
    _same(z.droplevel("j"), m.droplevel("j"))
    _same(z["v"].droplevel("k"), m["v"].droplevel("k"))
    _same(z.swaplevel(), m.swaplevel())
    _same(z.swaplevel("j", "k"), m.swaplevel("j", "k"))
    _same(z.reorder_levels(["j", "k"]), m.reorder_levels(["j", "k"]))
    _same(z.reorder_levels([1, 0]), m.reorder_levels([1, 0]))
    cols = m.T.T  # the same frame, to relabel its columns
    _same(zb.from_pandas(cols).set_axis(["p", "q"], axis=1), cols.set_axis(["p", "q"], axis=1))
    flat = m.reset_index()
    _same(zb.from_pandas(flat).set_axis(list(range(10, 10 + len(flat)))),
          flat.set_axis(list(range(10, 10 + len(flat)))))
    with pytest.raises(ValueError):
        zb.from_pandas(flat).droplevel(0)


@pytest.mark.parametrize("seed", range(4))
def test_filter_like_pandas(seed):
    df = _times(seed).reset_index(drop=True)
    df["ab"] = df["a"] * 2
    z = zb.from_pandas(df)
    _same(z.filter(["k", "a", "zz"]), df.filter(["k", "a", "zz"]))
    _same(z.filter(items=["ab", "b"]), df.filter(items=["ab", "b"]))
    _same(z.filter(like="a"), df.filter(like="a"))
    _same(z.filter(regex="^[ab]$"), df.filter(regex="^[ab]$"))
    rows = [3, 1, 99, 0]
    _same(z.filter(items=rows, axis=0), df.filter(items=rows, axis=0))
    s = df.set_index("k")["a"]
    _same(zb.from_pandas(s).filter(like="x"), s.filter(like="x"))
    _same(zb.from_pandas(s).filter(regex="^[xy]"), s.filter(regex="^[xy]"))
    _same(z.filter(like="1", axis=0), df.filter(like="1", axis=0))
    _same(z.filter(regex=r"^\d$", axis="index"), df.filter(regex=r"^\d$", axis="index"))
    with pytest.raises(TypeError):
        z.filter(items=["a"], like="a")


@pytest.mark.parametrize("seed", range(3))
def test_filter_masks_like_pandas_3_1(seed):
    """pandas 3.1's filter: cond= masks (lists with missing values, numpy,
    nullable arrays, Series aligned by label, functions) along either axis,
    na=, the warning for a list of booleans given first, NaN labels."""
    rng = np.random.default_rng(seed)
    n = 30
    df = pd.DataFrame({"a": rng.integers(0, 9, n), "b": rng.normal(size=n),
                       "c": rng.choice(["x", "y"], n)}, index=[f"r{i}" for i in range(n)])
    z = zb.from_pandas(df)
    bits = rng.random(n) < 0.5
    holes = [bool(b) if rng.random() > 0.2 else None for b in bits]
    shuffled = pd.Series(bits, index=df.index).sample(frac=1, random_state=seed)
    for kw in (dict(cond=bits), dict(cond=list(bits)), dict(cond=holes),
               dict(cond=holes, na=True), dict(cond=pd.array(holes, dtype="boolean")),
               dict(cond=pd.Series(bits, index=df.index)), dict(cond=shuffled),
               dict(cond=[True, False, True], axis=1), dict(cond=[None, True, False], axis=1),
               dict(cond=[np.nan if h is None else h for h in holes]),
               dict(cond=np.array([pd.NA if h is None else np.bool_(h) for h in holes]),
                    na=True), dict(cond=[None] * n), dict(cond=[np.nan] * n, na=True)):
        zkw = {k: zb.from_pandas(v) if isinstance(v, pd.Series) else v for k, v in kw.items()}
        _same(z.filter(**zkw), df.filter(**kw))
    _same(z.filter(lambda d: d["a"] > 3), df.filter(lambda d: d["a"] > 3))
    _same(z.filter(cond=lambda d: d["c"] == "x"), df.filter(cond=lambda d: d["c"] == "x"))
    for bad in (dict(cond=holes, na="raise"), dict(cond=bits[:-1]), dict(cond=["a"] * n),
                dict(cond=[1] + list(bits[1:])), dict(cond=[])):
        with pytest.raises((ValueError, IndexError, TypeError)):
            df.filter(**bad)
        with pytest.raises((ValueError, IndexError, TypeError)):
            z.filter(**bad)
    with pytest.raises(TypeError, match="mutually exclusive"):
        z.filter(["a"], cond=bits)
    with pytest.warns(UserWarning, match="list-like of booleans passed positionally"):
        got = z.filter([True, False, True])
    _same(got, df.iloc[:, []])
    nan_rows = pd.DataFrame({"a": [1, 2, 3]}, index=[np.nan, "x", "y"])
    _same(zb.from_pandas(nan_rows).filter(items=["y", np.nan], axis=0),
          nan_rows.filter(items=["y", np.nan], axis=0))
    # items along the rows: pandas' order of items, once each; any duplicate
    # label on the axis is reindex's error, named or not
    rows = pd.DataFrame({"a": range(6)}, index=[15, 11, 12, 13, 10, 14])
    for items in ([13, 13, 10], [99, 14, 10], [98], []):
        _same(zb.from_pandas(rows).filter(items=items, axis=0),
              rows.filter(items=items, axis=0))
    dup = pd.DataFrame({"a": range(4)}, index=["x", "y", "x", "z"])
    for items in (["z", "y"], ["x"], ["q"]):
        with pytest.raises(ValueError, match="duplicate labels"):
            dup.filter(items=items, axis=0)
        with pytest.raises(ValueError, match="duplicate labels"):
            zb.from_pandas(dup).filter(items=items, axis=0)


@pytest.mark.parametrize("seed", range(4))
def test_truncate_and_valid_index_like_pandas(seed):
    df = _times(seed)
    z = zb.from_pandas(df)
    lo, hi = df.index[len(df) // 4], df.index[len(df) // 2]
    _same(z.truncate(before=lo, after=hi), df.truncate(before=lo, after=hi))
    _same(z.truncate(before="2024-03-10 02:00"), df.truncate(before="2024-03-10 02:00"))
    _same(z.truncate(after=lo), df.truncate(after=lo))
    desc = df.iloc[::-1]
    _same(zb.from_pandas(desc).truncate(before=lo, after=hi), desc.truncate(before=lo, after=hi))
    for obj, zobj in ((df["b"], z["b"]), (df, z), (df[["b"]], z[["b"]])):
        assert zobj.first_valid_index() == obj.first_valid_index()
        assert zobj.last_valid_index() == obj.last_valid_index()
    empty = pd.Series([np.nan, np.nan])
    assert zb.from_pandas(empty).first_valid_index() is empty.first_valid_index() is None


@pytest.mark.parametrize("seed", range(5))
def test_times_of_day_like_pandas(seed):
    df = _times(seed, freq=["37min", "7min", "3h", "1min"][seed % 4])
    z = zb.from_pandas(df)
    for start, end in (("09:00", "12:00"), ("22:00", "02:30"), ("21:37", "21:37"),
                       (datetime.time(23, 14), "0:51")):
        for inclusive in ("both", "neither", "left", "right"):
            _same(z.between_time(start, end, inclusive=inclusive),
                  df.between_time(start, end, inclusive=inclusive))
    for t in ("00:00", "21:00", "9:42PM", datetime.time(22, 14)):
        _same(z.at_time(t), df.at_time(t))
        _same(z["a"].at_time(t), df["a"].at_time(t))
    zoned = df.tz_localize("UTC").tz_convert("Asia/Kolkata")
    _same(zb.from_pandas(zoned).between_time("10:00", "13:00"),
          zoned.between_time("10:00", "13:00"))
    with pytest.raises(DTypeError):
        zb.from_pandas(df.reset_index()).between_time("1:00", "2:00")


@pytest.mark.parametrize("seed", range(5))
def test_asfreq_and_shift_freq_like_pandas(seed):
    df = _times(seed)[["a", "b"]]
    z = zb.from_pandas(df)
    for freq in ("1h", "20min", "37min", "2D"):
        _same(z.asfreq(freq), df.asfreq(freq))
        for method in ("ffill", "bfill", "pad"):
            _same(z.asfreq(freq, method=method), df.asfreq(freq, method=method))
        _same(z.asfreq(freq, fill_value=-1), df.asfreq(freq, fill_value=-1))
        _same(z["b"].asfreq(freq), df["b"].asfreq(freq))
    for periods, freq in ((1, "h"), (-3, "15min"), (2, "D"), (1, pd.Timedelta("90s"))):
        _same(z.shift(periods, freq=freq), df.shift(periods, freq=freq))
        _same(z["a"].shift(periods, freq=freq), df["a"].shift(periods, freq=freq))
    with pytest.raises(UnsupportedError):
        z.shift(1, freq="MS")


def test_index_time_zones_like_pandas():
    df = _times(3)
    z = zb.from_pandas(df)
    _same(z.tz_localize("UTC"), df.tz_localize("UTC"))
    _same(z.tz_localize("Europe/Paris").tz_convert("UTC"),
          df.tz_localize("Europe/Paris").tz_convert("UTC"))
    _same(z["a"].tz_localize("Australia/Sydney").tz_convert("Asia/Tokyo"),
          df["a"].tz_localize("Australia/Sydney").tz_convert("Asia/Tokyo"))
    with pytest.raises(DTypeError):
        zb.from_pandas(df.reset_index(drop=True)).tz_localize("UTC")


def test_valid_index_labels_are_pandas_scalars():
    for dtype in ("int64", "float64", "uint8"):
        s = pd.Series([np.nan, 1.0, np.nan], index=pd.Index([10, 20, 30], dtype=dtype))
        for how in ("first_valid_index", "last_valid_index"):
            got, want = getattr(zb.from_pandas(s), how)(), getattr(s, how)()
            assert got == want == 20 and type(got) is type(want)
    t = pd.Series([1.0], index=pd.DatetimeIndex(["2024-01-01"]))
    assert zb.from_pandas(t).first_valid_index() == t.first_valid_index()


@pytest.mark.parametrize("seed", range(4))
def test_asof_like_pandas(seed):
    rng = np.random.default_rng(seed)
    idx = pd.date_range("2024-01-01", periods=60, freq="7h")
    s = pd.Series(rng.normal(size=60), index=idx)
    s[rng.random(60) < 0.3] = np.nan
    df = pd.DataFrame({"a": s.values, "b": rng.integers(0, 5, 60).astype(float),
                       "c": rng.integers(0, 5, 60)}, index=idx)
    df.loc[df.index[rng.integers(0, 60, 5)], "b"] = np.nan
    zs, zdf = zb.from_pandas(s), zb.from_pandas(df)
    many = pd.DatetimeIndex(["2023-12-31", "2024-01-02 05:00", "2024-01-05", "2024-02-01"])
    s.index.name = df.index.name = "when"          # the result is labelled by where
    zs, zdf = zb.from_pandas(s), zb.from_pandas(df)
    same(zs.asof(many.rename("probe")), s.asof(many.rename("probe")))
    for where in (many, list(many)):
        same(zs.asof(where), s.asof(where))
        for subset in (None, ["a"], "b"):
            same(zdf.asof(where, subset=subset), df.asof(where, subset=subset),
                 check_dtype=False)
    for where in (pd.Timestamp("2024-01-03 01:00"), pd.Timestamp("2023-01-01"), "2024-01-04"):
        want, got = s.asof(where), zs.asof(where)
        assert (np.isnan(want) and np.isnan(got)) or got == want
        same(zdf.asof(where, subset="b"), df.asof(where, subset="b"), check_dtype=False)
    n = pd.Series([1.0, np.nan, 3.0], index=[10, 20, 30])
    assert zb.from_pandas(n).asof(25) == n.asof(25)
    # a subset that is one label of another type than str
    d = pd.DataFrame({0: [1.0, np.nan], 1: [1.0, 2.0]}, index=[1, 2])
    assert zb.from_pandas(d).asof(3, subset=0).to_dict() == d.asof(3, subset=0).to_dict()
    with pytest.raises(ValueError, match="sorted"):
        zb.from_pandas(n.iloc[::-1]).asof(25)
