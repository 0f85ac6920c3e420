"""Everyday calls of a notebook against pandas run side by side: Series /
DataFrame.agg (names, callables, numpy functions, lists, dicts),
zb.factorize and Series.factorize, zb.to_numeric (errors, downcast,
scalars and lists), sort_values(key=...), GroupBy.quantile of a list of
q, GroupBy.pipe, str.startswith / endswith of a tuple."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same


_same = same


def _frame(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 200))
    df = pd.DataFrame({"a": rng.integers(-50, 50, n), "b": rng.normal(size=n).round(3),
                       "k": rng.choice(["Bo", "al", "Cy", "bo"], n),
                       "s": rng.choice(["x1", "y22", "zz", "x"], n)})
    df.loc[rng.random(n) < 0.1, "b"] = np.nan
    return df


@pytest.mark.parametrize("seed", range(6))
def test_agg_like_pandas(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    nums = ["a", "b"]
    for spec in (["sum", "mean"], ["min", "max"], ["min", lambda x: x.max()], [np.sum, np.mean],
                 ["count", "std", "median"]):
        _same(z[nums].agg(spec), df[nums].agg(spec))
        _same(z["b"].agg(spec), df["b"].agg(spec))
    _same(z.agg(["min", "max"]), df.agg(["min", "max"]))
    _same(z[nums].agg("mean"), df[nums].agg("mean"))
    _same(z.agg({"a": "sum", "b": "mean"}), df.agg({"a": "sum", "b": "mean"}))
    _same(z.agg({"a": ["sum", "min"], "b": "mean", "k": "max"}),
          df.agg({"a": ["sum", "min"], "b": "mean", "k": "max"}))
    _same(z["a"].agg({"lo": "min", "hi": "max"}), df["a"].agg({"lo": "min", "hi": "max"}))
    assert z["a"].agg("sum") == df["a"].agg("sum")
    assert z["a"].agg(lambda x: x.max() - x.min()) == df["a"].agg(lambda x: x.max() - x.min())


@pytest.mark.parametrize("seed", range(6))
def test_factorize_like_pandas(seed):
    df = _frame(seed)
    for col in ("a", "b", "k"):
        for sort in (False, True):
            pc, pu = pd.factorize(df[col], sort=sort)
            zc, zu = zb.factorize(zb.from_pandas(df[col]), sort=sort)
            np.testing.assert_array_equal(zc, pc)
            assert zu.to_list() == list(pu)
            zc2, zu2 = zb.from_pandas(df[col]).factorize(sort=sort)
            np.testing.assert_array_equal(zc2, pc)
            pc3, pu3 = pd.factorize(df[col].to_numpy(), sort=sort)
            zc3, zu3 = zb.factorize(df[col].to_numpy(), sort=sort)
            np.testing.assert_array_equal(zc3, pc3)
            np.testing.assert_array_equal(zu3, pu3)


TEXTS = [["1", " 22", "-3", "+4"], ["1.5", "x", None, "2"], ["1", "", "3"],
         ["1e3", ".5", "inf", "-Infinity", "5."], ["7", None], ["abc"], ["0x10"], ["1_000"]]


@pytest.mark.parametrize("values", TEXTS)
def test_to_numeric_like_pandas(values):
    p = pd.Series(values, dtype="str")
    z = zb.Series(values)
    for errors in ("raise", "coerce"):
        try:
            want = pd.to_numeric(p, errors=errors)
        except ValueError as e:
            with pytest.raises(ValueError, match="Unable to parse string"):
                zb.to_numeric(z, errors=errors)
            assert "Unable to parse" in str(e)
            continue
        _same(zb.to_numeric(z, errors=errors), want)


def test_to_numeric_kinds_and_downcast():
    for d in ("integer", "signed", "unsigned", "float"):
        for vals in ([1, 200], [-5, 70000], [0.5, 2.0], [3, 2**40]):
            want = pd.to_numeric(pd.Series(vals), downcast=d)
            _same(zb.to_numeric(zb.Series(vals), downcast=d), want)
    assert zb.to_numeric("3.5") == 3.5 and zb.to_numeric(7) == 7
    np.testing.assert_array_equal(zb.to_numeric(["1", "2"]), pd.to_numeric(["1", "2"]))
    with pytest.raises(ValueError):
        zb.to_numeric(zb.Series(["1"]), errors="ignore")


@pytest.mark.parametrize("seed", range(6))
def test_sort_key_like_pandas(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    lower = lambda c: c.str.lower()   # noqa: E731
    _same(z.sort_values("k", key=lower), df.sort_values("k", key=lower))
    _same(z.sort_values(["k", "a"], key=lambda c: c.str.lower() if c.dtype == "str"
                        or c.dtype == "string" else -c),
          df.sort_values(["k", "a"], key=lambda c: c.str.lower() if c.dtype == "str" else -c))
    for kind in ("stable", "quicksort"):
        _same(z["a"].sort_values(key=abs, ascending=False, kind=kind),
              df["a"].sort_values(key=abs, ascending=False, kind=kind))
    for kind in ("stable", "quicksort"):   # pandas' default is quicksort: ties unordered
        _same(z["b"].sort_values(key=lambda c: c.abs(), ignore_index=True, kind=kind),
              df["b"].sort_values(key=lambda c: c.abs(), ignore_index=True, kind=kind))


@pytest.mark.parametrize("seed", range(6))
def test_groupby_quantiles_and_pipe_like_pandas(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    for qs in ([0.25, 0.75], [0.5], [0.9, 0.1, 0.5]):
        _same(z.groupby("k")["b"].quantile(qs), df.groupby("k")["b"].quantile(qs))
        _same(z.groupby("k")[["a", "b"]].quantile(qs), df.groupby("k")[["a", "b"]].quantile(qs))
        _same(z.groupby(["k", "s"])["a"].quantile(qs), df.groupby(["k", "s"])["a"].quantile(qs))
    _same(z.groupby("k").pipe(lambda g: g["a"].sum()), df.groupby("k").pipe(lambda g: g["a"].sum()))


def test_str_affixes_of_tuples_like_pandas():
    s = pd.Series(["Maun", "Lusaka", None, "", "Mtwara"], dtype="str")
    z = zb.from_pandas(s)
    for pat in (("M", "L"), ("ka",), ("a", "ra", "x")):
        want_s, want_e = s.str.startswith(pat), s.str.endswith(pat)
        assert z.str.startswith(pat).to_list()[:2] + z.str.startswith(pat).to_list()[3:] == \
            want_s.to_list()[:2] + want_s.to_list()[3:]
        assert z.str.endswith(pat).to_list()[:2] + z.str.endswith(pat).to_list()[3:] == \
            want_e.to_list()[:2] + want_e.to_list()[3:]


def test_value_counts_positional_arguments_in_pandas_order():
    # pandas' order (normalize, sort, ascending, bins, dropna): the
    # accelerator hands a user's positional arguments on as they are
    p = pd.Series([1, 1, 2, 3, 3, 3, None])
    z = zb.from_pandas(p)
    for args in ((True,), (False, False), (False, True, True), (True, True, False, None, False)):
        _same(z.value_counts(*args), p.value_counts(*args))


def test_frame_rename_like_pandas():
    # pandas' signature: a positional mapper renames the rows unless axis=1
    # (the accelerator hands it on as written), and keys that are no label
    # are ignored unless errors="raise"
    p = pd.DataFrame({"A": [1, 2], "B": [3, 4]}, index=["x", "y"])
    z = zb.from_pandas(p)
    calls = [lambda d: d.rename(str.lower), lambda d: d.rename(str.lower, axis=1),
             lambda d: d.rename({"x": "q", "nope": "r"}), lambda d: d.rename(columns={"A": "a"}),
             lambda d: d.rename(index={"y": "w"}, columns=str.lower),
             lambda d: d.rename({"A": "a", "Z": "z"}, axis="columns")]
    for call in calls:
        _same(call(z), call(p))
    with pytest.raises(KeyError):
        z.rename(columns={"Z": "z"}, errors="raise")
    with pytest.raises(KeyError):
        z.rename(index={"nope": "r"}, errors="raise")
    with pytest.raises(TypeError):
        z.rename(str.lower, columns=str.upper)


def test_series_extremes_take_axis_first_as_pandas():
    p = pd.Series([4.0, 9.0, None, 9.0], index=[10, 20, 30, 40])
    z = zb.from_pandas(p)
    for name in ("idxmin", "idxmax", "argmin", "argmax"):
        assert getattr(z, name)(0) == getattr(p, name)(0)
        assert getattr(z, name)(0, True) == getattr(p, name)(0, True)
        with pytest.raises(ValueError):
            getattr(z, name)(1)
