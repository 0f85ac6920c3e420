"""Index set operations (zambezi._index_sets) against pandas run side by
side: the result's name when other is not an index (a list, an array, a
Series: this index's name) or both names are NaN, numpy's common dtype of
two number dtypes (int8 and int16: int16, int8 and float32: float32) also
when the labels are equal or one side is empty, and the mixes pandas
answers with an object Index (uint64 with a signed integer, datetimes
with numbers), which zambezi refuses with UnsupportedError."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import shown_index
from zambezi.errors import UnsupportedError

OPS = ["union", "intersection", "difference", "symmetric_difference"]


def same(got, exp, what):
    got = got.to_pandas()
    exp = shown_index(exp)
    assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype}, pandas {exp.dtype}"
    assert got.name is exp.name or got.name == exp.name or (
        got.name != got.name and exp.name != exp.name), \
        f"{what}: name {got.name!r}, pandas {exp.name!r}"
    assert list(got) == list(exp), f"{what}: {list(got)} != pandas {list(exp)}"


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", ["list", "array", "series", "empty list"])
def test_name_with_labels_that_are_not_an_index(op, kind):
    p = pd.Index([5, 1, 3, 1, 9], name="foo")
    vals = [3, 7, 1] if kind != "empty list" else []
    other = {"list": vals, "empty list": vals, "array": np.array(vals),
             "series": pd.Series(vals, name="bar")}[kind]
    zother = zb.Series(other) if kind == "series" else other
    z = zb.Index.from_pandas(p) if hasattr(zb.Index, "from_pandas") else zb.Index(p)
    for sort in [None, False]:
        if getattr(p, op)(other, sort=sort).dtype == object:   # zambezi has no object Index
            with pytest.raises(UnsupportedError, match="object Index"):
                getattr(z, op)(zother, sort=sort)
            continue
        same(getattr(z, op)(zother, sort=sort), getattr(p, op)(other, sort=sort),
             f"{op} {kind} sort={sort}")


@pytest.mark.parametrize("op", OPS)
def test_nan_names_match(op):
    p1 = pd.Index([1, 2, 3], name=np.nan)
    p2 = pd.Index([2, 3, 4], name=float("nan"))
    z1, z2 = zb.Index([1, 2, 3], name=np.nan), zb.Index([2, 3, 4], name=float("nan"))
    same(getattr(z1, op)(z2), getattr(p1, op)(p2), op)
    same(getattr(z1, op)(zb.Index([2], name="x")), getattr(p1, op)(pd.Index([2], name="x")), op)


DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "float32", "float64"]


@pytest.mark.parametrize("op", ["union", "intersection", "symmetric_difference", "difference"])
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", DTYPES)
def test_common_dtype_of_numbers(op, da, db):
    cases = [([0, 1, 2, 3], [2, 3, 4]), ([0, 1, 2], [0, 1, 2]), ([0, 1, 2], []), ([], [4, 1])]
    for a, b in cases:
        pa, pb = pd.Index(a, dtype=da), pd.Index(b, dtype=db)
        za, zb_ = zb.Index(np.array(a, dtype=da)), zb.Index(np.array(b, dtype=db))
        if op == "intersection" and da != db and not (a and b):
            # an empty side of another dtype: pandas' own rule, not zambezi's
            with pytest.raises(UnsupportedError):
                za.intersection(zb_)
            continue
        same(getattr(za, op)(zb_), getattr(pa, op)(pb), f"{op} {da} {db} {a} {b}")


@pytest.mark.parametrize("op", ["union", "intersection", "symmetric_difference"])
def test_object_results_are_refused(op):
    cases = [(np.array([1, 2], dtype="int64"), np.array([2, 3], dtype="uint64")),
             (np.array(["2024-01-01"], dtype="datetime64[ns]"), np.array([1], dtype="int64")),
             (np.array([], dtype="datetime64[ns]"), np.array([], dtype="float64"))]
    for a, b in cases:
        if getattr(pd.Index(a), op)(pd.Index(b)).dtype != object:   # pandas' answer
            continue
        with pytest.raises(UnsupportedError, match="object Index"):
            getattr(zb.Index(a), op)(zb.Index(b))
