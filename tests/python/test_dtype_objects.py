"""Series.dtype, DataFrame.dtypes and Index.dtype are dtype names that also
answer numpy's ``kind``, ``itemsize``, ``name`` and ``type`` (Dask reads
them from a frame's meta); a categorical's is a pandas CategoricalDtype
with its categories and order (when pandas is installed).  The oracle is the pandas dtype each column
becomes in ``to_pandas()``: numpy's attributes of it, or those of pandas'
str / category dtypes (kind "O")."""

import pickle

import numpy as np
import pandas as pd

import zambezi as zb


def _frame():
    return pd.DataFrame({
        "b": [True, False], "i8": np.array([1, 2], dtype="int8"),
        "i16": np.array([1, 2], dtype="int16"), "i32": np.array([1, 2], dtype="int32"),
        "i64": [1, 2], "u8": np.array([1, 2], dtype="uint8"),
        "u32": np.array([1, 2], dtype="uint32"), "u64": np.array([1, 2], dtype="uint64"),
        "f32": np.array([0.5, 1.5], dtype="float32"), "f64": [0.5, 1.5],
        "s": pd.Series(["a", "b"], dtype="str"), "c": pd.Categorical(["x", "y"]),
        "t": pd.to_datetime(["2024-01-01", "2024-01-02"]),
        "tz": pd.to_datetime(["2024-01-01", "2024-01-02"]).tz_localize("UTC"),
        "d": pd.to_timedelta([1, 2], unit="s"),
    })


def test_dtype_attributes_match_the_pandas_dtypes():
    pdf = _frame()
    df = zb.from_pandas(pdf)
    back = df.to_pandas()
    for col, dt in df.dtypes.items():
        exp = back[col].dtype
        assert dt.kind == exp.kind, col
        if isinstance(exp, np.dtype):
            assert dt.itemsize == exp.itemsize, col
            assert dt.type is exp.type, col
        if col == "c":  # a categorical's is pandas' CategoricalDtype, categories and all
            assert isinstance(dt, pd.CategoricalDtype) and dt == exp and dt == "category"
            assert list(dt.categories) == list(exp.categories) and dt.ordered == exp.ordered
        else:
            assert isinstance(dt, str) and dt.name == str(dt), col
        assert df[col].dtype == dt and df[col].dtype.kind == dt.kind


def test_dtype_is_still_the_name():
    s = zb.Series([1, 2])
    assert s.dtype == "int64" and "int64" == s.dtype
    assert hash(s.dtype) == hash("int64")
    assert repr(s.dtype) == "'int64'" and f"{s.dtype}" == "int64"
    assert {"int64": 1}[s.dtype] == 1
    assert zb.Series([1.5]).astype(zb.Series([1]).dtype).dtype == "int64"
    assert pickle.loads(pickle.dumps(s.dtype)) == "int64"
    assert pickle.loads(pickle.dumps(s.dtype)).kind == "i"
    assert zb.Index(["a"]).dtype.kind == "O"
    assert zb.RangeIndex(3).dtype.kind == "i"
    assert zb.MultiIndex.from_arrays([[1], ["a"]]).dtype == "object"


def test_dtype_equals_numpy_scalar_and_python_types_as_pandas():
    # pandas code compares dtypes with types: s.dtype == np.float64, == float,
    # df.dtypes == np.int64; numpy's dtype equals its scalar type and int/float/bool
    pdf = pd.DataFrame({"a": [1], "b": [1.5], "d": [True], "s": ["x"],
                        "u": np.array([1], dtype=np.uint8),
                        "f": np.array([1], dtype=np.float32)})
    z = zb.from_pandas(pdf)
    for c in pdf.columns:
        for t in (int, float, bool, np.int64, np.float64, np.bool_, np.uint8, np.float32,
                  np.int32, str, object):
            assert (z[c].dtype == t) == (pdf[c].dtype == t), (c, t)
            assert (z[c].dtype != t) == (pdf[c].dtype != t), (c, t)
    assert (z.dtypes == np.int64).tolist() == (pdf.dtypes == np.int64).tolist()
    assert {k for k, v in z.dtypes.items() if v == np.float64} == {"b"}
    d = z["a"].dtype
    assert d == "int64" and not (d != "int64") and {d: 1}["int64"] == 1


def test_categorical_dtype_is_pandas_categorical_dtype():
    # a categorical's dtype is a pandas CategoricalDtype with the column's
    # categories and order (Dask picks its value_counts plan by isinstance;
    # pandas' astype keeps categories and order from it), and .values a
    # pandas Categorical, as pandas gives them
    p = pd.Series(pd.Categorical(["b", None, "a", "b"], categories=["b", "a", "c"],
                                 ordered=True))
    s = zb.Series(p)
    d = s.dtype
    assert isinstance(d, pd.CategoricalDtype) and d == p.dtype and d == "category"
    assert list(d.categories) == ["b", "a", "c"] and d.ordered
    assert d.kind == "O" and d.name == "category" and str(d) == "category"
    back = pd.Series(["a", "c"]).astype(d)
    assert back.dtype == p.dtype and back.dtype.ordered
    v = s.values
    assert isinstance(v, pd.Categorical) and v.dtype == p.dtype
    assert list(v.codes) == list(p.values.codes)
    assert zb.Series(["a", "z"], dtype=d).to_list() == ["a", None]  # pandas: z not a category
    assert zb.Series(["a"]).astype(d).dtype.categories.tolist() == ["b", "a", "c"]
    assert pickle.loads(pickle.dumps(d)) == p.dtype
    df = zb.DataFrame({"c": s, "i": [1, 2, 3, 4]})
    assert df.dtypes["c"] == p.dtype and df.set_index("c").index.dtype == p.dtype
    assert zb.Series([1, 2]).dtype == "int64" and not isinstance(zb.Series([1]).dtype,
                                                                 pd.CategoricalDtype)
