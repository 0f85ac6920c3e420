"""ZAMBEZI_PANDAS_DEVICE: where the frames zambezi holds for the accelerator
live.  The choice is tested on stand-in device lists (this machine may have
no GPU); one accelerated run checks that the setting reaches install() and
that a frame above the threshold is sent to the stand-in GPU.
"""

import json

import pytest

import zambezi as zb
from zambezi.errors import DeviceError, InvalidValueError
from zambezi.pandas._devices import _Placement, choose

from test_accel import _run

CPU = {"kind": "cpu", "id": 0, "device": "cpu"}
GPU0 = {"kind": "cuda", "id": 0, "device": "cuda:0"}
GPU1 = {"kind": "cuda", "id": 1, "device": "cuda:1"}


@pytest.mark.parametrize("setting, nbytes, devices, expected", [
    (None, 10**9, [CPU], "cpu"),             # the default is auto: no GPU, the CPU
    ("auto", 10**9, [CPU], "cpu"),
    ("auto", 1000, [CPU, GPU0], "cuda:0"),    # at the threshold: the GPU
    ("auto", 999, [CPU, GPU0], "cpu"),        # below it: the CPU
    ("auto", 10**9, [CPU, GPU1, GPU0], "cuda:1"),   # the first GPU listed
    ("cuda", 1, [CPU, GPU0], "cuda:0"),       # cuda: whatever the size
    ("cpu", 10**9, [CPU, GPU0], "cpu"),
])
def test_choose(setting, nbytes, devices, expected):
    assert choose(setting, nbytes, devices, threshold=1000) == expected


def test_bad_settings():
    with pytest.raises(DeviceError, match="ZAMBEZI_PANDAS_DEVICE=cuda.*no GPU"):
        choose("cuda", 1, [CPU], threshold=0)
    with pytest.raises(DeviceError):
        _Placement().setup("cuda", [CPU])           # install() raises at once
    with pytest.raises(InvalidValueError, match="'gpu'"):
        choose("gpu", 1, [CPU], threshold=0)


class _Frame:
    """Stands for a zambezi frame: its size, where it is, and moves."""

    def __init__(self, nbytes, device="cpu"):
        self.nbytes, self.device, self.moves = nbytes, device, []

    def to(self, device):
        self.moves.append(device)
        return _Frame(self.nbytes, device)


def test_placement_moves_only_what_belongs_on_a_gpu():
    threshold = zb.get_auto_threshold()
    p = _Placement()
    p.setup("auto", [CPU, GPU0])
    big, small = _Frame(threshold), _Frame(threshold - 1)
    assert p.place(big).device == "cuda:0" and big.moves == ["cuda:0"]
    assert p.place(small) is small and small.moves == []
    on_gpu = _Frame(threshold, "cuda:0")
    assert p.place(on_gpu) is on_gpu              # already there: no copy
    it = iter([])                                   # a reader's chunk iterator
    assert p.place(it) is it
    # no GPU, or "cpu": nothing moves
    for setting, devices in (("auto", [CPU]), ("cpu", [CPU, GPU0])):
        p.setup(setting, devices)
        assert p.place(big) is big and big.moves == ["cuda:0"]
    # the real device list: active exactly when zambezi sees a GPU
    p.setup("auto", zb.devices())
    assert p.active == zb.cuda_available()


# One accelerated run with a stand-in GPU in zambezi.devices(): install()
# reads the setting; the large frame is sent to "cuda:0" (there is no such
# device here, so zambezi raises DeviceError and pandas serves the call, with
# that reason in the profile); the small one stays on the CPU and zambezi
# serves it.  With a real GPU the move succeeds, so this runs only without one.
SCRIPT = r'''
import sys
import zambezi as zb
real_devices = zb.devices
zb.devices = lambda: real_devices() + [{"kind": "cuda", "id": 0, "device": "cuda:0"}]
zb.set_auto_threshold(8 * 1000)
import zambezi.pandas as zp
zp.install()
import numpy as np
import pandas as pd
big = pd.Series(np.arange(1000.0))      # 8000 bytes: at the threshold
small = pd.Series(np.arange(999.0))     # 7992 bytes
print(big.sum(), small.sum())
print(json.dumps(zp.profile_report(as_dict=True)["functions"]["Series.sum"]))
'''.replace("import sys", "import sys, json")


@pytest.mark.skipif(zb.cuda_available(), reason="the stand-in GPU would be a real one")
def test_device_setting_reaches_the_accelerator(tmp_path):
    path = tmp_path / "dev.py"
    path.write_text(SCRIPT)
    out = _run([str(path)], {"ZAMBEZI_PANDAS_DEVICE": "auto",
                             "ZAMBEZI_PANDAS_MIN_ROWS": "0"}).stdout.splitlines()
    assert out[0] == "499500.0 498501.0"        # n(n-1)/2 for n = 1000 and 999
    prof = json.loads(out[1])
    assert prof["fast_calls"] == 1 and prof["slow_calls"] == 1
    [reason] = prof["fallback_reasons"]
    assert reason.startswith("DeviceError") and "cuda:0" in reason
    # ZAMBEZI_PANDAS_DEVICE=cuda with no GPU: install() says so
    p = _run(["-c", "import zambezi.pandas as zp; zp.install()"],
             {"ZAMBEZI_PANDAS_DEVICE": "cuda"}, check=False)
    assert p.returncode == 1 and "DeviceError" in p.stderr and "no GPU" in p.stderr
