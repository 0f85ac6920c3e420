"""Ctrl-C, the memory limit, and many Python threads (DESIGN.md §4, §5).

A SIGINT sent 0.1 s into a long operation must raise KeyboardInterrupt
within 0.2 s, free everything the operation made (the engine allocator's
counters return to where they were) and leave the inputs usable.  The
signal comes from a timer thread, as a terminal's Ctrl-C does; the test's
own handler (which the engine chains, as it chains Python's) records when
it ran.  The sizes make each operation take well over a second on a
two-core machine, so the signal lands inside it; an operation that still
finishes first fails the test rather than passing unseen.
"""

import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest
from conftest import alloc_bytes

import zambezi as zb
from zambezi import _core
from pandas_compare import assert_frame_like, assert_series_like

N = 4_000_000 * max(2, zb.get_num_threads())  # more cores: more rows, as long a run
LATENCY = 0.2


@pytest.fixture(scope="module")
def big():
    rng = np.random.default_rng(11)
    df = zb.DataFrame({"k": rng.integers(0, N // 3, N), "v": rng.random(N)})
    df["s"] = df["k"].astype("string")
    return df


@pytest.fixture(scope="module")
def big_csv(big, tmp_path_factory):
    path = tmp_path_factory.mktemp("csv") / "big.csv"
    big[["k", "s"]].to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def big_parquet(big, tmp_path_factory):
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("parquet") / "big.parquet"
    pq.write_table(big.to_arrow(), path, row_group_size=N // 16)
    return path


def interrupt(run, delay=0.1):
    """Run run() with a SIGINT sent delay seconds in; return the seconds
    from the signal to the KeyboardInterrupt reaching the caller."""
    sent = []

    def handler(signum, frame):
        raise KeyboardInterrupt

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    before = alloc_bytes()
    old = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(delay, fire)
    caught = None
    try:
        try:
            timer.start()
            run()
            timer.join()
            time.sleep(0.05)  # a late signal is handled here, not in pytest
        except KeyboardInterrupt:
            caught = time.perf_counter()
            timer.join()
    finally:
        timer.cancel()  # an operation that failed otherwise: no signal after this
        timer.join()
        time.sleep(0.01)
        signal.signal(signal.SIGINT, old)
    assert caught is not None and sent, "the operation finished before the signal"
    assert caught >= sent[0]
    assert alloc_bytes() == before, "the interrupted operation left engine memory behind"
    return caught - sent[0]


LONG_OPS = {
    "groupby": lambda d, p: d.groupby("k")["v"].sum(),
    "groupby several aggregations": lambda d, p: d.groupby("s").agg({"v": ["mean", "std"]}),
    "merge": lambda d, p: d.merge(d, on="k"),
    "sort": lambda d, p: d.sort_values(["s", "v"]),
    "drop_duplicates": lambda d, p: d.drop_duplicates(["s"]),
    "cast to string": lambda d, p: d["v"].astype("string"),
    "string kernel": lambda d, p: [d["s"].str.upper().str.len() for _ in range(20)],
    "string concatenation": lambda d, p: [d["s"].str.cat(d["s"], sep="-") for _ in range(20)],
    "concat": lambda d, p: zb.concat([d, d, d, d], ignore_index=True).sort_values("v"),
    "grouped cumsum": lambda d, p: d.groupby("s")["v"].cumsum(),
    "to_csv": lambda d, p: d.to_csv(p.parent / "out.csv", index=False),
    "to_parquet": lambda d, p: [d.to_parquet(p.parent / "out.parquet", compression=None)
                                for _ in range(10)],
    "to_feather": lambda d, p: [d.to_feather(p.parent / "out.feather", compression="zstd")
                                for _ in range(10)],
    "read_csv": lambda d, p: [zb.read_csv(p) for _ in range(10)],
    "rolling median": lambda d, p: d["v"].rolling(1000).median(),
    "rank": lambda d, p: d.groupby("s")["v"].rank(),
}


@pytest.mark.parametrize("name", list(LONG_OPS) + ["read_parquet", "read_feather"])
def test_ctrl_c_stops_a_long_operation(big, big_csv, big_parquet, name):
    if name == "read_parquet":
        latency = interrupt(lambda: [zb.read_parquet(big_parquet) for _ in range(20)])
    elif name == "read_feather":
        path = big_csv.parent / "big.feather"
        if not path.exists():
            big.to_feather(path, compression="zstd", chunksize=N // 16)
        latency = interrupt(lambda: [zb.read_feather(path) for _ in range(20)])
    else:
        latency = interrupt(lambda: LONG_OPS[name](big, big_csv))
    assert latency < LATENCY, f"{name}: KeyboardInterrupt came {latency:.3f} s after Ctrl-C"
    # the inputs are untouched and usable
    head = big.head(1000)
    assert_frame_like(head.groupby("k")["v"].sum().to_frame(),
                      head.to_pandas().groupby("k")["v"].sum().to_frame(), name)


def test_interrupted_to_parquet_leaves_no_file(big, big_csv):
    # a partial Parquet file has no footer: the writer removes it
    out = big_csv.parent / "interrupted.parquet"
    interrupt(lambda: [big.to_parquet(out, compression=None) for _ in range(10)])
    assert not out.exists()
    big.head(10).to_parquet(out)  # the path is writable again
    assert_frame_like(zb.read_parquet(out).to_pandas(), big.head(10).to_pandas(), "rewritten")


def test_ctrl_c_between_operations_does_not_cancel_the_next(big):
    # a SIGINT handled by Python code must not leave a cancel pending
    def handler(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
    finally:
        signal.signal(signal.SIGINT, old)
    small = big.head(100_000)
    assert_series_like(small.groupby("k")["v"].sum(),
                       small.to_pandas().groupby("k")["v"].sum(), "after a handled Ctrl-C")


# --------------------------------------------------------------------------
# the memory limit
# --------------------------------------------------------------------------

@pytest.fixture
def limit():
    saved = zb.get_memory_limit()
    yield
    zb.set_memory_limit(saved)


def test_memory_limit_refuses_big_operations_then_small_ones_run(limit):
    rng = np.random.default_rng(3)
    n = 1_000_000
    pdf = pd.DataFrame({"k": rng.integers(0, 1000, n), "v": rng.random(n)})
    df = zb.DataFrame(pdf)
    before = alloc_bytes()
    zb.set_memory_limit(before + (4 << 20))
    with pytest.raises(MemoryError) as e:
        df.merge(df, on="k")  # about 10^9 rows
    msg = str(e.value)
    assert msg.startswith("join") and "memory limit" in msg  # names the operation
    assert "asked for" in msg and "in use" in msg
    assert f"{before + (4 << 20)} allowed" in msg
    with pytest.raises(zb.OutOfMemoryError):
        zb.DataFrame({"k": rng.integers(0, 10 ** 9, n)}).groupby("k").size()
    assert alloc_bytes() == before
    small, psmall = df.head(1000), pdf.head(1000)
    assert_series_like(small.groupby("k")["v"].sum(), psmall.groupby("k")["v"].sum(),
                       "a small groupby under the limit")
    assert_frame_like(small.merge(small, on="k"), psmall.merge(psmall, on="k"),
                      "a small merge under the limit")


def test_memory_limit_forms(limit):
    assert zb.get_memory_limit() > 0  # on by default
    zb.set_memory_limit("512MB")
    assert zb.get_memory_limit() == 512 << 20
    zb.set_memory_limit(10 ** 9)
    assert zb.get_memory_limit() == 10 ** 9
    zb.set_memory_limit("50%")
    assert abs(zb.get_memory_limit() - _core.memory_total() // 2) <= 1
    zb.set_memory_limit(None)
    assert zb.get_memory_limit() == 0
    for bad in ("lots", "12XB", "150%"):
        with pytest.raises(zb.InvalidValueError, match="memory size"):
            zb.set_memory_limit(bad)
    with pytest.raises(zb.InvalidValueError):
        zb.set_memory_limit(-1)


def test_memory_limit_from_the_environment(tmp_path):
    import subprocess
    import sys

    code = "import zambezi as zb; print(zb.get_memory_limit())"
    env = dict(os.environ, ZAMBEZI_MEMORY_LIMIT="3GB")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert int(out.stdout) == 3 << 30


# --------------------------------------------------------------------------
# many Python threads on one frame
# --------------------------------------------------------------------------

def test_eight_threads_share_one_frame():
    rng = np.random.default_rng(5)
    n = 200_000
    pdf = pd.DataFrame({"k": rng.integers(0, 500, n), "v": rng.random(n),
                        "s": rng.choice(["a", "b", "c", None], n)})
    df = zb.DataFrame(pdf)
    jobs = [
        ("groupby", lambda d: d.groupby("k")["v"].sum(),
         lambda p: p.groupby("k")["v"].sum(), assert_series_like),
        ("merge", lambda d: d.head(2000).merge(d.head(3000), on="k"),
         lambda p: p.head(2000).merge(p.head(3000), on="k"), assert_frame_like),
        ("sort", lambda d: d.sort_values(["k", "v"]),
         lambda p: p.sort_values(["k", "v"], kind="stable"), assert_frame_like),
        ("filter", lambda d: d[d["v"] > 0.5], lambda p: p[p["v"] > 0.5], assert_frame_like),
        ("value_counts", lambda d: d["s"].value_counts(),
         lambda p: p["s"].value_counts(), assert_series_like),
    ]
    expected = {name: ref(pdf) for name, _, ref, _ in jobs}
    errors = []

    def work(t):
        try:
            for r in range(3):
                name, run, _, check = jobs[(t + r) % len(jobs)]
                check(run(df), expected[name], f"thread {t}: {name}")
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]
