"""Differential tests of alignment on row labels against pandas: Series
operators between Series of other labels (random int, str and float labels
with repeats, NaN labels, RangeIndexes of other lengths, empty sides), the
equal-index fast path, DataFrame operators (scalars, lists, Series on the
columns or the rows, frames with other rows and columns, fill_value) and
DataFrame.equals.  Values have nulls (Int64, float64 with NaN, boolean).
"""

import operator

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi import _align
from zambezi.errors import InvalidValueError
from pandas_compare import assert_frame_like, assert_series_like

ARITH = [operator.add, operator.sub, operator.mul, operator.truediv]
LOGICAL = [operator.and_, operator.or_, operator.xor]


def labels(kind, n, rng):
    if kind == "int":
        return rng.integers(0, max(n, 1), n)             # repeats, any order
    if kind == "str":
        return np.array([f"k{v}" for v in rng.integers(0, max(n, 1), n)], dtype=object)
    if kind == "unique":
        return rng.permutation(n * 2)[:n]
    if kind == "ustr":
        return np.array([f"k{v}" for v in rng.permutation(n * 2)[:n]], dtype=object)
    if kind == "float":
        v = rng.integers(0, max(n, 1), n).astype(float) / 2
        v[rng.random(n) < 0.2] = np.nan
        return v
    if kind == "sorted":
        return np.sort(rng.choice(n * 2, n, replace=False)) if n else np.array([], dtype=int)
    raise AssertionError(kind)


def values(kind, n, rng):
    miss = rng.random(n) < 0.2
    if kind == "int64":
        return pd.array(rng.integers(-50, 50, n), dtype="int64")
    if kind == "Int64":
        return pd.array(np.where(miss, None, rng.integers(-50, 50, n)), dtype="Int64")
    if kind == "float64":
        v = rng.normal(0, 10, n).round(2)
        v[miss] = np.nan
        return v
    if kind == "bool":
        return rng.random(n) < 0.5
    if kind == "boolean":
        return pd.array(np.where(miss, None, rng.random(n) < 0.5), dtype="boolean")
    raise AssertionError(kind)


def pair(lkind, vkind, n1, n2, seed, name2="x"):
    rng = np.random.default_rng(seed)
    p1 = pd.Series(values(vkind, n1, rng), index=labels(lkind, n1, rng), name="x")
    p2 = pd.Series(values(vkind, n2, rng), index=labels(lkind, n2, rng), name=name2)
    # pandas runs on the dtypes zambezi shows (an Int64 column without a
    # missing value is int64 there: it becomes float64 when it gains one)
    return zb.Series(p1).to_pandas(), zb.Series(p2).to_pandas()


CASES = [(lk, vk, n1, n2, seed)
         for lk in ["int", "str", "unique", "float", "sorted"]
         for vk in ["int64", "Int64", "float64"]
         for (n1, n2) in [(0, 5), (1, 1), (7, 5), (60, 80)]
         for seed in (1, 2)]


@pytest.mark.parametrize("lkind,vkind,n1,n2,seed", CASES)
def test_series_arithmetic_aligns_like_pandas(lkind, vkind, n1, n2, seed):
    p1, p2 = pair(lkind, vkind, n1, n2, seed, name2="x" if seed == 1 else "y")
    z1, z2 = zb.Series(p1), zb.Series(p2)
    for op in ARITH:
        want = op(p1, p2)
        assert_series_like(op(z1, z2), want, f"{op.__name__} {lkind} {vkind}", rtol=1e-12)
        # reflected order gives pandas' order of the other side
        assert_series_like(op(z2, z1), op(p2, p1), f"r{op.__name__}", rtol=1e-12)


@pytest.mark.parametrize("vkind", ["bool", "boolean"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_series_logical_aligns_like_pandas(vkind, seed):
    p1, p2 = pair("unique", vkind, 30, 25, seed)
    z1, z2 = zb.Series(p1), zb.Series(p2)
    for op in LOGICAL:
        assert_series_like(op(z1, z2), op(p1, p2), op.__name__)
        assert_series_like(op(z2, z1), op(p2, p1), "r" + op.__name__)


def test_series_comparisons_need_identical_labels():
    p1, p2 = pair("int", "float64", 10, 10, 4)
    z1, z2 = zb.Series(p1), zb.Series(p2)
    for op in [operator.eq, operator.ne, operator.lt, operator.ge]:
        with pytest.raises(ValueError, match="identically-labeled"):
            op(p1, p2)
        with pytest.raises(InvalidValueError, match="identically-labeled"):
            op(z1, z2)
    # equal labels (another object) compare, as pandas
    z3 = zb.Series(p2.to_numpy(), index=list(p1.index), name="x")
    p3 = pd.Series(p2.to_numpy(), index=p1.index, name="x")
    assert_series_like(z1 < z3, p1 < p3, "lt")


def test_equal_indexes_take_the_positional_path(monkeypatch):
    def no_join(*args, **kwargs):
        raise AssertionError("an equal index must not be joined")

    monkeypatch.setattr(_align, "join_indexes", no_join)
    rng = np.random.default_rng(0)
    a = zb.Series(rng.normal(size=50), index=[f"r{i}" for i in range(50)])
    b = zb.Series(rng.normal(size=50), index=[f"r{i}" for i in range(50)])   # equal labels
    assert (a + b).index is a.index
    assert (a * a).index is a.index
    r1, r2 = zb.Series(np.arange(5)), zb.Series(np.arange(5.0))              # RangeIndexes
    assert (r1 - r2).to_list() == [0.0] * 5
    assert _align.same_labels(zb.RangeIndex(0, 10, 2), zb.RangeIndex(0, 9, 2))
    assert not _align.same_labels(zb.RangeIndex(5), zb.RangeIndex(1, 6))


def test_a_broken_alignment_is_caught():
    # the differential check above fails for positional (unaligned) results
    p1 = pd.Series([1.0, 2.0, 3.0], index=[3, 1, 2])
    p2 = pd.Series([10.0, 20.0, 30.0], index=[1, 2, 3])
    positional = zb.Series(p1.to_numpy() + p2.to_numpy(), index=[1, 2, 3])
    with pytest.raises(AssertionError):
        assert_series_like(positional, p1 + p2, "broken")
    assert_series_like(zb.Series(p1) + zb.Series(p2), p1 + p2, "aligned")


def test_lists_and_arrays_are_positional():
    p = pd.Series([1, 2, 3], index=[9, 8, 7])
    z = zb.Series(p)
    assert_series_like(z + [10, 20, 30], p + [10, 20, 30], "list")
    assert_series_like(z * np.array([2, 2, 2]), p * np.array([2, 2, 2]), "array")
    with pytest.raises(InvalidValueError, match="length"):
        z + [1, 2]


# -- DataFrame operators ------------------------------------------------------

def frame(seed, n, cols, index_kind="unique"):
    rng = np.random.default_rng(seed)
    data = {}
    kinds = ["int64", "Int64", "float64"]
    for i, c in enumerate(cols):
        data[c] = values(kinds[i % 3], n, rng)
    return zb.DataFrame(pd.DataFrame(data, index=labels(index_kind, n, rng))).to_pandas()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_frame_with_frame_aligns_rows_and_columns(seed):
    a = frame(seed, 20, ["b", "a", "c"])
    b = frame(seed + 10, 15, ["a", "c", "d"])
    za, zb_ = zb.DataFrame(a), zb.DataFrame(b)
    for op in ARITH:
        assert_frame_like(op(za, zb_), op(a, b), op.__name__, rtol=1e-12)
    assert_frame_like(za.add(zb_, fill_value=0), a.add(b, fill_value=0), "fill", rtol=1e-12)
    assert_frame_like(za.rsub(zb_, fill_value=1), a.rsub(b, fill_value=1), "rsub fill",
                      rtol=1e-12)
    assert_frame_like(za.eq(zb_), a.eq(b), "eq")
    assert_frame_like(za.ne(zb_), a.ne(b), "ne")
    with pytest.raises(InvalidValueError, match="identically-labeled"):
        za == zb_
    # the same labels: positional, and comparisons work
    assert_frame_like(za + za, a + a, "self")
    assert_frame_like(za >= za * 2, a >= a * 2, "ge")


@pytest.mark.parametrize("seed", [1, 2])
def test_frame_with_scalars_lists_and_series(seed):
    a = frame(seed, 12, ["x", "y", "z"], "ustr")
    za = zb.DataFrame(a)
    for op in ARITH:
        assert_frame_like(op(za, 3), op(a, 3), f"{op.__name__} scalar", rtol=1e-12)
        assert_frame_like(op(2.5, za), op(2.5, a), f"r{op.__name__} scalar", rtol=1e-12)
    assert_frame_like(za - [1, 2, 3], a - [1, 2, 3], "list")
    assert_frame_like(-za, -a, "neg")
    assert_frame_like(abs(za), abs(a), "abs")
    assert_frame_like(za > 0, a > 0, "gt")
    assert_frame_like(za.le(1), a.le(1), "le")
    # a Series is matched to the column names ...
    s = pd.Series({"y": 2.0, "x": 1.0, "w": 5.0})
    assert_frame_like(za + zb.Series(s), a + s, "series on columns", rtol=1e-12)
    same = pd.Series({"x": 1, "y": 2, "z": 3})
    assert_frame_like(za * zb.Series(same), a * same, "series on columns, same labels")
    # ... or to the rows with axis="index"
    r = pd.Series(np.arange(10.0), index=list(a.index[:8]) + ["zz", "k99"])
    assert_frame_like(za.sub(zb.Series(r), axis="index"), a.sub(r, axis="index"),
                      "series on rows", rtol=1e-12)
    col = a["x"]
    assert_frame_like(za.mul(za["x"], axis=0), a.mul(col, axis=0), "own column")


def test_frame_logical_and_equals():
    rng = np.random.default_rng(5)
    a = pd.DataFrame({"p": rng.random(9) < 0.5, "q": rng.random(9) < 0.5},
                     index=rng.permutation(9))
    b = pd.DataFrame({"p": rng.random(7) < 0.5, "r": rng.random(7) < 0.5},
                     index=rng.permutation(12)[:7])
    za, zb_ = zb.DataFrame(a), zb.DataFrame(b)
    for op in LOGICAL:
        assert_frame_like(op(za, zb_), op(a, b), op.__name__)
    assert_frame_like(~za, ~a, "invert")
    assert_frame_like(za & True, a & True, "scalar")
    c = frame(3, 10, ["a", "b"])
    zc = zb.DataFrame(c)
    assert zc.equals(zb.DataFrame(c.copy())) == c.equals(c.copy())
    changed = c.copy()
    changed.iloc[3, 1] = 999
    assert zc.equals(zb.DataFrame(changed)) == c.equals(changed) is False
    moved = c.copy()
    moved.index = moved.index[::-1]
    assert zc.equals(zb.DataFrame(moved)) == c.equals(moved) is False
    cast = c.astype({"a": "float64"})
    assert zc.equals(zb.DataFrame(cast)) == c.equals(cast) is False
    assert not zc.equals(c)  # a pandas frame is not a zambezi frame


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_series_methods_align_with_fill_value(seed):
    p1, p2 = pair("unique", "float64" if seed != 2 else "Int64", 25, 30, seed)
    z1, z2 = zb.Series(p1), zb.Series(p2)
    names = ["add", "sub", "mul", "truediv", "radd", "rsub"] + (["rpow"] if seed != 2 else [])
    for name in names:
        assert_series_like(getattr(z1, name)(z2), getattr(p1, name)(p2), name, rtol=1e-12)
        assert_series_like(getattr(z1, name)(z2, fill_value=2),
                           getattr(p1, name)(p2, fill_value=2), f"{name} fill", rtol=1e-12)
        assert_series_like(getattr(z1, name)(3, fill_value=1),
                           getattr(p1, name)(3, fill_value=1), f"{name} scalar", rtol=1e-12)
    for name in ["eq", "ne", "lt", "ge"]:  # the methods align, the operators raise
        assert_series_like(getattr(z1, name)(z2), getattr(p1, name)(p2), name)


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int32", "int64"), ("uint64", "uint64"),
                                    ("int16", "int16")])
@pytest.mark.parametrize("seed", [1, 2])
def test_unique_integer_labels_merge_without_a_hash_join(monkeypatch, dtypes, seed):
    # unique integer labels on each side take the sort-merge path
    # (_align._merge_unique), never the hash join; labels a side repeats
    # fall back to it
    rng = np.random.default_rng(seed)
    n1, n2 = 90, 70
    l1 = rng.permutation(120)[:n1].astype(dtypes[0])
    l2 = rng.permutation(120)[:n2].astype(dtypes[1])
    p1 = pd.Series(rng.normal(size=n1).round(3), index=l1)
    p2 = pd.Series(pd.array(np.where(rng.random(n2) < 0.2, None, rng.integers(-9, 9, n2)),
                            dtype="Int64"), index=l2)
    z1, z2 = zb.Series(p1), zb.Series(p2)
    joins = []
    real_join = _align._core.join_indices
    monkeypatch.setattr(_align._core, "join_indices",
                        lambda *a: joins.append(1) or real_join(*a))
    assert_series_like(z1 + z2, p1 + p2, "add", rtol=1e-12)
    assert_series_like(z2 - z1, p2 - p1, "rsub", rtol=1e-12)
    assert joins == []
    l2[:3] = l2[3]  # a repeated label: every pair, through the hash join
    p2.index = l2
    z2 = zb.Series(p2)
    assert_series_like(z1 * z2, p1 * p2, "mul repeated", rtol=1e-12)
    assert joins


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("method", ["where", "mask"])
def test_where_mask_align_cond_and_other_on_labels(method, seed):
    # a Series cond / other is matched by row label, as pandas aligns it: a
    # label cond lacks replaces the value, one other lacks gives NaN
    rng = np.random.default_rng(seed)
    idx = rng.permutation(40)[:12]
    p = pd.Series(rng.normal(0, 1, 12).round(2), index=idx, name="v")
    pi = pd.Series(rng.integers(-9, 9, 12), index=idx, name="i")
    ps = pd.Series([f"s{v}" for v in range(12)], index=idx, name="s")
    full = pd.Series(rng.random(12) < 0.5, index=rng.permutation(idx))   # all labels
    part = full.iloc[:8]                                                  # some lack
    o_full = pd.Series(rng.normal(0, 100, 12).round(2), index=rng.permutation(idx))
    o_int = pd.Series(rng.integers(100, 200, 12), index=rng.permutation(idx))
    o_part = o_int.iloc[:7]
    o_str = pd.Series([f"o{v}" for v in range(12)], index=rng.permutation(idx))
    for ps_, cond, other in [(p, full, o_full), (p, part, o_full), (p, full, o_part),
                             (pi, full, o_int), (pi, part, o_part), (pi, full, o_part),
                             (pi, part, 0), (ps, part, o_str), (p, p > 0, o_full)]:
        want = getattr(ps_, method)(cond, other)
        got = getattr(zb.Series(ps_), method)(zb.Series(cond),
                                              other if np.isscalar(other) else zb.Series(other))
        assert_series_like(got, want, f"{method} {ps_.name}")
    # frames: each column of a frame cond / other by label too; a Series other with axis=0
    pdf = pd.DataFrame({"a": pi, "b": p})
    pc = pd.DataFrame({"a": full, "b": ~full}).iloc[::-1]
    po = pd.DataFrame({"a": o_int, "b": o_full})
    zdf, zc, zo = zb.DataFrame(pdf), zb.DataFrame(pc), zb.DataFrame(po)
    assert_frame_like(getattr(zdf, method)(zc, zo), getattr(pdf, method)(pc, po), method)
    assert_frame_like(getattr(zdf, method)(zb.Series(part), zb.Series(o_full), axis=0),
                      getattr(pdf, method)(part, o_full, axis=0), f"{method} axis=0")
