"""Two pandas details that pandas' resample tests check under the
accelerator: concat's ``keys=`` given as a named Index names the new level
(rows or columns; with frames side by side the inner level stays unnamed),
and a frame made from pandas keeps its DatetimeIndex's freq (to_pandas
gives it back; a row selection drops it).  Compared with pandas."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def parts():
    a = pd.Series([1, 2], name="x")
    b = pd.Series([3, 4], name="y")
    return a, b


@pytest.mark.parametrize("keys", [pd.Index(["A", "B"], name="Cols"), ["A", "B"],
                                  pd.Index(["A", "B"])])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("frames", [False, True])
def test_concat_keys_name_the_new_level(keys, axis, frames):
    a, b = parts()
    if frames:
        a, b = a.to_frame(), b.to_frame()
    exp = pd.concat([a, b], axis=axis, keys=keys)
    got = zb.concat([zb.from_pandas(a) if frames else zb.Series(a),
                     zb.from_pandas(b) if frames else zb.Series(b)], axis=axis, keys=keys)
    got = got.to_pandas()
    labels = (lambda o: o.columns) if axis == 1 else (lambda o: o.index)
    assert list(labels(got).names) == list(labels(exp).names)
    assert list(labels(got)) == list(labels(exp))


def test_concat_explicit_names_pad_the_inner_levels():
    a, b = parts()
    exp = pd.concat([a.to_frame(), b.to_frame()], axis=1, keys=["A", "B"], names=["K"])
    got = zb.concat([zb.from_pandas(a.to_frame()), zb.from_pandas(b.to_frame())], axis=1,
                    keys=["A", "B"], names=["K"]).to_pandas()
    assert list(got.columns.names) == list(exp.columns.names) == ["K", None]


@pytest.mark.parametrize("freq", ["D", "ME", "15min", "h"])
def test_frame_from_pandas_keeps_the_index_freq(freq):
    idx = pd.date_range("2024-01-31", periods=5, freq=freq, name="t")
    p = pd.DataFrame({"v": np.arange(5.0)}, index=idx)
    z = zb.from_pandas(p)
    assert z.to_pandas().index.freq == p.index.freq
    assert z.index.freq == p.index.freqstr
    # a selection of rows drops it (the labels need not follow the rule)
    assert z[z["v"] != 2.0].to_pandas().index.freq is None
    q = pd.DataFrame({"v": np.arange(3.0)}, index=pd.DatetimeIndex(
        ["2024-01-01", "2024-01-03", "2024-01-04"]))
    assert zb.from_pandas(q).to_pandas().index.freq is None


def test_index_and_frame_of_a_pandas_datetimeindex_keep_its_freq():
    i = pd.DatetimeIndex(["2014-07-31", "2014-08-31", "2014-09-30"], freq="ME",
                         name="A").as_unit("s")
    assert zb.Index(i).to_pandas().freq == i.freq
    got = zb.DataFrame({"B": [1, 0, 2]}, index=i).to_pandas()
    pd.testing.assert_frame_equal(got, pd.DataFrame({"B": [1, 0, 2]}, index=i))


def test_a_named_column_index_keeps_its_name_through_arithmetic():
    # from_pandas and rename_axis(columns=) name the column labels, and
    # arithmetic keeps the name, as pandas does
    p = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]}).rename_axis(columns="cols")
    pi = pd.DataFrame({1: [1.0, 2.0], 2: [3.0, 4.0]}).rename_axis(columns="c")
    for frame in (p, pi):
        z = zb.from_pandas(frame)
        for f in (lambda d: d + 1, lambda d: d * d, lambda d: d / 2, lambda d: -d):
            pd.testing.assert_frame_equal(f(z).to_pandas(), f(frame))
    z = zb.from_pandas(p)
    pd.testing.assert_frame_equal((z - z.iloc[0]).to_pandas(), p - p.iloc[0])
    plain = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    z = zb.DataFrame(plain)
    for kw in (dict(columns="cols"), dict(mapper="cols", axis=1), dict(index="r", columns="c")):
        got, exp = z.rename_axis(**kw), plain.rename_axis(**kw)
        pd.testing.assert_frame_equal(got.to_pandas(), exp)
        pd.testing.assert_frame_equal((got * got).to_pandas(), exp * exp)
    named = z.rename_axis(columns="c")
    for kw in (dict(columns=str.upper), dict(columns={"c": "d"}), dict(columns=None)):
        pd.testing.assert_frame_equal(named.rename_axis(**kw).to_pandas(),
                                      p.rename_axis(columns="c").rename_axis(**kw))
    assert named.rename_axis("r").columns.name == "c"


def test_selected_rows_keep_the_freq_as_pandas():
    # consecutive rows keep it, every k-th row multiplies it, a mask drops it
    idx = pd.date_range("2024-01-01", periods=12, freq="6h")
    ps = pd.Series(np.arange(12), index=idx)
    zs = zb.Series(np.arange(12), index=idx).resample("6h").sum()
    ps = ps.resample("6h").sum()
    cases = [lambda s: s.head(3), lambda s: s.tail(2), lambda s: s.iloc[1:4],
             lambda s: s.iloc[::2], lambda s: s.iloc[1::3], lambda s: s.iloc[[0, 5, 6]],
             lambda s: s[s > 3], lambda s: s.sort_index(), lambda s: s.rename("x"),
             lambda s: s.loc["2024-01-02"]]
    for i, f in enumerate(cases):
        assert f(zs).to_pandas().index.freq == f(ps).index.freq, i
