"""Index set operations and nearby lookups against pandas run side by
side (zambezi._index_sets, zambezi._index_lookup.nearby_indexer): union
with repeated labels (each label as often as the side holding it most),
symmetric_difference, intersection / difference / union of numbers of
different dtypes and of labels of another kind, and get_indexer with
method="nearest", limit= and tolerance= (numbers and times)."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import shown_index
from zambezi.errors import InvalidValueError, UnsupportedError


def same(got, exp, what):
    got = got.to_pandas()
    exp = shown_index(exp)
    assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype}, pandas {exp.dtype}"
    assert got.name == exp.name, f"{what}: name {got.name!r}, pandas {exp.name!r}"
    assert list(got) == list(exp) or (np.array_equal(got.to_numpy(), exp.to_numpy(),
                                                     equal_nan=True)), \
        f"{what}: {list(got)} != pandas {list(exp)}"


def pairs():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 30, 200)
    b = rng.integers(10, 50, 120)
    yield "ints with repeats", pd.Index(a, name="k"), pd.Index(b, name="k")
    yield "ints one side unique", pd.Index([3, 1, 1, 7]), pd.Index([7, 2, 1])
    words = np.array(["ß", "a", "b", "zz", "", "Ä"], dtype=object)
    yield "strings", pd.Index(words[rng.integers(0, 6, 40)]), pd.Index(words[rng.integers(0, 4, 9)])
    yield "int and float", pd.Index([1, 2, 3, 2]), pd.Index([2.0, 3.5, 2.0])
    yield "float and int", pd.Index([2.5, 1.0, 4.0]), pd.Index([1, 4, 9], dtype="int32")
    yield "int32 and int64", pd.Index([1, 5, 2], dtype="int32"), pd.Index([5, 6])
    yield "times", pd.DatetimeIndex(["2024-01-02", "2024-01-01", "2024-01-02"]), \
        pd.DatetimeIndex(["2024-01-03", "2024-01-02"])
    yield "unique", pd.Index([4, 1, 2]), pd.Index([2, 0])
    # numpy's promotion, as pandas: uint8 and int8 meet in int16, int8 and
    # float32 in float32, uint32 and int32 in int64
    yield "uint8 and int8", pd.Index([1, 200, 3], dtype="uint8"), pd.Index([-1, 3], dtype="int8")
    yield "int8 and float32", pd.Index([1, 2], dtype="int8"), pd.Index([2.5, 1], dtype="float32")
    yield "uint32 and int32", pd.Index([7, 1], dtype="uint32"), pd.Index([-7, 1], dtype="int32")
    yield "uint8 and uint16", pd.Index([5, 1], dtype="uint8"), pd.Index([1, 300], dtype="uint16")


@pytest.mark.parametrize("sort", [None, False])
def test_set_operations_vs_pandas(sort):
    for what, a, b in pairs():
        za, zb_ = zb.Index(a), zb.Index(b)
        same(za.union(zb_, sort=sort), a.union(b, sort=sort), f"{what} union")
        same(zb_.union(za, sort=sort), b.union(a, sort=sort), f"{what} union (swapped)")
        same(za.intersection(zb_, sort=sort), a.intersection(b, sort=sort),
             f"{what} intersection")
        same(za.difference(zb_, sort=sort), a.difference(b, sort=sort), f"{what} difference")
        same(za.symmetric_difference(zb_, sort=sort), a.symmetric_difference(b, sort=sort),
             f"{what} symmetric_difference")
    a, b = pd.Index([3, 1, 2], name="x"), pd.Index([1], name="x")
    same(zb.Index(a).symmetric_difference(zb.Index(b), result_name="r"),
         a.symmetric_difference(b, result_name="r"), "result_name")


def test_labels_of_another_kind_vs_pandas():
    a, b = pd.Index([3, 1, 2, 1]), pd.Index(["a", "b"])
    za, zb_ = zb.Index(a), zb.Index(b)
    for sort in (None, False):
        same(za.difference(zb_, sort=sort), a.difference(b, sort=sort), "difference")
    # pandas' empty result is an object Index, which zambezi has not
    assert len(a.intersection(b)) == 0 and a.intersection(b).dtype == object
    with pytest.raises(UnsupportedError, match="object Index"):
        za.intersection(zb_)


TARGETS = [0, 1, 3, 4, 5, 7, 8, 10, 12, 30]


@pytest.mark.parametrize("method", ["pad", "ffill", "backfill", "bfill", "nearest"])
@pytest.mark.parametrize("limit", [None, 1, 2, 3])
@pytest.mark.parametrize("tolerance", [None, 0, 1, 2.5, "list"])
def test_get_indexer_method_limit_tolerance_vs_pandas(method, limit, tolerance):
    idx = pd.Index([1, 5, 10, 11, 20])
    if tolerance == "list":
        tolerance = np.arange(len(TARGETS)) % 4
    exp = idx.get_indexer(TARGETS, method=method, limit=limit, tolerance=tolerance)
    got = zb.Index(idx).get_indexer(TARGETS, method=method, limit=limit, tolerance=tolerance)
    np.testing.assert_array_equal(got, exp)
    floats = np.array([0.5, 2.9, 3.0, np.nan, 7.5, 15.5, 25.0])
    exp = idx.get_indexer(floats, method=method, tolerance=tolerance if tolerance is None
                          or np.ndim(tolerance) == 0 else None)
    got = zb.Index(idx).get_indexer(floats, method=method, tolerance=tolerance if tolerance
                                    is None or np.ndim(tolerance) == 0 else None)
    np.testing.assert_array_equal(got, exp)


def test_get_indexer_times_and_errors_vs_pandas():
    idx = pd.DatetimeIndex(["2024-01-01", "2024-01-05", "2024-01-06 12:00"])
    t = pd.DatetimeIndex(["2023-12-31", "2024-01-02", "2024-01-04", "2024-01-06", "2024-02-01"])
    for tol in (None, pd.Timedelta("1D"), "2D"):
        exp = idx.get_indexer(t, method="nearest", tolerance=tol)
        got = zb.Index(idx).get_indexer(t.values, method="nearest", tolerance=tol)
        np.testing.assert_array_equal(got, exp)
    z = zb.Index([1, 5, 10])
    with pytest.raises(InvalidValueError, match="monotonic"):
        z.get_indexer([3, 0], method="pad", limit=1)
    with pytest.raises(InvalidValueError, match="tolerance"):
        z.get_indexer([3], tolerance=1)
    with pytest.raises(InvalidValueError, match="greater than 0"):
        z.get_indexer([3], method="pad", limit=0)
    with pytest.raises(InvalidValueError, match="method"):
        z.get_indexer([3], method="closest")


def test_union_keeps_repeated_missing_labels():
    """A missing label repeated on the side that holds it most is kept as
    often, in first-appearance order, as pandas (it was dropped)."""
    cases = [([1.0], [np.nan, np.nan]), ([np.nan, np.nan], [np.nan] * 3),
             (["a", "a"], ["a", "a", "a", None, None]), ([1.0, 1.0, np.nan], [np.nan]),
             (pd.DatetimeIndex(["2024-01-01", None, "2024-01-02"]),
              pd.DatetimeIndex([None, None, "2024-01-03"])),
             ([3, 1, 1], [1, 2, 2, 3]), (["b", "a", "a"], ["a", "c", "c"])]
    for a, b in cases:
        for sort in (None, False):
            pa_, pb = pd.Index(a), pd.Index(b)
            same(zb.Index(pa_).union(zb.Index(pb), sort=sort), pa_.union(pb, sort=sort),
                 f"union {a} {b} sort={sort}")


def test_get_indexer_methods_on_a_decreasing_index():
    """pad / backfill / nearest (and tolerance) on decreasing labels, as
    pandas (they raised): pad takes the label before in the index's order,
    the next larger; ties of nearest go to it."""
    cases = [([10, 5, 0], [4, 6, -1, 11, 5, 0, 10, 7]),
             ([10.0, 7.5, 5, 2.5, 0], [4, 6, 7.5, -1, 11, 5, 0, 10, 6.25]),
             (pd.date_range("2024-01-10", periods=5, freq="-1D"),
              pd.DatetimeIndex(["2024-01-07 12:00", "2024-01-20", "2023-12-01", "2024-01-08",
                                "2024-01-08 06:00"]))]
    for labels, target in cases:
        p = pd.Index(labels)
        z = zb.Index(p)
        for method in ("pad", "ffill", "backfill", "bfill", "nearest"):
            assert list(z.get_indexer(target, method=method)) == \
                list(p.get_indexer(target, method=method)), (labels, method)
        tol = pd.Timedelta("6h") if isinstance(p, pd.DatetimeIndex) else 1
        assert list(z.get_indexer(target, method="nearest", tolerance=tol)) == \
            list(p.get_indexer(target, method="nearest", tolerance=tol)), (labels, "tolerance")
