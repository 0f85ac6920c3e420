"""Small conveniences against pandas run side by side: Series.case_when
(conditions as Series, arrays and functions; replacements as scalars,
Series on other labels and functions; the first matching condition wins;
pandas' errors), DataFrame.isetitem (one position, several from a frame,
negative positions), str.isascii, divmod (also Python's) and pop."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _pair(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    p = pd.Series(rng.normal(0, 10, n).round(1), index=rng.permutation(n) + 5)
    p[rng.random(n) < 0.15] = np.nan
    return p, zb.from_pandas(p)


def _on(series, labels, values, mod):
    return mod.Series(values, index=labels)


@pytest.mark.parametrize("seed", range(6))
def test_case_when_like_pandas(seed):
    p, s = _pair(seed)
    rev = list(p.index[::-1])
    vals = np.arange(len(p), dtype=np.float64)
    for make in [
        lambda x, m: [(x > 5, 100.0), (lambda y: y > 0, 50.0)],
        lambda x, m: [(x > 5, x * 2), (x < -5, -1.5), (x.isna(), 0.0)],
        lambda x, m: [(np.asarray((x > 0).to_numpy(), dtype=bool) if m is pd else
                       (x > 0).fillna(False).to_numpy(), 7.0)],
        lambda x, m: [(x > 0, _on(x, rev, vals, m)), (lambda y: y < 0, lambda y: y - 1)],
    ]:
        exp = p.case_when(make(p, pd))
        got = s.case_when(make(s, zb)).to_pandas()
        pd.testing.assert_series_equal(got, exp, check_dtype=False, check_index_type=False)


def test_case_when_errors_as_pandas():
    p, s = _pair(1)
    for make, exc, msg in [(lambda x: (x > 0, 1), TypeError, "should be a list"),
                           (lambda x: [], ValueError, "at least one"),
                           (lambda x: [[x > 0, 1]], TypeError, "must be a tuple"),
                           (lambda x: [(x > 0, 1, 2)], ValueError, "must have length 2")]:
        for obj in (p, s):
            with pytest.raises(exc, match=msg):
                obj.case_when(make(obj))
    with pytest.raises(ValueError, match="condition0 and replacement0"):
        s.case_when([(s > 0, s.iloc[:2].to_numpy())])   # wrong length


@pytest.mark.parametrize("loc, value", [
    (1, ["x", "y", "z"]), (-1, 7), (0, "frame1"), ([0, 2], "frame2"), ([2, 1], "frame2"),
    ([2, 0], "array2"),
])
def test_isetitem_like_pandas(loc, value):
    p = pd.DataFrame({"a": [1, 2, 3], "b": [3.0, None, 4.0], "c": ["u", "v", "w"]},
                     index=[10, 20, 30])
    if value == "frame1":
        value = pd.DataFrame({"q": [0.5, 1.5, 2.5]}, index=[10, 20, 30])
    elif value == "array2":
        value = np.arange(100, 106).reshape(2, 3).T
    elif value == "frame2":
        value = pd.DataFrame({"q": [9, 8, 7], "r": ["i", "j", "k"]}, index=[10, 20, 30])
    z = zb.from_pandas(p)
    p.isetitem(loc, value)
    z.isetitem(loc, zb.from_pandas(value) if isinstance(value, pd.DataFrame) else value)
    pd.testing.assert_frame_equal(z.to_pandas(), p, check_index_type=False)


def test_isetitem_errors():
    z = zb.DataFrame({"a": [1], "b": [2]})
    with pytest.raises(IndexError, match="out of bounds"):
        z.isetitem(2, 0)
    with pytest.raises(ValueError, match="Got 2 positions but value has 1 columns"):
        z.isetitem([0, 1], zb.DataFrame({"q": [1]}))
    assert z.to_dict("list") == {"a": [1], "b": [2]}   # nothing changed


def test_isascii_like_python():
    values = ["", "ab", "é", None, "a\x7f", "\x80", "x\ny", "日本", "plain text 123"]
    got = zb.Series(values).str.isascii().to_list()
    assert got == [None if v is None else v.isascii() for v in values]
    exp = pd.Series(values, dtype=object).str.isascii().to_list()
    assert got == exp
    cat = zb.from_pandas(pd.Series(values).astype("category"))
    assert cat.str.isascii().to_list() == got


def test_divmod_and_pop_as_pandas():
    p = pd.Series([7.0, 8.0, None], index=list("abc"))
    o = pd.Series([3.0, None, 4.0], index=list("abc"))
    z, zo = zb.from_pandas(p), zb.from_pandas(o)
    for f in (lambda a, b: a.divmod(b, fill_value=1), lambda a, b: a.rdivmod(b, fill_value=2),
              lambda a, b: divmod(a, 3), lambda a, b: divmod(17, a), lambda a, b: divmod(a, b)):
        for got, want in zip(f(z, zo), f(p, o)):
            pd.testing.assert_series_equal(got.to_pandas(), want, check_index_type=False)
    s = zb.Series([1.0, None])
    assert np.isnan(s.pop(1)) and s.to_list() == [1.0]   # a missing value pops as nan
    d = zb.Series([1, 2, 3], index=["a", "a", "b"])
    with pytest.raises(IndexError, match="not unique"):  # pandas raises IndexError too
        d.pop("a")
    assert d.to_list() == [1, 2, 3]


@pytest.mark.parametrize("flags", [{}, {"convert_integer": False}, {"convert_string": False},
                                   {"dtype_backend": "pyarrow"}])
def test_convert_dtypes_like_pandas(flags):
    p = pd.DataFrame({"n": [1.0, np.nan, 3.0], "x": [0.5, 2.0, np.nan], "i": [1, 2, 3],
                      "s": ["a", None, "c"], "e": [np.nan] * 3, "inf": [1.0, np.inf, 2.0],
                      "f32": np.array([1, 2, 3], dtype="float32"),
                      "big": [2.0 ** 70, 1.0, 0.0]}, index=[3, 4, 5])
    z = zb.from_pandas(p)
    want = p.convert_dtypes(**flags)
    got = z.convert_dtypes(**flags)
    ints = {c for c, d in want.dtypes.items() if str(d) in ("Int64", "int64[pyarrow]", "int64")}
    assert {c for c, d in got.dtypes.to_dict().items() if d == "int64"} == ints
    assert got.index.to_list() == [3, 4, 5]
    for c in p.columns:  # the same values, missing in the same places
        assert got[c].to_list() == [None if pd.isna(v) else v for v in want[c].tolist()]
    assert z["n"].convert_dtypes().to_list() == [1, None, 3]
    assert z.infer_objects().to_dict("list") == z.to_dict("list")
    with pytest.raises(zb.errors.InvalidValueError, match="dtype_backend"):
        z.convert_dtypes(dtype_backend="numpy")
