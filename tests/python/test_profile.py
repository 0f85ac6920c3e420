"""zb.profile(): what ran where.

Checked on the CPU: every operation run inside the block is recorded with
its name, device, rows and a positive wall time, in the order it started,
nested operations after their parent with a greater depth; nothing run
before or after the block is recorded; profiles nest; an exception inside
the block still stops the profile; a profile sees only its own thread's
operations unless ``all_threads=True``, and concurrent per-thread profiles
do not see each other.  The oracle is the sequence of calls the test makes.

Checked on a GPU (skipped without one): operations on GPU data say where
they ran; those the CUDA backend lacks say "fell back" with the reason, and
every record's device agrees with its fallback flag.
"""

import re
import threading

import numpy as np
import pytest

import zambezi as zb


N = 200_000


@pytest.fixture
def frame():
    rng = np.random.default_rng(7)
    return zb.DataFrame({
        "k": rng.integers(0, 50, N),
        "x": rng.random(N),
        "s": np.array(["a", "b", "c", "d"], dtype=object)[rng.integers(0, 4, N)],
    })


def _top(p):
    return [r.op for r in p.records if r.depth == 0]


def test_operations_inside_are_recorded_with_device_rows_and_time(frame):
    x = frame["x"]
    with zb.profile() as p:
        y = x * 2.0
        mask = y > 1.0
        total = frame[mask]["x"].sum()
        order = frame.sort_values("x")
        g = frame.groupby("k").agg({"x": "sum"})
    assert total == pytest.approx(frame["x"].to_numpy()[frame["x"].to_numpy() > 0.5].sum())
    assert len(order) == N and len(g) == 50
    assert _top(p) == ["mul", "gt", "table_filter", "sum", "sort_values", "table_take",
                       "groupby"]
    by_op = {r.op: r for r in p.records if r.depth == 0}
    assert by_op["mul"].rows == N and by_op["groupby"].rows == N
    assert by_op["sum"].rows == int((y > 1.0).sum())  # the filtered column
    for r in p.records:
        assert r.device == "cpu" and r.data_device == "cpu"
        assert r.seconds > 0 and r.start >= 0
        assert not r.fallback and r.reason == ""
        assert r.thread == p.records[0].thread
    starts = [r.start for r in p.records]
    assert starts == sorted(starts)
    assert p.fallbacks == []
    assert p.total_seconds == pytest.approx(sum(r.seconds for r in p.records if r.depth == 0))


def test_nested_operations_follow_their_parent(frame):
    small = zb.DataFrame({"k": [3, 1, 2, 5], "v": [1.0, 2.0, 3.0, 4.0]})
    with zb.profile() as p:
        small.merge(small, on="k", sort=True)
    ops = [(r.op, r.depth) for r in p.records]
    # a sorted join orders its rows by the keys inside the join; then each
    # side's columns are taken (a host table's columns in one take)
    assert ops == [("join", 0), ("sort_indices", 1), ("take", 1), ("take", 1),
                   ("table_take", 0), ("table_take", 0)]
    with zb.profile() as t:
        frame.take([3, 1, 2])
    assert [(r.op, r.depth) for r in t.records] == [("table_take", 0)]
    parent, children = p.records[0], p.records[1:4]
    assert all(c.start >= parent.start for c in children)
    assert sum(c.seconds for c in children) <= parent.seconds


def test_nothing_outside_the_block_is_recorded(frame):
    x = frame["x"]
    x.sum()
    with zb.profile() as p:
        x.max()
    x.min()
    x.mean()
    assert [r.op for r in p.records] == ["max"]
    with zb.profile() as empty:
        pass
    assert empty.records == [] and empty.total_seconds == 0


def test_profiles_nest(frame):
    x = frame["x"]
    with zb.profile() as outer:
        x.sum()
        with zb.profile() as inner:
            x.max()
        x.mean()
    assert _top(inner) == ["max"]
    assert _top(outer) == ["sum", "max", "mean"]


def test_an_exception_inside_stops_the_profile(frame):
    x = frame["x"]
    p = zb.profile()
    with pytest.raises(ZeroDivisionError):
        with p:
            x.sum()
            1 / 0
    x.max()
    assert [r.op for r in p.records] == ["sum"]
    # an engine error inside is recorded too, and the profile still stops
    with pytest.raises(zb.errors.DTypeError):
        with zb.profile() as q:
            frame["s"].mean()  # strings have no mean (pandas raises TypeError)
    frame["k"].sum()
    assert len(q.records) <= 1
    with zb.profile() as again:
        x.sum()
    assert _top(again) == ["sum"]


def test_a_profile_cannot_be_entered_twice_at_once():
    p = zb.profile()
    with p:
        with pytest.raises(RuntimeError):
            p.__enter__()
    with p:  # once stopped it may record again
        zb.Series([1, 2]).sum()
    assert _top(p) == ["sum"]


def test_another_threads_operations_are_not_recorded_unless_asked(frame):
    x = frame["x"]
    go, done = threading.Event(), threading.Event()

    def other():
        go.wait()
        for _ in range(3):
            x.min()
        done.set()

    def run_other_inside(all_threads):
        go.clear()
        done.clear()
        t = threading.Thread(target=other)
        t.start()
        with zb.profile(all_threads=all_threads) as p:
            x.sum()
            go.set()  # the other thread works while this profile is active
            done.wait()
            x.sum()
        t.join()
        return p

    mine = run_other_inside(False)
    assert _top(mine) == ["sum", "sum"]
    everyone = run_other_inside(True)
    assert sorted(_top(everyone)) == ["min", "min", "min", "sum", "sum"]
    me = {r.thread for r in everyone.records if r.op == "sum"}
    them = {r.thread for r in everyone.records if r.op == "min"}
    assert len(me) == 1 and len(them) == 1 and me != them
    assert "thread" in str(everyone).splitlines()[0]


def test_concurrent_profiles_on_threads_see_only_their_own(frame):
    x = frame["x"]
    results, errors = {}, []
    barrier = threading.Barrier(4)

    def work(i):
        try:
            barrier.wait()
            with zb.profile() as p:
                for _ in range(i + 1):
                    x.sum()
                x.max()
            results[i] = p
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, p in results.items():
        assert _top(p) == ["sum"] * (i + 1) + ["max"]
        assert len({r.thread for r in p.records}) == 1


def test_records_as_dicts_pandas_and_text(frame):
    with zb.profile() as p:
        frame["x"].sum()
        frame["k"].nunique()
    dicts = p.to_dicts()
    assert [d["op"] for d in dicts] == ["sum", "nunique"]
    assert set(dicts[0]) == set(zb.ProfileRecord._fields)
    df = p.to_pandas()
    assert list(df.columns) == list(zb.ProfileRecord._fields)
    assert df["op"].tolist() == ["sum", "nunique"] and (df["rows"] == N).all()
    text = str(p)
    assert text == p.report()
    lines = text.splitlines()
    assert lines[0].split() == ["operation", "device", "rows", "time", "note"]
    assert re.match(r"sum\s+cpu\s+200,000\s+[0-9.]+ ms$", lines[1])
    assert lines[-1].startswith("2 operations (2 called directly) in ")
    assert "0 fell back to the CPU" in lines[-1]
    assert "2 operations" in repr(p)


def test_copies_between_devices_are_operations_of_their_own():
    # on the CPU a to("cpu") is no copy and records nothing
    s = zb.Series([1, 2, 3])
    with zb.profile() as p:
        s.to("cpu")
    assert p.records == []


# --------------------------------------------------------------------------
# on a GPU
# --------------------------------------------------------------------------



@pytest.mark.gpu
def test_gpu_operations_say_where_they_ran_and_why_they_fell_back(frame):
    g = frame.to("cuda")
    with zb.profile() as p:
        g["x"].sum()
        (g["x"] * 2.0).sum()
        g["k"].nunique()
        g["s"].str.upper()
        g.sort_values("x")
        g.groupby("k").agg({"x": "sum"})
        g.to("cpu")
    cuda = [r for r in p.records if r.data_device == "cuda:0"]
    assert cuda, "no record of an operation on GPU data"
    sums = [r for r in p.records if r.op == "sum"]
    assert sums and all(r.device == "cuda:0" and not r.fallback for r in sums)
    for r in p.records:
        if r.op == "to_device":
            assert not r.fallback and r.device != r.data_device
        elif r.fallback:
            assert r.device == "cpu" and r.data_device == "cuda:0"
            assert re.fullmatch(r"cuda backend (has no|declined) '\w+'( for these inputs)?",
                                r.reason), r.reason
        else:
            assert r.device == r.data_device and r.reason == ""
        assert r.seconds > 0
    text = str(p)
    for r in p.fallbacks:
        assert r.reason in text


def test_coverage_of_the_cpu_is_everything():
    rows = zb.coverage("cpu")
    ops = {r["op"] for r in rows}
    assert {"binary", "groupby", "join_indices", "str_cat", "hash_rows", "sort_values"} <= ops
    assert all(r["types"] == "*" and r["variants"] in ("*", "") for r in rows)
    with pytest.raises(ValueError, match="device must be"):
        zb.coverage("tpu")


def test_coverage_of_the_gpu_is_its_table():
    """The CUDA backend's table: what the GPU runs (as the GPU tests expect
    it, without a fallback) and what it leaves to the CPU (as they expect
    it, recorded as a fallback)."""
    if not zb._core.build_info()["cuda_compiled"]:
        with pytest.raises(zb.ZambeziError, match="no backend"):
            zb.coverage("cuda")
        return
    rows = zb.coverage("cuda")

    def covered(op, variant, typ):
        return any(r["op"] == op and (r["variants"] == "*" or variant in r["variants"])
                   and (r["types"] == "*" or typ in r["types"]) for r in rows)

    assert covered("binary", "add", "int8") and covered("binary", "eq", "string")
    assert not covered("binary", "add", "string")
    assert covered("join_indices", "outer", "string") and not covered("join_indices", "cross", "int64")
    assert covered("groupby_agg", "median", "float32")
    assert not covered("groupby_agg", "nunique", "string")
    assert not covered("groupby_agg", "max", "string")
    assert covered("stat", "prod", "bool") and not covered("stat", "argmin", "bool")
    assert not any(r["op"] in ("str_cat", "hash_rows", "sort_values") for r in rows)
