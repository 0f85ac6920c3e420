"""Zero-copy interchange: DLPack, the CUDA Array Interface and the Arrow C
Device Data Interface, both ways.

On the CPU, against numpy and pyarrow as oracles:
  * numpy.from_dlpack of every numeric dtype gives the values, shares the
    column's memory (the same address as the zero-copy to_numpy view), is
    read-only, and keeps the column's buffer alive after the Series is gone;
    slices start at their offset; bools come as a copy (refused with
    copy=False); nulls, strings and dates are refused with BufferError;
  * the legacy (unversioned) capsule round-trips, and an unconsumed capsule
    frees what it holds;
  * __cuda_array_interface__ does not exist on a CPU column;
  * pyarrow imports __arrow_c_device_array__ of every dtype (nulls,
    slices, strings, categoricals, timestamps) as a CPU device array equal
    to to_arrow();
  * zb.Series / zb.DataFrame of a DLPack producer share its memory (a write
    through the producer shows in the column), keep it alive, and copy only
    what cannot be shared (bools, a misaligned view); bad shapes, strides
    and dtypes are clear errors that leave the producer's memory alone;
  * the engine's allocator is back where it started once all is dropped.

On a GPU (skipped without one; CuPy where noted): CuPy reads a GPU column
through both protocols without a copy and zambezi reads CuPy arrays without
one; the Arrow device export names the CUDA device; a GPU out-of-memory
raises MemoryError naming the bytes and leaves the data usable; host<->GPU
copies around the staging chunk sizes are exact; the pool's counters add up.
"""

import ctypes
import gc
import sys
import weakref

import numpy as np
import pyarrow as pa
import pytest
from conftest import alloc_bytes

import zambezi as zb


NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"]


def _values(dtype, n=1000, seed=3):
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        return (rng.standard_normal(n) * 1e3).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


class Producer:
    """A DLPack producer that is not a numpy array (numpy arrays take
    zambezi's own numpy path), delegating to one."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, **kwargs):
        return self.arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


# --------------------------------------------------------------------------
# DLPack export
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC)
def test_numpy_reads_every_numeric_dtype_without_a_copy(dtype):
    values = _values(dtype)
    s = zb.Series(values, name="v")
    arr = np.from_dlpack(s)
    assert arr.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(arr, values)
    assert not arr.flags.writeable
    view = s.to_numpy()  # the zero-copy view of the same buffer
    assert arr.ctypes.data == view.ctypes.data
    part = np.from_dlpack(s[17:400])
    np.testing.assert_array_equal(part, values[17:400])
    assert part.ctypes.data == view.ctypes.data + 17 * values.itemsize
    assert s.__dlpack_device__() == (1, 0)


def test_the_export_keeps_the_column_alive():
    base = alloc_bytes()
    s = zb.Series(np.arange(100_000, dtype=np.int64))
    arr = np.from_dlpack(s)
    del s
    assert alloc_bytes() > base  # the buffer is held for numpy
    np.testing.assert_array_equal(arr, np.arange(100_000))
    del arr
    assert alloc_bytes() == base


def test_bools_are_exported_as_a_copy():
    values = np.random.default_rng(1).random(1001) < 0.5
    s = zb.Series(values)
    arr = np.from_dlpack(s)
    assert arr.dtype == np.bool_
    np.testing.assert_array_equal(arr, values)
    np.testing.assert_array_equal(np.from_dlpack(s[5:77]), values[5:77])
    with pytest.raises(BufferError, match="copy"):
        s.__dlpack__(max_version=(1, 0), copy=False)


def test_a_slice_exports_its_first_element_as_data():
    """The DLPack data pointer is the slice's first element and byte_offset
    is 0 (consumers such as PyTorch ignore byte_offset)."""
    import ctypes

    s = zb.Series(np.arange(100, dtype=np.int64))[5:]
    cap = s.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    name = b"dltensor_versioned" if b"versioned" in repr(cap).encode() else b"dltensor"
    ptr = get(cap, name)
    # DLManagedTensorVersioned starts with version (2 x uint32) and manager_ctx,
    # deleter, flags (3 pointers / uint64) before the DLTensor; the legacy
    # DLManagedTensor starts with the DLTensor
    tensor = ptr + (8 + 3 * 8 if name == b"dltensor_versioned" else 0)
    data = ctypes.c_void_p.from_address(tensor).value
    # DLTensor: data, device (2 x int32), ndim (int32), dtype (4 bytes),
    # shape, strides, byte_offset
    byte_offset = ctypes.c_uint64.from_address(tensor + 8 + 8 + 4 + 4 + 8 + 8).value
    assert byte_offset == 0
    assert ctypes.c_int64.from_address(data).value == 5
    np.testing.assert_array_equal(np.from_dlpack(s), np.arange(5, 100))
    torch = pytest.importorskip("torch")
    assert torch.from_dlpack(s).tolist() == list(range(5, 100))


def test_copy_true_gives_a_copy():
    s = zb.Series(np.arange(50, dtype=np.int32))
    shared = np.from_dlpack(s)
    copied = np.from_dlpack(s, copy=True)
    np.testing.assert_array_equal(copied, shared)
    assert copied.ctypes.data != shared.ctypes.data
    assert copied.flags.writeable  # a copy is the consumer's own


@pytest.mark.parametrize("data, match", [
    ([1, None, 3], "null"),
    (["a", "b"], "string"),
    (np.array(["2024-01-01"], dtype="datetime64[us]"), "timestamp"),
])
def test_what_dlpack_cannot_carry_is_refused(data, match):
    s = zb.Series(data)
    with pytest.raises(BufferError, match=match):
        np.from_dlpack(s)
    with pytest.raises(BufferError):
        s.__dlpack__()


def test_legacy_capsules_round_trip_and_unused_ones_free_their_column():
    base = alloc_bytes()
    s = zb.Series(np.arange(10, dtype=np.uint16))
    cap = s.__dlpack__()  # no max_version: DLPack 0.x
    assert "dltensor" in repr(cap) and "versioned" not in repr(cap)
    col = zb._core.column_from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    assert col.dtype == "uint16" and col.to_pylist() == list(range(10))
    with pytest.raises(TypeError):
        zb._core.column_from_dlpack(cap)  # consumed
    unused = s.__dlpack__(max_version=(1, 0))
    del s, col, cap, unused
    assert alloc_bytes() == base


def test_cpu_columns_have_no_cuda_array_interface():
    s = zb.Series([1.0, 2.0])
    assert not hasattr(s, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="GPU"):
        s.__cuda_array_interface__


def test_dlpack_to_a_missing_gpu_is_a_clear_error():
    if zb.cuda_available():
        pytest.skip("a GPU is present")
    s = zb.Series([1, 2])
    for copy in (None, True, False):
        with pytest.raises(zb.errors.DeviceError, match="no GPU"):
            s.__dlpack__(dl_device=(2, 0), copy=copy)


# --------------------------------------------------------------------------
# Arrow C Device Data Interface
# --------------------------------------------------------------------------


@pytest.mark.parametrize("data", [
    [1, None, 3, 4],
    [0.5, None, float("nan")],
    [True, None, False],
    ["a", None, "ccc", ""],
    pytest.param(None, id="categorical"),
    pytest.param("ts", id="timestamp"),
])
def test_pyarrow_imports_the_device_array(data):
    import pandas as pd

    if data is None:
        s = zb.Series(pd.Series(["x", "y", None, "x"], dtype="category"))
    elif data == "ts":
        s = zb.Series(pd.Series(pd.to_datetime(["2024-01-01", None, "2024-03-01"]))
                      .dt.tz_localize("UTC"))
    else:
        s = zb.Series(data, name="c")
    for part in (s, s[1:]):
        schema, array = part.__arrow_c_device_array__()
        got = pa.Array._import_from_c_device_capsule(schema, array)
        assert got.device_type == pa.DeviceAllocationType.CPU
        assert got.equals(part.to_arrow())


def test_device_array_keywords():
    s = zb.Series([1, 2])
    s.__arrow_c_device_array__(None, future_option=None)  # None: ignored
    with pytest.raises(NotImplementedError):
        s.__arrow_c_device_array__(None, future_option=1)


# --------------------------------------------------------------------------
# import: DLPack producers
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC)
def test_series_of_a_dlpack_producer_shares_its_memory(dtype):
    values = _values(dtype, 257)
    arr = values.copy()
    s = zb.Series(Producer(arr))
    assert s.dtype == dtype
    np.testing.assert_array_equal(s.to_numpy(), values)
    arr[3] = arr[0]  # the column sees writes through the producer
    assert s[3] == arr[0]
    assert s.to_numpy().ctypes.data == arr.ctypes.data


def test_the_import_keeps_the_producer_alive_and_lets_go():
    base = alloc_bytes()
    arr = np.arange(1000, dtype=np.float64)
    alive = weakref.ref(arr)
    df = zb.DataFrame({"a": Producer(arr), "b": np.ones(1000)})
    del arr
    gc.collect()
    assert alive() is not None  # held by the column
    assert df["a"].sum() == sum(range(1000))
    del df
    gc.collect()
    assert alive() is None
    assert alloc_bytes() == base


def test_import_copies_what_it_cannot_share():
    flags = np.array([True, False, True, True])
    s = zb.Series(Producer(flags))
    assert s.dtype == "bool" and s.to_list() == [True, False, True, True]
    raw = np.zeros(8 * 5 + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, dtype=np.int64, offset=1, count=5)
    raw[1:] = np.arange(5, dtype=np.int64).view(np.uint8)
    t = zb.Series(Producer(misaligned))
    assert t.to_list() == [0, 1, 2, 3, 4]
    assert zb.Series(Producer(np.array([], dtype=np.int32))).dtype == "int32"


@pytest.mark.parametrize("arr, exc", [
    (np.arange(6).reshape(2, 3), zb.errors.InvalidValueError),
    (np.arange(6)[::2], NotImplementedError),
    (np.arange(6, dtype=np.float16), NotImplementedError),
    (np.arange(3, dtype=np.complex64), NotImplementedError),
])
def test_bad_producers_are_clear_errors_and_keep_their_memory(arr, exc):
    base = alloc_bytes()
    before = sys.getrefcount(arr)
    with pytest.raises(exc):
        zb.Series(Producer(arr))
    gc.collect()
    assert sys.getrefcount(arr) == before
    assert alloc_bytes() == base


def test_memory_pool_functions_without_a_gpu_are_clear_errors():
    with pytest.raises(zb.errors.InvalidValueError, match="not a GPU"):
        zb.cuda_memory_info("cpu")
    if zb.cuda_available():
        pytest.skip("a GPU is present")
    for fn in (zb.cuda_memory_info, zb.cuda_release_cached_memory):
        with pytest.raises(zb.errors.DeviceError, match="no GPU"):
            fn()


def test_cuda_array_interface_import_without_a_gpu_is_a_clear_error():
    if zb.cuda_available():
        pytest.skip("a GPU is present")

    class FakeDevice:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<i8", "data": (4096, False),
                                    "version": 3}

    obj = FakeDevice()
    before = sys.getrefcount(obj)
    with pytest.raises(zb.errors.DeviceError, match="CUDA"):
        zb.Series(obj)
    assert sys.getrefcount(obj) == before


# --------------------------------------------------------------------------
# on a GPU
# --------------------------------------------------------------------------



def _device_array_fields(capsule):
    """(device_type, device_id, buffers[1]) of an "arrow_device_array" capsule."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    p = get(capsule, b"arrow_device_array")
    # struct ArrowArray is 10 pointer-sized fields; then device_id, device_type
    words = (ctypes.c_int64 * 12).from_address(p)
    buffers = ctypes.cast(ctypes.c_void_p(words[5]), ctypes.POINTER(ctypes.c_void_p))
    return int(words[11] & 0xFFFFFFFF), int(words[10]), buffers[1]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", NUMERIC)
def test_gpu_columns_go_to_cupy_without_a_copy(dtype):
    cp = pytest.importorskip("cupy")
    values = _values(dtype, 100_003)
    g = zb.Series(values).to("cuda")
    cai = g.__cuda_array_interface__
    assert cai["shape"] == (100_003,) and cai["version"] == 3
    via_cai = cp.asarray(g)
    assert via_cai.data.ptr == cai["data"][0]
    np.testing.assert_array_equal(cp.asnumpy(via_cai), values)
    via_dlpack = cp.from_dlpack(g)
    assert via_dlpack.data.ptr == cai["data"][0]
    part = g[5:1000]
    assert part.__cuda_array_interface__["data"][0] == cai["data"][0] + 5 * values.itemsize
    np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(part)), values[5:1000])
    assert g.__dlpack_device__() == (2, 0)
    on_host = np.from_dlpack(g, device="cpu")  # asks for dl_device=(kDLCPU, 0): a copy
    np.testing.assert_array_equal(on_host, values)


@pytest.mark.gpu
@pytest.mark.parametrize("protocol", ["dlpack", "cai"])
def test_exported_gpu_memory_waits_for_the_consumers_stream(protocol):
    """A consumer that drops an export while its own non-blocking stream
    still reads it: zambezi waits before the memory goes back to its pool,
    so new zambezi columns cannot overwrite what the queued work reads."""
    cp = pytest.importorskip("cupy")
    n = 1 << 24
    stream = cp.cuda.Stream(non_blocking=True)
    for _ in range(3):
        g = zb.Series(np.arange(n, dtype=np.int64)).to("cuda")
        with stream:
            arr = cp.from_dlpack(g) if protocol == "dlpack" else cp.asarray(g)
            for _ in range(20):  # long enough to still run after the del below
                total = (arr * 2).sum()
        del arr, g
        junk = [zb.Series(np.full(n, -1, dtype=np.int64)).to("cuda") for _ in range(2)]
        stream.synchronize()
        assert int(total) == n * (n - 1)
        del junk


@pytest.mark.gpu
def test_gpu_exports_refuse_what_they_cannot_carry():
    g = zb.Series([1, None, 3]).to("cuda")
    with pytest.raises(BufferError, match="null"):
        g.__cuda_array_interface__
    with pytest.raises(BufferError, match="null"):
        g.__dlpack__()
    b = zb.Series([True, False]).to("cuda")
    with pytest.raises(BufferError, match="bool"):
        b.__cuda_array_interface__


class CAIOnly:
    """Exposes only the CUDA Array Interface of the array it holds."""

    def __init__(self, arr):
        self.arr = arr

    @property
    def __cuda_array_interface__(self):
        return self.arr.__cuda_array_interface__


@pytest.mark.gpu
@pytest.mark.parametrize("protocol", ["dlpack", "cai"])
def test_cupy_arrays_become_columns_without_a_copy(protocol):
    cp = pytest.importorskip("cupy")
    pool = cp.get_default_memory_pool()
    n = 1_000_001
    before = zb._core.alloc_stats()["device_bytes"]
    x = cp.arange(n, dtype=cp.float64)
    used = pool.used_bytes()
    s = zb.Series(x if protocol == "dlpack" else CAIOnly(x))
    assert s.device == "cuda:0" and s.dtype == "float64" and len(s) == n
    assert zb._core.alloc_stats()["device_bytes"] == before  # nothing new allocated
    assert s.sum() == float(n * (n - 1) // 2)
    x[0] = 123.0  # the column sees writes through CuPy: the memory is shared
    assert s[0] == 123.0
    del x
    gc.collect()
    assert pool.used_bytes() == used  # still held for the column
    reuse = cp.zeros(n, dtype=cp.float64)  # would take the memory were it free
    assert s.sum() == float(n * (n - 1) // 2) + 123.0
    del reuse, s
    gc.collect()
    assert pool.used_bytes() <= used - 8 * n  # let go with the column


@pytest.mark.gpu
def test_arrow_device_array_of_a_gpu_column_names_the_device():
    g = zb.Series(np.arange(1000, dtype=np.int64)).to("cuda")
    schema, array = g.__arrow_c_device_array__()
    device_type, device_id, data = _device_array_fields(array)
    assert (device_type, device_id) == (2, 0)  # ARROW_DEVICE_CUDA, cuda:0
    assert data == g.__cuda_array_interface__["data"][0]


@pytest.mark.gpu
@pytest.mark.parametrize("nbytes", [(4 << 20) - 1, 4 << 20, (4 << 20) + 1, (17 << 20) + 3,
                                    (64 << 20) + 5, (100 << 20) + 7])
def test_host_gpu_copies_around_the_staging_sizes_are_exact(nbytes):
    values = np.random.default_rng(nbytes).integers(0, 256, nbytes, dtype=np.uint8)
    s = zb.Series(values)
    back = s.to("cuda").to("cpu").to_numpy()
    np.testing.assert_array_equal(back, values)
    part = s[3:].to("cuda")[1:].to("cpu").to_numpy()
    np.testing.assert_array_equal(part, values[4:])


@pytest.mark.gpu
def test_gpu_out_of_memory_is_a_memory_error_and_leaves_the_data_usable():
    keep = zb.Series(np.arange(1000, dtype=np.int64)).to("cuda")
    block = zb.Series(np.ones(1 << 29, dtype=np.int64))  # 4 GiB on the host
    total = zb.cuda_memory_info()["total"]
    held = []
    with pytest.raises(MemoryError) as info:
        for _ in range(total // (4 << 30) + 2):
            held.append(block.to("cuda"))
    message = str(info.value)
    assert "bytes requested" in message and "free" in message
    assert isinstance(info.value, zb.errors.OutOfMemoryError)
    assert keep.sum() == sum(range(1000))
    held.clear()
    again = block[: 1 << 20].to("cuda")
    assert again.sum() == 1 << 20
    zb.cuda_release_cached_memory()
    after = zb.cuda_memory_info()
    assert after["pool_reserved"] < 1 << 30


@pytest.mark.gpu
def test_pool_counters_add_up():
    zb.cuda_release_cached_memory()
    info = zb.cuda_memory_info()
    assert info["pool_enabled"] and info["total"] > 0
    g = zb.Series(np.zeros(100 << 17, dtype=np.float64)).to("cuda")  # 100 MiB
    live = zb.cuda_memory_info()
    assert live["pool_used"] >= 100 << 20
    assert live["engine_bytes"] >= 100 << 20
    assert live["pool_used"] <= live["pool_reserved"] <= live["total"]
    del g
    gc.collect()
    zb.cuda_release_cached_memory()  # waits for the device, so the free has run
    assert zb.cuda_memory_info()["pool_used"] <= live["pool_used"] - (100 << 20)
