"""nbytes against pyarrow's count of the same buffers, and device="auto":
the GPU only when there is one and the data reaches the threshold."""
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import zambezi as zb
from zambezi.errors import InvalidValueError


@pytest.mark.parametrize("arr", [
    pa.array(np.arange(1000, dtype="int64")),
    pa.array([1.5, None, 3.0] * 100, type=pa.float64()),
    pa.array([True, False, None] * 77),
    pa.array(np.arange(100, dtype="int32")).slice(7, 50),
])
def test_nbytes_matches_pyarrow(arr):
    s = zb.Series(arr)
    assert s.nbytes == arr.nbytes


def test_nbytes_strings():
    # n + 1 int64 offsets (pyarrow counts n), the rows' bytes, the bitmap
    vals = ["ab", "", None, "cdé"] * 50
    assert zb.Series(vals).nbytes == 201 * 8 + 50 * (2 + 4) + 25
    arr = pa.array(["x" * k for k in range(60)], type=pa.large_string()).slice(10, 20)
    assert zb.Series(arr).nbytes == 21 * 8 + sum(range(10, 30))


def test_nbytes_categorical_and_frame():
    p = pd.Series(pd.Categorical(["a", "bb", "a", None]))
    s = zb.Series(p)
    # int32 codes + validity byte + dictionary of two strings (3 offsets, 3 bytes)
    assert s.nbytes == 4 * 4 + 1 + (3 * 8 + 3)
    df = zb.DataFrame({"c": s, "i": zb.Series(np.arange(4))})
    assert df.nbytes == s.nbytes + 32


def test_auto_follows_threshold_and_gpu(monkeypatch):
    df = zb.DataFrame({"a": np.arange(1000)})  # 8000 bytes
    gpu = "cuda:0" if zb.cuda_available() else "cpu"
    old = zb.set_auto_threshold(8000)
    try:
        assert df.to("auto").device == gpu           # at the threshold
        assert df["a"].to("auto").device == gpu
        zb.set_auto_threshold(8001)
        assert df.to("auto").device == "cpu"         # below it
        assert zb.set_auto_threshold(None) == 8001
        monkeypatch.setenv("ZAMBEZI_AUTO_GPU_BYTES", "1e3")
        assert zb.get_auto_threshold() == 1000
        assert df.to("auto").device == gpu
        monkeypatch.setenv("ZAMBEZI_AUTO_GPU_BYTES", "lots")
        with pytest.raises(InvalidValueError, match="ZAMBEZI_AUTO_GPU_BYTES"):
            df.to("auto")
        monkeypatch.delenv("ZAMBEZI_AUTO_GPU_BYTES")
        assert zb.get_auto_threshold() == zb._device.AUTO_DEFAULT_BYTES
    finally:
        zb.set_auto_threshold(old)
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(InvalidValueError):
            zb.set_auto_threshold(bad)


def test_read_csv_auto(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,x\n2,y\n")
    old = zb.set_auto_threshold(0)
    try:
        df = zb.read_csv(path, device="auto")
        assert df.device == ("cuda:0" if zb.cuda_available() else "cpu")
        assert df.to("cpu")["a"].to_list() == [1, 2]
    finally:
        zb.set_auto_threshold(old)
