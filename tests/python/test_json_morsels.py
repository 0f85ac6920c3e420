"""JSON lines across many morsels and threads: DataFrame.to_json against
pandas' text byte for byte when the table spans several morsels (written
by several workers, each in its turn, to every kind of target), and
zb.read_json against pandas.read_json on inputs whose records change
shape between chunks (keys missing, reordered, added late)."""

import functools
import gzip
import io
import random
import threading

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

pytestmark = pytest.mark.filterwarnings("ignore:'epoch' date format is deprecated")

_TEXTS = ["", "a", "héllo", "naïve ✓", "emoji 😀 ok", 'quote " in', "back\\slash",
          "slash / x", "tab\tnew\nline\r", "ctl \x01\x1f", "\u2028sep", "日本語"]


@functools.lru_cache(maxsize=None)
def _frame(n, seed):
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    f = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 18, n)
    f[rng.random(n) < 0.05] = np.nan
    f[rng.random(n) < 0.01] = np.inf
    ts = rng.integers(-10**17, 10**17, n).astype("datetime64[ns]")
    return pd.DataFrame({
        "id": np.arange(n),
        "i": pd.array([None if r.random() < 0.1 else int(v)
                       for v in rng.integers(-10**15, 10**15, n)], dtype="Int64"),
        "f": f,
        "f32": (rng.standard_normal(n) * 1000).astype("float32"),
        "b": rng.random(n) < 0.5,
        "s": pd.array([None if r.random() < 0.1 else r.choice(_TEXTS) + str(k)
                       for k in range(n)], dtype="str"),
        "c": pd.Categorical([r.choice(["x", "ü/", None]) for _ in range(n)]),
        "t": pd.Series(ts).where(rng.random(n) < 0.9),
        "u8": rng.integers(0, 255, n).astype("uint8"),
    })


@pytest.fixture(params=[1, 2, 3])
def threads(request):
    old = zb.get_num_threads()
    zb.set_num_threads(request.param)
    yield request.param
    zb.set_num_threads(old)


@pytest.mark.parametrize("kw", [{}, {"lines": False}, {"force_ascii": False}])
def test_to_json_many_morsels_matches_pandas(tmp_path, threads, kw):
    # morsels of 16384 rows: 40,003 rows are two full ones and a partial one
    src = _frame(40_003, 1)
    lines = kw.get("lines", True)
    opts = {k: v for k, v in kw.items() if k != "lines"}
    exp = src.to_json(orient="records", lines=lines, date_format="epoch", **opts)
    df = zb.DataFrame(src)
    rec = dict(orient="records", lines=lines, **opts)
    assert df.to_json(**rec) == exp
    p = tmp_path / "o.json"
    df.to_json(p, **rec)
    assert p.read_text(encoding="utf-8") == exp
    buf = io.StringIO()
    df.to_json(buf, **rec)
    assert buf.getvalue() == exp
    if lines:
        g = tmp_path / "o.jsonl.gz"
        df.to_json(g, **rec)
        assert gzip.decompress(g.read_bytes()).decode() == exp


class _FailingOffMain(io.RawIOBase):
    """A binary file whose first write from a thread other than the main
    one raises OSError (the writer calls it from pool workers too)."""

    def __init__(self):
        self.data = []
        self.failed = False

    def writable(self):
        return True

    def write(self, b):
        if threading.current_thread() is not threading.main_thread():
            self.failed = True
            raise OSError(28, "No space left on device (test)")
        self.data.append(bytes(b))
        return len(b)


def test_to_json_write_error_on_a_worker_is_raised(threads):
    # the target's exception must reach the caller as itself (not as an
    # interrupt) when it is raised on a worker thread
    src = _frame(40_003, 1)
    exp = src.to_json(orient="records", lines=True, date_format="epoch")
    df = zb.DataFrame(src)
    for _ in range(10):
        f = _FailingOffMain()
        try:
            df.to_json(f, orient="records", lines=True)
        except OSError as e:
            assert "No space left on device" in str(e)
            assert f.failed
            text = b"".join(f.data).decode()
            assert text == exp[:len(text)]  # whole rows, in order, before the failure
            return
        assert threads == 1 or not f.failed
        assert b"".join(f.data).decode() == exp
        if threads == 1:
            return
    pytest.skip("no write ran on a worker thread (a busy machine)")
