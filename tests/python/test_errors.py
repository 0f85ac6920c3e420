"""Errors: every failure is a zambezi.errors exception that also subclasses
the built-in a user would catch, with a message naming the column, index or
device; allocation failures injected at every point of building and
exporting a frame raise OutOfMemoryError (or succeed) and leak nothing.
"""

import datetime as dt

import numpy as np
import pandas  # noqa: F401 -- loaded before any allocation is made to fail
import pyarrow as pa
import pytest
from conftest import alloc_bytes

import zambezi as zb
from zambezi import errors


def test_hierarchy():
    E = errors
    assert issubclass(E.InvalidValueError, (E.ZambeziError, ValueError))
    assert issubclass(E.ParseError, E.InvalidValueError)
    assert issubclass(E.DTypeError, TypeError)
    assert issubclass(E.OutOfMemoryError, MemoryError)
    assert issubclass(E.ZambeziIndexError, IndexError)
    assert issubclass(E.ColumnNotFoundError, KeyError)
    assert issubclass(E.UnsupportedError, NotImplementedError)
    assert issubclass(E.ZambeziIOError, OSError)
    assert issubclass(E.ZambeziOverflowError, OverflowError)
    for name in E.__all__:
        cls = getattr(E, name)
        assert issubclass(cls, E.ZambeziError) or issubclass(cls, Warning), name
    assert issubclass(E.ParserWarning, UserWarning)
    assert zb.ZambeziError is E.ZambeziError


def test_dict_lengths_must_match():
    with pytest.raises(ValueError, match="column 'b' has 2 values but column 'a' has 3"):
        zb.DataFrame({"a": [1, 2, 3], "b": ["x", "y"]})


@pytest.mark.parametrize("values,index,typename", [
    ([1, 2, "three"], 2, "str"),
    (["a", 1.5], 1, "float"),
    ([True, 1], 1, "int"),
    ([dt.date(2020, 1, 1), "x"], 1, "str"),
    ([None, 1, object()], 2, "object"),
    ([1, [2]], 1, "list"),
])
def test_mixed_types_name_column_and_index(values, index, typename):
    with pytest.raises(TypeError) as info:
        zb.DataFrame({"mixed": values})
    msg = str(info.value)
    assert "'mixed'" in msg and f"index {index}" in msg and typename in msg
    assert isinstance(info.value, errors.DTypeError)


def test_integer_overflow_names_column_and_index():
    with pytest.raises(OverflowError, match=r"column 'big'.*index 1"):
        zb.DataFrame({"big": [1, 2**64]})
    with pytest.raises(OverflowError, match=r"column 'mix'.*index 2"):
        zb.DataFrame({"mix": [2**63, None, -1]})
    with pytest.raises(OverflowError, match=r"column 'small'.*index 1.*int8"):
        zb.Series([1, 300], name="small", dtype="int8")
    with pytest.raises(ValueError, match="not a whole number"):
        zb.Series([1.5], dtype="int32")


def test_unknown_column_lists_columns():
    df = zb.DataFrame({"alpha": [1], "beta": [2]})
    with pytest.raises(KeyError) as info:
        df["gamma"]
    assert isinstance(info.value, errors.ColumnNotFoundError)
    assert "gamma" in str(info.value) and "['alpha', 'beta']" in str(info.value)
    with pytest.raises(KeyError, match="delta"):
        df[["alpha", "delta"]]
    with pytest.raises(KeyError, match="zeta"):
        df.rename(columns={"zeta": "z"}, errors="raise")
    # pandas' default (errors="ignore"): a key that is no column is ignored
    assert df.rename(columns={"zeta": "z"}).columns.to_list() == ["alpha", "beta"]


def test_bad_arguments():
    df = zb.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(NotImplementedError, match="MultiIndex"):
        zb.MultiIndex()
    with pytest.raises(TypeError):
        df[1.5]
    with pytest.raises(IndexError):
        df["a"][3]
    with pytest.raises(TypeError, match="unknown dtype"):
        zb.Series([1], dtype="int13")
    with pytest.raises(ValueError, match="reduction"):
        df["a"]._col.reduce("median")
    with pytest.raises(TypeError, match="float16|format"):
        zb._core.column_from_buffer(np.zeros(3, dtype=np.complex64))
    with pytest.raises(ValueError, match="mask has 2 values"):
        zb._core.column_from_buffer(np.zeros(3), mask=np.zeros(2, dtype=bool))
    with pytest.raises(ValueError, match="1-D"):
        zb._core.column_from_buffer(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="unknown device"):
        df.to("tpu")
    with pytest.raises(ValueError, match="has 1 rows but column .a. has 3"):
        zb._core.table_from_columns([df["a"]._col, zb.Series([1])._col], ["a", "b"])
    cats = zb._core.column_from_sequence(["x", "y"])
    with pytest.raises(ValueError, match=r"code 2 at index 1 is out of range"):
        zb._core.categorical_from_codes(np.array([0, 2], dtype=np.int32), cats, name="c")
    with pytest.raises(TypeError, match="string"):
        zb.Series(["x"])._col.values()


def test_to_cuda_without_gpu_is_a_device_error():
    if zb._core.cuda_device_count() > 0:
        pytest.skip("a GPU is present")
    df = zb.DataFrame({"a": [1, 2]})
    reason = zb._core.cuda_unavailable_reason()
    for device in ("cuda", "cuda:0", "gpu"):
        with pytest.raises(errors.DeviceError) as info:
            df.to(device)
        assert "no GPU is available" in str(info.value)
        assert reason in str(info.value)
    with pytest.raises(errors.DeviceError):
        df["a"].to("cuda")
    assert zb.devices()[0]["kind"] == "cpu" and len(zb.devices()) == 1


def test_module_information():
    info = zb._core.build_info()
    assert info["version"] == zb.__version__
    assert isinstance(info["cuda_compiled"], bool)
    cpu = zb.devices()[0]
    assert cpu["cores"] >= 1 and cpu["memory_total"] > 0
    assert zb._core.available_cores() >= 1
    with pytest.raises(ValueError):
        zb.set_num_threads(100_000)


def _build_and_export(pa):
    df = zb.DataFrame({
        "i": np.arange(50, dtype=np.int64),
        "s": [f"value {k}" if k % 3 else None for k in range(50)],
        "f": np.linspace(0, 1, 50),
    })
    t = pa.table(df)
    assert t.num_rows == 50
    back = zb.from_arrow(t)
    assert back["s"].to_list()[:3] == [None, "value 1", "value 2"]
    p = df[5:10].to_pandas()
    assert p["i"].tolist() == [5, 6, 7, 8, 9]


def test_fault_injection_from_python():
    _build_and_export(pa)  # warm up lazy imports outside the injection
    baseline = alloc_bytes()
    outcomes = {"ok": 0, "oom": 0}
    for n in range(1, 40):
        zb._core.alloc_fail_after(n)
        try:
            _build_and_export(pa)
            outcomes["ok"] += 1
        except MemoryError as e:
            # raised by zambezi, or by pyarrow when the failure happened
            # inside a stream callback it drove
            assert "memory" in str(e).lower() or isinstance(e, errors.OutOfMemoryError)
            outcomes["oom"] += 1
        finally:
            zb._core.alloc_fail_after(0)
        assert alloc_bytes() == baseline, f"leak after failing allocation {n}"
    assert outcomes["oom"] > 0, outcomes


def test_fault_injection_zambezi_errors_only():
    """Without third parties: each injected failure is an OutOfMemoryError."""
    def work():
        col = zb._core.column_from_sequence(["a", None, "ccc"] * 10, name="s")
        df = zb.DataFrame({"s": zb.Series._from_column(col, "s"),
                           "i": np.arange(30), "d": [dt.date(2000, 1, 1)] * 30})
        df.rename(columns={"i": "j"})[3:9][["j", "s"]]
        df.__arrow_c_stream__()
        df["s"].__arrow_c_array__()
        df["i"].to_numpy()
        cats = zb._core.column_from_sequence(["p", "q"])
        zb._core.categorical_from_codes(np.array([0, -1, 1]), cats).to_pylist()

    baseline = alloc_bytes()
    seen = ok = 0
    for n in range(1, 90):
        zb._core.alloc_fail_after(n)
        try:
            work()
            ok += 1
        except errors.OutOfMemoryError as e:
            assert "memory" in str(e)
            seen += 1
        finally:
            zb._core.alloc_fail_after(0)
        assert alloc_bytes() == baseline, f"leak after failing allocation {n}"
    assert seen > 0 and ok > 0  # every step failed once, and the whole run fits
