"""The command line: ``python -m zambezi demo`` and ``doctor``."""
import io
import subprocess
import sys

import pytest

import zambezi as zb
from zambezi.demo import run_demo
from zambezi.doctor import run_doctor


def test_demo_small_all_engines_agree(tmp_path):
    out = io.StringIO()
    png = tmp_path / "demo.png"
    assert run_demo(rows=30_000, seed=7, out=out, chart=str(png)) == 0
    text = out.getvalue()
    assert "The GIL" in text and "pure Python loop" in text and "GIL released" in text
    pytest.importorskip("matplotlib")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"chart saved to {png}" in text
    assert "All engines gave the same answer" in text
    assert "plain Python agrees with zambezi" in text
    assert "ANSWERS DIFFER" not in text
    for label in ("plain Python (30,000-row subset)", "pandas", "zambezi, 1 CPU thread",
                  f"zambezi, {zb.get_num_threads()} CPU threads"):
        assert label in text, label
    if zb._core.cuda_device_count() == 0:
        assert "no GPU" in text
    # the thread setting is restored
    assert zb.get_num_threads() >= 1


def test_demo_module_entry_point():
    r = subprocess.run([sys.executable, "-m", "zambezi", "demo", "--rows", "5000", "--chart", ""],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "rows/s" in r.stdout


def test_doctor_lines():
    out = io.StringIO()
    assert run_doctor(out=out) == 0
    text = out.getvalue()
    for key in ("Python:", "GIL:", "CPU:", "cores:", "SIMD:", "memory:", "zambezi:", "build:"):
        assert key in text, key
    assert zb.__version__ in text
    if zb._core.cuda_device_count() == 0:
        assert "GPUs:            none -- " + zb._core.cuda_unavailable_reason() in text
    else:
        assert "GPU cuda:0" in text


def test_doctor_names_gpus_left_out(monkeypatch):
    # A machine whose CUDA device 1 is too old for the build: doctor names it
    # and why, and still lists the usable ones (here: whatever this machine has).
    reason = ("compute capability 6.1 is older than the architectures this build "
              "was compiled for (80;90)")
    monkeypatch.setattr(zb._core, "cuda_devices_left_out", lambda: [(1, reason)])
    out = io.StringIO()
    assert run_doctor(out=out) == 0
    assert f"GPU cuda:1 left out: {reason}" in out.getvalue()


def test_doctor_and_devices_agree_with_left_out():
    left = zb._core.cuda_devices_left_out()
    assert all(isinstance(o, int) and isinstance(w, str) and w for o, w in left)
    gpu_ids = [d["id"] for d in zb.devices() if d["kind"] == "cuda"]
    assert len(gpu_ids) == zb._core.cuda_device_count()
    assert not set(gpu_ids) & {o for o, _ in left}
    out = io.StringIO()
    run_doctor(out=out)
    for o, w in left:
        assert f"GPU cuda:{o} left out: {w}" in out.getvalue()


def test_unusable_cuda_ordinal_is_a_device_error():
    # cuda:N names CUDA device N; one past the last is refused by name.
    n = len(zb._core.cuda_devices_left_out()) + zb._core.cuda_device_count()
    df = zb.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(zb.DeviceError, match=f"cuda:{n}"):
        df.to(f"cuda:{n}")
