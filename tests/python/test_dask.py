"""zambezi as a Dask DataFrame backend (zambezi.dask), compared with
Dask-on-pandas on the same data with nulls.

The cluster (2 worker processes, 1 thread each) starts once for the module:
every query runs on it, with Dask's default p2p shuffle for the group-bys
with split_out, merges, sort_values and set_index.  A Dask result's row
order depends on the partitioning, not on pandas' rules: results are
compared with their rows sorted (any_order) unless the operation defines
the order (sort_values, a group-by's sorted keys).
"""

import gc
import pickle

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import zambezi as zb  # noqa: E402
import zambezi.dask as zdask  # noqa: E402
from zambezi.dask import _backends  # noqa: E402
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like  # noqa: E402

N = 400


def _data(seed=7, n=N):
    rng = np.random.default_rng(seed)
    miss = rng.random(n) < 0.1
    return pd.DataFrame({
        "k": rng.integers(0, 6, n),                                        # few groups
        "s": pd.array(np.where(rng.random(n) < 0.1, None,
                               rng.choice(["Maun", "Tete", "Lusaka", "Kariba"], n)),
                      dtype="str"),
        "u": pd.array([f"id{v}" for v in rng.integers(0, 150, n)], dtype="str"),  # many
        "x": np.where(miss, np.nan, rng.normal(size=n).round(3)),
        "i": pd.array(np.where(rng.random(n) < 0.1, None, rng.integers(-50, 50, n)),
                      dtype="Int64"),
    })


@pytest.fixture(scope="module")
def client():
    """Starts the cluster and makes its Client the default one (what
    compute() uses).  It yields None: pytest keeps a fixture's value until
    after conftest's engine-memory check, and the Client holds the last
    results it received; ``distributed.get_client()`` gives it to a test."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, worker_dashboard_address=None)
    c = distributed.Client(cluster)
    try:
        yield None
    finally:
        c.close()
        cluster.close()
        del c, cluster
        gc.collect()


def _frames():
    # a function, not a fixture: pytest keeps a fixture's value until after
    # the session's engine-memory check (conftest.py) has run
    pdf = _data()
    p = dd.from_pandas(pdf, npartitions=4)
    return pdf, p, p.to_backend("zambezi")


def _both(frames, f):
    _, p, z = frames
    got, exp = dask.compute(f(z), f(p))
    return got, exp


def _sorted_frame(df):
    return df.sort_index() if df.index.nlevels == 1 else df.sort_index(level=list(range(df.index.nlevels)))


# -- on the cluster ----------------------------------------------------------------------

def test_partitions_are_zambezi(client):
    frames = _frames()
    _, _, z = frames
    assert isinstance(z._meta, zb.DataFrame)
    parts = z.map_partitions(lambda part: type(part).__module__ + "." + type(part).__name__,
                             meta=("t", "object")).compute()
    assert set(parts.to_list()) == {"zambezi.frame.DataFrame"}


def test_elementwise_and_filters(client):
    frames = _frames()
    got, exp = _both(frames, lambda d: d.assign(y=d.x * 2 + d.i, big=d.x > 0.5)[
        (d.k != 3) & d.s.notnull()])
    assert isinstance(got, zb.DataFrame)
    assert_frame_like(got, exp, "assign + filter", **SUM_TOL)


def test_groupby_tree_reduction(client):
    frames = _frames()
    # few groups: one partial result per partition, combined in a tree
    got, exp = _both(frames, lambda d: d.groupby("k").agg(
        {"x": ["sum", "mean", "count", "min", "max"], "i": ["sum", "count", "min", "max"]},
        split_out=1))
    assert_frame_like(_sorted_frame(got.to_pandas()), _sorted_frame(exp), "groupby agg",
                      **SUM_TOL)
    got, exp = _both(frames, lambda d: d.groupby("s").x.mean())
    assert_series_like(got.to_pandas().sort_index(), exp.sort_index(), "groupby mean",
                       **SUM_TOL)


def test_groupby_shuffle(client):
    frames = _frames()
    # many groups, split_out > 1: the partial results are shuffled (p2p) by key
    got, exp = _both(frames, lambda d: d.groupby("u").agg({"x": "sum", "i": "max"},
                                                          split_out=3))
    assert_frame_like(got, exp, "groupby split_out=3", any_order=True, **SUM_TOL)
    got, exp = _both(frames, lambda d: d.groupby(["k", "s"]).x.count(split_out=2))
    assert_frame_like(got.to_frame(), exp.to_frame(), "groupby 2 keys", any_order=True)


@pytest.mark.parametrize("broadcast", [False, True])
def test_merge(client, broadcast):
    frames = _frames()
    pdf, p, z = frames
    right = pdf[["u", "x"]].drop_duplicates("u").rename(columns={"x": "w"})
    pr = dd.from_pandas(right, npartitions=3)
    zr = pr.to_backend("zambezi")
    got, exp = dask.compute(z.merge(zr, on="u", how="inner", broadcast=broadcast),
                            p.merge(pr, on="u", how="inner", broadcast=broadcast))
    exp = exp.reset_index(drop=True)
    assert_frame_like(got.to_pandas().reset_index(drop=True), exp, "merge", any_order=True)


def test_sort_values_and_set_index(client):
    frames = _frames()
    got, exp = _both(frames, lambda d: d.sort_values("x"))
    # x has ties (3 decimals) and NaN (last in both): the order of the x
    # values is defined, the order of rows with equal x is not
    g = got.to_pandas()
    np.testing.assert_array_equal(g.x.to_numpy(), exp.x.to_numpy())
    assert_frame_like(g, exp, "sort_values", any_order=True)
    got, exp = _both(frames, lambda d: d.set_index("u"))
    got = got.to_pandas()
    assert got.index.is_monotonic_increasing
    assert_frame_like(got, exp, "set_index", any_order=True)


def test_value_counts_drop_duplicates_nunique(client):
    frames = _frames()
    got, exp = _both(frames, lambda d: d.s.value_counts())
    # Dask-on-pandas counts strings through Arrow: int64[pyarrow] counts
    assert_series_like(got.to_pandas().sort_index(), exp.sort_index().astype("int64"),
                       "value_counts")
    got, exp = _both(frames, lambda d: d.drop_duplicates(subset=["k", "s"]))
    assert_frame_like(got, exp, "drop_duplicates", any_order=True)
    got, exp = _both(frames, lambda d: d.u.nunique())
    assert got == exp


def test_groupby_value_counts_and_numeric_only_checks(client):
    frames = _frames()
    # Dask's chunk step is GroupBy.value_counts per partition, its
    # aggregate sums the counts per (key, value); a partition may hold no
    # group at all (x > 2.3 leaves 2 of the 4 partitions empty)
    got, exp = _both(frames, lambda d: d.groupby("k").s.value_counts())
    assert_series_like(got.to_pandas().sort_index(), exp.sort_index().astype("int64"),
                       "groupby value_counts")
    assert 0 in frames[1][frames[1].x > 2.3].map_partitions(len).compute().to_list()
    got, exp = _both(frames, lambda d: d[d.x > 2.3].groupby(["k", "s"]).u.value_counts())
    assert_series_like(got.to_pandas().sort_index(), exp.sort_index().astype("int64"),
                       "groupby value_counts, partitions without groups")
    # a frame group-by's mean: Dask checks the meta's _get_numeric_data()
    # against the aggregated columns first
    got, exp = _both(frames, lambda d: d[["k", "x", "i"]].groupby("k").mean())
    assert_frame_like(_sorted_frame(got.to_pandas()), _sorted_frame(exp), "groupby mean",
                      **SUM_TOL)


def test_map_partitions(client):
    frames = _frames()
    got, exp = _both(frames, lambda d: d.map_partitions(lambda part: part.assign(z=part.x - 1)))
    assert_frame_like(got, exp, "map_partitions")


def test_to_backend_round_trip(client):
    frames = _frames()
    pdf, _, z = frames
    back = z.to_backend("pandas")
    assert isinstance(back._meta, pd.DataFrame)
    out = back.compute()
    assert isinstance(out, pd.DataFrame)
    assert_frame_like(out, pdf, "to_backend('pandas')")
    assert z.to_backend("zambezi") is not None and \
        isinstance(z.to_backend("zambezi")._meta, zb.DataFrame)


def test_from_dict_with_backend(client):
    pdf = _data(seed=3, n=60)
    with dask.config.set({"dataframe.backend": "zambezi"}):
        z = dd.from_dict({c: pdf[c] for c in pdf.columns}, npartitions=3)
    assert isinstance(z._meta, zb.DataFrame)
    assert_frame_like(z.compute(), pdf, "from_dict")


def test_read_csv(client, tmp_path):
    parts = [_data(seed=s, n=80) for s in range(3)]
    for j, part in enumerate(parts):
        part.to_csv(tmp_path / f"part{j}.csv", index=False)
    pattern = str(tmp_path / "part*.csv")
    with dask.config.set({"dataframe.backend": "zambezi"}):
        z = dd.read_csv(pattern, blocksize=1500)   # several blocks per file
    assert isinstance(z._meta, zb.DataFrame) and z.npartitions > 3
    exp = dd.read_csv(pattern, blocksize=1500, dtype={"i": "Int64"}).compute()
    got = z.compute().to_pandas()
    assert_frame_like(got.reset_index(drop=True), exp.reset_index(drop=True), "read_csv")
    sums = z.groupby("k").x.sum().compute().to_pandas().sort_index()
    assert_series_like(sums, exp.groupby("k").x.sum(), "read_csv groupby", **SUM_TOL)


def test_read_parquet(client, tmp_path):
    parts = [_data(seed=s, n=70) for s in range(3)]
    for j, part in enumerate(parts):
        part.to_parquet(tmp_path / f"part{j}.parquet")
    with dask.config.set({"dataframe.backend": "zambezi"}):
        z = dd.read_parquet(str(tmp_path))
    assert isinstance(z._meta, zb.DataFrame) and z.npartitions == 3
    exp = pd.concat(parts)  # each file keeps its own RangeIndex, as with pandas
    assert_frame_like(z.compute(), exp, "read_parquet")
    got = z[["k", "x"]].compute()   # the projection reaches the reader
    assert list(got.columns) == ["k", "x"]
    assert_frame_like(got, exp[["k", "x"]], "read_parquet columns")


def test_worker_threads(client):
    threads = zdask.set_worker_threads(distributed.get_client())
    assert list(threads.values()) == [1, 1]


# -- dispatches, no cluster --------------------------------------------------------------

def test_hash_object_equal_rows_equal_hashes():
    a = zb.DataFrame({"k": [1, 2, None, 1], "s": ["x", None, "y", "x"]})
    h = _backends._hash_object(a, index=False).to_numpy()
    assert h.dtype == np.uint64
    assert h[0] == h[3] and len(set(h[:3].tolist())) == 3
    # integer widths and categoricals hash as their values
    b = zb.DataFrame({"k": zb.Series([1, 2, None, 1]).astype("int32"),
                      "s": zb.Series(["x", None, "y", "x"]).astype("category")})
    assert (_backends._hash_object(b, index=False).to_numpy() == h).all()
    # index=True mixes the labels in
    c = a.set_index(zb.Index([5, 6, 7, 8]))
    hi = _backends._hash_object(c, index=True).to_numpy()
    assert hi[0] != hi[3]


def test_group_split_matches_pandas():
    pdf = _data(seed=11, n=90)
    ids = np.random.default_rng(2).integers(0, 5, len(pdf)).astype(np.int32)
    from dask.dataframe.dispatch import group_split_dispatch

    got = group_split_dispatch(zb.from_pandas(pdf), ids, 5)
    exp = group_split_dispatch(pdf, ids, 5)
    assert sorted(got) == sorted(exp) == list(range(5))
    for i in range(5):
        assert_frame_like(got[i], exp[i], f"part {i}")
    got = group_split_dispatch(zb.from_pandas(pdf), ids, 5, ignore_index=True)
    assert list(got[2].index) == list(range(len(exp[2])))


def test_meta_and_concat():
    from dask.dataframe.dispatch import concat, make_meta, meta_nonempty

    z = zb.from_pandas(_data(n=10))
    m = make_meta(z)
    assert isinstance(m, zb.DataFrame) and len(m) == 0 and m.dtypes.to_dict() == z.dtypes.to_dict()
    ne = meta_nonempty(m)
    assert isinstance(ne, zb.DataFrame) and len(ne) == 2 and ne.dtypes.to_dict() == z.dtypes.to_dict()
    out = concat([z.iloc[:4], z.iloc[4:]])
    assert_frame_like(out, z.to_pandas(), "concat")


def test_serialization_moves_buffers_out_of_band():
    from distributed.protocol import deserialize, serialize

    z = zb.DataFrame({"a": np.arange(100_000, dtype=np.int64), "s": ["x", None] * 50_000})
    header, frames = serialize(z)
    big = max(frames, key=lambda f: memoryview(f).nbytes)
    assert memoryview(big).nbytes >= 800_000      # the int64 values, out of band
    meta = min(frames, key=lambda f: memoryview(f).nbytes)
    assert memoryview(meta).nbytes < 10_000       # the pickle itself: metadata only
    back = deserialize(header, frames)
    assert_frame_like(back, z.to_pandas(), "round trip")
    # protocol 5 without dask: the same buffers
    bufs = []
    pickle.dumps(z, protocol=5, buffer_callback=bufs.append)
    assert sum(b.raw().nbytes for b in bufs) >= 800_000


def test_bad_group_split_ids():
    from zambezi.errors import InvalidValueError

    with pytest.raises(InvalidValueError, match="partition ids"):
        _backends._group_split(zb.DataFrame({"a": [1, 2]}), np.array([0, 7]), 3)


def test_entry_points_find_the_backend(tmp_path, monkeypatch):
    # what pip install writes for pyproject.toml's entry points: Dask must
    # load the backend from them by name, with nothing registered by hand
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    from dask.backends import detect_entrypoints
    from dask.dataframe.backends import dataframe_creation_dispatch as legacy
    from dask.dataframe.dask_expr._backends import dataframe_creation_dispatch

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    groups = project["project"]["entry-points"]
    info = tmp_path / "zambezi_entry_points-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zambezi-entry-points\n"
                                   "Version: 0\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
        for group, eps in groups.items()))
    monkeypatch.syspath_prepend(str(tmp_path))
    detect_entrypoints.cache_clear()
    try:
        for dispatch in (dataframe_creation_dispatch, legacy):
            monkeypatch.delitem(dispatch._lookup, "zambezi")
            assert dispatch.dispatch("zambezi") is zdask.backend_entrypoint()
    finally:
        detect_entrypoints.cache_clear()


# -- dd.from_pandas with the backend selected (sync scheduler, no cluster) -------------

@pytest.mark.parametrize("kw", [{"npartitions": 3}, {"chunksize": 70},
                                {"npartitions": 4, "sort": False}])
def test_from_pandas_with_backend(kw):
    pdf = _data(seed=5, n=200)
    pdf.index = np.random.default_rng(1).permutation(len(pdf)) * 3   # not sorted
    exp = dd.from_pandas(pdf, **kw)                # Dask-on-pandas: the oracle
    assert isinstance(exp._meta, pd.DataFrame)
    with dask.config.set({"dataframe.backend": "zambezi"}):
        z = dd.from_pandas(pdf, **kw)
        s = dd.from_pandas(pdf["x"], **kw)
    assert isinstance(z._meta, zb.DataFrame) and isinstance(s._meta, zb.Series)
    assert z.divisions == exp.divisions and z.npartitions == exp.npartitions
    got_parts = z.to_delayed()
    exp_parts = exp.to_delayed()
    for g, e in zip(got_parts, exp_parts):
        g, e = dask.compute(g, e, scheduler="sync")
        assert isinstance(g, zb.DataFrame)
        assert_frame_like(g, e, f"partition {kw}")
    assert_series_like(s.compute(scheduler="sync"), exp["x"].compute(scheduler="sync"),
                       f"series {kw}")
    got = z.groupby("k").x.sum().compute(scheduler="sync")
    assert_series_like(got, pdf.groupby("k").x.sum(), "groupby after from_pandas", **SUM_TOL)


def test_from_pandas_keeps_dask_behaviour():
    # the wrapper is Dask's function for other inputs and backends
    z = zb.from_pandas(_data(n=20))
    d = dd.from_pandas(z, npartitions=2)
    assert isinstance(d._meta, zb.DataFrame)
    assert isinstance(dd.from_pandas(_data(n=20), npartitions=2)._meta, pd.DataFrame)
    with dask.config.set({"dataframe.backend": "zambezi"}):
        with pytest.raises(TypeError, match="pandas DataFrame or Series"):
            dd.from_pandas([1, 2, 3], npartitions=1)
        with pytest.raises(ValueError, match="Exactly one of npartitions and chunksize"):
            dd.from_pandas(_data(n=20), npartitions=2, chunksize=5)


def test_from_dict_sync():
    pdf = _data(seed=8, n=50)
    data = {c: pdf[c] for c in pdf.columns}
    exp = dd.from_dict(data, npartitions=3)
    with dask.config.set({"dataframe.backend": "zambezi"}):
        z = dd.from_dict(data, npartitions=3)
        zi = dd.from_dict({"r1": {"a": 1, "b": 2}, "r2": {"a": 3, "b": 4}}, npartitions=1,
                          orient="index")
    assert isinstance(z._meta, zb.DataFrame) and z.divisions == exp.divisions
    assert_frame_like(z.compute(scheduler="sync"), exp.compute(scheduler="sync"), "from_dict")
    assert_frame_like(zi.compute(scheduler="sync"),
                      pd.DataFrame.from_dict({"r1": {"a": 1, "b": 2}, "r2": {"a": 3, "b": 4}},
                                             orient="index"), "from_dict orient=index")


# -- the device a worker's partitions live on (CPU side; GPU lists stubbed) -------------

_CPU = {"kind": "cpu", "device": "cpu"}
_GPUS = [_CPU, {"kind": "cuda", "device": "cuda:0"}, {"kind": "cuda", "device": "cuda:1"}]


class _FakeWorker:
    class state:  # noqa: N801
        nthreads = 1

    def __init__(self, name):
        self.name = name


@pytest.fixture
def worker_state():
    from zambezi.dask import _workers
    saved = dict(_workers._state)
    yield _workers
    _workers._state.update(saved)


def test_choose_device(worker_state):
    from zambezi.errors import DeviceError, InvalidValueError

    choose = worker_state.choose_device
    assert choose("cpu", 0, _GPUS) == ("cpu", False)
    assert choose("auto", 0, [_CPU]) == ("cpu", False)       # no GPU: the CPU
    assert choose("auto", 3, _GPUS) == ("cuda:1", True)      # one GPU per worker: 3 % 2
    assert choose("cuda", "w-a", _GPUS) == ("cuda:0", False)  # dask-cuda: its only GPU
    with pytest.raises(DeviceError, match="sees no GPU"):
        choose("cuda", 0, [_CPU])
    with pytest.raises(InvalidValueError, match="zambezi.device"):
        choose("gpu", 0, _GPUS)


def test_worker_plugin_honours_config(worker_state, monkeypatch):
    from zambezi.errors import InvalidValueError

    monkeypatch.setattr(zb, "devices", lambda: _GPUS)       # a worker with two GPUs
    with dask.config.set({"zambezi.device": "cpu"}):
        plugin = zdask.threads_plugin(1)
    assert plugin.device == "cpu"
    plugin.setup(_FakeWorker(1))
    assert worker_state._state == {"device": "cpu", "auto": False}
    zdask.threads_plugin(1).setup(_FakeWorker(1))            # no config: "auto"
    assert worker_state._state == {"device": "cuda:1", "auto": True}
    zdask.threads_plugin(1, device="cuda").setup(_FakeWorker(4))
    assert worker_state._state == {"device": "cuda:0", "auto": False}
    with dask.config.set({"zambezi.device": "tpu"}):
        with pytest.raises(InvalidValueError, match="zambezi.device"):
            zdask.threads_plugin(1)
    monkeypatch.setattr(zb, "devices", lambda: [_CPU])
    with dask.config.set({"zambezi.device": "auto"}):
        zdask.threads_plugin(1).setup(_FakeWorker(0))
    assert worker_state._state == {"device": "cpu", "auto": False}


def test_place_and_serializers(worker_state):
    from distributed.protocol import deserialize, serialize

    z = zb.from_pandas(_data(n=50))
    worker_state.set_device("cpu")
    assert worker_state.place(z) is z
    # auto: a partition under the threshold stays on the host (no GPU needed)
    worker_state.set_device("cuda:0", auto=True)
    old = zb.set_auto_threshold(1 << 40)
    try:
        assert worker_state.place(z) is z
        header, frames = serialize(z)
        assert header["serializer"] == "dask" and header["sub-header"]["device"] == "cpu"
        back = deserialize(header, frames)
    finally:
        zb.set_auto_threshold(old)
    assert back.device == "cpu"
    assert_frame_like(back, z.to_pandas(), "serialized partition")
    worker_state.set_device(None)
    assert worker_state.place(z) is z


def test_worker_device_on_cluster(client):
    from zambezi.dask import _workers

    c = distributed.get_client()
    assert zdask.set_worker_threads(c, device="auto") != {}
    states = c.run(lambda: dict(_workers._state))
    expect = "cuda:0" if zb.cuda_available() else "cpu"
    assert [s["device"][:4] for s in states.values()] == [expect[:4]] * 2


def test_pandas_operand_under_the_backend():
    # Dask turns a pandas operand of merge into a collection with its own
    # from_pandas: under the zambezi backend it gets zambezi partitions too
    pdf = _data(seed=12, n=120)
    right = pd.DataFrame({"k": np.arange(6), "w": np.arange(6) * 1.5})
    with dask.config.set({"dataframe.backend": "zambezi"}):
        z = dd.from_pandas(pdf, npartitions=3)
        got = z.merge(right, on="k").compute(scheduler="sync")
    exp = pdf.merge(right, on="k")
    assert isinstance(got, zb.DataFrame)
    assert_frame_like(_sorted_frame(got.to_pandas().set_index(["k", "u", "i"])),
                      _sorted_frame(exp.set_index(["k", "u", "i"])), "merge with pandas")
