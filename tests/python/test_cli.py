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
