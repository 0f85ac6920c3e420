"""Shared pytest fixtures for the Python tests of zambezi.

The session-scoped, autouse ``engine_memory_returns_to_zero`` fixture checks
the engine's counting allocator once every test has run: after a garbage
collection no engine memory may remain allocated (host or GPU), so any
reference leak in the extension or the engine fails the run.  It checks only
when every test passed: pytest keeps a failure's traceback, whose frames
hold the columns the test made.  It runs after every module fixture's
finalizer, so a ``-k`` subset whose last test used a module-scoped frame
checks as cleanly as the whole file.  The per-test
``engine_defaults`` fixture restores the thread count and disables fault
injection, so one test's settings never leak into the next.  The
``threads`` fixture and the helpers below (seeds, random strings, memory
counters, running a script in a child process) are what several test files share.  Tests marked
``gpu`` are skipped, with the reason the engine gives, when it sees no
usable CUDA device.
"""

import gc
import os
import pathlib
import subprocess
import sys
import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


STAGE = str(pathlib.Path(zb.__file__).resolve().parents[1])


def run_python(args, env_extra=None, stdin=None, cwd=None, check=True):
    """Python run on args in a child process that imports this run's
    zambezi (and no ZAMBEZI_PANDAS_* settings but env_extra's); the
    completed process, AssertionError with its output when it fails and
    check is set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = STAGE + os.pathsep + env.get("PYTHONPATH", "")
    for k in list(env):
        if k.startswith("ZAMBEZI_PANDAS_"):
            del env[k]
    env.update(env_extra or {})
    p = subprocess.run([sys.executable] + list(args), capture_output=True, text=True,
                       env=env, input=stdin, cwd=cwd, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"{args} failed ({p.returncode}):\n{p.stdout[-3000:]}\n"
                             f"{p.stderr[-3000:]}")
    return p


def run_python_output(args, env_extra=None):
    """What run_python(args, env_extra) printed."""
    return run_python(args, env_extra).stdout


def same_under_accelerator(tmp_path, script):
    """What script prints, checked to be the same bytes under plain pandas
    and under ``python -m zambezi.pandas`` with every frame tried on
    zambezi (ZAMBEZI_PANDAS_MIN_ROWS=0)."""
    return profiled_under_accelerator(tmp_path, script)[0]


def profiled_under_accelerator(tmp_path, script):
    """(output, profile) of script, its output checked as in
    same_under_accelerator; profile: the accelerator's record per function
    (``--profile-json``'s "functions")."""
    import json

    path = tmp_path / "script.py"
    path.write_text(script)
    plain = run_python_output([str(path)])
    prof = tmp_path / "profile.json"
    accel = run_python_output(["-m", "zambezi.pandas", f"--profile-json={prof}", str(path)],
                              {"ZAMBEZI_PANDAS_MIN_ROWS": "0"})
    assert accel == plain
    return plain, json.loads(prof.read_text())["functions"]


def pytest_collection_modifyitems(config, items):
    if zb._core.cuda_device_count() > 0:
        return
    why = zb._core.cuda_unavailable_reason()
    skip = pytest.mark.skip(reason="no usable CUDA device" + (": " + why if why else ""))
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def engine_memory_returns_to_zero(request):
    yield
    if request.session.testsfailed:
        return  # a failed test's traceback keeps its frames' columns alive
    if os.environ.get("ZAMBEZI_TEST_NO_LEAK_CHECK") == "1":
        # scripts/gpu-check.sh's run under compute-sanitizer: there (and only
        # there, 2026-12-04, H200) engine memory was still held at the end
        # of tests that end at zero without it; the sanitizer's own report
        # is that step's verdict
        return
    # This runs in the last test's teardown, after every module fixture's
    # finalizer but before pytest lets go of that test's fixture values
    # (item.funcargs, dropped once its teardown is over): a module-scoped
    # frame the last test used would still look allocated.  Every other
    # fixture is finished by now, so those references can go.
    for item in request.session.items:
        if getattr(item, "funcargs", None):
            item.funcargs.clear()
    gc.collect()
    stats = zb._core.alloc_stats()
    assert stats["host_bytes"] == 0 and stats["host_allocations"] == 0, (
        f"engine host memory still allocated after the tests: {stats}")
    assert stats["device_bytes"] == 0, f"engine GPU memory still allocated: {stats}"


@pytest.fixture(autouse=True)
def engine_defaults():
    threads = zb.get_num_threads()
    yield
    zb._core.alloc_fail_after(0)
    zb.set_num_threads(threads)


@pytest.fixture(params=[1, 3], ids=["t1", "t3"])
def threads(request):
    """Run the test with 1 and with 3 engine threads (engine_defaults
    restores the count afterwards)."""
    zb.set_num_threads(request.param)
    return request.param


def seed_for(*parts):
    """A stable seed from a test's parameters (their text's CRC32)."""
    return zlib.crc32("/".join(map(str, parts)).encode()) & 0xFFFFFF


def rand_strings(n, seed, alphabet, max_len, null_frac=0.15):
    """n random strings, each 0 to max_len - 1 picks from alphabet (a list
    of str), about null_frac of them None."""
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, max_len, n)
    picks = rng.integers(0, len(alphabet), lens.sum())
    out, pos = [], 0
    nulls = rng.random(n) < null_frac
    for i in range(n):  # test data only; the library never loops like this
        k = lens[i]
        out.append(None if nulls[i] else "".join(alphabet[j] for j in picks[pos:pos + k]))
        pos += k
    return out


def missing_as_none(res):
    """A Series' values as a list, every missing value (None, NaN, NA) as
    None."""
    return [None if (v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA)
            else v for v in res.tolist()]


def alloc_bytes():
    """Host bytes the engine holds now, after a garbage collection."""
    gc.collect()
    return zb._core.alloc_stats()["host_bytes"]


def device_memory():
    """GPU bytes and allocations the engine holds now, after a garbage
    collection."""
    gc.collect()
    stats = zb._core.alloc_stats()
    return stats["device_bytes"], stats.get("device_allocations", 0)


def _back_to(memory, base):
    """Whether memory() is base again.  For the engine's host bytes the
    count is read first without a garbage collection: a full collection
    takes a second or more late in a session whose heap holds every
    imported library, and a fault loop would run hundreds of them."""
    if memory is alloc_bytes and zb._core.alloc_stats()["host_bytes"] == base:
        return True
    return memory() == base


def fail_allocations_in_turn(op, what, memory=alloc_bytes, limit=500):
    """Run op with its 1st, 2nd, 3rd ... engine allocation failing until it
    succeeds.  Each failure must be a MemoryError that leaves memory() as it
    was before.  At least one allocation must have been failed, and op must
    succeed within limit tries.  Returns (op's result, allocations failed)."""
    base = memory()
    k = 1
    while k < limit:
        zb._core.alloc_fail_after(k)
        failed = False
        try:
            got = op()
        except MemoryError:
            failed = True
        finally:
            zb._core.alloc_fail_after(0)
        if not failed:
            break
        # checked once the exception (whose frames hold op's locals) is gone
        assert _back_to(memory, base), f"{what}: leaked after failing allocation {k}"
        k += 1
    assert k > 1, f"{what}: no allocation could be failed"
    assert k < limit, f"{what}: still failing after {limit} allocations"
    return got, k - 1


def _arrow_bits(col):
    """A host pyarrow copy of engine column col that compares floats bit for
    bit (NaN, -0.0) and categoricals by their strings."""
    import pyarrow as pa

    arr = pa.array(col.to_device("cpu"))
    if pa.types.is_floating(arr.type):
        arr = arr.view(pa.int32() if arr.type == pa.float32() else pa.int64())
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(pa.large_string())
    return arr


def assert_same_on_gpu(got, want, what):
    """got (an engine column computed on the GPU) equals want (the CPU
    result): on cuda:0, same dtype, length, null count, and every valid
    value bit for bit."""
    assert str(got.device) == "cuda:0", f"{what}: result on {got.device}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.length == want.length, f"{what}: length {got.length} != {want.length}"
    assert got.null_count == want.null_count, (
        f"{what}: null count {got.null_count} != {want.null_count}")
    a, b = _arrow_bits(got), _arrow_bits(want)
    assert a.type == b.type, f"{what}: arrow type {a.type} != {b.type}"
    if not a.equals(b):
        bad = next(i for i in range(len(a)) if not a[i].equals(b[i]))
        raise AssertionError(f"{what}: row {bad}: GPU {a[bad]!r}, CPU {b[bad]!r}")
